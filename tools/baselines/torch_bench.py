#!/usr/bin/python3
"""torch_bench.py: the collectives of outrider-bench done by torch.distributed's Gloo backend (CPU,
f32 sum) between the same ranks, for `tools/outrider compare`. One process per rank, started like
torchrun (env:// init); rank 0 prints nccl-tests columns and writes {"rows": [...], "env": {...}}.
Needs Debian's python3-torch, so run it with /usr/bin/python3.
"""
import argparse
import datetime
import json
import os
import platform
import socket
import sys
import time

OPS = ("allreduce", "broadcast", "allgather", "alltoall")
ELEM = 4  # f32
MAX_ITERS = 100000


def parse_bytes(text):
    units = {"": 1, "B": 1, "K": 1 << 10, "k": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10,
             "M": 1 << 20, "MB": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30}
    digits = len(text) - len(text.lstrip("0123456789"))
    if digits == 0 or text[digits:] not in units:
        raise argparse.ArgumentTypeError(f"bad size '{text}' (use K, M or G)")
    return int(text[:digits]) * units[text[digits:]]


def percentile(values, p):
    v = sorted(values)
    if not v:
        return 0.0
    idx = p / 100.0 * (len(v) - 1)
    lo = int(idx)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (idx - lo)


def bus_factor(op, n):
    if op == "allreduce":
        return 2.0 * (n - 1) / n
    if op in ("allgather", "alltoall"):
        return (n - 1) / n
    return 1.0


def env_int(name, default=None):
    value = os.environ.get(name, "")
    if value == "":
        if default is None:
            sys.exit(f"torch_bench.py: {name} is not set (start ranks with RANK, WORLD_SIZE, MASTER_ADDR, "
                     "MASTER_PORT like torchrun)")
        return default
    try:
        return int(value)
    except ValueError:
        sys.exit(f"torch_bench.py: {name} is not a valid number: '{value}'")


def rate_gbit():
    text = os.environ.get("OUTRIDER_RATE_GBIT", "").strip()
    digits = len(text) - len(text.lstrip("0123456789."))
    try:
        value = float(text[:digits])  # "2", "2.5", "2gbit" all read as numbers
    except ValueError:
        return None
    return value if value > 0 else None


def sizes(args, n):
    """Element counts per row; allgather and alltoall need a multiple of the rank count."""
    granule = n if args.op in ("allgather", "alltoall") else 1
    counts = []
    b = max(args.min_bytes, ELEM)
    while b <= args.max_bytes and len(counts) < 64:
        c = b // ELEM // granule * granule
        if c > 0 and (not counts or counts[-1] != c):
            counts.append(c)
        b *= args.factor
    return counts


class Collective:
    """One collective of `count` floats on preallocated tensors; run() may be called repeatedly.
    Sizes follow nccl-tests: `count` is the whole output (allgather), the whole per-rank send buffer
    (alltoall) or the buffer (allreduce, broadcast)."""

    def __init__(self, torch, dist, op, count, n):
        self.dist, self.op = dist, op
        self.send = torch.empty(count if op != "allgather" else count // n, dtype=torch.float32)
        self.recv = torch.empty(count, dtype=torch.float32)
        self.chunks = list(self.recv.chunk(n)) if op == "allgather" else None
        # Gloo in torch 1.13 has no _allgather_base; all_gather into views of one buffer instead.
        self.gather_into = getattr(dist, "all_gather_into_tensor", None)

    def fill(self, rank):
        self.send.fill_(rank + 1)
        self.recv.fill_(1.0 if self.op == "broadcast" and rank == 0 else 0.0)

    def run(self):
        d = self.dist
        if self.op == "allreduce":
            d.all_reduce(self.send, op=d.ReduceOp.SUM)  # in place
        elif self.op == "broadcast":
            d.broadcast(self.recv, src=0)
        elif self.op == "allgather":
            if self.gather_into is not None:
                try:
                    self.gather_into(self.recv, self.send)
                    return
                except RuntimeError:
                    self.gather_into = None
            d.all_gather(self.chunks, self.send)
        else:
            d.all_to_all_single(self.recv, self.send)

    def check(self, n):
        out = self.send if self.op == "allreduce" else self.recv
        count = out.numel()
        chunk = max(1, count // n)
        step = max(1, count // 4096)
        values = out[::step].tolist()
        for k, got in enumerate(values):
            i = k * step
            if self.op == "allreduce":
                want = n * (n + 1) / 2.0
            elif self.op == "broadcast":
                want = 1.0
            else:
                want = float(i // chunk + 1)  # chunk i came from rank i
            if got != want:
                return False
        return True


def main():
    p = argparse.ArgumentParser(description="torch.distributed (gloo) collectives between torchrun-style "
                                "ranks; rank 0 prints nccl-tests columns")
    p.add_argument("op", choices=OPS)
    p.add_argument("--min-bytes", "-b", type=parse_bytes, default=8)
    p.add_argument("--max-bytes", "-e", type=parse_bytes, default=64 << 20)
    p.add_argument("--factor", "-f", type=int, default=2)
    p.add_argument("--iters", "-n", type=int, default=0, help="timed iterations per size (0: 10..100 by size)")
    p.add_argument("--warmup", "-w", type=int, default=-1, help="untimed iterations per size (-1: 1..5)")
    p.add_argument("--algo", choices=("ring", "bcube"), default="ring",
                   help="accepted for symmetry with outrider-gloo-bench; torch picks its own")
    p.add_argument("--json", help='rank 0 writes {"rows": [...], "env": {...}} here')
    p.add_argument("--latency-iters", type=int, default=0, help="allreduce: also time this many 8-byte ops")
    p.add_argument("--iface", help="network interface (default: eth0 if OUTRIDER_NETNS=1, else lo)")
    p.add_argument("--timeout-s", type=int, default=120, help="rendezvous and per-operation timeout")
    args = p.parse_args()
    if args.min_bytes > args.max_bytes or args.factor < 2:
        p.error("bad --min-bytes/--max-bytes/--factor")

    rank, world = env_int("RANK"), env_int("WORLD_SIZE")
    env_int("MASTER_PORT")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    nodes = env_int("OUTRIDER_NODES", world)
    netns = os.environ.get("OUTRIDER_NETNS", "0") == "1"
    iface = args.iface or ("eth0" if netns else "lo")
    os.environ["GLOO_SOCKET_IFNAME"] = iface  # read by ProcessGroupGloo at init

    import torch  # 1.5 s: after the cheap checks above
    import torch.distributed as dist

    torch.set_num_threads(1)  # the reductions are tiny next to the transfers; 2 cores, N ranks
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.timeout_s))
    n = world
    results, failed = [], []
    for count in sizes(args, n):
        nbytes = count * ELEM
        iters = min(args.iters, MAX_ITERS) if args.iters > 0 else max(10, min(100, (1 << 30) // nbytes))
        warmup = args.warmup if args.warmup >= 0 else max(1, min(5, iters // 4))
        coll = Collective(torch, dist, args.op, count, n)
        coll.fill(rank)
        coll.run()  # also touches every page
        failed.append(0.0 if coll.check(n) else 1.0)
        if args.op == "allreduce":
            coll.send.zero_()  # all_reduce is in place: zeros stay zeros over the timed loop
        for _ in range(warmup):
            coll.run()
        dist.barrier()
        times = []
        for _ in range(iters):
            t0 = time.perf_counter_ns()
            coll.run()
            times.append((time.perf_counter_ns() - t0) / 1e3)
        results.append({"bytes": nbytes, "time_us": percentile(times, 50), "iters": iters})
    if failed:  # every rank's check, seen by rank 0
        flags = torch.tensor(failed, dtype=torch.float32)
        dist.all_reduce(flags)
        for r, f in zip(results, flags.tolist()):
            r["ok"] = f == 0
    latency = None
    if args.latency_iters > 0 and args.op == "allreduce":
        t = torch.zeros(2, dtype=torch.float32)
        for _ in range(10):
            dist.all_reduce(t)
        dist.barrier()
        times = []
        for _ in range(min(args.latency_iters, MAX_ITERS)):
            t0 = time.perf_counter_ns()
            dist.all_reduce(t)
            times.append((time.perf_counter_ns() - t0) / 1e3)
        latency = (percentile(times, 50), percentile(times, 99))
    dist.barrier()  # nobody tears down connections while a peer still uses them
    if rank != 0:
        dist.destroy_process_group()
        return 0

    is_ar = args.op == "allreduce"
    rate = rate_gbit()
    print(f"# torch_bench.py {args.op}: {n} ranks, {nodes} nodes, torch {torch.__version__} gloo on {iface}")
    print("# %12s %12s %6s %6s %12s %12s %12s %8s" % ("size", "count", "type", "redop", "time(us)",
                                                      "algbw(GB/s)", "busbw(GB/s)", "check"))
    rows, failures = [], 0
    for r in results:
        algbw = r["bytes"] / (r["time_us"] * 1e3)
        busbw = algbw * bus_factor(args.op, n)
        failures += not r["ok"]
        print("  %12d %12d %6s %6s %12.1f %12.3f %12.3f %8s" % (
            r["bytes"], r["bytes"] // ELEM, "f32", "sum" if is_ar else "-", r["time_us"], algbw, busbw,
            "ok" if r["ok"] else "WRONG"))
        rows.append({"system": "torch-gloo", "op": args.op, "algo": None, "bytes": r["bytes"],
                     "count": r["bytes"] // ELEM, "dtype": "f32", "time_us": r["time_us"], "algbw_gbps": algbw,
                     "busbw_gbps": busbw, "nodes": nodes, "ranks": n, "rate_gbit": rate, "iters": r["iters"],
                     "check": r["ok"]})
    if latency:
        print("#\n# 8-byte allreduce latency (rank 0, %d ops): p50 %.1f us  p99 %.1f us" % (
            args.latency_iters, latency[0], latency[1]))
        rows.append({"system": "torch-gloo", "op": "allreduce", "algo": None, "metric": "latency", "bytes": 8,
                     "count": 2, "dtype": "f32", "time_us": latency[0], "p50_us": latency[0],
                     "p99_us": latency[1], "nodes": nodes, "ranks": n, "rate_gbit": rate,
                     "iters": args.latency_iters})
    sys.stdout.flush()
    if args.json:
        env = {"host": socket.gethostname(), "kernel": platform.release(), "cpus": os.cpu_count(),
               "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), "runner": "torch_bench.py",
               "torch_version": torch.__version__, "python": platform.python_version(), "world_size": n,
               "nodes": nodes, "netns": netns, "iface": iface, "master_addr": os.environ["MASTER_ADDR"]}
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "env": env}, f, indent=2, sort_keys=True)
            f.write("\n")
    dist.destroy_process_group()
    if failures:
        print(f"torch_bench.py: {failures} result check(s) failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # one line per rank instead of a traceback from every rank
        print(f"torch_bench.py: rank {os.environ.get('RANK', '?')}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
