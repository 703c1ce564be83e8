// What the engine reports to one client about a finished op beyond its status (sparse ops: rows
// in the result, the algorithm that ran, predicted and measured inter-node bytes).
#pragma once

#include <cstdint>

#include "base/status.h"

namespace outrider::agent {

struct OpReport {
  Status status;  // this rank's own outcome when the collective as a whole succeeded
  uint64_t result_rows = 0;
  uint32_t algo = 0;
  uint64_t predicted_bytes = 0;
  uint64_t wire_bytes_sent = 0;
  uint64_t wire_bytes_recv = 0;
  uint64_t demand_rows = 0;  // sparse allreduce with demand: leading result rows that were demanded
  int32_t source = -1;       // recv: the sender's rank
};

}  // namespace outrider::agent
