// The regions one client registered, by id: each holds its import (a sealed memfd mapped into the
// agent, or a GPU allocation imported into its CUDA context) and names its memory as a BufferSpan.
// Submission entries name (region, offset, length); the validator resolves them here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "agent/memory/buffer_span.h"
#include "base/status.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

class GpuMemory;

struct Region {
  uint32_t id = 0;
  BufferSpan span;  // the whole region in the agent's view
  // The import (fd and mapping). Ops that name the region hold it too, so memory an op will touch
  // stays mapped until the op is gone, whatever the client releases or however it leaves.
  std::shared_ptr<const void> import;
};

// Thread-safety: loop thread only (one table per session).
class RegionTable {
 public:
  RegionTable(uint32_t max_regions, uint64_t max_region_bytes)
      : max_regions_(max_regions), max_region_bytes_(max_region_bytes) {}

  // Imports a host region: `fds` must hold exactly one memfd of `bytes`, sealed against shrinking
  // and growing (a client must not be able to truncate memory the agent has mapped). Returns the
  // new region's id.
  Result<uint32_t> ImportHost(std::vector<UniqueFd> fds, uint64_t bytes);
  // Imports a client's GPU allocation (gpu_mode ipc): `kind` kCudaFd carries exactly one fd,
  // kCudaIpc none and a legacy handle, which only `trusted` clients may send (its bytes name
  // memory of any process in the PID namespace: they can be forged).
  // `memory`: the agent's GPU memory, imported into.
  Result<uint32_t> ImportCuda(const ipc::RegisterRegion& msg, std::vector<UniqueFd> fds,
                              bool trusted, GpuMemory& memory);
  // Forgets a region: new ops can no longer name it; it is unmapped once no op holds it.
  Status Release(uint32_t id);
  const Region* Find(uint32_t id) const;
  size_t size() const { return regions_.size(); }
  uint64_t bytes() const;

 private:
  uint32_t max_regions_;
  uint64_t max_region_bytes_;
  Status CheckRoom(uint64_t bytes) const;
  uint32_t Add(BufferSpan span, std::shared_ptr<const void> import);

  std::map<uint32_t, Region> regions_;
  uint32_t next_id_ = 1;
};

}  // namespace outrider::agent
