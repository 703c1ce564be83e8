#!/usr/bin/python3
"""Two kinds of process group in one model, trained with outrider and with gloo side by side.

Ranks form tensor-parallel groups of --tp consecutive ranks (within a node, as Megatron places
them) and data-parallel groups of the ranks at the same position in every tensor-parallel group
(across nodes). The model is an MLP whose hidden layer is split over the tensor-parallel group:
the first linear layer by output columns, the second by input rows, its partial outputs summed by
an all_reduce in the tensor-parallel group (in autograd: forward all_reduce, backward identity,
and the reverse for the input). DistributedDataParallel averages the gradients over the
data-parallel group. A second copy of the model, from the same initial weights and on the same
batches, trains through gloo groups of the same ranks; at the end every rank checks that both
copies' parameters are bitwise equal, prints the loss curve and a digest of its parameters. (A sum
of two values is the same in any order, so with groups of at most two ranks — the default on 4
ranks — the two copies must be bitwise equal; larger groups sum in another order than gloo's ring
and are only checked to agree within float32 rounding.)

Run as every rank of a job (tools/outrider run, tools/cluster/run.sh, or torchrun with an agent on
every node); the world size must be a multiple of --tp.
"""
import argparse
import hashlib
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F

import outrider_torch  # noqa: F401  (registers the backend)


class _Reduce(torch.autograd.Function):
    """Sum over the tensor-parallel group forward; gradient passes through unchanged."""

    @staticmethod
    def forward(ctx, x, group):
        x = x.clone()
        dist.all_reduce(x, group=group)
        return x

    @staticmethod
    def backward(ctx, g):
        return g, None


class _Copy(torch.autograd.Function):
    """Identity forward; the input's gradient summed over the tensor-parallel group."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        dist.all_reduce(g, group=ctx.group)
        return g, None


class TensorParallelMLP(torch.nn.Module):
    def __init__(self, dim, hidden, tp_rank, tp_size, tp_group, seed):
        super().__init__()
        gen = torch.Generator().manual_seed(seed)  # the full weights, the same on every rank
        w1 = torch.randn(hidden, dim, generator=gen) / dim ** 0.5
        w2 = torch.randn(dim, hidden, generator=gen) / hidden ** 0.5
        part = hidden // tp_size
        cols = slice(tp_rank * part, (tp_rank + 1) * part)
        self.w1 = torch.nn.Parameter(w1[cols].clone())
        self.b1 = torch.nn.Parameter(torch.zeros(part))
        self.w2 = torch.nn.Parameter(w2[:, cols].clone())
        self.group = tp_group

    def forward(self, x):
        x = _Copy.apply(x, self.group)
        h = F.relu(F.linear(x, self.w1, self.b1))
        return _Reduce.apply(F.linear(h, self.w2), self.group)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tp", type=int, default=2, help="ranks per tensor-parallel group (default 2)")
    p.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    p.add_argument("--dim", type=int, default=64, help="model width (default 64)")
    p.add_argument("--hidden", type=int, default=256, help="hidden units, split over the tensor-parallel group (default 256)")
    p.add_argument("--batch", type=int, default=32, help="samples per data-parallel rank and step (default 32)")
    args = p.parse_args()

    dist.init_process_group("outrider")
    rank, world = dist.get_rank(), dist.get_world_size()
    if world % args.tp or args.hidden % args.tp:
        sys.exit(f"world size {world} and --hidden {args.hidden} must be multiples of --tp {args.tp}")
    dp_size = world // args.tp
    tp_index, tp_rank = rank // args.tp, rank % args.tp

    # Every rank creates every group, in the same order (c10d's rule), for both backends.
    groups = {}
    for backend in ("outrider", "gloo"):
        tp = [dist.new_group(list(range(t * args.tp, (t + 1) * args.tp)), backend=backend) for t in range(dp_size)]
        dp = [dist.new_group(list(range(r, world, args.tp)), backend=backend) for r in range(args.tp)]
        groups[backend] = (tp[tp_index], dp[tp_rank])

    models, optims, losses = {}, {}, {}
    for backend, (tp_group, dp_group) in groups.items():
        mlp = TensorParallelMLP(args.dim, args.hidden, tp_rank, args.tp, tp_group, seed=1)
        models[backend] = torch.nn.parallel.DistributedDataParallel(mlp, process_group=dp_group)
        optims[backend] = torch.optim.SGD(models[backend].parameters(), lr=0.05, momentum=0.9)
        losses[backend] = []

    target_w = torch.randn(args.dim, args.dim, generator=torch.Generator().manual_seed(2)) / args.dim ** 0.5
    data = torch.Generator().manual_seed(100 + tp_index)  # one data stream per data-parallel rank
    for _ in range(args.steps):
        x = torch.randn(args.batch, args.dim, generator=data)
        y = torch.tanh(x @ target_w)
        for backend in models:
            optims[backend].zero_grad()
            loss = F.mse_loss(models[backend](x), y)
            loss.backward()
            optims[backend].step()
            losses[backend].append(loss.item())

    params = {b: torch.cat([q.detach().reshape(-1) for q in m.parameters()]) for b, m in models.items()}
    bitwise = args.tp <= 2 and dp_size <= 2
    if bitwise:
        same = torch.equal(params["outrider"], params["gloo"]) and losses["outrider"] == losses["gloo"]
        verdict = f"outrider and gloo bitwise equal: {same}"
    else:
        diff = (params["outrider"] - params["gloo"]).abs().max().item()
        same = torch.allclose(params["outrider"], params["gloo"], rtol=1e-4, atol=1e-5)
        verdict = f"outrider and gloo within rounding: {same} (max difference {diff:.3g})"
    digest = hashlib.sha256(params["outrider"].numpy().tobytes()).hexdigest()[:16]
    print(f"rank {rank} (tp group {tp_index}, dp group {tp_rank}): loss {losses['outrider'][0]:.6f} -> "
          f"{losses['outrider'][-1]:.6f}; parameters {digest}; {verdict}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
