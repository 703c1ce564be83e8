#!/usr/bin/python3
"""torch_sparse_bench.py: the sparse embedding-gradient baselines of `tools/outrider compare sparse`,
done by torch.distributed's Gloo backend between the same ranks: all_reduce of a sparse_coo_tensor
holding the rank's rows (what DDP does with nn.Embedding(sparse=True)), and all_reduce of the whole
table as a dense tensor (sparse=False). Each rank touches the same number of distinct rows from the
same Zipf law as outrider-bench sparse. One process per rank, started like torchrun (env:// init);
rank 0 prints the table and writes {"rows": [...], "env": {...}}. Needs Debian's python3-torch, so
run it with /usr/bin/python3.
"""
import argparse
import datetime
import json
import os
import platform
import socket
import statistics
import sys
import time


def env_int(name, default=None):
    value = os.environ.get(name, "")
    if value == "":
        if default is None:
            sys.exit(f"torch_sparse_bench.py: {name} is not set (start ranks like torchrun)")
        return default
    return int(value)


def rate_gbit():
    text = os.environ.get("OUTRIDER_RATE_GBIT", "").strip()
    digits = len(text) - len(text.lstrip("0123456789."))
    try:
        value = float(text[:digits])
    except ValueError:
        return None
    return value if value > 0 else None


def iface_bytes(iface):
    """(tx, rx) bytes of the interface, or None (counts every byte on it, TCP/IP headers included)."""
    try:
        with open(f"/sys/class/net/{iface}/statistics/tx_bytes") as f:
            tx = int(f.read())
        with open(f"/sys/class/net/{iface}/statistics/rx_bytes") as f:
            rx = int(f.read())
        return tx, rx
    except OSError:
        return None


def zipf_ids(torch, rows, count, s, seed, rank):
    """`count` distinct ids from Zipf(s) over [0, rows), row 0 most popular; like outrider-bench."""
    count = min(count, rows)
    cdf = torch.arange(1, rows + 1, dtype=torch.float64).pow(-s).cumsum(0)
    cdf /= cdf[-1].clone()
    g = torch.Generator().manual_seed(seed * 1000003 + rank * 7919 + 1)
    seen = torch.zeros(rows, dtype=torch.bool)
    got = 0
    draws = 0
    while got < count and draws < 64 * count + 1024:
        batch = max(1024, 2 * (count - got))
        ids = torch.searchsorted(cdf, torch.rand(batch, generator=g, dtype=torch.float64)).clamp_(max=rows - 1)
        seen[ids] = True
        got = int(seen.sum())
        draws += batch
    ids = seen.nonzero().flatten()
    if len(ids) > count:  # the last batch overshot: keep a deterministic subset
        ids = ids[torch.randperm(len(ids), generator=g)[:count]].sort().values
    elif len(ids) < count:  # fill from the least popular end, like outrider-bench
        rest = (~seen).nonzero().flatten().flip(0)[: count - len(ids)]
        ids = torch.cat([ids, rest]).sort().values
    return ids


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1000000)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--density", type=float, default=0.01, help="distinct rows per rank / rows")
    p.add_argument("--zipf", type=float, default=1.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--algos", default="sparse,dense", help="sparse (COO all_reduce), dense (whole table)")
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--json")
    p.add_argument("--timeout-s", type=int, default=600)
    args = p.parse_args()
    algos = [a for a in args.algos.split(",") if a]
    for a in algos:
        if a not in ("sparse", "dense"):
            p.error(f"unknown algo '{a}'")
    if not 0 < args.density <= 1 or args.rows < 1 or args.dim < 1 or args.iters < 1:
        p.error("need rows, dim, iters >= 1 and density in (0, 1]")

    rank, world = env_int("RANK"), env_int("WORLD_SIZE")
    env_int("MASTER_PORT")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    nodes = env_int("OUTRIDER_NODES", world)
    netns = os.environ.get("OUTRIDER_NETNS", "0") == "1"
    iface = "eth0" if netns else "lo"
    os.environ["GLOO_SOCKET_IFNAME"] = iface

    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.timeout_s))
    nnz = max(1, round(args.density * args.rows))
    ids = zipf_ids(torch, args.rows, nnz, args.zipf, args.seed, rank)
    values = ((ids.unsqueeze(1) + torch.arange(args.dim)) % 7 + rank).to(torch.float32) * 0.25
    rows_out = []
    for algo in algos:
        times = []
        wire = []
        for i in range(args.warmup + args.iters):
            if algo == "sparse":
                t = torch.sparse_coo_tensor(ids.unsqueeze(0), values, (args.rows, args.dim))
            else:
                t = torch.zeros(args.rows, args.dim, dtype=torch.float32)
                t[ids] = values
            dist.barrier()
            before = iface_bytes(iface) if netns else None
            t0 = time.perf_counter_ns()
            dist.all_reduce(t)
            if algo == "sparse":
                t = t.coalesce()  # what a trainer needs before applying it
            elapsed = (time.perf_counter_ns() - t0) / 1e3
            after = iface_bytes(iface) if netns else None
            if i >= args.warmup:
                times.append(elapsed)
                if before and after:
                    wire.append((after[0] - before[0], after[1] - before[1]))
        union = int(t._nnz()) if algo == "sparse" else int((t.abs().sum(1) > 0).sum())
        if rank == 0:
            med = statistics.median(times)
            row = {"system": "torch-gloo", "op": "sparse_allreduce", "algo": algo,
                   "bytes": args.rows * args.dim * 4, "rows": args.rows, "dim": args.dim, "nnz_per_rank": nnz,
                   "zipf": args.zipf, "union_rows": union, "time_us": med, "nodes": nodes, "ranks": world,
                   "iters": args.iters, "rate_gbit": rate_gbit()}
            if wire:
                row["wire_bytes_sent"] = statistics.median(w[0] for w in wire)
                row["wire_bytes_recv"] = statistics.median(w[1] for w in wire)
                row["wire_counted_at"] = "interface (TCP/IP headers included)"
            rows_out.append(row)
            print(f"  torch-gloo {algo:<8} {med:14.1f} us  union {union} rows"
                  + (f"  iface tx {row['wire_bytes_sent']:.0f} B" if wire else ""), flush=True)
    dist.destroy_process_group()
    if rank == 0 and args.json:
        env = {"host": socket.gethostname(), "python": platform.python_version(), "torch": torch.__version__,
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        with open(args.json, "w") as f:
            json.dump({"rows": rows_out, "env": env}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
