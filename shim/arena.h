// The client's allocation arena: memfd regions shared with the agent, carved up by
// Boost.Interprocess's allocator. The allocator's bookkeeping lives inside the region but the
// agent never reads it, so no Boost lock or structure is ever shared across the trust boundary.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"

namespace outrider::shim {

// Thread-safety: not thread-safe; the owning Client serializes calls.
class Arena {
 public:
  // Maps a new shared region of at least `bytes` and returns its base (registered with the agent).
  using RegionFactory = std::function<Result<void*>(size_t bytes)>;

  Arena(size_t chunk_bytes, RegionFactory factory);
  ~Arena();

  // 64-byte aligned; grows by a new region when the current ones are full.
  Result<void*> Allocate(size_t bytes);
  // Returns false if `p` did not come from this arena.
  bool Free(void* p);

 private:
  struct Chunk;
  size_t chunk_bytes_;
  RegionFactory factory_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
};

}  // namespace outrider::shim
