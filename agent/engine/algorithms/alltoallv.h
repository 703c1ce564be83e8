// Alltoallv across nodes: each node sends every other node one message with the blocks its local
// ranks send to that node's ranks, ordered by (local source, destination rank). Each message
// starts with the sender's counts with every node (agent/net/peer_protocol.h, AlltoallvCounts),
// so once all have arrived every node checks every pair of nodes alike: where any pair disagrees
// (counts between two nodes, or among one node's own ranks), every node fails with the same
// disagreement named, and no output is written.
#pragma once

#include <string>
#include <vector>

#include "agent/engine/algorithm.h"
#include "agent/net/peer_protocol.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class Alltoallv final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "direct"; }
  void Prepare(std::function<void()> ready) override;
  BufferSpan Contribution(int node) const override;
  void Agreed() override;

 private:
  // This node's counts with node m.
  AlltoallvCounts CountsWith(size_t m) const;
  // Names the first pair of nodes whose counts disagree, or returns Ok. `tables` by node.
  Status CheckPairs(const std::vector<std::vector<AlltoallvCounts>>& tables) const;

  std::vector<AlltoallvCounts> counts_;         // by node
  std::vector<std::vector<uint8_t>> outgoing_;  // by node: counts_ + blocks
  std::string local_detail_;  // which of this node's ranks disagree among themselves, if any
};

}  // namespace outrider::agent
