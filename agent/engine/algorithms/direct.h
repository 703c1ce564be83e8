// Small collectives in one exchange: every node sends its whole share with its fingerprint and
// combines what the others sent once all agree (allreduce, allgather and broadcast up to
// direct_max_bytes; reduce-scatter; barrier). Reduction order is node order on every node.
#pragma once

#include <vector>

#include "agent/engine/algorithm.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class Direct final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "direct"; }
  void Prepare(std::function<void()> ready) override;
  BufferSpan Contribution(int node) const override;
  void Agreed() override;

 private:
  // What node `node` sends this node: its allgather share (its ranks' blocks), else bytes_.
  uint64_t Expected(int node) const;
  // Node `node` sent what it should; otherwise the instance fails.
  bool SizeOk(int node);
  // Every other node did.
  bool OtherSizesOk();

  uint64_t bytes_ = 0;            // this node's share (reduce-scatter: its slice of the result)
  std::vector<uint8_t> partial_;  // allreduce: this node's sum; reduce-scatter: its local sums
  std::vector<uint8_t> result_;   // reduce-scatter: the node's slice, reduced across nodes
};

}  // namespace outrider::agent
