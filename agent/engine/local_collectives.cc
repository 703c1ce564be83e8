// Single-node collectives over the local clients' buffers.
#include "agent/engine/local_collectives.h"

#include <memory>

#include "base/check.h"

namespace outrider::agent {

Status CheckLocalAlltoallvCounts(const std::vector<const ValidatedOp*>& ops) {
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t j = 0; j < ops.size(); ++j) {
      if (ops[i]->send_counts[j] != ops[j]->recv_counts[i]) {
        return Mismatch("alltoallv counts disagree: local rank " + std::to_string(i) + " sends " +
                        std::to_string(ops[i]->send_counts[j]) + " elements to local rank " +
                        std::to_string(j) + ", which expects " +
                        std::to_string(ops[j]->recv_counts[i]));
      }
    }
  }
  return Status::Ok();
}

namespace {

std::vector<CopyPair> Allgather(const std::vector<const ValidatedOp*>& ops) {
  uint64_t block = ops[0]->send.length;
  std::vector<CopyPair> pairs;
  for (size_t dst = 0; dst < ops.size(); ++dst) {
    for (size_t src = 0; src < ops.size(); ++src)
      pairs.push_back({ops[dst]->recv.Sub(src * block, block), ops[src]->send});
  }
  return pairs;
}

std::vector<CopyPair> Broadcast(const std::vector<const ValidatedOp*>& ops) {
  const ValidatedOp* root = ops[static_cast<size_t>(ops[0]->root)];
  std::vector<CopyPair> pairs;
  for (const ValidatedOp* op : ops) pairs.push_back({op->recv, root->send});
  return pairs;
}

Result<std::vector<CopyPair>> Alltoallv(const std::vector<const ValidatedOp*>& ops) {
  uint64_t elem = ipc::DTypeSize(ops[0]->dtype);
  OUTRIDER_RETURN_IF_ERROR(CheckLocalAlltoallvCounts(ops));
  std::vector<CopyPair> pairs;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (size_t j = 0; j < ops.size(); ++j) {
      uint64_t len = static_cast<uint64_t>(ops[i]->send_counts[j]) * elem;
      pairs.push_back({ops[j]->recv.Sub(BlockOffset(ops[j]->recv_counts, i, elem), len),
                       ops[i]->send.Sub(BlockOffset(ops[i]->send_counts, j, elem), len)});
    }
  }
  return pairs;
}

}  // namespace

void ExecuteLocal(const std::vector<const ValidatedOp*>& ops, DataPlane& data,
                  DataPlane::Done done) {
  OUTRIDER_CHECK(!ops.empty());
  const ValidatedOp& o = *ops[0];
  std::vector<BufferSpan> in, out;
  switch (o.kind) {
    case ipc::OpKind::kAllreduce:
      for (const ValidatedOp* op : ops) {
        in.push_back(op->send);
        out.push_back(op->recv);
      }
      return data.Reduce(std::move(out), std::move(in), o.dtype, o.reduce_op, std::move(done));
    case ipc::OpKind::kReduceScatter: {
      // Each rank's block, reduced over every rank's send buffer; one call per output block.
      auto join = std::make_shared<std::pair<size_t, Status>>(ops.size(), Status::Ok());
      uint64_t block = o.recv.length;
      for (size_t r = 0; r < ops.size(); ++r) {
        std::vector<BufferSpan> blocks;
        for (const ValidatedOp* op : ops) blocks.push_back(op->send.Sub(r * block, block));
        data.Reduce({ops[r]->recv}, std::move(blocks), o.dtype, o.reduce_op,
                    [join, done](const Status& s) {
                      if (!s.ok() && join->second.ok()) join->second = s;
                      if (--join->first == 0) done(join->second);
                    });
      }
      return;
    }
    case ipc::OpKind::kAllgather:
      return data.Copy(Allgather(ops), std::move(done));
    case ipc::OpKind::kBroadcast:
      return data.Copy(Broadcast(ops), std::move(done));
    case ipc::OpKind::kBarrier:
      return done(Status::Ok());
    case ipc::OpKind::kAlltoallv: {
      Result<std::vector<CopyPair>> pairs = Alltoallv(ops);
      if (!pairs.ok()) return done(pairs.status());
      return data.Copy(std::move(*pairs), std::move(done));
    }
    case ipc::OpKind::kSparseAllreduce:
    case ipc::OpKind::kSparseShard:
    case ipc::OpKind::kSparseLookup:
      return done(Internal("sparse ops run in sparse::ExecuteLocal"));
    case ipc::OpKind::kSend:
    case ipc::OpKind::kRecv:
      return done(Internal("sends and receives run in PointToPoint"));
  }
}

}  // namespace outrider::agent
