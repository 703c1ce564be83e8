// Values the agent, the shim and the framework adapters must agree on without talking: the
// default agent port and socket path, the per-op size limit, and the default priority policy.
// Each is written here once; everything else includes this header.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace outrider::ipc {

// Agent-to-agent port (rendezvous and data plane); the shim reaches MASTER_ADDR at this port.
inline constexpr uint16_t kDefaultAgentPort = 29750;

// The agent's socket: $XDG_RUNTIME_DIR/outrider/agent.sock when XDG_RUNTIME_DIR is an absolute
// path (a relative one is invalid per the XDG spec and ignored), else /run/outrider/agent.sock.
inline std::string DefaultSocketPath(const char* xdg_runtime_dir) {
  if (xdg_runtime_dir != nullptr && xdg_runtime_dir[0] == '/') {
    return std::string(xdg_runtime_dir) + "/outrider/agent.sock";
  }
  return "/run/outrider/agent.sock";
}

// Largest buffer one op may name (1 TiB): keeps every size product far from overflow.
inline constexpr uint64_t kMaxOpBytes = uint64_t{1} << 40;

// Priority of a point-to-point message whose op names none: ahead of every collective without a
// priority of its own (DefaultPriority is never below 1), since a pipeline stage waits for it; in
// the scheduler's "urgent" class.
inline constexpr int32_t kPointToPointPriority = -100;

// Default priority of the i-th collective of a training iteration (0-based) when the trainer gives
// none: 999 for the first, 16 levels more urgent for each later one, never below 1 (0 means "no
// hint"). Later submissions are earlier layers, which the next forward pass needs first; with the
// agent's default aging (100 ms per level) an op overtakes its successor's chunks after 1.6 s.
inline int32_t DefaultPriority(int32_t index_in_iteration) {
  constexpr int32_t kTop = 999, kStep = 16;
  return std::max<int32_t>(1, kTop - kStep * std::min<int32_t>(index_in_iteration, kTop));
}

// Collectives of at most this many bytes are activations of a layer split across ranks (tensor
// parallelism) rather than gradient buckets, whose first DDP makes up to 1 MiB and the rest up to
// 25 MiB: a layer waits for them. Without a priority of their own they go at kSmallOpPriority,
// behind point-to-point messages and ahead of every bulk op.
inline constexpr uint64_t kSmallOpBytes = 512u << 10;
inline constexpr int32_t kSmallOpPriority = -50;
// The default priority of the i-th collective of an iteration that moves `bytes` (its larger
// buffer).
inline int32_t DefaultPriority(int32_t index_in_iteration, uint64_t bytes) {
  return bytes <= kSmallOpBytes ? kSmallOpPriority : DefaultPriority(index_in_iteration);
}

}  // namespace outrider::ipc
