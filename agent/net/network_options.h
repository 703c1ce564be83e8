// How this agent meets other agents: the rendezvous port and address, heartbeat and liveness
// deadlines, and the send scheduler the network paces every job's bulk chunks with.
#pragma once

#include <cstdint>
#include <string>

#include "agent/sched/scheduler_options.h"
#include "agent/transport/tcp_congestion.h"
#include "base/status.h"
#include "ipc/defaults.h"

namespace outrider::agent {

struct NetworkOptions {
  std::string listen_address = "0.0.0.0";  // IPv4 address the rendezvous port binds to
  uint16_t port = ipc::kDefaultAgentPort;  // 0: single-node only (the agent creates no network)
  uint32_t heartbeat_ms = 1000;
  uint32_t peer_timeout_ms = 10000;  // a peer silent this long is lost
  uint32_t rendezvous_timeout_ms = 120000;
  // Of the data plane's TCP connections; "system": the kernel's default (see tcp_congestion.h).
  std::string tcp_congestion_control{kKernelCongestionControl};
  // 1: UCX may send zero-copy (see ConfigureUcxEnvironment): faster where the CPU and not the
  // link limits, but with UCX's TCP transport as released a peer agent's death can abort this one.
  uint32_t ucx_zero_copy = 0;
  SchedulerOptions scheduler;

  // The first bad field, named by its agent parameter with its value, the scheduler's included:
  // "peer_timeout_ms must exceed heartbeat_ms (1000), got 5".
  Status Validate() const {
    OUTRIDER_RETURN_IF_ERROR(ValidateLinks());
    return scheduler.Validate();
  }
  // The network's own fields only (heartbeats and deadlines).
  Status ValidateLinks() const {
    if (heartbeat_ms < 1) return InvalidArgument("heartbeat_ms must be at least 1, got 0");
    if (peer_timeout_ms <= heartbeat_ms) {
      return InvalidArgument("peer_timeout_ms must exceed heartbeat_ms (" +
                             std::to_string(heartbeat_ms) + "), got " +
                             std::to_string(peer_timeout_ms));
    }
    if (rendezvous_timeout_ms < 1) {
      return InvalidArgument("rendezvous_timeout_ms must be at least 1, got 0");
    }
    if (ucx_zero_copy > 1)
      return InvalidArgument("ucx_zero_copy must be 0 or 1, got " + std::to_string(ucx_zero_copy));
    return ValidateCongestionControlName(tcp_congestion_control);
  }
};

}  // namespace outrider::agent
