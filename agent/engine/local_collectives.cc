// Single-node collectives over the local clients' mapped buffers.
#include "agent/engine/local_collectives.h"

#include <cstring>

#include "agent/engine/reduce.h"
#include "ipc/check.h"

namespace outrider::agent::engine {
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

}  // namespace

void ExecuteLocal(const std::vector<const ValidatedOp*>& ops) {
  OUTRIDER_CHECK(!ops.empty());
  switch (ops[0]->kind) {
    case ipc::OpKind::kAllreduce: return Allreduce(ops);
    case ipc::OpKind::kReduceScatter: return ReduceScatter(ops);
    case ipc::OpKind::kAllgather: return Allgather(ops);
    case ipc::OpKind::kBroadcast: return Broadcast(ops);
    case ipc::OpKind::kBarrier: return;
  }
}

}  // namespace outrider::agent::engine
