// The client's memory shared with the agent: host regions (memfds mapped by both sides), the
// arena carved out of them, and GPU allocations registered with the agent (gpu_mode ipc); and how
// an op's buffer pointer becomes a (region, offset, length) reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "base/status.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"
#include "shim/arena.h"

namespace outrider::shim {

class Connection;

// Thread-safety: one thread at a time (the owning Client's).
class Regions {
 public:
  struct Region {
    uint32_t id;
    size_t bytes;
    ipc::Mapping mapping;  // host regions
    UniqueFd fd;
    bool device = false;  // a GPU allocation registered with the agent (gpu_mode ipc)
    uint64_t buffer_id =
        0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: a new allocation at the same address differs
  };
  using Map = std::map<uintptr_t, Region>;  // by base address

  // The arena grows by regions of `arena_bytes` (0: no arena).
  Regions(Connection* conn, uint64_t arena_bytes);
  Regions(const Regions&) = delete;
  Regions& operator=(const Regions&) = delete;

  // The arena: outrider_alloc, staging buffers, alltoallv counts.
  Arena& arena() { return *arena_; }
  Result<void*> Alloc(size_t bytes) { return arena_->Allocate(bytes); }
  Status Free(void* p);

  Result<void*> Create(size_t bytes);
  Result<void*> RegisterFd(int fd, size_t bytes);
  Status Release(void* base);
  // Releases the GPU allocations registered with the agent that start in [p, p + bytes).
  Status ReleaseDevice(const void* p, size_t bytes);
  // Records a GPU allocation the agent registered as a region (replacing one at the same base).
  void AddDevice(uintptr_t base, Region r) { regions_.insert_or_assign(base, std::move(r)); }

  // The region starting at `base`, or end().
  Map::const_iterator Find(uintptr_t base) const { return regions_.find(base); }
  // The region holding `p`, or end().
  Map::const_iterator RegionOf(const void* p) const;
  Map::const_iterator end() const { return regions_.end(); }
  // Whether `p` lies in a host region of this client.
  bool InHostRegion(const void* p) const;
  Result<ipc::BufferRef> Resolve(const void* p, uint64_t bytes, const char* which) const;

  // Leaves every region mapped, and the arena's bookkeeping in place, for good (streams may still
  // use them).
  void Leak();
  // The client is connected to a new agent: registers every host region there again (same memfd,
  // same address, the new agent's id) and forgets the GPU allocations the old one had imported.
  // The new id of each old one.
  Result<std::map<uint32_t, uint32_t>> Reregister();

 private:
  Result<void*> Add(UniqueFd fd, size_t bytes);
  // Registers memfd `fd` of `bytes` with the agent: its id there.
  Result<uint32_t> Register(int fd, size_t bytes);

  Connection* conn_;  // Not owned; outlives this.
  std::unique_ptr<Arena> arena_;
  Map regions_;
};

}  // namespace outrider::shim
