// Alltoallv across nodes: each node sends every other node one message with the blocks its local
// ranks send to that node's ranks, ordered by (local source, destination rank); blocks between
// local ranks are copied at once. Each message starts with the bytes the sender expects back from
// its destination, so both ends of a disagreeing pair detect it (the sender fails as well as the
// receiver) and no output is written.
#pragma once

#include <vector>

#include "agent/engine/algorithm.h"

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
  // Bytes this node's ranks expect from node n's ranks.
  uint64_t Expected(size_t n) const;

  std::vector<std::vector<uint8_t>> outgoing_;  // by node: header + blocks
  Status local_error_;                          // counts disagree inside this node
};

}  // namespace outrider::agent
