// The NCCL path's communicators and launches (see nccl_path.h): making the job's communicators
// once every node knows the unique id, handing out launch tickets on node 0, and launching one
// item of an instance on its communicators and streams.
#include <algorithm>
#include <cstring>

#include "agent/engine/collective.h"
#include "agent/engine/gpu/nccl_path.h"
#include "agent/engine/gpu/nccl_types.h"
#include "agent/log.h"
#include "agent/memory/cuda_memory.h"
#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "loaders/nccl/library.h"

namespace outrider::agent {

#if OUTRIDER_HAVE_NCCL

using nccl_types::Chunkable;
using nccl_types::Comm;
using nccl_types::DtypeOf;
using nccl_types::RedOpOf;

Status NcclPath::StartInit(const std::vector<const ValidatedOp*>& ops) {
  devices_.clear();
  for (size_t r = 0; r < ops.size(); ++r) {
    const BufferSpan& s = ops[r]->recv.on_device() ? ops[r]->recv : ops[r]->send;
    for (size_t q = 0; q < r; ++q) {
      if (devices_[q] == s.device) {
        // The job routes ranks that share a GPU to the host engine by their first ops' GPUs: these
        // ranks' first ops were on different ones.
        return FailedPrecondition(
            "job '" + job_id_ + "': local ranks " + std::to_string(q) + " and " +
            std::to_string(r) +
            " have this op's buffers on one GPU, their first ops' on different ones, and NCCL "
            "runs one rank per GPU: keep each trainer's buffers on one GPU, or run the agent "
            "with gpu_nccl = off (GPU collectives then go through the host engine)");
      }
    }
    devices_.push_back(s.device);
  }
  if (ranks_.size() != ops.size())
    return Internal("job '" + job_id_ + "': no job rank for every local rank");
  init_deadline_ns_ = ipc::MonotonicNs() + options_.init_timeout_ns;
  if (root()) {
    OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
    ncclUniqueId id{};
    OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGetUniqueId(&id), "ncclGetUniqueId"));
    id_.assign(reinterpret_cast<const char*>(&id), sizeof(id));
    if (links_.send_id) links_.send_id(id_);
  }
  state_ = State::kInit;
  return Status::Ok();
}

Status NcclPath::CreateComms() {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory * cuda, CudaMemory::Get());
  for (int device : devices_) {
    OUTRIDER_ASSIGN_OR_RETURN(int stream, cuda->NewStream(device));
    streams_.push_back(stream);
  }
  ncclUniqueId id{};
  std::memcpy(&id, id_.data(), sizeof(id));
  comms_.assign(devices_.size(), nullptr);
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < devices_.size() && st.ok(); ++r) {
    auto stream = cuda->UseStream(streams_[r]);  // makes the GPU's context current
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t comm = nullptr;
    st = nccl::Check(*n, n->ncclCommInitRankConfig(&comm, world_, id, ranks_[r], &config),
                     "ncclCommInitRankConfig");
    comms_[r] = comm;
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  return st.ok() ? end : st;
}

Status NcclPath::AsyncError(bool* in_progress) const {
  auto n = nccl::Load();
  if (!n.ok()) return n.status();
  if (in_progress != nullptr) *in_progress = false;
  for (size_t r = 0; r < comms_.size(); ++r) {
    ncclResult_t async = ncclSuccess;
    if (comms_[r] == nullptr)
      return Internal("no communicator for local rank " + std::to_string(r));
    Status st = nccl::Check(**n, (*n)->ncclCommGetAsyncError(Comm(comms_[r]), &async),
                            "ncclCommGetAsyncError");
    if (in_progress != nullptr && async == ncclInProgress) *in_progress = true;
    if (st.ok() && async != ncclSuccess && async != ncclInProgress) {
      st = nccl::Check(
          **n, async,
          ("job '" + job_id_ + "': the NCCL communicator of rank " + std::to_string(ranks_[r]))
              .c_str(),
          Comm(comms_[r]));
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

void NcclPath::HandOutTickets() {
  while (!ready_.empty() && unfinished_bytes_ < 2 * options_.chunk_bytes) {
    auto next = MostUrgent();
    InstanceId id = std::get<2>(*next);
    Item& item = items_.at(id);
    uint64_t elt = item.unit_bytes;
    uint64_t chunk_elems = std::max<uint64_t>(1, options_.chunk_bytes / elt);
    uint64_t count = Chunkable(item.ops[0]->kind)
                         ? std::min(chunk_elems, item.count - item.ticketed)
                         : item.count;
    NcclTicket t{next_ticket_++, item.ticketed, count};
    item.ticketed += count;
    item.in_order = true;
    if (item.ticketed >= item.count) ready_.erase(next);
    unfinished_bytes_ += count * elt;
    tickets_[t.number] = {id, t};
    if (links_.send_ticket) links_.send_ticket(id.first, id.second, t);
  }
}

Status NcclPath::Launch(const Item& item, const NcclTicket& t, InFlight* flight) {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory * cuda, CudaMemory::Get());
  const ValidatedOp& first = *item.ops[0];
  if (t.first + t.count < t.first || t.first + t.count > item.count ||
      (!Chunkable(first.kind) && t.count != item.count)) {
    return Internal("job '" + job_id_ + "': NCCL launch ticket " + std::to_string(t.number) +
                    " names elements [" + std::to_string(t.first) + ", +" +
                    std::to_string(t.count) + ") of an instance of " + std::to_string(item.count));
  }
  ncclDataType_t dtype = ncclFloat32;
  DtypeOf(first.dtype, &dtype);
  uint64_t elt = ipc::DTypeSize(first.dtype);
  uint64_t offset = first.kind == ipc::OpKind::kAlltoallv ? 0 : t.first * elt;
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < item.ops.size() && st.ok(); ++r) {
    const ValidatedOp& op = *item.ops[r];
    auto stream = cuda->UseStream(streams_[r]);
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    auto s = static_cast<cudaStream_t>(*stream);
    auto* recv = reinterpret_cast<uint8_t*>(op.recv.address);
    const uint8_t* send =
        op.send.empty() ? recv : reinterpret_cast<const uint8_t*>(op.send.address);
    ncclComm_t comm = Comm(comms_[r]);
    switch (op.kind) {
      case ipc::OpKind::kAllreduce:
        st = nccl::Check(*n,
                         n->ncclAllReduce(send + offset, recv + offset, t.count, dtype,
                                          RedOpOf(op.reduce_op), comm, s),
                         "ncclAllReduce", comm);
        break;
      case ipc::OpKind::kBroadcast:
        if (op.recv.empty()) recv = const_cast<uint8_t*>(send);
        st = nccl::Check(
            *n, n->ncclBroadcast(send + offset, recv + offset, t.count, dtype, op.root, comm, s),
            "ncclBroadcast", comm);
        break;
      case ipc::OpKind::kAllgather:
        st = nccl::Check(*n, n->ncclAllGather(send, recv, op.count, dtype, comm, s),
                         "ncclAllGather", comm);
        break;
      case ipc::OpKind::kReduceScatter:
        st = nccl::Check(*n,
                         n->ncclReduceScatter(send, recv, op.recv.length / elt, dtype,
                                              RedOpOf(op.reduce_op), comm, s),
                         "ncclReduceScatter", comm);
        break;
      case ipc::OpKind::kAlltoallv: {
        // A send to and a receive from every rank, itself included, as bytes (any dtype); every
        // pair's counts agreed on every node before the launch was ordered. Zero-byte pairs too:
        // both sides of a pair always post the same.
        uint64_t at_send = 0, at_recv = 0;
        for (int p = 0; p < world_ && st.ok(); ++p) {
          uint64_t out = static_cast<uint64_t>(op.send_counts[static_cast<size_t>(p)]) * elt;
          uint64_t in = static_cast<uint64_t>(op.recv_counts[static_cast<size_t>(p)]) * elt;
          st = nccl::Check(*n, n->ncclSend(send + at_send, out, ncclUint8, p, comm, s), "ncclSend",
                           comm);
          if (st.ok())
            st = nccl::Check(*n, n->ncclRecv(recv + at_recv, in, ncclUint8, p, comm, s), "ncclRecv",
                             comm);
          at_send += out;
          at_recv += in;
        }
        break;
      }
      default:
        st = Internal("not an NCCL op");
        break;
    }
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  if (st.ok()) st = end;
  OUTRIDER_RETURN_IF_ERROR(st);
  // Each stream writes a ticket once it passed the collective, and wakes the loop.
  for (int stream : streams_) {
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t ticket, cuda->Enqueue(stream, {}));
    (void)cuda->WakeWhenDone(stream);  // else the loop's next timed look sees it
    flight->tickets.emplace_back(stream, ticket);
  }
  flight->count = t.count;
  flight->bytes = t.count * item.unit_bytes;
  ++launched_;
  return Status::Ok();
}

#endif

}  // namespace outrider::agent
