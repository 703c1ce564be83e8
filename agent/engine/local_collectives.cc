// Single-node collectives over the local clients' mapped buffers.
#include "agent/engine/local_collectives.h"

#include <cstring>

#include "agent/engine/reduce.h"
#include "ipc/check.h"

namespace outrider::agent {
namespace {

void Allreduce(const std::vector<const ValidatedOp*>& ops) {
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const ValidatedOp* op : ops) {
    in.push_back(op->send);
    out.push_back(op->recv);
  }
  const ValidatedOp& o = *ops[0];
  outrider::engine::ReduceInto(o.dtype, o.reduce_op, in.data(), static_cast<int>(in.size()),
                               out.data(), static_cast<int>(out.size()), o.count);
}

void ReduceScatter(const std::vector<const ValidatedOp*>& ops) {
  const ValidatedOp& o = *ops[0];
  size_t block = o.recv_bytes;
  std::vector<const void*> in(ops.size());
  for (size_t r = 0; r < ops.size(); ++r) {
    for (size_t i = 0; i < ops.size(); ++i) in[i] = ops[i]->send + r * block;
    void* out = ops[r]->recv;
    outrider::engine::ReduceInto(o.dtype, o.reduce_op, in.data(), static_cast<int>(in.size()),
                                 &out, 1, o.count);
  }
}

void Allgather(const std::vector<const ValidatedOp*>& ops) {
  size_t block = ops[0]->send_bytes;
  for (size_t dst = 0; dst < ops.size(); ++dst) {
    for (size_t src = 0; src < ops.size(); ++src) {
      uint8_t* to = ops[dst]->recv + src * block;
      if (to != ops[src]->send) std::memcpy(to, ops[src]->send, block);
    }
  }
}

void Broadcast(const std::vector<const ValidatedOp*>& ops) {
  const ValidatedOp* root = ops[static_cast<size_t>(ops[0]->root)];
  for (const ValidatedOp* op : ops) {
    if (op != root) std::memcpy(op->recv, root->send, root->send_bytes);
  }
}

Status Alltoallv(const std::vector<const ValidatedOp*>& ops) {
  uint64_t elem = ipc::DTypeSize(ops[0]->dtype);
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t j = 0; j < ops.size(); ++j) {
      if (ops[i]->send_counts[j] != ops[j]->recv_counts[i]) {
        return Mismatch("alltoallv counts disagree: local rank " + std::to_string(i) + " sends " +
                        std::to_string(ops[i]->send_counts[j]) + " elements to local rank " +
                        std::to_string(j) + ", which expects " + std::to_string(ops[j]->recv_counts[i]));
      }
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t j = 0; j < ops.size(); ++j) {
      std::memcpy(ops[j]->recv + BlockOffset(ops[j]->recv_counts, i, elem),
                  ops[i]->send + BlockOffset(ops[i]->send_counts, j, elem),
                  static_cast<uint64_t>(ops[i]->send_counts[j]) * elem);
    }
  }
  return Status::Ok();
}

}  // namespace

uint64_t BlockOffset(const std::vector<int64_t>& counts, size_t r, uint64_t elem) {
  uint64_t off = 0;
  for (size_t k = 0; k < r; ++k) off += static_cast<uint64_t>(counts[k]);
  return off * elem;
}

Status ExecuteLocal(const std::vector<const ValidatedOp*>& ops) {
  OUTRIDER_CHECK(!ops.empty());
  switch (ops[0]->kind) {
    case ipc::OpKind::kAllreduce: Allreduce(ops); break;
    case ipc::OpKind::kReduceScatter: ReduceScatter(ops); break;
    case ipc::OpKind::kAllgather: Allgather(ops); break;
    case ipc::OpKind::kBroadcast: Broadcast(ops); break;
    case ipc::OpKind::kBarrier: break;
    case ipc::OpKind::kAlltoallv: return Alltoallv(ops);
    case ipc::OpKind::kSparseAllreduce:
    case ipc::OpKind::kSparseShard:
    case ipc::OpKind::kSparseLookup:
      return Internal("sparse ops run in sparse::ExecuteLocal");
  }
  return Status::Ok();
}

}  // namespace outrider::agent
