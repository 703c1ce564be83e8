// Large broadcasts: pipelined along the ring starting at the root's node. Each node forwards
// every chunk as soon as it has it, so every link carries the buffer once.
#pragma once

#include "agent/engine/algorithm.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class ChainBroadcast final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "chain"; }
  void Prepare(std::function<void()> ready) override;
  void Agreed() override;
  void OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) override;
  BufferSpan RecvBuffer(const PeerHeader& h, size_t len) override;
  std::string WaitingFor() const override;

 private:
  int root_node() const { return topo_.ranks.node_of(op().root); }
  void Arrived();

  BufferSpan buf_;  // local rank 0's buffer
  uint64_t chunks_left_ = 0;
};

}  // namespace outrider::agent
