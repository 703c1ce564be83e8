#!/usr/bin/python3
"""The outrider torch.distributed backend against gloo, run as every rank of a launched job
(tools/cluster/run.sh): each collective's result equals gloo's (or the exact expected values where
gloo lacks the op), sparse COO tensors with duplicated rows sum like gloo's sparse allreduce, async
Work and futures complete, a failing collective raises a RuntimeError on every rank (from PyTorch 2
a torch.distributed.DistBackendError, which is one) and the group keeps working, and DDP with a
sparse embedding trains to bitwise-identical parameters on every rank. Runs against PyTorch 1.13
and 2.x. Exits non-zero on the first failed check (and says which)."""
import sys

import torch
import torch.distributed as dist

import outrider_torch
from testlib import RANK, WORLD, check

# What a failed collective raises: DistBackendError from PyTorch 2 (1.13 has no such type).
COLLECTIVE_ERROR = getattr(dist, "DistBackendError", RuntimeError)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def main():
    dist.init_process_group("outrider")
    gloo = dist.new_group(backend="gloo")
    check(f"default group is outrider (torch {torch.__version__})", dist.get_backend() == "outrider", dist.get_backend())
    g = torch.Generator().manual_seed(100 + RANK)

    # allreduce: sum / max / min / product over several dtypes, equal to gloo's.
    ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN, "product": dist.ReduceOp.PRODUCT}
    for dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
        for name, op in ops.items():
            base = (torch.rand(1000, generator=g) * 4).to(dtype) + 1
            a, b = base.clone(), base.clone()
            dist.all_reduce(a, op=op)
            dist.all_reduce(b, op=op, group=gloo)
            if dtype.is_floating_point and op in (dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT):
                ok = torch.allclose(a, b, rtol=1e-5)  # summation order may differ from gloo's
            else:
                ok = same(a, b)
            check(f"allreduce {name} {dtype} matches gloo", ok, f"{a[:4]} vs {b[:4]}")
    # bfloat16 / float16 (gloo cannot): integers small enough to be exact.
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.full((64,), float(RANK + 1), dtype=dtype)
        dist.all_reduce(a)
        check(f"allreduce {dtype}", same(a, torch.full((64,), float(WORLD * (WORLD + 1) // 2), dtype=dtype)), a[:4])
    # a large tensor (pooled shared-memory regions rather than the arena)
    big = torch.full((5_000_000,), 1.0)
    dist.all_reduce(big)
    check("allreduce of 20 MB", same(big, torch.full((5_000_000,), float(WORLD))))

    # broadcast from every root
    for root in range(WORLD):
        a = torch.arange(300, dtype=torch.float32) * (RANK + 1)
        b = a.clone()
        dist.broadcast(a, src=root)
        dist.broadcast(b, src=root, group=gloo)
        check(f"broadcast from {root} matches gloo", same(a, b))

    # all_gather (list) and all_gather_into_tensor
    x = torch.arange(7, dtype=torch.int64) + 100 * RANK
    outs, refs = [torch.empty_like(x) for _ in range(WORLD)], [torch.empty_like(x) for _ in range(WORLD)]
    dist.all_gather(outs, x)
    dist.all_gather(refs, x, group=gloo)
    check("all_gather matches gloo", all(same(a, b) for a, b in zip(outs, refs)))
    flat = torch.empty(7 * WORLD, dtype=torch.int64)
    dist.all_gather_into_tensor(flat, x)
    check("all_gather_into_tensor", same(flat, torch.cat(refs)))

    # reduce_scatter (gloo 1.13 has none: exact expected values)
    ins = [torch.full((5,), float(RANK * 10 + j)) for j in range(WORLD)]
    out = torch.empty(5)
    dist.reduce_scatter(out, ins)
    want = float(sum(r * 10 + RANK for r in range(WORLD)))
    check("reduce_scatter", same(out, torch.full((5,), want)), out)

    # all_to_all_single, equal and uneven splits
    inp = torch.arange(WORLD * 3, dtype=torch.float32) + 1000 * RANK
    a, b = torch.empty_like(inp), torch.empty_like(inp)
    dist.all_to_all_single(a, inp)
    dist.all_to_all_single(b, inp, group=gloo)
    check("all_to_all_single matches gloo", same(a, b))
    in_splits = [(RANK + j) % 3 + 1 for j in range(WORLD)]
    out_splits = [(r + RANK) % 3 + 1 for r in range(WORLD)]
    inp = torch.arange(sum(in_splits) * 2, dtype=torch.float32).reshape(-1, 2) + 1000 * RANK
    a = torch.empty(sum(out_splits), 2)
    b = torch.empty(sum(out_splits), 2)
    dist.all_to_all_single(a, inp, out_splits, in_splits)
    dist.all_to_all_single(b, inp, out_splits, in_splits, group=gloo)
    check("all_to_all_single with uneven splits matches gloo", same(a, b))

    dist.barrier()
    check("barrier", True)

    # sparse COO with duplicated ids: equal to gloo's sparse allreduce (integer values: exact)
    for dim in (1, 8):
        n = 40 + 10 * RANK
        ids = torch.randint(0, 50, (n,), generator=g)
        ids[:3] = 7  # duplicates on every rank
        vals = torch.randint(-3, 4, (n, dim), generator=g).float()
        a = torch.sparse_coo_tensor(ids.unsqueeze(0), vals, (50, dim))
        b = torch.sparse_coo_tensor(ids.unsqueeze(0), vals, (50, dim))
        dist.all_reduce(a)
        dist.all_reduce(b, group=gloo)
        a, b = a.coalesce(), b.coalesce()
        check(f"sparse allreduce (dim {dim}, duplicates) matches gloo",
              same(a.indices(), b.indices()) and same(a.values(), b.values()), f"{a.indices()[0][:5]} vs {b.indices()[0][:5]}")
    # with row demand: the same rows, the same sums
    outrider_torch.demand(torch.tensor([7, 49, 3]))
    ids = torch.tensor([7, 7, 49, 1, RANK])
    a = torch.sparse_coo_tensor(ids.unsqueeze(0), torch.ones(5, 4), (50, 4))
    b = a.clone()
    dist.all_reduce(a)
    dist.all_reduce(b, group=gloo)
    check("sparse allreduce with row demand matches gloo", same(a.coalesce().to_dense(), b.coalesce().to_dense()))

    # sparse_allreduce with demand: demanded rows first, the rest after; together gloo's sum
    pg = outrider_torch.backend()
    ids = torch.tensor([7, 7, 49, 1, 10 + RANK, 30])
    vals = torch.arange(6 * 4, dtype=torch.float32).reshape(6, 4) + RANK
    t = torch.sparse_coo_tensor(ids.unsqueeze(0), vals, (50, 4))
    ref = t.clone()
    dist.all_reduce(ref, group=gloo)
    ref = ref.coalesce()
    h = pg.sparse_allreduce(t, torch.tensor([49, 10, 3]))
    d = h.wait_demanded()
    rest = h.wait_rest()
    check("sparse_allreduce: demanded rows are the demanded ids present in the union",
          d.indices()[0].tolist() == [10, 49], d.indices())
    check("sparse_allreduce: the rest are the other rows", rest.indices()[0].tolist() == [i for i in ref.indices()[0].tolist() if i not in (10, 49)], rest.indices())
    check("sparse_allreduce: demanded + rest equal gloo's sum", same((d + rest).coalesce().to_dense(), ref.to_dense()))
    bad = pg.sparse_allreduce(torch.sparse_coo_tensor(torch.tensor([[1]]), torch.ones(1, 4), (50 + (RANK % 2), 4)), torch.tensor([1]))
    try:
        bad.wait_demanded()
        check("sparse_allreduce: a disagreeing table size raises from wait_demanded", WORLD == 1, "no exception")
    except RuntimeError as e:
        check(f"sparse_allreduce: a disagreeing table size raises a {COLLECTIVE_ERROR.__name__} from wait_demanded",
              isinstance(e, COLLECTIVE_ERROR) and ("disagree" in str(e) or "MISMATCH" in str(e)), f"{type(e)}: {e}")
    try:
        bad.wait_rest()
        check("... and from wait_rest", WORLD == 1, "no exception")
    except RuntimeError as e:
        check("... and from wait_rest", "disagree" in str(e) or "MISMATCH" in str(e), str(e))

    # async ops: Work.wait, is_completed, futures
    ts = [torch.full((1000,), float(RANK + k)) for k in range(5)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    futs = [w.get_future() for w in works]
    for k, (w, f, t) in enumerate(zip(works, futs, ts)):
        w.wait()
        # (is_success is deprecated in 2.x: wait() raising is what says it failed)
        check(f"async allreduce {k} completes", w.is_completed() and (COLLECTIVE_ERROR is not RuntimeError or w.is_success()))
        check(f"its future holds the result {k}", same(f.wait()[0], t) and same(t, torch.full((1000,), float(sum(range(WORLD)) + WORLD * k))))

    # a failing collective: ranks disagree on the shape -> RuntimeError everywhere, group goes on
    bad = torch.ones(10 + (RANK % 2))
    try:
        dist.all_reduce(bad)
        check("mismatched shapes raise", WORLD == 1 or False, "no exception")
    except RuntimeError as e:
        check(f"mismatched shapes raise a {COLLECTIVE_ERROR.__name__} naming the disagreement",
              isinstance(e, COLLECTIVE_ERROR) and ("MISMATCH" in str(e) or "disagree" in str(e)), f"{type(e)}: {e}")
    w = dist.all_reduce(torch.ones(10 + (RANK % 2)), async_op=True)
    try:
        w.wait()
        check("async failure raises from wait", False, "no exception")
    except RuntimeError as e:
        check(f"async failure raises a {COLLECTIVE_ERROR.__name__} from wait",
              isinstance(e, COLLECTIVE_ERROR) and ("disagree" in str(e) or "MISMATCH" in str(e)), f"{type(e)}: {e}")
    try:
        # A dtype the backend does not take and torch hands it (2.x refuses quantized tensors first).
        if hasattr(torch, "uint16"):
            dist.all_reduce(torch.ones(3, dtype=torch.uint16))
        else:
            dist.all_reduce(torch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.quint8))
        check("unsupported dtype raises", False, "no exception")
    except RuntimeError as e:
        check("unsupported dtype raises a clear error", "not supported" in str(e), str(e))
    t = torch.ones(3)
    dist.all_reduce(t)
    check("the group works after failures", same(t, torch.full((3,), float(WORLD))))

    # DDP with a sparse embedding: a few steps, then parameters are bitwise equal on every rank
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.EmbeddingBag(500, 16, mode="sum", sparse=True), torch.nn.Linear(16, 4))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(RANK)
    for step in range(5):
        x = torch.randint(0, 500, (8, 6), generator=gen)
        y = torch.randint(0, 4, (8,), generator=gen)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(WORLD)]
    dist.all_gather(gathered, flat, group=gloo)
    check("DDP (sparse embedding + dense layer): parameters bitwise equal on every rank", all(same(gathered[0], x) for x in gathered))

    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
