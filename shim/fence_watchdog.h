// The fence watchdog: a thread that sees the agent's socket hang up and lets every stream waiting
// on a fence of the control segment go on at once, whatever the caller's thread is doing
// (docs/design.md#gpu-path: nothing waits forever).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "base/status.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"

namespace outrider::shim {

// Thread-safety: Start(), Stop() and set_last_op() from the owner's thread; agent_gone() from any.
class FenceWatchdog {
 public:
  FenceWatchdog() = default;
  ~FenceWatchdog() { Stop(); }
  FenceWatchdog(const FenceWatchdog&) = delete;
  FenceWatchdog& operator=(const FenceWatchdog&) = delete;

  // Watches `socket_fd` (never reading it: the caller's thread owns it) until Stop(); once it
  // hangs up, every slot of `fences` whose done word is behind the newest op is set to that op,
  // status UNAVAILABLE. `fences` must stay mapped until Stop() returns.
  Status Start(int socket_fd, ipc::FenceSlot* fences);
  // Joins the thread (if it runs).
  void Stop();

  // The newest op a stream may wait for: set before the op is submitted, so that a watchdog that
  // fires from then on releases it.
  void set_last_op(uint64_t op) { last_op_.store(op); }
  // Whether the watchdog saw the agent go.
  bool agent_gone() const { return agent_gone_.load(); }

 private:
  std::atomic<uint64_t> last_op_{0};
  std::atomic<bool> agent_gone_{false};
  UniqueFd stop_;  // eventfd: the thread exits when it is readable
  std::thread thread_;
};

}  // namespace outrider::shim
