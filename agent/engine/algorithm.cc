// The algorithm base (data movement that fails the instance on error) and the factory.
#include "agent/engine/algorithm.h"

#include "agent/engine/algorithms/alltoallv.h"
#include "agent/engine/algorithms/chain_broadcast.h"
#include "agent/engine/algorithms/direct.h"
#include "agent/engine/algorithms/gather_ring.h"
#include "agent/engine/algorithms/ring_allreduce.h"
#include "agent/engine/algorithms/sparse_exchange.h"
#include "agent/engine/device_path.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

void Algorithm::OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) {
  Complete(ProtocolError("peer sent a chunk to " + std::string(label()) + " " + c_.Name() +
                         ", which expects none"));
}

void Algorithm::Copy(std::vector<CopyPair> pairs, Then then, OpTrace::Kind kind) {
  ++data_calls_;
  c_.trace.Begin(kind, ipc::MonotonicNs());
  data_.Copy(std::move(pairs), [this, kind, then = std::move(then)](const Status& s) {
    --data_calls_;
    c_.trace.End(kind, ipc::MonotonicNs());
    if (!s.ok()) return Complete(s.Annotate("copying"));
    if (!failed() && then) then();
  });
}

void Algorithm::Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs, ipc::ReduceOp op,
                       Then then, OpTrace::Kind kind) {
  ++data_calls_;
  c_.trace.Begin(kind, ipc::MonotonicNs());
  data_.Reduce(std::move(dsts), std::move(srcs), this->op().dtype, op,
               [this, kind, then = std::move(then)](const Status& s) {
                 --data_calls_;
                 c_.trace.End(kind, ipc::MonotonicNs());
                 if (!s.ok()) return Complete(s.Annotate("reducing"));
                 if (!failed() && then) then();
               });
}

void Algorithm::Divide(const BufferSpan& dst, int64_t divisor, Then then) {
  ++data_calls_;
  c_.trace.Begin(OpTrace::kReduce, ipc::MonotonicNs());
  data_.Divide(dst, op().dtype, divisor, [this, then = std::move(then)](const Status& s) {
    --data_calls_;
    c_.trace.End(OpTrace::kReduce, ipc::MonotonicNs());
    if (!s.ok()) return Complete(s.Annotate("averaging"));
    if (!failed() && then) then();
  });
}

void Algorithm::CompleteAfter(std::vector<CopyPair> outputs) {
  Copy(
      std::move(outputs), [this] { Complete(Status::Ok()); }, OpTrace::kWriteBack);
}

std::vector<CopyPair> Algorithm::GatherLocalBlocks() const {
  size_t L = local(), first = static_cast<size_t>(topo_.first_local_rank());
  uint64_t block = op().send.length;
  std::vector<CopyPair> pairs;
  for (size_t dst = 0; dst < L; ++dst) {
    for (size_t src = 0; src < L; ++src)
      pairs.push_back({c_.ops[dst]->recv.Sub((first + src) * block, block), c_.ops[src]->send});
  }
  return pairs;
}

std::vector<CopyPair> Algorithm::CopyRootLocally() const {
  const BufferSpan& src = c_.ops[static_cast<size_t>(op().root - topo_.first_local_rank())]->send;
  std::vector<CopyPair> pairs;
  for (const ValidatedOp* x : c_.ops) pairs.push_back({x->recv, src});
  return pairs;
}

uint64_t ChunkBytes(const EngineOptions& options, ipc::DType dtype) {
  uint64_t elem = ipc::DTypeSize(dtype);
  return std::max<uint64_t>(elem, options.chunk_bytes / elem * elem);
}

Status CheckRingChunk(uint64_t offset, uint64_t len, ipc::DType dtype) {
  uint64_t elem = ipc::DTypeSize(dtype);
  if (len != 0 && len % elem == 0 && offset % elem == 0) return Status::Ok();
  return ProtocolError(
      "peer sent a ring chunk of " + std::to_string(len) + " bytes at offset " +
      std::to_string(offset) +
      (len == 0 ? ": empty" : ": not whole " + std::string(ipc::DTypeName(dtype)) + " elements"));
}

namespace {

Status CheckReachable(const Collective& c, const DataPlane& data) {
  for (const ValidatedOp* o : c.ops) {
    for (const BufferSpan* s : {&o->send, &o->recv, &o->ids, &o->out_ids, &o->demand}) {
      if (!s->empty() && !data.Reaches(*s)) {
        return FailedPrecondition(std::string(MemoryKindName(s->kind)) + " memory of " + c.Name() +
                                  " is not reachable by this agent's data plane");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Algorithm>> MakeAlgorithm(Collective& c, const AlgorithmDeps& deps) {
  // GPU memory reaches a job only for the agents' NCCL (its sessions' gates stage the rest).
  if (c.op().NamesDevice() && deps.device != nullptr) return deps.device->MakeAlgorithm(c, deps);
  OUTRIDER_RETURN_IF_ERROR(CheckReachable(c, *deps.data));
  const ValidatedOp& o = c.op();
  bool large = o.recv.length > deps.options->direct_max_bytes;
  std::unique_ptr<Algorithm> a;
  switch (o.kind) {
    case ipc::OpKind::kAllreduce:
      a = large ? std::unique_ptr<Algorithm>(std::make_unique<RingAllreduce>(c, deps))
                : std::make_unique<Direct>(c, deps);
      break;
    case ipc::OpKind::kBroadcast:
      a = large ? std::unique_ptr<Algorithm>(std::make_unique<ChainBroadcast>(c, deps))
                : std::make_unique<Direct>(c, deps);
      break;
    case ipc::OpKind::kAllgather:
      // The largest node's share (every local rank's block) decides, alike on every node.
      if (o.send.length * static_cast<uint64_t>(deps.topo->ranks.max_ranks_on_a_node()) >
          deps.options->direct_max_bytes) {
        a = std::make_unique<GatherRing>(c, deps);
      } else {
        a = std::make_unique<Direct>(c, deps);
      }
      break;
    case ipc::OpKind::kReduceScatter:
    case ipc::OpKind::kBarrier:
      a = std::make_unique<Direct>(c, deps);
      break;
    case ipc::OpKind::kAlltoallv:
      a = std::make_unique<Alltoallv>(c, deps);
      break;
    case ipc::OpKind::kSparseAllreduce:
    case ipc::OpKind::kSparseShard:
    case ipc::OpKind::kSparseLookup:
      a = std::make_unique<SparseExchange>(c, deps);
      break;
    case ipc::OpKind::kSend:
    case ipc::OpKind::kRecv:
      // The job matches them itself (engine/point_to_point.h); they never become instances.
      return Internal("a point-to-point op reached the collective engine");
  }
  return a;
}

}  // namespace outrider::agent
