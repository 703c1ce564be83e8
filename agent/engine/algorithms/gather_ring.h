// Large allgathers: around the ring. At step s a node forwards the share of node r - s, chunk by
// chunk, so every link carries each other node's share once. Offsets are within local rank 0's
// whole output buffer, where chunks land directly.
#pragma once

#include "agent/engine/algorithm.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class GatherRing final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "ring"; }
  void Prepare(std::function<void()> ready) override;
  void Agreed() override;
  void OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) override;
  BufferSpan RecvBuffer(const PeerHeader& h, size_t len) override;
  std::string WaitingFor() const override;

 private:
  // [offset, offset + len) lies in local rank 0's output and outside this node's own share.
  bool Inside(uint64_t offset, uint64_t len) const;
  void Arrived();

  // Node n's share: every one of its ranks' blocks, at its first rank's block.
  uint64_t Share(int node) const;
  uint64_t At(int node) const;

  uint64_t chunks_left_ = 0;
};

}  // namespace outrider::agent
