#!/usr/bin/python3
"""Tensors in memory shared with the agent, run as every rank of a launched job
(tools/cluster/run.sh): outrider_torch.empty(), shared_memory() and shared_ddp() tensors go to the
agent in place (copy_counters() shows no bytes copied for them, and one staged tensor per op for
ordinary ones) with the same results as ordinary tensors; views, non-contiguous views and every
dtype work; reduce leaves the others' tensors as they were; DDP with shared buckets trains to the
same parameters as plain DDP and copies nothing once its buckets are rebuilt; a shared tensor stays
valid after destroy_process_group and a new group reuses the connection it holds open. Runs
against PyTorch 1.13 and 2.x; exits non-zero on the first failed check."""
import datetime
import os
import sys
import threading

import torch
import torch.distributed as dist
import torch.nn as nn

import outrider_torch
from testlib import RANK, WORLD, check

TOTAL = WORLD * (WORLD + 1) // 2  # the sum of rank + 1 over all ranks


def delta(before):
    now = outrider_torch.copy_counters()
    return {k: now[k] - before[k] for k in now}


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 8))


def train(ddp, steps, on_step=None):
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(7 + RANK)
    for step in range(steps):
        if on_step:
            on_step(step)
        x, y = torch.randn(32, 64, generator=g), torch.randn(32, 8, generator=g)
        opt.zero_grad()
        nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()


def main():
    try:
        outrider_torch.empty(4)
        check("empty() without a process group raises", False, "it returned")
    except RuntimeError as e:
        check("empty() without a process group raises", "init_process_group" in str(e), str(e))

    # One store for both rounds of init_process_group (torch's own would be torn down and remade).
    addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    try:  # 2.x: Debian's has no libuv store (1.13 has no such argument)
        store = dist.TCPStore(addr, port, WORLD, RANK == 0, use_libuv=False)
    except TypeError:
        store = dist.TCPStore(addr, port, WORLD, RANK == 0)
    dist.init_process_group("outrider", store=dist.PrefixStore("first", store), rank=RANK, world_size=WORLD)

    # In place: a shared tensor's allreduce copies nothing; an ordinary one is staged in and out.
    t = outrider_torch.empty(100_000)
    check("empty() is a CPU float32 tensor of that shape", t.shape == (100_000,) and t.dtype == torch.float32 and t.is_contiguous(),
          f"{t.shape} {t.dtype}")
    t.fill_(RANK + 1)
    before = outrider_torch.copy_counters()
    dist.all_reduce(t)
    d = delta(before)
    check("allreduce of a shared tensor sums", torch.equal(t, torch.full((100_000,), float(TOTAL))), t[:4])
    check("allreduce of a shared tensor copies nothing", d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] == 1, d)
    o = torch.full((100_000,), float(RANK + 1))
    before = outrider_torch.copy_counters()
    dist.all_reduce(o)
    d = delta(before)
    check("allreduce of an ordinary tensor sums", torch.equal(o, t), o[:4])
    check("allreduce of an ordinary tensor is staged in and out",
          d["bytes_in"] == 400_000 and d["bytes_out"] == 400_000 and d["tensors_staged"] == 1 and d["tensors_in_place"] == 0, d)

    # Large (a pooled region rather than the arena), every dtype, shapes, zero size.
    big = outrider_torch.empty(6_000_000)
    big.fill_(1.0)
    work = dist.all_reduce(big, async_op=True)
    work.wait()
    check("async allreduce of a 24 MB shared tensor", torch.equal(big, torch.full_like(big, float(WORLD))), big[:4])
    del big
    for dtype in (torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64,
                  torch.bool, torch.complex64):
        x = outrider_torch.empty((3, 5), dtype=dtype)
        check(f"empty((3, 5), dtype={dtype})", x.shape == (3, 5) and x.dtype == dtype, f"{x.shape} {x.dtype}")
        x.copy_(torch.ones(3, 5, dtype=dtype))
        before = outrider_torch.copy_counters()
        dist.all_reduce(x, op=dist.ReduceOp.MAX if dtype == torch.bool else dist.ReduceOp.SUM)
        expect = torch.ones(3, 5, dtype=dtype) if dtype == torch.bool else torch.full((3, 5), WORLD, dtype=dtype)
        check(f"allreduce in place, {dtype}", torch.equal(x, expect) and delta(before)["bytes_in"] == 0, x)
    check("empty(0) is an ordinary empty tensor", outrider_torch.empty(0).numel() == 0)

    # Views: a contiguous slice is used in place, a strided view is staged; both right.
    base = outrider_torch.empty(1000)
    base.fill_(RANK + 1)
    before = outrider_torch.copy_counters()
    dist.all_reduce(base[100:200])
    check("a contiguous view of a shared tensor goes in place", delta(before)["tensors_in_place"] == 1, delta(before))
    check("... and only it is summed",
          torch.all(base[100:200] == TOTAL).item() and torch.all(base[:100] == RANK + 1).item() and torch.all(base[200:] == RANK + 1).item())
    strided = base[::2]
    before = outrider_torch.copy_counters()
    dist.all_reduce(strided)
    check("a strided view is staged", delta(before)["tensors_staged"] == 1, delta(before))
    check("... and summed where it points", torch.all(base[1::2][100:] == RANK + 1).item() and torch.all(base[::2][:50] == TOTAL).item(),
          base[:8])

    # broadcast and reduce in place; reduce leaves the other ranks' tensors alone.
    b = outrider_torch.empty(1000)
    b.fill_(RANK + 1)
    dist.broadcast(b, src=1)
    check("broadcast in place", torch.all(b == 2).item(), b[:4])
    r = outrider_torch.empty(1000)
    r.fill_(RANK + 1)
    before = outrider_torch.copy_counters()
    dist.reduce(r, dst=0)
    check("reduce in place copies nothing", delta(before)["bytes_in"] == 0 and delta(before)["tensors_in_place"] == 1, delta(before))
    check("reduce: the root has the sum, the others their own", torch.all(r == (TOTAL if RANK == 0 else RANK + 1)).item(), r[:4])

    # shared_memory(): this thread's allocations, nobody else's.
    with outrider_torch.shared_memory():
        s = torch.zeros(5000)
        other = []
        th = threading.Thread(target=lambda: other.append(torch.zeros(5000)))
        th.start()
        th.join()
    after = torch.zeros(5000)
    before = outrider_torch.copy_counters()
    for x in (s, other[0], after):
        x.fill_(1)
        dist.all_reduce(x)
    d = delta(before)
    check("shared_memory() routes this thread's allocations only", d["tensors_in_place"] == 1 and d["tensors_staged"] == 2, d)
    check("... all summed", all(torch.all(x == WORLD).item() for x in (s, other[0], after)))

    # DDP: shared buckets train to the same parameters as ordinary ones and copy nothing once built.
    plain = nn.parallel.DistributedDataParallel(model())
    train(plain, 6)
    shared = outrider_torch.shared_ddp(model())
    counts = {}
    train(shared, 6, on_step=lambda step: counts.setdefault(step, outrider_torch.copy_counters()))
    d = delta(counts[2])  # buckets are rebuilt in the forward pass of step 1
    for p, q in zip(plain.parameters(), shared.parameters()):
        check("shared_ddp trains to plain DDP's parameters", torch.equal(p, q), (p - q).abs().max())
    check("shared_ddp: steps 2-5 copy nothing (in place)", d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] > 0, d)
    del plain, shared

    # An op that timed out may still be written by the agent: its shared tensor's memory is never
    # reused. Rank 0 alone allreduces (and times out); the others join the op afterwards, so the
    # agent completes it and writes into the memory rank 0 gave up.
    g = dist.new_group(timeout=datetime.timedelta(seconds=2))
    if RANK == 0:
        t = outrider_torch.empty(1000)
        t.fill_(1)
        work = dist.all_reduce(t, group=g, async_op=True)
        try:
            work.wait()
            check("a lone allreduce times out", False, "it completed")
        except RuntimeError as e:
            check("a lone allreduce times out", "Timed out" in str(e), str(e))
        given_up = t.data_ptr()
        del t, work
        fresh = outrider_torch.empty(1000)
        check("the timed-out op's memory is not handed out again", fresh.data_ptr() != given_up,
              hex(fresh.data_ptr()))
        fresh.fill_(7)
    dist.barrier()
    if RANK != 0:
        late = torch.ones(1000)
        dist.all_reduce(late, group=g)
        check("the others complete the op rank 0 gave up", torch.all(late == WORLD).item(), late[:4])
    dist.barrier()
    if RANK == 0:
        check("... and the agent's write did not land in rank 0's new tensor", torch.all(fresh == 7).item(), fresh[:4])
        del fresh
    dist.destroy_process_group(g)

    # A shared tensor outlives its process group; a new group reuses the connection it holds.
    keep = outrider_torch.empty(1000)
    keep.fill_(3)
    dist.destroy_process_group()
    check("a shared tensor stays readable after destroy_process_group", torch.all(keep == 3).item())
    dist.init_process_group("outrider", store=dist.PrefixStore("second", store), rank=RANK, world_size=WORLD)
    keep.fill_(RANK + 1)
    before = outrider_torch.copy_counters()
    dist.all_reduce(keep)
    check("a new group uses the tensor in place", torch.all(keep == TOTAL).item() and delta(before)["tensors_in_place"] == 1,
          (keep[:4], delta(before)))
    del keep
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
