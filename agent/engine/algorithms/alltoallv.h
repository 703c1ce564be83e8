// Alltoallv across nodes: each node sends every other node one message with the blocks its local
// ranks send to that node's ranks, ordered by (local source, destination rank). Each message
// starts with the sender's counts with every node (agent/net/peer_protocol.h, AlltoallvCounts),
// so once all have arrived every node checks every pair of nodes alike: where any pair disagrees
// (counts between two nodes, or among one node's own ranks), every node fails with the same
// disagreement named, and no output is written.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/engine/algorithm.h"
#include "agent/net/peer_protocol.h"

namespace outrider::agent {

// The counts agreement of an alltoallv across nodes, shared with the NCCL path's (which moves the
// blocks on NCCL, and must not launch on counts that disagree).
struct AlltoallvAgreement {
  // `ops`: this node's ranks' ops, by local rank.
  AlltoallvAgreement(const std::vector<const ValidatedOp*>& ops, const Topology& topo);
  // This node's counts with each node: what its kContrib payload starts with.
  std::vector<AlltoallvCounts> counts;
  // Which of this node's ranks disagree among themselves, if any.
  std::string local_detail;
  // The tables of every node (`payloads` by node, this node's entry unused): names the first pair
  // of nodes whose counts disagree, or returns Ok; every node checks the same tables alike.
  Status Check(const std::vector<std::vector<uint8_t>>& payloads, const Topology& topo) const;
};

// Thread-safety: loop thread only.
class Alltoallv final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "direct"; }
  void Prepare(std::function<void()> ready) override;
  BufferSpan Contribution(int node) const override;
  void Agreed() override;

 private:
  std::unique_ptr<AlltoallvAgreement> agreement_;
  std::vector<std::vector<uint8_t>> outgoing_;  // by node: the counts, then the blocks
};

}  // namespace outrider::agent
