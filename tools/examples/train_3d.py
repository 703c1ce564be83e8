#!/usr/bin/python3
"""A transformer language model trained with pipeline, tensor and data parallelism at once: the
3D-parallel example of the outrider torch.distributed backend, and the workload of
`tools/outrider compare train3d`.

The model (the word-LM's data, tools/examples/train_lm.py) is a decoder-only transformer cut into
--stages pipeline stages (the embedding and the first half of the blocks, the rest and the
output layer), each stage split --tp ways Megatron-style (attention heads and the MLP's hidden
units column-parallel, their output projections row-parallel: one allreduce of the activations per
half-block forward and one backward, inside the stage's tensor-parallel group), and the whole
replicated --dp ways (each stage's gradients averaged across the replicas by its data-parallel
group). Micro-batches run the 1F1B schedule: activations forward and their gradients backward go
point to point between the stages (isend/irecv). A stage's data-parallel allreduces start as soon
as its last micro-batch's backward has made a parameter's gradient final (as DDP overlaps them),
so they meet the last backward messages on the links.

Ranks: rank = dp * stages * tp + stage * tp + t, so the tensor-parallel ranks of a stage are
neighbours (run --procs-per-node tp: they share a node, as tensor parallelism wants). 8 ranks by
default, e.g. on 4 emulated nodes:
    tools/outrider run --nodes 4 --procs-per-node 2 --rate 500mbit -- \\
        /usr/bin/python3 tools/examples/train_3d.py --backend outrider
The same script runs on gloo (--backend gloo): losses agree within float tolerance, and the
replicas' parameters are compared at the end. Rank 0 prints the loss and the step time, and where
a step's time goes: compute, and the time the ranks waited for pipeline messages, for
tensor-parallel allreduces and for data-parallel allreduces (exposed communication), and each
message's own exposed time (its wait past the moment both sides were ready: f0.. forward, b0..
backward). --json writes the summary.

Priorities (outrider): by default the agents send pipeline messages first, then collectives of at
most 512 KiB (the tensor-parallel activations), then the gradient buckets; --one-priority gives
every group the same priority instead (outrider_torch.set_priority), to see what ordering does.
"""
import argparse
import collections
import glob
import hashlib
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_lm import load_corpus, zipf_stream  # noqa: E402  (the word-LM's data)


class Clock:
    """Seconds this rank spent waiting for each kind of communication in the current step."""

    def __init__(self):
        self.waits = {"p2p": 0.0, "tp": 0.0, "dp": 0.0}

    def wait(self, kind, work):
        t0 = time.perf_counter()
        work.wait()
        self.waits[kind] += time.perf_counter() - t0

    def call(self, kind, fn):
        t0 = time.perf_counter()
        fn()
        self.waits[kind] += time.perf_counter() - t0


clock = Clock()
tp_group = None


class CopyToTP(torch.autograd.Function):
    """Identity forward; allreduce of the gradient in the tensor-parallel group backward (f)."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.contiguous()
        clock.call("tp", lambda: dist.all_reduce(g, group=tp_group))
        return g


class ReduceFromTP(torch.autograd.Function):
    """Allreduce of the partial sums forward (g); identity backward."""

    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        clock.call("tp", lambda: dist.all_reduce(x, group=tp_group))
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class Block(nn.Module):
    """A pre-norm transformer block holding 1/tp of the heads and of the MLP's hidden units."""

    def __init__(self, dim, heads, ffn, tp):
        super().__init__()
        self.heads, self.head_dim = heads // tp, dim // heads
        local = self.heads * self.head_dim
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * local)  # column-parallel
        self.proj = nn.Linear(local, dim, bias=False)  # row-parallel: the sum over ranks
        self.proj_bias = nn.Parameter(torch.zeros(dim))  # added once, after the sum
        self.fc1 = nn.Linear(dim, ffn // tp)  # column-parallel
        self.fc2 = nn.Linear(ffn // tp, dim, bias=False)  # row-parallel
        self.fc2_bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        b, s, _ = x.shape
        h = CopyToTP.apply(self.norm1(x))
        q, k, v = self.qkv(h).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        mask = torch.ones(s, s, dtype=torch.bool).triu(1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        out = (att @ v).transpose(1, 2).reshape(b, s, -1)
        x = x + ReduceFromTP.apply(self.proj(out)) + self.proj_bias
        h = CopyToTP.apply(self.norm2(x))
        return x + ReduceFromTP.apply(self.fc2(F.gelu(self.fc1(h)))) + self.fc2_bias


class Stage(nn.Module):
    """One pipeline stage: the embedding first, the output layer last, blocks between."""

    def __init__(self, stage, stages, args):
        super().__init__()
        torch.manual_seed(0)  # every rank builds the whole model alike, then keeps its part
        per = args.layers // stages
        self.first, self.last = stage == 0, stage == stages - 1
        emb = nn.Embedding(args.vocab, args.dim)
        pos = nn.Parameter(torch.randn(args.seq, args.dim) * 0.02)
        blocks = []
        for i in range(args.layers):
            torch.manual_seed(100 + i * args.tp + tp_rank)  # each tensor-parallel rank its own shard
            blocks.append(Block(args.dim, args.heads, args.ffn, args.tp))
        torch.manual_seed(1)
        norm, head = nn.LayerNorm(args.dim), nn.Linear(args.dim, args.classes)
        if self.first:
            self.emb, self.pos = emb, pos
        self.blocks = nn.ModuleList(blocks[stage * per:(stage + 1) * per])
        if self.last:
            self.norm, self.head = norm, head

    def forward(self, x):
        if self.first:
            x = self.emb(x) + self.pos
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x)) if self.last else x


def main():
    global tp_group, tp_rank
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=("outrider", "gloo"), default="outrider", help="torch.distributed backend")
    p.add_argument("--stages", type=int, default=2, help="pipeline stages (default 2)")
    p.add_argument("--tp", type=int, default=2, help="tensor-parallel ranks per stage (default 2)")
    p.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="steps left out of the timing (default 3)")
    p.add_argument("--micro", type=int, default=4, help="micro-batches per step (default 4)")
    p.add_argument("--micro-batch", type=int, default=8, help="sequences per micro-batch (default 8)")
    p.add_argument("--seq", type=int, default=32, help="words per sequence (default 32)")
    p.add_argument("--vocab", type=int, default=16000, help="embedding rows: vocabulary cap (default 16000)")
    p.add_argument("--classes", type=int, default=1000, help="output classes: most frequent words + other (default 1000)")
    p.add_argument("--dim", type=int, default=128, help="model width (default 128)")
    p.add_argument("--heads", type=int, default=4, help="attention heads (default 4)")
    p.add_argument("--ffn", type=int, default=512, help="MLP hidden units (default 512)")
    p.add_argument("--layers", type=int, default=4, help="transformer blocks (default 4)")
    p.add_argument("--lr", type=float, default=0.05, help="SGD learning rate (default 0.05)")
    p.add_argument("--max-words", type=int, default=2_000_000, help="corpus words read at most (default 2000000)")
    p.add_argument("--one-priority", action="store_true",
                   help="outrider: every group at one priority (outrider_torch.set_priority), not the defaults")
    p.add_argument("--no-dp-sync", action="store_true",
                   help="measurement only: the replicas do not average their gradients (they drift apart), so "
                        "the pipeline's messages run without the data-parallel traffic beside them")
    p.add_argument("--json", help="rank 0 writes the run's summary here")
    args = p.parse_args()
    if args.steps <= args.warmup or args.micro < args.stages or args.layers % args.stages or \
            args.heads % args.tp or args.ffn % args.tp or args.dim % args.heads:
        p.error("need --steps > --warmup, --micro >= --stages, and --layers, --heads, --ffn divisible "
                "by --stages, --tp, --tp (and --dim by --heads)")

    if args.backend == "outrider":
        try:
            import outrider_torch
        except ImportError as e:
            sys.exit(f"train_3d: the outrider backend is not importable ({e}); install it "
                     "(pip install --no-build-isolation .) or put build/python on PYTHONPATH")
    if "GLOO_SOCKET_IFNAME" not in os.environ and "OUTRIDER_NETNS" in os.environ:
        os.environ["GLOO_SOCKET_IFNAME"] = "eth0" if os.environ["OUTRIDER_NETNS"] == "1" else "lo"
    torch.set_num_threads(1)
    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    per_replica = args.stages * args.tp
    if world % per_replica:
        sys.exit(f"train_3d: {world} ranks do not make whole replicas of {args.stages} stages x {args.tp}")
    dp = world // per_replica
    replica, stage, tp_rank = rank // per_replica, (rank % per_replica) // args.tp, rank % args.tp

    def at(r, s, t):
        return r * per_replica + s * args.tp + t

    # Every rank makes every group, in one order (torch.distributed's rule); it keeps its own.
    for r in range(dp):
        for s in range(args.stages):
            g = dist.new_group([at(r, s, t) for t in range(args.tp)])
            if (r, s) == (replica, stage):
                tp_group = g
    dp_group = pp_group = None
    for s in range(args.stages):
        for t in range(args.tp):
            g = dist.new_group([at(r, s, t) for r in range(dp)])
            if (s, t) == (stage, tp_rank):
                dp_group = g
    for r in range(dp):
        for t in range(args.tp):
            g = dist.new_group([at(r, s, t) for s in range(args.stages)])
            if (r, t) == (replica, tp_rank):
                pp_group = g
    if args.backend == "outrider" and args.one_priority:
        for g in (tp_group, dp_group, pp_group):
            outrider_torch.set_priority(500, g)
    prev = stage - 1 if stage > 0 else None  # the neighbouring stages
    nxt = stage + 1 if stage < args.stages - 1 else None

    stream, distinct = load_corpus(sorted(glob.glob("/usr/share/doc/*/copyright")), args.vocab, args.max_words)
    source = "text"
    if stream is None:
        stream, distinct, source = zipf_stream(args.vocab, args.max_words, 7), args.vocab, "zipf"
    n = stream.numel() - args.seq - 1
    model = Stage(stage, args.stages, args)
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=args.lr)
    gen = torch.Generator().manual_seed(1000 + replica)  # the replica's data; its ranks draw alike
    offsets = torch.arange(args.seq + 1)
    shape = (args.micro_batch, args.seq, args.dim)

    # Data-parallel sync, overlapped: during the last micro-batch's backward each parameter's
    # gradient hook adds its final contribution and starts the allreduce of the sum at once.
    dp_works = {}
    last_micro = [False]

    def hook_for(param):
        def hook(grad):
            if last_micro[0] and dp > 1 and not args.no_dp_sync:
                total = grad if param.grad is None else param.grad + grad
                total = total.contiguous()
                dp_works[param] = (total, dist.all_reduce(total, group=dp_group, async_op=True))
            return grad
        return hook

    for q in params:
        q.register_hook(hook_for(q))

    def forward_micro(inputs, targets):
        out = model(inputs)
        if model.last:
            return F.cross_entropy(out.reshape(-1, args.classes), targets.reshape(-1)) / args.micro
        return out

    losses, times, splits = [], [], []
    # When each message was sent and each receive posted and done (this host's monotonic clock,
    # which every rank of an emulated cluster shares): how long a receiver waited past the moment
    # both sides were ready is the message's own exposed time, apart from waiting for the other
    # stage's compute.
    posted, received = {}, {}
    for step in range(args.steps):
        starts = torch.randint(0, n, (args.micro * args.micro_batch,), generator=gen)
        window = stream[starts.unsqueeze(1) + offsets].view(args.micro, args.micro_batch, args.seq + 1)
        micro_in, micro_tg = window[:, :, :-1], window[:, :, 1:].clamp(max=args.classes - 1)
        clock.waits = {"p2p": 0.0, "tp": 0.0, "dp": 0.0}
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        dp_works.clear()
        kept = {}  # micro-batch -> (its input, if received, and its output)
        loss_sum = 0.0
        pending_sends = []

        def send(t, dst, name):
            posted[(step, name, rank, dst)] = time.perf_counter()
            pending_sends.append(dist.isend(t.contiguous(), dst=dst, group=pp_group))

        def recv(t, src, name):
            t0 = time.perf_counter()
            clock.wait("p2p", dist.irecv(t, src=src, group=pp_group))
            received[(step, name, src, rank)] = (t0, time.perf_counter())

        def run_forward(m):
            nonlocal loss_sum
            if prev is None:
                x = micro_in[m]
            else:
                x = torch.empty(shape)
                recv(x, at(replica, prev, tp_rank), f"f{m}")
                x.requires_grad_(True)
            out = forward_micro(x, micro_tg[m])
            if nxt is not None:
                send(out.detach(), at(replica, nxt, tp_rank), f"f{m}")
            else:
                loss_sum += out.item()
            kept[m] = (x, out)

        def run_backward(m):
            x, out = kept.pop(m)
            last_micro[0] = m == args.micro - 1
            if nxt is None:
                out.backward()
            else:
                g = torch.empty(shape)
                recv(g, at(replica, nxt, tp_rank), f"b{m}")
                out.backward(g)
            if prev is not None:
                send(x.grad, at(replica, prev, tp_rank), f"b{m}")

        # 1F1B: warm-up forwards, then one forward and one backward each, then the remaining
        # backwards.
        warm = min(args.stages - stage - 1, args.micro)
        fwd = bwd = 0
        for _ in range(warm):
            run_forward(fwd)
            fwd += 1
        while fwd < args.micro:
            run_forward(fwd)
            fwd += 1
            run_backward(bwd)
            bwd += 1
        while bwd < args.micro:
            run_backward(bwd)
            bwd += 1
        for w in pending_sends:
            clock.wait("p2p", w)
        for q, (total, work) in dp_works.items():
            clock.wait("dp", work)
            q.grad = total / dp
        opt.step()
        t1 = time.perf_counter()
        times.append(t1 - t0)
        splits.append(dict(clock.waits))
        if model.last:
            losses.append(loss_sum)
        if rank == 0 and (step % 5 == 0 or step == args.steps - 1):
            print(f"  step {step:4d}  {times[-1] * 1e3:8.1f} ms", flush=True)

    # The loss lives on the last stage: its first rank reports to rank 0.
    loss_t = torch.tensor(losses if losses else [0.0] * args.steps, dtype=torch.float64)
    dist.broadcast(loss_t, src=at(0, args.stages - 1, 0))
    # Where a step's time went, per rank (medians over the timed steps), then the mean over ranks.
    timed = slice(args.warmup, None)
    mine = torch.tensor([statistics.median(times[timed])] +
                        [statistics.median(s[k] for s in splits[timed]) for k in ("p2p", "tp", "dp")],
                        dtype=torch.float64)
    sends = [None] * world
    dist.all_gather_object(sends, posted)
    sent_at = {k: v for d in sends for k, v in d.items()}
    transit = collections.defaultdict(float)  # by step
    by_message = collections.defaultdict(list)  # by message of a step (f0, ..., b3): over timed steps
    for (stp, name, src, dst), (t_post, t_done) in received.items():
        ready = max(t_post, sent_at.get((stp, name, src, dst), t_post))
        transit[stp] += max(0.0, t_done - ready)
        if stp >= args.warmup:
            by_message[name].append(max(0.0, t_done - ready))
    everyones = [None] * world
    dist.all_gather_object(everyones, dict(by_message))
    mine = torch.cat([mine, torch.tensor([statistics.median(transit[stp] for stp in range(args.warmup, args.steps))],
                                         dtype=torch.float64)])
    every = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    # Replicas hold equal parameters: compare each rank's digest with its counterpart in replica 0.
    h = hashlib.sha256()
    for q in params:
        h.update(q.detach().contiguous().numpy().tobytes())
    digest = torch.tensor(list(h.digest()), dtype=torch.int64)
    digests = [torch.empty_like(digest) for _ in range(world)]
    dist.all_gather(digests, digest)
    equal = all(torch.equal(digests[r], digests[r % per_replica]) for r in range(world))
    if args.no_dp_sync:
        equal = True  # replicas drift apart by design
    if rank == 0:
        mean = torch.stack(every).mean(dim=0).tolist()
        step_s, p2p_s, tp_s, dp_s, transit_s = mean
        compute_s = max(0.0, step_s - p2p_s - tp_s - dp_s)
        losses = loss_t.tolist()
        print(f"# train_3d: {args.backend}{' (one priority)' if args.one_priority else ''}"
              f"{' (no data-parallel sync)' if args.no_dp_sync else ''}, {world} ranks: "
              f"{dp} replicas x {args.stages} stages x {args.tp} tensor-parallel; {source} corpus; "
              f"{args.micro} micro-batches of {args.micro_batch} x {args.seq}", flush=True)
        print(f"# median step {step_s * 1e3:.1f} ms (mean over ranks): compute {compute_s * 1e3:.1f}, waiting for "
              f"pipeline messages {p2p_s * 1e3:.1f} (of which past both sides being ready {transit_s * 1e3:.1f}), "
              f"tensor-parallel allreduces {tp_s * 1e3:.1f}, data-parallel "
              f"allreduces {dp_s * 1e3:.1f} ms; final loss {losses[-1]:.4f}; replicas' parameters "
              f"{'not synchronized' if args.no_dp_sync else 'bitwise equal' if equal else 'DIFFER'}", flush=True)
        merged = collections.defaultdict(list)
        for d in everyones:
            for name, v in d.items():
                merged[name].extend(v)
        order = sorted(merged, key=lambda k: (k[0] != "f", int(k[1:])))
        by_message_ms = {k: statistics.median(merged[k]) * 1e3 for k in order}
        print("# messages' own exposed time, median over steps and receiving ranks (ms): " +
              ", ".join(f"{k} {v:.1f}" for k, v in by_message_ms.items()), flush=True)
        if args.json:
            row = {"system": "outrider" if args.backend == "outrider" else "torch-gloo",
                   "algo": "one-priority" if args.one_priority else "no-dp-sync" if args.no_dp_sync else "3d",
                   "op": "train3d_step",
                   "time_us": step_s * 1e6, "compute_us": compute_s * 1e6, "p2p_us": p2p_s * 1e6,
                   "tp_us": tp_s * 1e6, "dp_us": dp_s * 1e6, "transit_us": transit_s * 1e6,
                   "transit_by_message_us": {k: v * 1e3 for k, v in by_message_ms.items()}, "comm_us": (p2p_s + tp_s + dp_s) * 1e6,
                   "step_times_us": [t * 1e6 for t in times], "losses": losses, "params_identical": equal,
                   "ranks": world, "replicas": dp, "stages": args.stages, "tp": args.tp, "steps": args.steps,
                   "micro": args.micro, "micro_batch": args.micro_batch, "seq": args.seq, "dim": args.dim,
                   "layers": args.layers, "corpus": source}
            with open(args.json, "w") as f:
                json.dump({"rows": [row]}, f)
    dist.destroy_process_group()
    return 0 if equal else 1


tp_rank = 0

if __name__ == "__main__":
    sys.exit(main())
