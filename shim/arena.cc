// Arena chunks over managed_external_buffer.
#include "shim/arena.h"

#include <boost/interprocess/managed_external_buffer.hpp>

namespace outrider::shim {

namespace bip = boost::interprocess;

struct Arena::Chunk {
  uint8_t* base;
  size_t bytes;
  bip::managed_external_buffer heap;
};

Arena::Arena(size_t chunk_bytes, RegionFactory factory)
    : chunk_bytes_(chunk_bytes), factory_(std::move(factory)) {}

Arena::~Arena() = default;

Result<void*> Arena::Allocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  for (auto& c : chunks_) {
    void* p = c->heap.allocate_aligned(bytes, 64, std::nothrow);
    if (p != nullptr) return p;
  }
  if (chunk_bytes_ == 0) {
    return FailedPrecondition(
        "the shim arena is disabled (OUTRIDER_ARENA_BYTES=0); use outrider_region_create");
  }
  // Room for the allocator's headers and alignment besides the request itself.
  size_t want = std::max(chunk_bytes_, bytes + bytes / 16 + (size_t{1} << 20));
  want = (want + 4095) & ~size_t{4095};
  OUTRIDER_ASSIGN_OR_RETURN(void* base, factory_(want));
  auto chunk =
      std::make_unique<Chunk>(Chunk{static_cast<uint8_t*>(base), want,
                                    bip::managed_external_buffer(bip::create_only, base, want)});
  void* p = chunk->heap.allocate_aligned(bytes, 64, std::nothrow);
  chunks_.push_back(std::move(chunk));
  if (p == nullptr)
    return ResourceExhausted("cannot allocate " + std::to_string(bytes) + " bytes in the arena");
  return p;
}

bool Arena::Free(void* p) {
  auto* b = static_cast<uint8_t*>(p);
  for (auto& c : chunks_) {
    if (b >= c->base && b < c->base + c->bytes) {
      c->heap.deallocate(p);
      return true;
    }
  }
  return false;
}

}  // namespace outrider::shim
