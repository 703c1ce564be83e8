"""The PyTorch part of the GPU acceptance (tools/gpu/accept.sh runs it under tools/cluster/run.sh,
one agent, every rank on one GPU, once per gpu_mode): CUDA tensors through the outrider backend,
each result bitwise against the same op on CPU tensors.

- a tensor at a non-zero offset of its allocation (a view into a larger one), and the other ops;
- a sparse COO allreduce;
- point to point: each rank sends to the next and receives from the previous with batch_isend_irecv
  (both on the current stream), a small and a large CUDA tensor, each bitwise the CPU data sent;
- DDP of a model with a sparse embedding: gradients allreduced as CUDA tensors, against the same
  run with them allreduced as CPU tensors (a comm hook that copies them to the host and back);
  both divide on the GPU, so the runs are bitwise equal exactly when the allreduces are;
- plain DDP (no hook) with the CUDA model trains, every rank ending with the same parameters.

Rank 0 prints one line per check, "PASS name" or "FAIL name: why"; the exit status is 1 if any
failed. --device cpu runs the same checks on CPU tensors (the script's own check, without a GPU).
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

import outrider_torch  # noqa: F401  (registers the backend)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
parser.add_argument("--steps", type=int, default=5)
args = parser.parse_args()

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
DEV = torch.device("cuda", 0) if args.device == "cuda" else torch.device("cpu")
MODE = os.environ.get("OUTRIDER_GPU_MODE", "staging")
failed = []


def report(name, ok, why=""):
    if not ok:
        failed.append(name)
    if RANK == 0:
        print(f"{'PASS' if ok else 'FAIL'} torch.{name}[{MODE},{WORLD}]" + ("" if ok else f": {why}"), flush=True)


def bitwise(a, b):
    a, b = a.detach().cpu(), b.detach().cpu()
    if a.is_sparse:
        a, b = a.coalesce(), b.coalesce()
        return torch.equal(a.indices(), b.indices()) and bitwise(a.values(), b.values())
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def check(name, f):
    try:
        ok, why = f()
    except Exception as e:  # a failed op is a failed check, and the others still run
        ok, why = False, f"{type(e).__name__}: {e}"
    report(name, ok, why)


def data(n, seed, rank=RANK):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return torch.randn(n, generator=g) * torch.exp2(torch.randint(0, 12, (n,), generator=g).float())


def offset_allreduce():
    base = data(1 << 20, 1)
    dev = base.to(DEV)[4096 + 17:]  # storage offset: inside the caching allocator's block
    host = base[4096 + 17:].clone()
    dist.all_reduce(dev)
    dist.all_reduce(host)
    return bitwise(dev, host), "the CUDA result differs from the CPU one"


def other_ops():
    n = 4099
    x = data(n, 2)
    out_d, out_h = torch.empty(n * WORLD, device=DEV), torch.empty(n * WORLD)
    dist.all_gather_into_tensor(out_d, x.to(DEV))
    dist.all_gather_into_tensor(out_h, x)
    if not bitwise(out_d, out_h):
        return False, "all_gather_into_tensor"
    y = data(n * WORLD, 3)
    rs_d, rs_h = torch.empty(n, device=DEV), torch.empty(n)
    dist.reduce_scatter_tensor(rs_d, y.to(DEV))
    dist.reduce_scatter_tensor(rs_h, y)
    if not bitwise(rs_d, rs_h):
        return False, "reduce_scatter_tensor"
    b_d, b_h = x.to(DEV), x.clone()
    dist.broadcast(b_d, src=WORLD - 1)
    dist.broadcast(b_h, src=WORLD - 1)
    if not bitwise(b_d, b_h):
        return False, "broadcast"
    a_d, a_h = torch.empty(n * WORLD, device=DEV), torch.empty(n * WORLD)
    dist.all_to_all_single(a_d, y.to(DEV))
    dist.all_to_all_single(a_h, y)
    if not bitwise(a_d, a_h):
        return False, "all_to_all_single"
    lst_d = [torch.empty(n, device=DEV) for _ in range(WORLD)]
    lst_h = [torch.empty(n) for _ in range(WORLD)]
    dist.all_gather(lst_d, x.to(DEV))
    dist.all_gather(lst_h, x)
    if not all(bitwise(p, q) for p, q in zip(lst_d, lst_h)):
        return False, "all_gather"
    return True, ""


def point_to_point():
    right, left = (RANK + 1) % WORLD, (RANK - 1) % WORLD
    for n in (17, 3 << 18):  # 68 B goes whole; 3 MiB in chunks, its send completing on receipt
        mine = data(n, 4 + n)
        inbox = torch.empty(n, device=DEV)
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, mine.to(DEV), right),
                                       dist.P2POp(dist.irecv, inbox, left)])
        for r in reqs:
            r.wait()
        if not bitwise(inbox, data(n, 4 + n, rank=left)):
            return False, f"the {n * 4}-byte message from rank {left} differs from what it sent"
    return True, ""


def sparse_allreduce():
    g = torch.Generator().manual_seed(7 + RANK)
    rows = torch.randint(0, 5000, (300,), generator=g)
    vals = torch.randn(300, 8, generator=g)
    host = torch.sparse_coo_tensor(rows.unsqueeze(0), vals, (5000, 8)).coalesce()
    dev = host.to(DEV)
    dist.all_reduce(dev)
    dist.all_reduce(host)
    return bitwise(dev, host), "the CUDA sparse result differs from the CPU one"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(2000, 16, mode="sum", sparse=True)
        self.fc = nn.Linear(16, 1)

    def forward(self, ids, offsets):
        return self.fc(self.emb(ids, offsets))


def train(hook):
    torch.manual_seed(0)
    model = Model().to(DEV)
    ddp = nn.parallel.DistributedDataParallel(model)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(100 + RANK)
    for _ in range(args.steps):
        ids = torch.randint(0, 2000, (64 * 4,), generator=g).to(DEV)
        offsets = torch.arange(0, 64 * 4, 4).to(DEV)
        target = torch.randn(64, 1, generator=g).to(DEV)
        opt.zero_grad()
        nn.functional.mse_loss(ddp(ids, offsets), target).backward()
        opt.step()
    return [p.detach().cpu() for p in model.parameters()]


def on_device(_, bucket):
    t = bucket.buffer()
    fut = dist.all_reduce(t, async_op=True).get_future()
    return fut.then(lambda f: f.value()[0].div_(WORLD))


def through_host(_, bucket):
    t = bucket.buffer()
    fut = dist.all_reduce(t.cpu(), async_op=True).get_future()
    return fut.then(lambda f: f.value()[0].to(t.device).div_(WORLD))


def ddp_bitwise():
    a, b = train(on_device), train(through_host)
    return all(bitwise(p, q) for p, q in zip(a, b)), "parameters differ between the CUDA and the host run"


def ddp_plain():
    params = torch.cat([p.flatten() for p in train(None)])
    mine = params.to(DEV)
    gathered = [torch.empty_like(mine) for _ in range(WORLD)]
    dist.all_gather(gathered, mine)
    same = all(bitwise(x, gathered[0]) for x in gathered)
    return same and bool(torch.isfinite(params).all()), "ranks ended with different parameters"


dist.init_process_group("outrider")
if DEV.type == "cuda":
    torch.cuda.set_device(DEV)
check("offset_allreduce", offset_allreduce)
check("other_ops", other_ops)
check("point_to_point", point_to_point)
check("sparse_allreduce", sparse_allreduce)
check("ddp_sparse_embedding_bitwise", ddp_bitwise)
check("ddp_plain", ddp_plain)
dist.destroy_process_group()
sys.exit(1 if failed else 0)
