// eventfd wakeups between processes, and the adaptive wait used on both sides: poll the
// condition for a short, self-tuning spin, then block on the eventfd (and on extra fds whose
// readiness means "stop waiting", such as a socket that hung up).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::ipc {

Result<UniqueFd> CreateEventFd();
// Adds one to the counter; never blocks (EAGAIN on a saturated counter is fine: it is signalled).
void SignalEventFd(int fd);
// Reads and clears the counter without blocking.
void DrainEventFd(int fd);

// Blocks until `fd` or `extra_fd` (if >= 0) is readable, or `timeout_ms` passes (-1: forever).
// Returns 0 on timeout, 1 if `fd` is readable, 2 if `extra_fd` is readable or hung up.
int WaitReadable(int fd, int extra_fd, int timeout_ms);
// Like WaitReadable for up to three fds (a negative one is left out): 1 + the index of the first
// readable one, or 0 on timeout.
int WaitReadable(int fd, int extra_fd, int third_fd, int timeout_ms);

// Spin budget that grows when spinning pays off and shrinks when it does not.
// Thread-safety: one thread.
class AdaptiveSpin {
 public:
  explicit AdaptiveSpin(uint32_t max_us) : max_ns_(uint64_t{max_us} * 1000), budget_ns_(max_ns_) {}
  uint64_t budget_ns() const { return budget_ns_; }
  void Hit() { budget_ns_ = max_ns_; }  // the condition came true while spinning
  void Miss() { budget_ns_ = std::max(budget_ns_ / 2, max_ns_ / 8); }  // we slept anyway
 private:
  uint64_t max_ns_;
  uint64_t budget_ns_;
};

uint64_t MonotonicNs();

}  // namespace outrider::ipc
