// Page-locked host buffers through which GPU regions are staged (gpu_mode ipc): reused by size,
// bounded in total, and given back to the system once unused for a while, so that a burst of
// large ops does not keep host memory locked after its clients left.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "base/status.h"

namespace outrider::agent {

// Thread-safety: one thread (the agent's loop).
class PinnedPool {
 public:
  struct Options {
    uint64_t max_bytes = 0;  // every buffer together, in use and idle; 0: DefaultMaxBytes()
    uint64_t idle_ns = 0;    // an idle buffer is given back after this long; 0: at once
  };
  // Pins (page-locks for the GPU) or unpins a buffer: the CUDA driver's host registration.
  using Pin = std::function<Status(void* data, uint64_t bytes)>;
  using Unpin = std::function<void(void* data, uint64_t bytes)>;
  struct Buffer {
    uint8_t* data = nullptr;
    uint64_t bytes = 0;
  };

  // An eighth of the host's physical memory, between 256 MiB and 64 GiB.
  static uint64_t DefaultMaxBytes();
  // Buffers are powers of two from this size.
  static constexpr uint64_t kMinBytes = uint64_t{64} << 10;

  PinnedPool(Options options, Pin pin, Unpin unpin);
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A buffer of at least `bytes`: an idle one of its size, else a new one (idle buffers of other
  // sizes are given back first when the bound would be passed). ResourceExhausted past the bound.
  Result<Buffer> Take(uint64_t bytes);
  // `b` is idle from `now_ns` on (its memory is not read or written any more).
  void Give(Buffer b, uint64_t now_ns);
  // Gives back the buffers idle for idle_ns or longer at `now_ns`; the bytes given back.
  uint64_t Trim(uint64_t now_ns);
  // When the next idle buffer is due to go (UINT64_MAX: none is idle).
  uint64_t NextTrimNs() const;

  uint64_t max_bytes() const { return options_.max_bytes; }
  uint64_t pinned_bytes() const { return pinned_bytes_; }  // in use and idle
  uint64_t idle_bytes() const { return idle_bytes_; }

 private:
  void Release(Buffer b);

  Options options_;
  Pin pin_;
  Unpin unpin_;
  struct Idle {
    uint8_t* data;
    uint64_t since_ns;
  };
  std::multimap<uint64_t, Idle> idle_;  // by size
  uint64_t pinned_bytes_ = 0;
  uint64_t idle_bytes_ = 0;
};

}  // namespace outrider::agent
