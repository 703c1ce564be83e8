#!/usr/bin/python3
"""A word-level language model trained with DistributedDataParallel: the example of the outrider
torch.distributed backend, and the workload of `tools/outrider compare train`.

The model predicts the next word from the previous --context words: their embeddings (a
--vocab x --dim table, most of the parameters) are averaged, pass a hidden layer, and a softmax
over the --classes most frequent words (the rest share one "other" class) scores the next word.
With --sparse on, the embedding is nn.Embedding(sparse=True) and DDP synchronizes only the rows a
step touched; with --sparse off, DDP allreduces the whole table every step.

Text: the copyright files Debian packages install (/usr/share/doc/*/copyright: ~2 M words of real
English on a typical system), tokenized by whitespace, vocabulary capped at the most frequent
--vocab words; --corpus names other files; without any text, ids are drawn from a Zipf law.

Run it as every rank of a job (torchrun's environment), e.g. on 4 emulated nodes:
    tools/outrider run --nodes 4 --rate 2gbit -- /usr/bin/python3 tools/examples/train_lm.py --backend outrider
(The outrider backend: installed with pip install --no-build-isolation ., or build/python on
PYTHONPATH.) Rank 0 prints the loss and the
step time; --json writes per-step losses, times and whether the parameters ended up bitwise equal
on every rank.
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def load_corpus(paths, vocab, max_words):
    """Token ids (most frequent word = 0) of the corpus, or None without text."""
    words = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                words.extend(f.read().split())
        except OSError:
            continue
        if len(words) >= max_words:
            break
    words = words[:max_words]
    if len(words) < 10000:
        return None, 0
    counts = collections.Counter(words)
    ranked = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: vocab - 1]]
    index = {w: i for i, w in enumerate(ranked)}
    unk = len(ranked)  # every word outside the vocabulary
    return torch.tensor([index.get(w, unk) for w in words], dtype=torch.int64), len(counts)


def zipf_stream(vocab, n, seed):
    g = torch.Generator().manual_seed(seed)
    weights = 1.0 / torch.arange(1, vocab + 1, dtype=torch.float64) ** 1.05
    return torch.multinomial(weights, n, replacement=True, generator=g)


class LanguageModel(nn.Module):
    def __init__(self, vocab, dim, hidden, classes, sparse):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, sparse=sparse)
        self.hidden = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, context):
        return self.out(torch.tanh(self.hidden(self.embedding(context).mean(dim=1))))


def params_digest(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    return h.digest()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=("outrider", "gloo"), default="outrider", help="torch.distributed backend")
    p.add_argument("--sparse", choices=("on", "off"), default="on", help="sparse embedding gradients (default on)")
    p.add_argument("--steps", type=int, default=100, help="training steps (default 100)")
    p.add_argument("--warmup", type=int, default=3, help="steps left out of the timing (default 3)")
    p.add_argument("--batch", type=int, default=256, help="examples per rank and step (default 256)")
    p.add_argument("--context", type=int, default=8, help="previous words per example (default 8)")
    p.add_argument("--vocab", type=int, default=100000, help="embedding rows: vocabulary cap (default 100000)")
    p.add_argument("--dim", type=int, default=128, help="embedding width (default 128)")
    p.add_argument("--hidden", type=int, default=128, help="hidden layer width (default 128)")
    p.add_argument("--classes", type=int, default=1000, help="next-word classes: most frequent words + other (default 1000)")
    p.add_argument("--lr", type=float, default=0.5, help="SGD learning rate (default 0.5)")
    p.add_argument("--corpus", nargs="*", help="text files (default: /usr/share/doc/*/copyright)")
    p.add_argument("--max-words", type=int, default=2_000_000, help="corpus words read at most (default 2000000)")
    p.add_argument("--demand", action="store_true", help="outrider: announce each next batch's ids (row demand)")
    p.add_argument("--overlap", action="store_true",
                   help="outrider, sparse on: the embedding is synchronized outside DDP with row demand; the next "
                        "step starts once the rows it looks up are updated, the other rows' sync overlaps it "
                        "(the same SGD updates, applied in the same order per row)")
    p.add_argument("--ddp", choices=("plain", "shared"), default="plain",
                   help="outrider: plain DistributedDataParallel (the default, the same code as for gloo: its "
                        "buckets are born in memory shared with the agent all the same) or "
                        "outrider_torch.shared_ddp (also the smallest buckets, and gradients as bucket views)")
    p.add_argument("--json", help="rank 0 writes the run's summary here")
    args = p.parse_args()
    if args.steps <= args.warmup or args.batch < 1 or args.context < 1 or args.vocab < 2 or args.classes < 2:
        p.error("need --steps > --warmup and positive sizes")
    if args.overlap and (args.backend != "outrider" or args.sparse != "on"):
        p.error("--overlap needs --backend outrider and --sparse on")

    if args.backend == "outrider":
        try:
            import outrider_torch
        except ImportError as e:
            sys.exit(f"train_lm: the outrider backend is not importable ({e}); install it "
                     "(pip install --no-build-isolation .) or put build/python on PYTHONPATH")
    if "GLOO_SOCKET_IFNAME" not in os.environ and "OUTRIDER_NETNS" in os.environ:
        # Under tools/outrider run: the emulated nodes' interface (gloo would pick loopback).
        os.environ["GLOO_SOCKET_IFNAME"] = "eth0" if os.environ["OUTRIDER_NETNS"] == "1" else "lo"
    torch.set_num_threads(1)
    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    pg = outrider_torch.backend() if args.backend == "outrider" else None

    paths = args.corpus if args.corpus else sorted(glob.glob("/usr/share/doc/*/copyright"))
    stream, distinct = load_corpus(paths, args.vocab, args.max_words)
    source = "text"
    if stream is None:
        stream, distinct, source = zipf_stream(args.vocab, args.max_words, 7), args.vocab, "zipf"
    vocab = args.vocab  # table rows, whatever the corpus fills
    classes = min(args.classes, vocab)
    n = stream.numel() - args.context - 1

    torch.manual_seed(0)
    model = LanguageModel(vocab, args.dim, args.hidden, classes, args.sparse == "on")
    if args.overlap:
        # DDP keeps the dense layers; the embedding's gradient goes through sparse_allreduce below.
        nn.parallel.DistributedDataParallel._set_params_and_buffers_to_ignore_for_model(model, ["embedding.weight"])
    if args.backend == "outrider" and args.ddp == "shared":
        ddp = outrider_torch.shared_ddp(model)
    else:
        ddp = nn.parallel.DistributedDataParallel(model)
    dense = [p for name, p in model.named_parameters() if not (args.overlap and name == "embedding.weight")]
    opt = torch.optim.SGD(dense, lr=args.lr)
    table = model.embedding.weight
    pending = None  # overlap: the previous step's embedding sync (its demanded rows already applied)

    def apply(rows):
        """SGD on the embedding rows of a summed sparse gradient (what SGD does with a sparse grad)."""
        with torch.no_grad():
            table.index_add_(0, rows.indices()[0], rows.values(), alpha=-args.lr)
    gen = torch.Generator().manual_seed(1000 + rank)
    offsets = torch.arange(args.context + 1)

    def batch():
        starts = torch.randint(0, n, (args.batch,), generator=gen)
        window = stream[starts.unsqueeze(1) + offsets]
        target = window[:, -1].clamp(max=classes - 1)
        return window[:, :-1], target

    if rank == 0:
        params = sum(p.numel() for p in model.parameters())
        print(f"# train_lm: {args.backend}, sparse {args.sparse}, {world} ranks; {source} corpus of {stream.numel()} words "
              f"({distinct} distinct), table {vocab} x {args.dim} ({model.embedding.weight.numel() / params:.0%} of "
              f"{params} parameters), batch {args.batch} x {args.context}, {args.steps} steps", flush=True)
    losses, times, phases = [], [], []
    x, y = batch()
    copies = None  # the backend's copy counters when the timed steps begin
    for step in range(args.steps):
        if step == args.warmup and args.backend == "outrider":
            copies = outrider_torch.copy_counters()
        nx, ny = batch()
        if args.demand and args.backend == "outrider":
            outrider_torch.demand(nx)
        t0 = time.perf_counter()
        opt.zero_grad()
        table.grad = None
        loss = F.cross_entropy(ddp(x), y)
        t1 = time.perf_counter()
        loss.backward()  # returns once DDP's allreduces are done
        t2 = time.perf_counter()
        opt.step()
        if args.overlap:
            # Rows this step's forward did not read: the previous sync's rest, done meanwhile.
            if pending is not None:
                apply(pending.wait_rest())
            grad = table.grad.coalesce() / world  # DDP averages gradients the same way
            pending = pg.sparse_allreduce(grad, nx.flatten())
            apply(pending.wait_demanded())  # the rows the next step reads
        t3 = time.perf_counter()
        times.append(t3 - t0)
        phases.append((t1 - t0, t2 - t1, t3 - t2))
        losses.append(loss.item())
        x, y = nx, ny
        if rank == 0 and (step % 10 == 0 or step == args.steps - 1):
            print(f"  step {step:4d}  loss {loss.item():.4f}  {times[-1] * 1e3:8.1f} ms", flush=True)

    copied = None
    if copies is not None:  # per timed step: bytes the backend copied into and out of shared memory
        now = outrider_torch.copy_counters()
        copied = {k: (now[k] - copies[k]) / (args.steps - args.warmup) for k in now}
    # Local compute alone (forward + backward + step on a copy, no communication), measured by
    # every rank at once after training (the same CPU contention as during it): what a step would
    # take without the network. Exposed communication = step time - this.
    dist.barrier()
    local = LanguageModel(vocab, args.dim, args.hidden, classes, args.sparse == "on")
    local.load_state_dict(model.state_dict())
    local_opt = torch.optim.SGD(local.parameters(), lr=args.lr)
    cgen = torch.Generator().manual_seed(5000 + rank)
    compute = []
    for _ in range(12):
        starts = torch.randint(0, n, (args.batch,), generator=cgen)
        w = stream[starts.unsqueeze(1) + offsets]
        t0 = time.perf_counter()
        local_opt.zero_grad()
        F.cross_entropy(local(w[:, :-1]), w[:, -1].clamp(max=classes - 1)).backward()
        local_opt.step()
        compute.append(time.perf_counter() - t0)
    del local, local_opt
    compute_s = statistics.median(compute[2:])

    if pending is not None:
        apply(pending.wait_rest())
    digest = torch.tensor(list(params_digest(model)), dtype=torch.int64)
    digests = [torch.empty_like(digest) for _ in range(world)]
    dist.all_gather(digests, digest)
    identical = all(torch.equal(d, digests[0]) for d in digests)
    timed = times[args.warmup:]
    step_s = statistics.median(timed)
    fwd, bwd, upd = (statistics.median(p[i] for p in phases[args.warmup:]) for i in range(3))
    if rank == 0:
        print(f"# median step {step_s * 1e3:.1f} ms (local compute {compute_s * 1e3:.1f} ms, exposed communication "
              f"{max(0.0, step_s - compute_s) * 1e3:.1f} ms; forward {fwd * 1e3:.1f}, backward with DDP sync {bwd * 1e3:.1f}, "
              f"optimizer {upd * 1e3:.1f} ms); final loss {losses[-1]:.4f}; parameters "
              f"{'bitwise identical' if identical else 'DIFFER'} across ranks", flush=True)
        if copied is not None:
            print(f"# copies per step ({args.ddp} DDP): {copied['bytes_in'] / 1e6:.3f} MB into shared memory, "
                  f"{copied['bytes_out'] / 1e6:.3f} MB out; {copied['tensors_staged']:.1f} tensors staged, "
                  f"{copied['tensors_in_place']:.1f} used in place", flush=True)
        if args.json:
            row = {"system": "outrider" if args.backend == "outrider" else "torch-gloo",
                   "algo": "sparse" if args.sparse == "on" else "dense", "op": "train_step",
                   "time_us": step_s * 1e6, "compute_us": compute_s * 1e6, "comm_us": max(0.0, step_s - compute_s) * 1e6,
                   "forward_us": fwd * 1e6, "backward_us": bwd * 1e6, "optimizer_us": upd * 1e6,
                   "step_times_us": [t * 1e6 for t in times], "losses": losses, "params_identical": identical,
                   "params_sha256": params_digest(model).hex(),
                   "ranks": world, "steps": args.steps, "batch": args.batch, "context": args.context, "vocab": vocab,
                   "copies_per_step": copied, "dim": args.dim, "corpus": source, "corpus_words": int(stream.numel()), "demand": bool(args.demand)}
            if args.backend == "outrider" and args.sparse == "on":
                row["sparse_algo_ran"] = outrider_torch.last_sparse_algo()
            if args.overlap:
                row["algo"] = "overlap"
                row["overlap"] = True
            with open(args.json, "w") as f:
                json.dump({"rows": [row]}, f)
    dist.destroy_process_group()
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
