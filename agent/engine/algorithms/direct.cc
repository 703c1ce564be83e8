// Direct exchange: local step, one message per node pair, combine.
#include "agent/engine/algorithms/direct.h"

namespace outrider::agent {

using ipc::OpKind;

void Direct::Prepare(std::function<void()> ready) {
  const ValidatedOp& o = op();
  size_t L = local();
  std::vector<BufferSpan> sends;
  for (const ValidatedOp* x : c_.ops) sends.push_back(x->send);
  switch (o.kind) {
    case OpKind::kAllreduce:
      bytes_ = o.recv.length;
      partial_.resize(bytes_);
      return Reduce({BufferSpan::Host(partial_.data(), bytes_)}, std::move(sends),
                    PartialOp(o.reduce_op), std::move(ready), OpTrace::kLocalReduce);
    case OpKind::kAllgather:
      // The node's share (every local rank's block, in rank order) goes into every local output
      // now; that share is the contribution.
      bytes_ = L * o.send.length;
      return Copy(GatherLocalBlocks(), std::move(ready));
    case OpKind::kReduceScatter:
      bytes_ = o.recv.length * L;  // the slice each node owns
      partial_.resize(o.send.length);
      return Reduce({BufferSpan::Host(partial_.data(), partial_.size())}, std::move(sends),
                    PartialOp(o.reduce_op), std::move(ready), OpTrace::kLocalReduce);
    case OpKind::kBroadcast:
      bytes_ = o.recv.length;
      if (topo_.ranks.node_of(o.root) != topo_.me) return ready();
      // The root node's clients hold the data; its other local clients get it now.
      return Copy(CopyRootLocally(), std::move(ready));
    default:  // barrier
      return ready();
  }
}

BufferSpan Direct::Contribution(int node) const {
  const ValidatedOp& o = op();
  switch (o.kind) {
    case OpKind::kAllreduce:
      return BufferSpan::Host(partial_.data(), bytes_);
    case OpKind::kAllgather:
      return o.recv.Sub(static_cast<uint64_t>(topo_.first_local_rank()) * o.send.length, bytes_);
    case OpKind::kReduceScatter: {
      // The slice of `node`'s ranks.
      uint64_t slice = o.recv.length;
      return BufferSpan::Host(partial_.data(), partial_.size())
          .Sub(static_cast<uint64_t>(topo_.ranks.first_rank(node)) * slice,
               static_cast<uint64_t>(topo_.ranks.ranks_on(node)) * slice);
    }
    case OpKind::kBroadcast:
      return topo_.ranks.node_of(o.root) == topo_.me ? o.recv : BufferSpan{};
    default:
      return {};
  }
}

uint64_t Direct::Expected(int node) const {
  if (op().kind != OpKind::kAllgather) return bytes_;
  return static_cast<uint64_t>(topo_.ranks.ranks_on(node)) * op().send.length;
}

bool Direct::SizeOk(int node) {
  if (c_.data[static_cast<size_t>(node)].size() == Expected(node)) return true;
  Complete(ProtocolError("peer sent a payload of the wrong size"));
  return false;
}

bool Direct::OtherSizesOk() {
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n != topo_.me && !SizeOk(n)) return false;
  }
  return true;
}

void Direct::Agreed() {
  const ValidatedOp& o = op();
  size_t N = static_cast<size_t>(topo_.nodes), L = local(), me = static_cast<size_t>(topo_.me);
  int64_t world = topo_.ranks.world();
  auto from = [this](size_t n) { return BufferSpan::Host(c_.data[n].data(), c_.data[n].size()); };
  switch (o.kind) {
    case OpKind::kAllreduce: {
      if (!OtherSizesOk()) return;
      std::vector<BufferSpan> in;
      for (size_t n = 0; n < N; ++n) in.push_back(n == me ? Contribution(topo_.me) : from(n));
      BufferSpan out = o.recv;
      return Reduce({out}, std::move(in), PartialOp(o.reduce_op), [this, out, world] {
        std::vector<CopyPair> rest;
        for (size_t l = 1; l < local(); ++l) rest.push_back({c_.ops[l]->recv, out});
        if (op().reduce_op != ipc::ReduceOp::kAvg) return CompleteAfter(std::move(rest));
        Divide(out, world, [this, rest] { CompleteAfter(rest); });
      });
    }
    case OpKind::kAllgather: {
      if (!OtherSizesOk()) return;
      std::vector<CopyPair> pairs;
      for (size_t n = 0; n < N; ++n) {
        if (n == me) continue;
        uint64_t at =
            static_cast<uint64_t>(topo_.ranks.first_rank(static_cast<int>(n))) * o.send.length;
        for (size_t l = 0; l < L; ++l)
          pairs.push_back({c_.ops[l]->recv.Sub(at, c_.data[n].size()), from(n)});
      }
      return CompleteAfter(std::move(pairs));
    }
    case OpKind::kReduceScatter: {
      if (!OtherSizesOk()) return;
      std::vector<BufferSpan> in;
      for (size_t n = 0; n < N; ++n) in.push_back(n == me ? Contribution(topo_.me) : from(n));
      result_.resize(bytes_);
      BufferSpan result = BufferSpan::Host(result_.data(), bytes_);
      return Reduce({result}, std::move(in), PartialOp(o.reduce_op), [this, result, world] {
        uint64_t slice = op().recv.length;
        std::vector<CopyPair> pairs;
        for (size_t l = 0; l < local(); ++l)
          pairs.push_back({c_.ops[l]->recv, result.Sub(l * slice, slice)});
        if (op().reduce_op != ipc::ReduceOp::kAvg) return CompleteAfter(std::move(pairs));
        Divide(result, world, [this, pairs] { CompleteAfter(pairs); });
      });
    }
    case OpKind::kBroadcast: {
      int root_node = topo_.ranks.node_of(o.root);
      if (root_node == topo_.me) return Complete(Status::Ok());
      if (!SizeOk(root_node)) return;
      std::vector<CopyPair> pairs;
      for (const ValidatedOp* x : c_.ops)
        pairs.push_back({x->recv, from(static_cast<size_t>(root_node))});
      return CompleteAfter(std::move(pairs));
    }
    default:  // barrier
      return Complete(Status::Ok());
  }
}

}  // namespace outrider::agent
