#!/usr/bin/python3
"""A DDP job that loses a rank and keeps training: the example of outrider's generations
(docs/elastic.md).

Each rank runs a supervisor (as torchrun's agent would) that starts the trainer. The model is an
nn.Embedding(sparse=True) table and a small dense head under DistributedDataParallel, trained with
Adagrad (which keeps state per parameter). At step --kill-step the trainer of rank --kill-rank
SIGKILLs itself. The survivors' next op fails with PEER_LOST; they call
outrider_torch.reconfigure(), wrap the model in DDP again (which broadcasts rank 0's parameters)
and go on as a job of one rank fewer. The dead rank's supervisor starts a replacement, which calls
outrider_torch.join(); the others check outrider_torch.membership_changed() every step, re-form to
admit it, and rank 0 sends it the optimizer state and the step. The job ends back at its size.

Run it on 4 emulated nodes at 2 Gbit/s:
    tools/outrider run --nodes 4 --rate 2gbit -- /usr/bin/python3 tools/examples/elastic_train.py
It prints, per change: how long from the kill to the survivors' first completed op of the new
generation, from the replacement's start to its first op, and every rank's digest of the
parameters and optimizer state (bitwise equal on every rank, or it says so and exits 1).
"""
import argparse
import hashlib
import os
import signal
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=300, help="steps to train (default 300)")
    p.add_argument("--vocab", type=int, default=50000, help="embedding rows (default 50000)")
    p.add_argument("--dim", type=int, default=64, help="embedding width (default 64)")
    p.add_argument("--batch", type=int, default=256, help="lookups per rank per step (default 256)")
    p.add_argument("--kill-rank", type=int, default=2, help="the rank whose trainer dies (default 2; -1: none)")
    p.add_argument("--kill-step", type=int, default=20, help="the step it dies at (default 20)")
    p.add_argument("--no-replace", action="store_true",
                   help="start no replacement (else training goes past --steps until the job is back to its size, "
                        "at most 10 x --steps)")
    p.add_argument("--expect-generation", type=int, default=None,
                   help="exit 1 unless the job ends in this generation")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds the agents may take to re-form (default 30)")
    p.add_argument("--run-dir", default=None, help="where the trainers leave their timestamps (default: a temporary directory per job)")
    # Internal: the supervisor starts the trainer with these.
    p.add_argument("--trainer", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--join", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args()


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, sparse=True)
        self.head = nn.Linear(dim, 16)

    def forward(self, ids):
        return self.head(self.emb(ids).mean(dim=1))


def digest(model, opt):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
        for v in opt.state[p].values():
            if torch.is_tensor(v):
                h.update(v.detach().to_dense().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def batch(step, rank, world, args):
    g = torch.Generator().manual_seed(1000003 * step + rank)
    ids = torch.randint(0, args.vocab, (args.batch, 4), generator=g)
    target = torch.randint(0, 16, (args.batch,), generator=g)
    return ids, target


def stamp(args, name, value=None):
    with open(os.path.join(args.run_dir, name), "w") as f:
        f.write(repr(time.time() if value is None else value))


def read_stamp(args, name):
    try:
        with open(os.path.join(args.run_dir, name)) as f:
            return float(f.read())
    except OSError:
        return None


def agree(model, opt, step, joined):
    """After a new generation: DDP again (rank 0's parameters), rank 0's optimizer state and step
    to every rank (a joiner has none). Returns the DDP module and the step."""
    ddp = nn.parallel.DistributedDataParallel(model)  # broadcasts rank 0's parameters
    t = torch.tensor([step], dtype=torch.int64)
    dist.broadcast(t, 0)
    for p in model.parameters():
        st = opt.state[p]
        if not st:  # a joiner: Adagrad's state, to be overwritten by rank 0's
            st["step"] = torch.tensor(0.0)
            st["sum"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        for k in sorted(st):
            v = st[k]
            if not torch.is_tensor(v):
                v = st[k] = torch.tensor(float(v))
            dist.broadcast(v, 0)
    return ddp, int(t.item())


def all_equal(model, opt):
    """Collective: whether every rank's parameters and optimizer state are bitwise rank 0's."""
    d = torch.tensor(list(bytes.fromhex(digest(model, opt))), dtype=torch.uint8)
    ds = [torch.zeros_like(d) for _ in range(dist.get_world_size())]
    dist.all_gather(ds, d)
    return all(torch.equal(x, ds[0]) for x in ds)


def train(args):
    import outrider_torch

    # A replacement counts from when its supervisor started it (interpreter and imports included).
    t_start = float(os.environ.get("OUTRIDER_ELASTIC_STARTED", time.time()))
    if args.join:
        m = outrider_torch.join(timeout=max(args.timeout, 120.0))
    else:
        dist.init_process_group("outrider")
        m = outrider_torch.membership()
    torch.manual_seed(0)
    model = Model(args.vocab, args.dim)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
    step = 0
    ddp, step = agree(model, opt, step, args.join)
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.join:
        print(f"[joiner] rank {rank}/{world} of generation {m['generation']}: first op "
              f"{time.time() - t_start:.2f} s after it started; digest {digest(model, opt)}", flush=True)
    differed = not all_equal(model, opt)
    original_rank = int(os.environ.get("RANK", "-1"))
    original_world = int(os.environ.get("WORLD_SIZE", str(world)))

    def more(step):
        # Every rank decides alike: the step and the world size are the same on all of them.
        back = args.no_replace or args.join or dist.get_world_size() >= original_world
        return step < args.steps or (not back and step < 10 * args.steps)

    while more(step):
        try:
            if (not args.join and original_rank == args.kill_rank and step == args.kill_step
                    and m["generation"] == 0):
                stamp(args, "killed")
                os.kill(os.getpid(), signal.SIGKILL)
            ids, target = batch(step, rank, world, args)
            opt.zero_grad()
            loss = F.cross_entropy(ddp(ids), target)
            loss.backward()
            opt.step()
            step += 1
            if outrider_torch.membership_changed():
                raise RuntimeError("a joiner waits")
        except RuntimeError as e:
            t0 = time.time()
            reason = str(e).splitlines()[0][:100]
            m = outrider_torch.reconfigure(timeout=args.timeout)
            ddp, step = agree(model, opt, step, False)
            t1 = time.time()
            rank, world = dist.get_rank(), dist.get_world_size()
            killed = read_stamp(args, "killed")
            since = f"{t1 - killed:.2f} s after the kill" if killed and "joiner" not in reason else \
                f"{t1 - t0:.2f} s after it asked"
            equal = all_equal(model, opt)
            differed = differed or not equal
            print(f"[gen {m['generation']}] rank {rank}/{world} from step {step}: first op {since} "
                  f"({reason}); digest {digest(model, opt)}, "
                  f"{'bitwise equal on every rank' if equal else 'DIFFERS between ranks'}", flush=True)
    # Every rank's digest, gathered at rank 0.
    d = torch.tensor(list(bytes.fromhex(digest(model, opt))), dtype=torch.uint8)
    ds = [torch.zeros_like(d) for _ in range(world)]
    dist.all_gather(ds, d)
    if rank == 0:
        equal = all(torch.equal(x, ds[0]) for x in ds)
        print(f"done: {world} ranks, generation {m['generation']}, step {step}; parameters and "
              f"optimizer state {'bitwise equal on every rank' if equal else 'DIFFER'} "
              f"({bytes(ds[0].tolist()).hex()})", flush=True)
        if not equal or differed:
            return 1
        if args.expect_generation is not None and m["generation"] != args.expect_generation:
            print(f"expected to end in generation {args.expect_generation}", flush=True)
            return 1
    dist.destroy_process_group()
    return 0


def supervise(args):
    """Runs the trainer; if it is SIGKILLed, starts one replacement that joins the job."""
    rank = int(os.environ.get("RANK", "0"))
    if args.run_dir is None:
        args.run_dir = os.path.join("/tmp", "outrider-elastic-" + os.environ.get("OUTRIDER_JOB_ID", "job"))
    os.makedirs(args.run_dir, exist_ok=True)
    base = [sys.executable, os.path.abspath(__file__), "--trainer", "--run-dir", args.run_dir] + sys.argv[1:]
    rc = subprocess.call(base)
    if rc == -signal.SIGKILL and not args.no_replace:
        print(f"[supervisor of rank {rank}] trainer killed; starting a replacement", flush=True)
        env = dict(os.environ, OUTRIDER_ELASTIC_STARTED=repr(time.time()))
        rc = subprocess.call(base + ["--join"], env=env)
    return rc


def main():
    args = parse_args()
    if args.trainer:
        return train(args)
    return supervise(args)


if __name__ == "__main__":
    sys.exit(main())
