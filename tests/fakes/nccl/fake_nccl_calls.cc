// The fake NCCL's collectives and point-to-point groups (fake_nccl_internal.h): what a rank
// launches, how the ranks agree on it and move the data through the communicator's segment, and
// the launch on the caller's stream (a host function, the collective's "kernel"), deferred inside
// ncclGroupStart/End.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "loaders/cuda/driver.h"
#include "tests/fakes/nccl/fake_nccl_internal.h"

namespace outrider::fake_nccl {
namespace {

const char* KindName(int kind) {
  switch (kind) {
    case 1:
      return "allreduce";
    case 2:
      return "broadcast";
    case 3:
      return "allgather";
    case 4:
      return "reduce-scatter";
    case 5:
      return "point-to-point group";
    default:
      return "?";
  }
}

std::string Describe(const Desc& d) {
  return std::string(KindName(d.kind)) + " of " + std::to_string(d.count) + " (dtype " +
         std::to_string(d.dtype) + ", op " + std::to_string(d.op) + ", root " +
         std::to_string(d.root) + ")";
}

// One side of a point-to-point transfer in a group: the peer, the memory, its bytes.
struct P2p {
  int peer;
  uint8_t* data;
  size_t bytes;
};

struct Call {
  std::shared_ptr<Comm> comm;
  Desc desc;
  const uint8_t* send;
  uint8_t* recv;
  std::vector<P2p> sends, recvs;  // kind 5
};

const P2p* With(const std::vector<P2p>& v, int peer) {
  for (const P2p& p : v) {
    if (p.peer == peer) return &p;
  }
  return nullptr;
}

// A point-to-point group: in round k every rank sends to rank + k and receives from rank - k,
// through its slot, in chunks; each round first publishes the bytes every rank sends in it.
void RunP2p(Call& call) {
  Comm& c = *call.comm;
  for (int k = 0; k < c.nranks; ++k) {
    int to = (c.rank + k) % c.nranks, from = (c.rank - k + c.nranks) % c.nranks;
    const P2p* send = With(call.sends, to);
    const P2p* recv = With(call.recvs, from);
    c.seg->ranks[c.rank].p2p_bytes = send != nullptr ? send->bytes : 0;
    if (!Barrier(c)) return;
    uint64_t most = 0;
    for (int r = 0; r < c.nranks; ++r) most = std::max<uint64_t>(most, c.seg->ranks[r].p2p_bytes);
    uint64_t coming = c.seg->ranks[from].p2p_bytes, expected = recv != nullptr ? recv->bytes : 0;
    if (coming != expected) {
      c.Fail(ncclInvalidUsage,
             "rank " + std::to_string(from) + " sends " + std::to_string(coming) +
                 " bytes to rank " + std::to_string(c.rank) + ", which receives " +
                 std::to_string(expected),
             true);
      return;
    }
    if (!Barrier(c)) return;  // every rank read the sizes before the next round overwrites them
    for (uint64_t lo = 0; lo < most; lo += kSlotBytes) {
      if (send != nullptr && lo < send->bytes)
        std::memcpy(c.Slot(c.rank), send->data + lo,
                    std::min<uint64_t>(kSlotBytes, send->bytes - lo));
      if (!Barrier(c)) return;
      if (recv != nullptr && lo < recv->bytes)
        std::memcpy(recv->data + lo, c.Slot(from),
                    std::min<uint64_t>(kSlotBytes, recv->bytes - lo));
      if (!Barrier(c)) return;
    }
  }
}

// The collective, on the stream: every rank runs the same sequence of barriers while the
// communicator's ranks agree on what they launched.
void Run(Call& call) {
  Comm& c = *call.comm;
  if (c.state.load() != ncclSuccess) return;  // a failed communicator launches nothing
  const Desc& d = call.desc;
  c.seg->ranks[c.rank].desc = d;
  if (!Barrier(c)) return;
  for (int r = 0; r < c.nranks; ++r) {
    const Desc& o = c.seg->ranks[r].desc;
    if (o.kind != d.kind || o.count != d.count || o.dtype != d.dtype || o.op != d.op ||
        o.root != d.root) {
      c.Fail(ncclInvalidUsage,
             "ranks launched different collectives at position " + std::to_string(c.step) +
                 " of the order: rank " + std::to_string(c.rank) + " " + Describe(d) + ", rank " +
                 std::to_string(r) + " " + Describe(o),
             true);
      return;
    }
  }
  if (d.kind == 5) return RunP2p(call);
  size_t elt = Size(static_cast<ncclDataType_t>(d.dtype));
  auto dtype = static_cast<ncclDataType_t>(d.dtype);
  auto op = static_cast<ncclRedOp_t>(d.op);
  size_t per =
      d.kind == 4 ? static_cast<size_t>(c.nranks) : 1;  // chunks of each rank's block in a slot
  size_t chunk = kSlotBytes / (elt * per);
  bool any = false;
  for (size_t lo = 0; lo < d.count; lo += chunk) {
    any = true;
    size_t n = std::min<size_t>(chunk, d.count - lo);
    uint8_t* mine = c.Slot(c.rank);
    switch (d.kind) {
      case 1:
      case 3:
        std::memcpy(mine, call.send + lo * elt, n * elt);
        break;
      case 2:
        if (c.rank == d.root) std::memcpy(mine, call.send + lo * elt, n * elt);
        break;
      case 4:
        for (int r = 0; r < c.nranks; ++r)
          std::memcpy(mine + r * n * elt, call.send + (r * d.count + lo) * elt, n * elt);
        break;
    }
    if (!Barrier(c)) return;
    std::vector<const uint8_t*> in;
    switch (d.kind) {
      case 1:
        for (int r = 0; r < c.nranks; ++r) in.push_back(c.Slot(r));
        Reduce(in, call.recv + lo * elt, n, dtype, op);
        break;
      case 2:
        std::memcpy(call.recv + lo * elt, c.Slot(d.root), n * elt);
        break;
      case 3:
        for (int r = 0; r < c.nranks; ++r)
          std::memcpy(call.recv + (r * d.count + lo) * elt, c.Slot(r), n * elt);
        break;
      case 4:
        for (int r = 0; r < c.nranks; ++r) in.push_back(c.Slot(r) + c.rank * n * elt);
        Reduce(in, call.recv + lo * elt, n, dtype, op);
        break;
    }
    if (!Barrier(c)) return;
  }
  if (!any) Barrier(c);
}

struct Group {
  int depth = 0;
  std::vector<std::function<void()>> launches;
  std::vector<std::pair<std::shared_ptr<Call>, cudaStream_t>> p2p;  // one call per communicator
};
[[gnu::tls_model("initial-exec")]] thread_local Group t_group;

// Queues `call` on `stream` as the collective's "kernel".
void Enqueue(const std::shared_ptr<Call>& call, cudaStream_t stream) {
  auto d = outrider::cuda::Load();
  if (!d.ok()) return;
  auto* held = new std::shared_ptr<Call>(call);
  CUresult rc = (*d)->cuLaunchHostFunc(
      reinterpret_cast<CUstream>(stream),
      [](void* p) {
        auto* h = static_cast<std::shared_ptr<Call>*>(p);
        Run(**h);
        delete h;
      },
      held);
  if (rc != CUDA_SUCCESS) {
    delete held;
    call->comm->Fail(ncclUnhandledCudaError, "cuLaunchHostFunc failed: " + std::to_string(rc),
                     false);
  }
}

ncclResult_t PointToPoint(bool is_send, void* data, size_t count, ncclDataType_t dtype, int peer,
                          ncclComm_t comm, cudaStream_t stream) {
  if (comm == nullptr) return ncclInvalidArgument;
  std::shared_ptr<Comm> c = reinterpret_cast<Handle*>(comm)->comm;
  if (int s = c->state.load(); s != ncclSuccess) {
    t_last_error = s == ncclInProgress ? "the communicator is still initializing" : c->Error();
    return s == ncclInProgress ? ncclInvalidUsage : static_cast<ncclResult_t>(s);
  }
  if (Size(dtype) == 0 || peer < 0 || peer >= c->nranks) {
    t_last_error = "bad dtype or peer";
    return ncclInvalidArgument;
  }
  std::shared_ptr<Call> call;
  for (auto& [pending, s] : t_group.p2p) {
    if (pending->comm == c) {
      if (s != stream) {
        t_last_error =
            "the fake NCCL takes a group's point-to-point calls on one stream per communicator";
        return ncclInvalidUsage;
      }
      call = pending;
    }
  }
  if (call == nullptr) {
    call = std::make_shared<Call>(Call{c, Desc{5, ncclUint8, 0, 0, 0}, nullptr, nullptr, {}, {}});
    t_group.p2p.emplace_back(call, stream);
  }
  std::vector<P2p>& side = is_send ? call->sends : call->recvs;
  if (With(side, peer) != nullptr) {
    t_last_error = "the fake NCCL takes one send to and one receive from each peer in a group";
    return ncclInvalidUsage;
  }
  side.push_back({peer, static_cast<uint8_t*>(data), count * Size(dtype)});
  if (t_group.depth == 0) {  // alone: a group of one
    auto p2p = std::move(t_group.p2p);
    t_group.p2p.clear();
    for (auto& [pending, s] : p2p) Enqueue(pending, s);
  }
  return ncclSuccess;
}

ncclResult_t Launch(ncclComm_t comm, int kind, const void* send, void* recv, size_t count,
                    ncclDataType_t dtype, ncclRedOp_t op, int root, cudaStream_t stream) {
  if (comm == nullptr) return ncclInvalidArgument;
  std::shared_ptr<Comm> c = reinterpret_cast<Handle*>(comm)->comm;
  if (int s = c->state.load(); s != ncclSuccess) {
    t_last_error = s == ncclInProgress ? "the communicator is still initializing" : c->Error();
    return s == ncclInProgress ? ncclInvalidUsage : static_cast<ncclResult_t>(s);
  }
  if (Size(dtype) == 0 || ((kind == 1 || kind == 4) && dtype != ncclBfloat16 && Size(dtype) == 2)) {
    t_last_error = "the fake NCCL has no dtype " + std::to_string(dtype);
    return ncclInvalidArgument;
  }
  if (kind == 2 && (root < 0 || root >= c->nranks)) return ncclInvalidArgument;
  auto call = std::make_shared<Call>(Call{c,
                                          Desc{kind, dtype, op, root, count},
                                          static_cast<const uint8_t*>(send),
                                          static_cast<uint8_t*>(recv),
                                          {},
                                          {}});
  auto launch = [call, stream] { Enqueue(call, stream); };
  if (t_group.depth > 0) {
    t_group.launches.push_back(std::move(launch));
  } else {
    launch();
  }
  return ncclSuccess;
}

}  // namespace
}  // namespace outrider::fake_nccl

using namespace outrider::fake_nccl;

FAKE_API ncclResult_t pncclGroupStart() {
  ++t_group.depth;
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclGroupEnd() {
  if (t_group.depth == 0) return ncclInvalidUsage;
  if (--t_group.depth == 0) {
    auto launches = std::move(t_group.launches);
    auto p2p = std::move(t_group.p2p);
    t_group.launches.clear();
    t_group.p2p.clear();
    for (auto& l : launches) l();
    for (auto& [call, stream] : p2p) Enqueue(call, stream);
  }
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclAllReduce(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) {
  return Launch(comm, 1, send, recv, count, dtype, op, 0, stream);
}

FAKE_API ncclResult_t pncclBroadcast(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, int root, ncclComm_t comm,
                                     cudaStream_t stream) {
  return Launch(comm, 2, send, recv, count, dtype, ncclSum, root, stream);
}

FAKE_API ncclResult_t pncclAllGather(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, ncclComm_t comm, cudaStream_t stream) {
  return Launch(comm, 3, send, recv, count, dtype, ncclSum, 0, stream);
}

FAKE_API ncclResult_t pncclReduceScatter(const void* send, void* recv, size_t count,
                                         ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                         cudaStream_t stream) {
  return Launch(comm, 4, send, recv, count, dtype, op, 0, stream);
}

FAKE_API ncclResult_t pncclSend(const void* send, size_t count, ncclDataType_t dtype, int peer,
                                ncclComm_t comm, cudaStream_t stream) {
  return PointToPoint(true, const_cast<void*>(send), count, dtype, peer, comm, stream);
}

FAKE_API ncclResult_t pncclRecv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                                ncclComm_t comm, cudaStream_t stream) {
  return PointToPoint(false, recv, count, dtype, peer, comm, stream);
}

FAKE_API ncclResult_t pncclBcast(void* buff, size_t count, ncclDataType_t dtype, int root,
                                 ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, dtype, root, comm, stream);
}

FAKE_WEAK(GroupStart)
FAKE_WEAK(GroupEnd)
FAKE_WEAK(AllReduce)
FAKE_WEAK(Broadcast)
FAKE_WEAK(AllGather)
FAKE_WEAK(ReduceScatter)
FAKE_WEAK(Send)
FAKE_WEAK(Recv)
FAKE_WEAK(Bcast)
