// Fingerprints and their comparison.
#include "agent/engine/agreement.h"

#include "agent/engine/collective.h"

namespace outrider::agent {

using ipc::OpKind;

Fingerprint FingerprintOf(const ValidatedOp& op) {
  Fingerprint f{};
  f.kind = static_cast<uint32_t>(op.kind);
  if (op.kind == OpKind::kBarrier) return f;
  // GPU memory reaches a job only for the agents' NCCL (sessions stage the rest to host memory).
  f.gpu = op.NamesDevice() ? 1 : 0;
  f.dtype = static_cast<uint32_t>(op.dtype);
  f.count = op.count;
  if (op.kind == OpKind::kAllreduce || op.kind == OpKind::kReduceScatter)
    f.reduce_op = static_cast<uint32_t>(op.reduce_op);
  if (op.kind == OpKind::kBroadcast) f.root = op.root;
  if (ipc::IsSparse(op.kind)) {
    f.rows = op.rows;
    f.algo = op.algo;
  }
  return f;
}

std::optional<Disagreement> Compare(const Fingerprint& a, const Fingerprint& b) {
  auto kind = static_cast<OpKind>(a.kind);
  if (a.kind != b.kind) {
    return Disagreement{"op kind", std::string(ipc::OpKindName(kind)),
                        std::string(ipc::OpKindName(static_cast<OpKind>(b.kind)))};
  }
  if (a.dtype != b.dtype) {
    return Disagreement{"dtype", std::string(ipc::DTypeName(static_cast<ipc::DType>(a.dtype))),
                        std::string(ipc::DTypeName(static_cast<ipc::DType>(b.dtype)))};
  }
  if (a.count != b.count)
    return Disagreement{ipc::IsSparse(kind) ? "dim" : "count", std::to_string(a.count),
                        std::to_string(b.count)};
  if (a.reduce_op != b.reduce_op) {
    return Disagreement{"reduce op",
                        std::string(ipc::ReduceOpName(static_cast<ipc::ReduceOp>(a.reduce_op))),
                        std::string(ipc::ReduceOpName(static_cast<ipc::ReduceOp>(b.reduce_op)))};
  }
  if (a.root != b.root) return Disagreement{"root", std::to_string(a.root), std::to_string(b.root)};
  if (a.gpu != b.gpu) {
    auto where = [](uint32_t gpu) { return std::string(gpu != 0 ? "GPU (NCCL)" : "host"); };
    return Disagreement{"memory (gpu_nccl, shared GPUs)", where(a.gpu), where(b.gpu)};
  }
  if (a.rows != b.rows) return Disagreement{"rows", std::to_string(a.rows), std::to_string(b.rows)};
  if (a.algo != b.algo) {
    if (kind == OpKind::kSparseAllreduce) {
      return Disagreement{"algorithm",
                          std::string(ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(a.algo))),
                          std::string(ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(b.algo)))};
    }
    if (ipc::IsSparse(kind))
      return Disagreement{"shard scheme", a.algo == 0 ? "range" : "hash",
                          b.algo == 0 ? "range" : "hash"};
    auto name = [](uint32_t algo) {
      return std::string(algo == kDirectAlgo ? "the direct exchange" : "a ring or chain");
    };
    return Disagreement{"algorithm (the agents' direct_max_bytes differ)", name(a.algo),
                        name(b.algo)};
  }
  return std::nullopt;
}

std::string DisagreementMessage(const Fingerprint& a, uint64_t key, uint64_t seq,
                                const std::string& job_id, const Disagreement& d,
                                const std::string& who_a, const std::string& who_b) {
  return std::string(ipc::OpKindName(static_cast<OpKind>(a.kind))) + " " + InstanceName(key, seq) +
         " in job '" + job_id + "': ranks disagree on " + d.field + ": " + who_a + " has " + d.a +
         ", " + who_b + " has " + d.b;
}

}  // namespace outrider::agent
