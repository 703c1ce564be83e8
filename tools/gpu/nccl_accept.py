"""PyTorch's own NCCL backend under Outrider's NCCL integrations (tools/gpu/accept.sh runs it under
torchrun-like environments, one rank per GPU): allreduces of 4 KiB, 1 MiB and 64 MiB float32 on
CUDA tensors, each result checked exactly (small integers, so any summation order is exact), and
their median time, measured from the host around the call and a synchronize.

What runs underneath is chosen by the environment, not here: LD_PRELOAD=liboutrider_nccl.so
(calls counted and timed for the node's agent, and with OUTRIDER_NCCL_OFFLOAD run by the agent),
or NCCL_PROFILER_PLUGIN=libnccl-profiler-outrider.so.

Rank 0 prints one line, "RESULT ok=<0|1> calls=<allreduces made> sizes=<bytes:median_us,...>",
and any mismatch as "MISMATCH ..."; the exit status is 1 if a result was wrong.
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--iters", type=int, default=10, help="timed allreduces per size")
args = p.parse_args()

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
LOCAL = int(os.environ.get("LOCAL_RANK", RANK))
torch.cuda.set_device(LOCAL)
dist.init_process_group("nccl", device_id=torch.device("cuda", LOCAL))
ok = True
calls = 0
timings = []
for nbytes in (4 << 10, 1 << 20, 64 << 20):
    n = nbytes // 4
    x = torch.full((n,), float(RANK + 1), device="cuda")
    want = float(WORLD * (WORLD + 1) // 2)
    times = []
    for i in range(args.iters + 1):  # the first one warms up
        x.fill_(float(RANK + 1))
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        if i > 0:
            times.append((time.perf_counter() - t0) * 1e6)
        calls += 1
        if not bool(torch.all(x == want)):
            ok = False
            bad = (x != want).nonzero()[0].item()
            print(f"MISMATCH rank {RANK} {nbytes} bytes: element {bad} is {x[bad].item()}, not {want}", flush=True)
            break
    timings.append(f"{nbytes}:{statistics.median(times) if times else 0:.1f}")
dist.barrier()
dist.destroy_process_group()
if RANK == 0:
    print(f"RESULT ok={int(ok)} calls={calls} sizes={','.join(timings)}", flush=True)
sys.exit(0 if ok else 1)
