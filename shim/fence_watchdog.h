// The fence watchdog: a thread that sees the agent's socket hang up and lets every stream waiting
// on a fence go on at once, whatever the caller's thread is doing (docs/design.md#gpu-path:
// nothing waits forever) — unless the agent handed the client over, when the streams wait for the
// next agent, up to a deadline.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "base/status.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"

namespace outrider::shim {

// Lets a stream waiting on fence `f` for op `op` (or an earlier one) go on: status `code`, then
// done = `op` (release), unless `done` already holds `op` or a later op. Any thread.
void LetStreamGo(ipc::FenceSlot& f, uint64_t op, Code code);

// Thread-safety: Start(), Stop() and set_last_op() from the owner's thread; agent_gone() from any.
class FenceWatchdog {
 public:
  FenceWatchdog() = default;
  ~FenceWatchdog() { Stop(); }
  FenceWatchdog(const FenceWatchdog&) = delete;
  FenceWatchdog& operator=(const FenceWatchdog&) = delete;

  // What the thread watches: `socket_fd` (never reading it: the caller's thread owns it), and,
  // once it hangs up, the departure word of the agent's control segment (ipc::ControlHeader,
  // kept mapped by `keep`). Then every slot of `fences` whose done word is behind the newest op
  // is set to that op, status UNAVAILABLE — at once, or, if the agent handed the client over
  // (ipc::kDepartureHandedOver), after `hold_ms` unless Stop() came first (the owner reached the
  // next agent, which signals them). `fences` must stay mapped until Stop() returns.
  struct Watch {
    int socket_fd = -1;
    ipc::FenceSlot* fences = nullptr;
    const uint16_t* departure = nullptr;
    std::shared_ptr<const void> keep;
    int hold_ms = 0;
  };
  // Starts the thread (again, after Stop()).
  Status Start(Watch watch);
  // Joins the thread (if it runs).
  void Stop();

  // The newest op a stream may wait for: set before the op is submitted, so that a watchdog that
  // fires from then on releases it.
  void set_last_op(uint64_t op) { last_op_.store(op); }
  // Whether the watchdog let the streams go (the agent went, and no next one took them).
  bool agent_gone() const { return agent_gone_.load(); }
  // Whether it holds the streams for the next agent (the agent went, handing the client over).
  bool holding() const { return holding_.load(); }

 private:
  std::atomic<uint64_t> last_op_{0};
  std::atomic<bool> agent_gone_{false};
  std::atomic<bool> holding_{false};
  UniqueFd stop_;  // eventfd: the thread exits when it is readable
  std::thread thread_;
};

}  // namespace outrider::shim
