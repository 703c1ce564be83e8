// Large allreduces: a chunked, pipelined ring reduce-scatter followed by a ring allgather. Each
// node's share of the buffer travels the ring chunk by chunk, so every link carries
// 2(N-1)/N of the buffer. With several local ranks the local reduction runs slice by slice, just
// before a slice is sent or combined and in idle time (Pump) meanwhile, overlapping the network,
// and each chunk goes to the other local ranks as soon as it is final.
#pragma once

#include <map>
#include <vector>

#include "agent/engine/algorithm.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class RingAllreduce final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string_view label() const override { return "ring"; }
  void Prepare(std::function<void()> ready) override;
  void Agreed() override;
  void OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) override;
  BufferSpan RecvBuffer(const PeerHeader& h, size_t len) override;
  bool Pump() override;
  std::string WaitingFor() const override;

 private:
  // `then` once the local reduction of [offset, offset + len) of the node buffer is done.
  void EnsureLocal(uint64_t offset, uint64_t len, Then then);
  void ReduceSlice(uint64_t slice, Then then);
  // An expected chunk of `len` bytes was combined and passed on.
  void Arrived(uint64_t len);

  BufferSpan buf_;    // the node buffer: local rank 0's recv
  BufferSpan input_;  // this node's contribution: local rank 0's send, or buf_ once reduced locally
  uint64_t slice_ = 0;         // bytes per local-reduction slice (= the usual chunk)
  std::vector<uint64_t> seg_;  // ring segment boundaries in bytes (N + 1 entries)
  // Bytes of chunks still to arrive. Each node cuts its own segment into chunks (smaller while its
  // job yields to a higher class), and the others pass them on as they came: only bytes add up
  // the same on every node.
  uint64_t bytes_left_ = 0;
  enum : uint8_t { kIdle, kRunning, kReduced };
  std::vector<uint8_t> slices_;  // deferred local reduction, per slice (several local ranks)
  uint64_t slices_left_ = 0;
  uint64_t cursor_ = 0;  // Pump walks backwards from here: the order the ring needs
  std::map<uint64_t, std::vector<Then>> waiting_;  // callers of a slice still being reduced
};

}  // namespace outrider::agent
