// How the engine runs collectives across nodes.
#pragma once

#include <cstdint>

#include "ipc/status.h"

namespace outrider::agent {

struct EngineOptions {
  uint64_t direct_max_bytes = 256 << 10;  // ops at most this large exchange directly
  uint64_t chunk_bytes = 1 << 20;         // ring and sparse-message chunk (the unit of pipelining)
  uint64_t sparse_block_rows = 8;         // block size of the sparse `block` algorithm
  double link_bytes_per_s = 1.25e9;       // bandwidth the sparse cost model assumes until measured
  Status Validate() const { return Status::Ok(); }
};

}  // namespace outrider::agent
