// How urgent a waiting piece of work is, the one formula behind every queue the agent ages: the
// send scheduler's chunks (sched/send_scheduler) and the NCCL path's ready instances
// (engine/gpu/nccl_path). Lower is sooner.
#pragma once

#include <algorithm>
#include <cstdint>

namespace outrider::agent {

// `priority` (lower = sooner) less one level per `aging_ns` waited since `since_ns`, so nothing
// starves; with aging off (`aging_ns` 0), the priority alone.
inline int64_t Urgency(int32_t priority, uint64_t since_ns, uint64_t now_ns, uint64_t aging_ns) {
  if (aging_ns == 0) return priority;
  uint64_t waited = now_ns - std::min(now_ns, since_ns);
  return int64_t{priority} - static_cast<int64_t>(waited / aging_ns);
}

}  // namespace outrider::agent
