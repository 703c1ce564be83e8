#!/usr/bin/python3
"""Tensors in memory shared with the agent, run as every rank of a launched job
(tools/cluster/run.sh): once a process group exists, CPU tensors of 64 KiB and more are born there
and go to the agent in place (copy_counters() shows no bytes copied for them), smaller ones and
those made before the group are staged (one staged tensor per op), outrider_torch.empty(),
shared_memory() and shared_ddp() tensors go in place whatever their size, all with the same results;
views, non-contiguous views and every dtype work; reduce leaves the others' tensors as they were;
plain DDP copies nothing once its buckets are rebuilt and trains to shared_ddp's parameters; a
sparse allreduce takes the coalesced rows and gives the result in place; a fork child neither
allocates from nor frees into the parent's shared memory; a shared tensor stays valid after
destroy_process_group and a new group uses it in place. With --alloc-off (run under
OUTRIDER_TORCH_SHARED_ALLOC=off) it checks that ordinary tensors are staged whatever their size;
with --refused (an agent whose max_region_bytes refuses the heap) that ops there are staged.
Runs against PyTorch 1.13 and 2.x; exits non-zero on the first failed check."""
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


def sparse_rows(rows, dim, ids):
    """Rank-dependent rows `ids` (repeats summed by coalescing) of a rows x dim table."""
    ids = torch.tensor(ids)
    values = torch.arange(len(ids) * dim, dtype=torch.float32).view(len(ids), dim) + RANK
    return torch.sparse_coo_tensor(ids.view(1, -1), values, (rows, dim))


def alloc_off():
    """Under OUTRIDER_TORCH_SHARED_ALLOC=off: ordinary tensors are staged whatever their size."""
    dist.init_process_group("outrider")
    check("OUTRIDER_TORCH_SHARED_ALLOC=off: no size threshold", outrider_torch.shared_memory_stats()["min_bytes"] == 0,
          outrider_torch.shared_memory_stats())
    o = torch.full((1_000_000,), float(RANK + 1))
    before = outrider_torch.copy_counters()
    dist.all_reduce(o)
    d = delta(before)
    check("... a 4 MB tensor is staged and summed",
          d["tensors_staged"] == 1 and d["bytes_in"] == 4_000_000 and torch.all(o == TOTAL).item(), (d, o[:4]))
    sp = torch.sparse_coo_tensor(torch.tensor([[RANK, 7, 7]]), torch.ones(3, 4), (100, 4))
    before = outrider_torch.copy_counters()
    dist.all_reduce(sp)
    d = delta(before)
    check("... a sparse allreduce is staged", d["tensors_staged"] == 1 and d["tensors_in_place"] == 0, d)
    check("... and summed", sp.to_dense()[7].tolist() == [2.0 * WORLD] * 4, sp.to_dense()[7])
    e = outrider_torch.empty(1000)
    e.fill_(1)
    before = outrider_torch.copy_counters()
    dist.all_reduce(e)
    check("... empty() still goes in place", delta(before)["tensors_in_place"] == 1 and torch.all(e == WORLD).item(), delta(before))
    dist.destroy_process_group()
    return 0


def refused():
    """Under an agent whose max_region_bytes is below a heap segment: the agent refuses the heap,
    and ops on tensors there are staged instead, with the same results."""
    dist.init_process_group("outrider")
    o = torch.full((1_000_000,), float(RANK + 1))  # in the heap, which the agent refuses
    check("refused: the tensor is in the shared heap", outrider_torch.shared_memory_stats()["blocks"] > 0,
          outrider_torch.shared_memory_stats())
    before = outrider_torch.copy_counters()
    dist.all_reduce(o)
    d = delta(before)
    check("... its allreduce is staged and sums", d["tensors_staged"] == 1 and torch.all(o == TOTAL).item(), (d, o[:4]))
    sp = torch.sparse_coo_tensor(torch.tensor([[RANK, 7, 7]]), torch.ones(3, 4), (100, 4))
    dist.all_reduce(sp)
    check("... a sparse allreduce sums", sp.to_dense()[7].tolist() == [2.0 * WORLD] * 4, sp.to_dense()[7])
    dist.destroy_process_group()
    return 0


def main():
    if "--alloc-off" in sys.argv:
        return alloc_off()
    if "--refused" in sys.argv:
        return refused()
    early = outrider_torch.empty(1000)
    check("empty() works before any process group", early.shape == (1000,) and early.dtype == torch.float32, early.shape)
    made_before = torch.full((100_000,), float(RANK + 1))  # 400 KB, before the group: ordinary memory
    check("no size threshold before a process group", outrider_torch.shared_memory_stats()["min_bytes"] == 0,
          outrider_torch.shared_memory_stats())

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
    check("the process group sets the size threshold to 64 KiB", outrider_torch.shared_memory_stats()["min_bytes"] == 65536,
          outrider_torch.shared_memory_stats())
    o = torch.full((100_000,), float(RANK + 1))  # 400 KB, made after the group: in shared memory
    before = outrider_torch.copy_counters()
    dist.all_reduce(o)
    d = delta(before)
    check("allreduce of an ordinary 400 KB tensor sums", torch.equal(o, t), o[:4])
    check("... in place (born in shared memory)", d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] == 1, d)
    before = outrider_torch.copy_counters()
    dist.all_reduce(made_before)
    d = delta(before)
    check("a tensor made before the group is staged in and out",
          d["bytes_in"] == 400_000 and d["bytes_out"] == 400_000 and d["tensors_staged"] == 1 and d["tensors_in_place"] == 0, d)
    check("... and summed", torch.equal(made_before, t), made_before[:4])
    small = torch.full((1000,), float(RANK + 1))  # 4 KB: below the threshold
    before = outrider_torch.copy_counters()
    dist.all_reduce(small)
    d = delta(before)
    check("a 4 KB tensor is staged", d["bytes_in"] == 4000 and d["tensors_staged"] == 1, d)
    check("... and summed", torch.all(small == TOTAL).item(), small[:4])
    early.fill_(RANK + 1)
    before = outrider_torch.copy_counters()
    dist.all_reduce(early)
    check("empty() made before the group goes in place", delta(before)["tensors_in_place"] == 1 and torch.all(early == TOTAL).item(),
          delta(before))

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

    # DDP: plain DDP's buckets are born in shared memory and copy nothing once rebuilt; shared_ddp
    # (every bucket, bucket views) trains to the same parameters.
    plain = nn.parallel.DistributedDataParallel(model())
    counts = {}
    train(plain, 6, on_step=lambda step: counts.setdefault(step, outrider_torch.copy_counters()))
    d = delta(counts[2])  # buckets are rebuilt in the forward pass of step 1
    check("plain DDP: steps 2-5 copy nothing (in place)", d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] > 0, d)
    shared = outrider_torch.shared_ddp(model())
    counts = {}
    train(shared, 6, on_step=lambda step: counts.setdefault(step, outrider_torch.copy_counters()))
    d = delta(counts[2])
    for p, q in zip(plain.parameters(), shared.parameters()):
        check("shared_ddp trains to plain DDP's parameters", torch.equal(p, q), (p - q).abs().max())
    check("shared_ddp: steps 2-5 copy nothing (in place)", d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] > 0, d)
    del plain, shared

    # Sparse: the rows coalesce into shared memory and go in place; the result is the tensor
    # itself, its rows views of the shared result (no copy in, none out), and sums like dense.
    rows, dim = 5000, 16
    ids = [RANK, 7, 7, 4999, 100 + RANK]  # 7 twice: coalescing sums it
    sp = sparse_rows(rows, dim, ids)
    before = outrider_torch.copy_counters()
    work = dist.all_reduce(sp, async_op=True)
    work.wait()
    d = delta(before)
    dense = sparse_rows(rows, dim, ids).to_dense()
    dist.all_reduce(dense)
    check("sparse allreduce sums like dense", torch.equal(sp.to_dense(), dense), (sp.to_dense() - dense).abs().max())
    check("... with its rows in place (nothing copied in or out)",
          d["bytes_in"] == 0 and d["bytes_out"] == 0 and d["tensors_in_place"] == 1 and d["tensors_staged"] == 0, d)
    check("... and the work's result is the tensor itself (its values are the tensor's)",
          work.result()[0]._values().data_ptr() == sp._values().data_ptr())
    expect_rows = sorted(set(range(WORLD)) | {7, 4999} | {100 + r for r in range(WORLD)})
    check("... coalesced, one row per id any rank sent", sp.is_coalesced() and sp._indices()[0].tolist() == expect_rows,
          sp._indices()[0].tolist())

    # fork(): the child reads the parent's shared tensors, allocates elsewhere, and its frees do
    # not reach the parent's heap.
    parent_tensor = torch.full((50_000,), 5.0)  # in shared memory
    blocks = outrider_torch.shared_memory_stats()["blocks"]
    pid = os.fork()
    if pid == 0:
        # Element-wise work on few elements only: a parallel region would hang in a fork child of
        # a process whose OpenMP pool ran (libgomp), whatever the memory.
        ok = parent_tensor[:100].eq(5).all().item()
        x = torch.empty(100_000)  # above the threshold: from the ordinary allocator here
        ok = ok and outrider_torch.shared_memory_stats()["blocks"] == blocks
        x[:100].fill_(1)
        del parent_tensor, x  # the child's free of a parent block only forgets it
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    check("a fork child reads shared tensors and allocates outside the shared heap", status == 0, status)
    check("the parent's shared tensor and blocks are as they were after the child's frees",
          torch.all(parent_tensor == 5).item() and outrider_torch.shared_memory_stats()["blocks"] == blocks,
          outrider_torch.shared_memory_stats())
    del parent_tensor

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

    # A shared tensor outlives its process group (and its connection); a new group uses it in place.
    keep = outrider_torch.empty(1000)
    keep.fill_(3)
    dist.destroy_process_group()
    check("a shared tensor stays readable after destroy_process_group", torch.all(keep == 3).item())
    keep.fill_(4)
    check("... and writable", torch.all(keep == 4).item())
    freed = outrider_torch.empty(10_000_000)
    del freed
    check("release_shared_memory gives free pages back", outrider_torch.release_shared_memory() >= 40_000_000,
          outrider_torch.shared_memory_stats())
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
