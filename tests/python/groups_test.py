#!/usr/bin/python3
"""Process groups and the c10d ops beyond DDP's, on the outrider backend against gloo, run as
every rank of a launched job of 4 ranks on 2 nodes (tools/cluster/run.sh): new_group (groups within a node and across nodes, one rank of each node, the full group),
reduce, gather, scatter, send/recv with tags, list all_to_all, and the coalesced allreduce and
allgather, each equal to gloo's on the same input. Exits non-zero on the first failed check."""
import sys
import time

import torch
import torch.distributed as dist

import outrider_torch  # noqa: F401  (registers the backend)
from testlib import RANK, WORLD, check


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def both(make, run):
    """Runs `run(tensor, group)` on outrider and on gloo with equal inputs; returns both results."""
    return run(make(), None), run(make(), GLOO)


def main():
    global GLOO
    dist.init_process_group("outrider")
    GLOO = dist.new_group(backend="gloo")
    g = torch.Generator().manual_seed(7 + RANK)
    data = torch.randint(-50, 50, (257,), generator=g, dtype=torch.int64)

    def reduce_(t, group):
        dist.reduce(t, dst=1, op=dist.ReduceOp.SUM, group=group)
        return t
    a, b = both(lambda: data.clone(), reduce_)
    check("reduce to rank 1 matches gloo on the root", RANK != 1 or same(a, b), f"{a[:4]} vs {b[:4]}")

    def gather_(t, group):
        out = [torch.empty_like(t) for _ in range(WORLD)] if RANK == 2 else None
        dist.gather(t, gather_list=out, dst=2, group=group)
        return torch.stack(out) if out else t
    a, b = both(lambda: data.clone(), gather_)
    check("gather to rank 2 matches gloo", same(a, b))

    def scatter_(t, group):
        chunks = [t + 1000 * r for r in range(WORLD)] if RANK == 3 else None
        out = torch.empty_like(t)
        dist.scatter(out, scatter_list=chunks, src=3, group=group)
        return out
    a, b = both(lambda: data.clone(), scatter_)
    check("scatter from rank 3 matches gloo", same(a, b))

    outs = [torch.empty(10 + RANK, dtype=torch.int64) for _ in range(WORLD)]
    ins = [data[: 10 + r] + 100 * RANK for r in range(WORLD)]
    dist.all_to_all(outs, ins)
    expect = [torch.empty(10 + RANK, dtype=torch.int64) for _ in range(WORLD)]
    # Gloo reference: every rank's inputs gathered, then the block for this rank picked.
    full = [torch.empty(257, dtype=torch.int64) for _ in range(WORLD)]
    dist.all_gather(full, data, group=GLOO)
    for r in range(WORLD):
        expect[r] = full[r][: 10 + RANK] + 100 * r
    check("list all_to_all with uneven sizes", all(same(o, e) for o, e in zip(outs, expect)))

    # send/recv in a ring, two tags in opposite order.
    right, left = (RANK + 1) % WORLD, (RANK - 1) % WORLD
    x1, x2 = data + 1, data + 2
    y1, y2 = torch.empty_like(data), torch.empty_like(data)
    reqs = [dist.isend(x1, right, tag=1), dist.isend(x2, right, tag=2), dist.irecv(y2, left, tag=2), dist.irecv(y1, left, tag=1)]
    for r in reqs:
        r.wait()
    check("send/recv with tags", same(y1, full[left] + 1) and same(y2, full[left] + 2))

    # coalesced allreduce and allgather
    ts = [data[:7].clone().double(), data[:100].clone().double()]
    ref = [t.clone() for t in ts]
    dist.all_reduce_coalesced(ts)
    for t in ref:
        dist.all_reduce(t, group=GLOO)
    check("all_reduce_coalesced matches gloo", all(same(a, b) for a, b in zip(ts, ref)))
    outs = [[torch.empty(3, dtype=torch.int64), torch.empty(5, dtype=torch.int64)] for _ in range(WORLD)]
    dist.all_gather_coalesced(outs, [data[:3], data[3:8]])
    check("all_gather_coalesced", all(same(outs[r][0], full[r][:3]) and same(outs[r][1], full[r][3:8]) for r in range(WORLD)))

    # Groups: one rank of each node ({0, 2}, {1, 3}), within a node ({0, 1}, {2, 3}), the full group.
    across = [dist.new_group([0, 2]), dist.new_group([1, 3])]
    nodes = [dist.new_group([0, 1]), dist.new_group([2, 3])]  # new_subgroups needs CUDA in 1.13
    within = nodes[RANK // 2]
    full_group = dist.new_group()
    gloo_across = [dist.new_group([0, 2], backend="gloo"), dist.new_group([1, 3], backend="gloo")]
    mine, gloo_mine = across[RANK % 2], gloo_across[RANK % 2]
    a, b = data.clone(), data.clone()
    dist.all_reduce(a, group=mine)
    dist.all_reduce(b, group=gloo_mine)
    check("allreduce in a group across nodes matches gloo", same(a, b))
    a, b = data.clone(), data.clone()
    dist.broadcast(a, src=2 + RANK % 2, group=mine)
    dist.broadcast(b, src=2 + RANK % 2, group=gloo_mine)
    check("broadcast in a group from its second rank matches gloo", same(a, b))
    a = data.clone()
    dist.all_reduce(a, group=within)
    pair = RANK - RANK % 2
    check("allreduce in a group within a node", same(a, full[pair] + full[pair + 1]))
    a = data.clone()
    dist.all_reduce(a, group=full_group)
    check("allreduce in the full group", same(a, sum(full)))
    lst = [torch.empty_like(data) for _ in range(2)]
    dist.all_gather(lst, data, group=mine)
    check("all_gather in a group across nodes", same(lst[0], full[RANK % 2]) and same(lst[1], full[2 + RANK % 2]))
    # send/recv inside a group: group ranks, addressed by job rank.
    peer = (RANK + 2) % WORLD
    y = torch.empty_like(data)
    reqs = [dist.isend(data * 3, peer, group=mine), dist.irecv(y, peer, group=mine)]
    for r in reqs:
        r.wait()
    check("send/recv in a group", same(y, full[peer] * 3))
    # The group's sequence number (what TORCH_DISTRIBUTED_DEBUG=DETAIL compares): collectives count,
    # point-to-point ops do not.
    mine._set_sequence_number_for_group()  # through torch's ProcessGroup on 2.x
    dist.all_reduce(data.clone(), group=mine)
    dist.barrier(group=mine)
    if RANK < 2:
        dist.send(data, RANK + 2, group=mine)
    else:
        dist.recv(torch.empty_like(data), RANK - 2, group=mine)
    check("sequence number: 2 collectives since it was set", mine._get_sequence_number_for_group() == 2,
          mine._get_sequence_number_for_group())

    # recv from any source: every rank in turn receives one message of each other rank.
    for dst in range(WORLD):
        if RANK == dst:
            got = []
            for _ in range(WORLD - 1):
                t = torch.empty(4, dtype=torch.int64)
                src = dist.recv(t, tag=5)
                check("recv from any source gets the message its sender rank names", same(t, torch.full((4,), 10 * src + dst)), f"{src}: {t}")
                got.append(src)
            check("recv from any source gets one message of each other rank", sorted(got) == [r for r in range(WORLD) if r != dst], str(got))
        else:
            dist.send(torch.full((4,), 10 * RANK + dst, dtype=torch.int64), dst, tag=5)
    # Every rank receives from any source before it sends (to its right): each rank's count of its
    # send must reach the store while its own receive looks for a sender.
    t = torch.empty(3, dtype=torch.int64)
    recv = dist.irecv(t, tag=7)
    send = dist.isend(torch.full((3,), 1000 + RANK, dtype=torch.int64), (RANK + 1) % WORLD, tag=7)
    send.wait()
    recv.wait()
    left = (RANK - 1) % WORLD
    check("every rank receives from any source before it sends", recv._source_rank() == left and same(t, torch.full((3,), 1000 + left)),
          f"{recv._source_rank()}: {t}")
    # Any-source and named receives of one tag mixed: rank 1 sends two messages, rank 2 one; rank 0
    # posts any, named from 1, any. Every message arrives once, rank 1's in the order it sent them.
    if RANK == 0:
        bufs = [torch.empty(2, dtype=torch.int64) for _ in range(3)]
        works = [dist.irecv(bufs[0], tag=6), dist.irecv(bufs[1], src=1, tag=6), dist.irecv(bufs[2], tag=6)]
        for w in works:
            w.wait()
        srcs = [w._source_rank() for w in works]
        values = [int(b[0]) for b in bufs]
        from_1 = [v for v, s in zip(values, srcs) if s == 1]
        check("mixed any-source and named receives", srcs[1] == 1 and sorted(values) == [100, 101, 200] and from_1 == [100, 101]
              and all(int(b[0]) // 100 == s for b, s in zip(bufs, srcs)), f"{srcs} {values}")
    elif RANK == 1:
        dist.send(torch.tensor([100, 0]), 0, tag=6)
        dist.send(torch.tensor([101, 0]), 0, tag=6)
    elif RANK == 2:
        dist.send(torch.tensor([200, 0]), 0, tag=6)

    # Every dtype c10d uses, against a reference reduced here from every rank's input (gloo has
    # no bool, int16 or complex reductions in this torch). Small integer values keep float16 exact.
    def as_dtype(d, dtype):
        if dtype == torch.bool:
            return d % 3 == 0
        if dtype.is_complex:
            return torch.complex(d.double(), -d.double()).to(dtype)
        return (d % 20).to(dtype)
    combine = {dist.ReduceOp.SUM: lambda a, b: a + b, dist.ReduceOp.MAX: torch.maximum, dist.ReduceOp.MIN: torch.minimum}
    op_name = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.MAX: "max", dist.ReduceOp.MIN: "min"}
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.bool, torch.complex64, torch.complex128, torch.float16):
        inputs = [as_dtype(d, dtype) for d in full]
        ops = [dist.ReduceOp.SUM] if dtype.is_complex else [dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN]
        for op in ops:
            a = inputs[RANK].clone()
            dist.all_reduce(a, op=op)
            expect = inputs[0].clone()
            for x in inputs[1:]:
                expect = combine[op](expect, x).to(dtype)
            check(f"all_reduce {dtype} {op_name[op]}", same(a, expect), f"{a[:4]} vs {expect[:4]}")
        a = inputs[RANK].clone()
        dist.broadcast(a, src=1)
        check(f"broadcast {dtype}", same(a, inputs[1]))
    try:
        dist.all_reduce(as_dtype(data, torch.complex64), op=dist.ReduceOp.MAX)
        refused = ""
    except (RuntimeError, ValueError) as e:  # torch refuses it itself: RuntimeError in 1.13, ValueError in 2.x
        refused = str(e)
    check("complex max is refused", "complex" in refused.lower(), refused)
    # Sparse COO with two sparse dimensions and a dense one, uncoalesced (a repeated index), in
    # float32 and bfloat16: the sum over ranks, against the dense sum of every rank's input.
    def coo(r, dtype):
        i = torch.tensor([[r % 3, 1, r % 3, 4], [2, r, 2, 0]])
        v = torch.arange(8, dtype=dtype).view(4, 2) + 10 * r
        return torch.sparse_coo_tensor(i, v, (5, 4, 2))
    for dtype in (torch.float32, torch.bfloat16):
        a = coo(RANK, dtype)
        dist.all_reduce(a)
        expect = sum(coo(r, dtype).to_dense() for r in range(WORLD))
        check(f"sparse all_reduce, 2 sparse dims, uncoalesced, {dtype}", a.is_sparse and torch.equal(a.to_dense(), expect),
              f"{a.to_dense()} vs {expect}")
    objs = [{"rank": RANK, "name": "x" * RANK}] if RANK == 2 else [None]
    dist.broadcast_object_list(objs, src=2)
    check("broadcast_object_list", objs == [{"rank": 2, "name": "xx"}], str(objs))
    gathered = [None] * WORLD
    dist.all_gather_object(gathered, (RANK, [RANK] * RANK))
    check("all_gather_object", gathered == [(r, [r] * r) for r in range(WORLD)], str(gathered))

    # Destroying a group while the future callback of its last op waits for the GIL that the
    # destroying thread holds: the group's destructor lets go of the GIL while it waits on the
    # worker. A long switch interval keeps the GIL with this thread while it spins, so the
    # callback is still waiting when the destructor runs (or the op was slower and the check
    # holds trivially).
    doomed = dist.new_group()
    ran = []
    fut = dist.all_reduce(data.clone(), group=doomed, async_op=True).get_future().then(lambda f: ran.append(1))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(60)
    spin_until = time.monotonic() + 1.0
    while time.monotonic() < spin_until:
        pass
    dist.destroy_process_group(doomed)
    del doomed  # the last reference: the backend's destructor runs here, holding the GIL
    sys.setswitchinterval(interval)
    fut.wait()
    check("destroying a group while a future callback waits for the GIL", ran == [1])
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {RANK}: all checks passed", flush=True)


if __name__ == "__main__":
    main()
