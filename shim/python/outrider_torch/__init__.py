"""Outrider as a torch.distributed backend.

    import outrider_torch                      # registers the "outrider" backend
    torch.distributed.init_process_group("outrider")

Every collective goes to this node's outrider-agent (which must be running; $OUTRIDER_SOCKET names
its socket if not the default). Dense tensors are reduced by the agent's hierarchical collectives,
sparse COO tensors (nn.Embedding(sparse=True) gradients under DDP) by its sparse allreduce.
"""

import torch
import torch.distributed as dist

from . import _C

ProcessGroupOutrider = _C.ProcessGroupOutrider

SPARSE_ALGOS = {"auto": 0, "allgather": 1, "balanced": 2, "block": 3, "dense": 4}

if "OUTRIDER" not in dist.Backend._plugins:
    dist.Backend.register_backend("outrider", _C.create)


def _group(group):
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    if not isinstance(pg, ProcessGroupOutrider):
        raise TypeError("not an outrider process group: %r" % (pg,))
    return pg


def demand(ids, group=None):
    """Announces the row ids the next forward pass looks up (an int tensor, any shape).

    The next sparse allreduce (the embedding gradient) sends the rows those ids name ahead of
    the rest of its rows and of lower-priority traffic. Results are the same either way.
    """
    _group(group).set_demand(torch.as_tensor(ids))


def set_sparse_algo(name, group=None):
    """Chooses the sparse allreduce algorithm: auto (default), allgather, balanced, block, dense."""
    if name not in SPARSE_ALGOS:
        raise ValueError("unknown sparse algorithm %r (one of %s)" % (name, ", ".join(SPARSE_ALGOS)))
    _group(group).set_sparse_algo(SPARSE_ALGOS[name])


def last_sparse_algo(group=None):
    """Name of the algorithm the agent ran for the last sparse allreduce."""
    code = _group(group).last_sparse_algo
    return {v: k for k, v in SPARSE_ALGOS.items()}.get(code, str(code))
