// What one client may hold in the agent: how many memory regions, and how large each may be.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace outrider::agent {

struct SessionLimits {
  uint32_t max_regions = 64;
  uint64_t max_region_bytes = uint64_t{64} << 30;

  // The first bad field, named by its agent parameter (max_regions is max_regions_per_client):
  // "max_regions_per_client must be at least 1, got 0".
  Status Validate() const {
    if (max_regions < 1) return InvalidArgument("max_regions_per_client must be at least 1, got 0");
    if (max_region_bytes < 1) return InvalidArgument("max_region_bytes must be at least 1, got 0");
    return Status::Ok();
  }
};

}  // namespace outrider::agent
