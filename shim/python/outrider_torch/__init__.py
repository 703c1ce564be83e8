"""Outrider as a torch.distributed backend.

    import outrider_torch                      # registers the "outrider" backend
    torch.distributed.init_process_group("outrider")

Every collective goes to this node's outrider-agent (which must be running; $OUTRIDER_SOCKET names
its socket if not the default). Dense tensors are reduced by the agent's hierarchical collectives,
sparse COO tensors (nn.Embedding(sparse=True) gradients under DDP) by its sparse allreduce.
Once an outrider process group exists, CPU tensors of 64 KiB or more are made in memory shared with
the agent (DDP's gradient buckets among them), and collectives use them where they lie, without
copies; smaller tensors, and tensors made before the group, are copied into shared memory and back.
OUTRIDER_TORCH_SHARED_ALLOC=off turns that off, OUTRIDER_TORCH_SHARED_MIN_BYTES moves the size.

Builds against PyTorch 1.13 (the backend is a c10d ProcessGroup) and 2.x (a c10d Backend for CPU
tensors inside a ProcessGroup of ours); backend() finds it either way.
"""

import atexit
import contextlib
import datetime
import math

import torch
import torch.distributed as dist

try:  # written by setup.py where the package was installed with pip
    from . import _build
except ImportError:
    _build = None


def _rebuild_hint():
    """How to build this package again against the PyTorch now in use: with the Python that runs
    now (not the one it was built with), from the source it was built from while that is still
    there (an sdist's is a temporary directory pip deleted)."""
    import os
    import sys
    source = _build.SOURCE if _build is not None else None
    if not source or not os.path.isfile(os.path.join(source, "setup.py")):
        source = "<the outrider repository, or its sdist>"
    return (f"reinstall it against this PyTorch: {sys.executable} -m pip install --no-build-isolation "
            f"--force-reinstall {source}")


def _cannot_load(why, cause=None):
    """The package cannot work here. Imported for `python -m outrider_torch` (whose diagnosis
    needs this package first), it says so and exits 1; imported by a program, ImportError."""
    import sys
    if sys.argv and sys.argv[0] == "-m":
        print(f"outrider_torch:     does not load: {why}\nPyTorch in use:     {torch.__version__}", file=sys.stderr)
        raise SystemExit(1)
    raise ImportError(f"outrider_torch: {why}") from cause


try:
    from . import _C
except ImportError as e:
    _cannot_load(f"cannot load its extension ({e}); {_rebuild_hint()}", e)


# Before the interpreter finalizes: a worker thread that completes a future afterwards could not
# take the GIL for its Python callbacks.
atexit.register(_C.shutdown)


def _major_minor(version):
    return tuple(int(x) for x in version.split("+")[0].split(".")[:2])


if _major_minor(_C.torch_version) != _major_minor(torch.__version__):
    _cannot_load(f"it was built against PyTorch {_C.torch_version}, but this is {torch.__version__}: "
                 f"{_rebuild_hint()}")


def library_path(name):
    """The path of a native library this package carries: "liboutrider" (the C API),
    "nccl_interposer" (LD_PRELOAD it under an NCCL trainer) or "nccl_profiler" (NCCL_PROFILER_PLUGIN);
    None if this build has none (the NCCL ones need a CUDA PyTorch and NCCL's headers at install)."""
    import os
    rel = (_build.LIBRARIES if _build is not None else {}).get(name)
    return os.path.join(os.path.dirname(__file__), rel) if rel else None

ProcessGroupOutrider = _C.ProcessGroupOutrider

SPARSE_ALGOS = {"auto": 0, "allgather": 1, "balanced": 2, "block": 3, "dense": 4}

def _create(store, rank, size, timeout):
    """The backend factory: the default group is the whole job; any other group (new_group,
    new_subgroups, ...) becomes a communicator of the job's ranks over the same connection."""
    if not dist.is_initialized():
        group = _C.create(store, rank, size, timeout)
    else:
        # torch tells a group's factory only the group rank: the members name their job ranks
        # through the group's own store.
        job_rank = dist.get_rank()
        store.set("outrider/member/%d" % rank, str(job_rank))
        ranks = [int(store.get("outrider/member/%d" % r)) for r in range(size)]
        group = _C.create_group(store, ranks, job_rank, dist.get_world_size(), rank, size, timeout)
    # 2.x: a ProcessGroup named "outrider" around the backend (torch's own would say "custom").
    return _C.wrap_group(store, group) if _C.backend_api else group


if "OUTRIDER" not in dist.Backend._plugins:
    if _C.backend_api:
        # 2.x: the factory makes one c10d Backend for CPU and CUDA tensors (CUDA ones go through
        # the agent's GPU handoff, ordered on the caller's current stream).
        dist.Backend.register_backend("outrider", _create, devices=["cpu", "cuda"])
    else:
        dist.Backend.register_backend("outrider", _create)


def backend(group=None):
    """The outrider backend of `group` (default: the default group), a ProcessGroupOutrider.

    In PyTorch 1.13 that is the group itself; in 2.x the group wraps it as its CPU backend.
    It has sparse_allreduce(tensor, demand) beyond the torch.distributed collectives.
    """
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    if _C.backend_api and not isinstance(pg, ProcessGroupOutrider):
        try:
            pg = pg._get_backend(torch.device("cpu"))
        except RuntimeError:
            pass
    if not isinstance(pg, ProcessGroupOutrider):
        raise TypeError("not an outrider process group: %r" % (pg,))
    return pg


def demand(ids, group=None):
    """Announces the row ids the next forward pass looks up (an int tensor, any shape).

    The next sparse allreduce (the embedding gradient) sends the rows those ids name ahead of
    the rest of its rows and of lower-priority traffic. Results are the same either way.
    """
    backend(group).set_demand(torch.as_tensor(ids))


def set_priority(priority, group=None):
    """Gives every op of `group` this priority in the agents' send scheduler (lower = sooner).

    Every group of a job shares one scheduler on each node, so this orders a group's traffic
    against the job's other groups. 0 (default) keeps the agents' defaults: point-to-point
    messages (-100) first, then collectives of at most 512 KiB (-50: a tensor-parallel layer's
    activations), then the bulk ones (1 to 999: data-parallel gradient buckets, the bucket the
    next forward pass needs first sooner). Every rank of the group should set the same value.
    """
    backend(group).set_priority(int(priority))


def set_sparse_algo(name, group=None):
    """Chooses the sparse allreduce algorithm: auto (default), allgather, balanced, block, dense."""
    if name not in SPARSE_ALGOS:
        raise ValueError("unknown sparse algorithm %r (one of %s)" % (name, ", ".join(SPARSE_ALGOS)))
    backend(group).set_sparse_algo(SPARSE_ALGOS[name])


def last_sparse_algo(group=None):
    """Name of the algorithm the agent ran for the last sparse allreduce."""
    code = backend(group).last_sparse_algo
    return {v: k for k, v in SPARSE_ALGOS.items()}.get(code, str(code))


def empty(*size, dtype=None):
    """Like torch.empty (CPU), but in memory shared with this node's agent, whatever its size.

    Collectives of outrider groups (allreduce, broadcast, reduce, sparse allreduce) hand the agent
    such a tensor's memory in place: no copy into a staging buffer before the op and none back
    after it. Works with or without a process group; the memory stays valid as long as the tensor
    or a view of it lives.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    numel = math.prod(size)
    itemsize = torch.empty(0, dtype=dtype).element_size()  # no allocation, routed or not
    if numel == 0:
        return torch.empty(size, dtype=dtype)
    return _C.shared_bytes(numel * itemsize).view(dtype).view(size)


@contextlib.contextmanager
def shared_memory():
    """Within it, the CPU tensors this thread allocates live in memory shared with the agent (as
    from empty()), whatever their size; other threads allocate as always (by size once an outrider
    process group exists)."""
    previous = _C.set_shared_allocation(True)
    try:
        yield
    finally:
        _C.set_shared_allocation(previous)


def shared_ddp(module, **kwargs):
    """torch.nn.parallel.DistributedDataParallel(module, **kwargs) with all its gradient buckets in
    shared memory, however small, and gradient_as_bucket_view defaulting to True (the gradients
    are views of the buckets, so DDP itself copies nothing between them either).

    Plain DistributedDataParallel already gets buckets of 64 KiB and more in shared memory (see
    the module's doc); this wrapper adds the smaller ones and the bucket views. DDP allocates the
    buckets when it is made and once more when it rebuilds them in the order gradients became
    ready (in the forward pass of the second step): both happen with this thread's allocations
    routed to shared memory (DDP's forward until it calls the module), and nothing else does.
    """
    kwargs.setdefault("gradient_as_bucket_view", True)
    with shared_memory():
        ddp = torch.nn.parallel.DistributedDataParallel(module, **kwargs)
    previous = []
    ddp_forward = ddp.forward

    def leave(*_):  # the wrapped module's forward begins: DDP's own work before it is done
        if previous:
            _C.set_shared_allocation(previous.pop())

    def forward(*args, **kwargs):
        previous.append(_C.set_shared_allocation(True))
        try:
            return ddp_forward(*args, **kwargs)
        finally:
            leave()  # also when DDP.forward raised, or ran the module without calling it

    ddp.forward = forward
    module.register_forward_pre_hook(leave)
    return ddp


def shared_memory_stats():
    """The process's memory shared with the agent: segments (sealed memfds, registered with an
    agent when an op first uses them), reserved_bytes (their address space; pages exist once
    touched), allocated_bytes and blocks in use, abandoned_blocks (never reused: an op on them
    timed out, and the agent may still write them), and min_bytes (the size from which every
    thread's CPU allocations go there; 0: off)."""
    stats = dict(_C.shared_memory_stats())
    stats["min_bytes"] = _C.shared_allocation_from()
    return stats


def release_shared_memory():
    """Gives the pages of freed shared memory back to the system (freed blocks otherwise keep
    theirs, so that the next step's tensors of the same sizes take no page faults); returns the
    bytes of address space released."""
    return _C.trim_shared_memory()


def copy_counters():
    """What the outrider backend copied between tensors and shared memory since the process started:
    bytes_in (into staging buffers), bytes_out (results back), tensors_staged, and
    tensors_in_place (tensors the agent used where they lie, without a copy)."""
    return dict(_C.copy_counters())


# ---- A job that loses a rank goes on (docs/elastic.md) ----

def membership():
    """This process's place in its job: a dict with generation, rank, world_size, local_rank,
    local_world_size, joiners_waiting (ranks the next generation would add from the joiners the
    agent holds; only the job's lowest node with ranks holds them) and error (why the generation cannot go on, '' while it
    can). Asks the agent; no communication with other ranks."""
    return _C.membership()


def membership_changed(group=None):
    """Whether the job should re-form now: a joiner waits to be admitted. Collective: every rank of
    `group` (default: the default group) calls it at the same point, and all get the same answer
    (the MAX over the ranks of what their agents hold)."""
    flag = torch.tensor([membership()["joiners_waiting"]], dtype=torch.int64)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=group)
    return bool(flag.item() > 0)


def _timedelta(timeout):
    return timeout if isinstance(timeout, datetime.timedelta) else datetime.timedelta(seconds=float(timeout))


def _milliseconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        return int(timeout.total_seconds() * 1000)
    return int(float(timeout) * 1000)


def _tcp_store(host, port, world, is_master, timeout):
    """A TCPStore without libuv where the PyTorch has the choice (2.x builds without libuv, as
    Debian's, refuse the default); 1.13 has no such choice."""
    kwargs = {"wait_for_workers": False} if is_master else {}
    try:
        return dist.TCPStore(host, port, world, is_master, timeout, use_libuv=False, **kwargs)
    except TypeError:
        return dist.TCPStore(host, port, world, is_master, timeout, **kwargs)


def _adopt(m, raw, timeout):
    """Makes the default group that of the generation in `m`: torch.distributed's rendezvous store
    of the old generation may have died with its rank 0, so the new rank 0 serves a new one
    (TCPStore on a free port, told to the others over the new generation itself)."""
    rank, world = m["rank"], m["world_size"]
    if dist.is_initialized():
        dist.destroy_process_group()
    port = torch.zeros(1, dtype=torch.int64)
    host = m["root_addr"].rsplit(":", 1)[0] if m["root_addr"] else "127.0.0.1"
    if rank == 0:
        store = _tcp_store(host, 0, world, True, timeout)
        port[0] = store.port
    opts = dist.BroadcastOptions()
    opts.rootRank = 0
    opts.rootTensor = 0
    raw.broadcast([port], opts).wait()
    if rank != 0:
        store = _tcp_store(host, int(port.item()), world, False, timeout)
    dist.init_process_group("outrider", store=store, rank=rank, world_size=world, timeout=timeout)
    return m


def reconfigure(timeout=datetime.timedelta(seconds=30)):
    """Re-forms the job after a rank or node was lost (an op failed), or to admit joiners
    (membership_changed() said so): every surviving rank calls it; the agents agree on who goes on
    (a rank that does not ask within half `timeout` is left out), renumber the ranks densely (old
    order, joiners last) and move each process into the new generation. Afterwards the default
    group of torch.distributed is the new generation's: get_rank() and get_world_size() say where
    this process is now; models must be wrapped in DistributedDataParallel again (which broadcasts
    rank 0's parameters), and optimizer state a joiner needs must be sent to it (broadcast).
    Groups made before (new_group, the old default group) refuse ops afterwards.
    Returns membership() of the new generation. Raises RuntimeError if this rank was left out, or
    the agents could not agree within `timeout`.

    PyTorch's own c10d reconfigure interface is not in 1.13, 2.6 or 2.11; this call stands in
    for it."""
    timeout = _timedelta(timeout)
    m, raw = _C.reconfigure(_milliseconds(timeout), False, dist.HashStore())
    return _adopt(m, raw, timeout)


def join(timeout=datetime.timedelta(minutes=5)):
    """Joins a running job as a new rank (a restarted process, or a spare): connects to this node's
    agent as a joiner and waits until the job's ranks re-form (they learn of it through
    membership_changed()). The job is $OUTRIDER_JOB_ID (or $TORCHELASTIC_RUN_ID); the agent of this
    node must serve a rank of it, or $OUTRIDER_ROOT_ADDR (or $MASTER_ADDR) must name an agent that
    does. Afterwards the default group is the new generation's, as after reconfigure(). Returns
    membership()."""
    if dist.is_initialized():
        raise RuntimeError("outrider_torch.join: this process is in a job already (reconfigure instead)")
    timeout = _timedelta(timeout)
    m, raw = _C.reconfigure(_milliseconds(timeout), True, dist.HashStore())
    return _adopt(m, raw, timeout)
