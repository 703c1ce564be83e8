// The fence watchdog's thread: a poll for the socket's hang-up, then every lagging fence released
// (after a hold when the agent handed the client over).
#include "shim/fence_watchdog.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <utility>

#include "ipc/event_fd.h"

namespace outrider::shim {
namespace {

enum class Woke { kStop, kSocket, kTimeout };

// Polls `p` (the socket, then stop_fd) for up to `timeout_ms` (-1: no limit). A failed poll counts
// as a stop: the thread ends without touching a fence, as it always has.
Woke PollFor(pollfd (&p)[2], int timeout_ms) {
  for (;;) {
    int n = ::poll(p, 2, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return Woke::kTimeout;
    return n < 0 || p[1].revents != 0 ? Woke::kStop : Woke::kSocket;
  }
}

// Until `stop_fd` is readable: once the socket hangs up (the agent exited, was killed or dropped
// the client), every slot whose done word is behind the newest op is set to that op, status
// UNAVAILABLE: a stream waits for done >= its op, so each one goes on. It polls the socket for no
// event, so only a hang-up or an error wakes it.
void Run(FenceWatchdog::Watch w, int stop_fd, std::atomic<uint64_t>* last_op,
         std::atomic<bool>* agent_gone, std::atomic<bool>* holding) {
  pollfd p[2] = {{w.socket_fd, 0, 0}, {stop_fd, POLLIN, 0}};
  if (PollFor(p, -1) == Woke::kStop) return;
  // Handed over: the streams wait for the next agent, which the owner reaches on its next call
  // (and then stops this thread), for up to hold_ms.
  if (w.departure != nullptr && w.hold_ms > 0 &&
      std::atomic_ref<uint16_t>(*const_cast<uint16_t*>(w.departure))
              .load(std::memory_order_acquire) == ipc::kDepartureHandedOver) {
    p[0].fd = -1;  // ignored from now on
    holding->store(true);
    Woke woke = PollFor(p, w.hold_ms);
    holding->store(false);
    if (woke == Woke::kStop) return;
  }
  agent_gone->store(true);  // seq_cst: a submission after this sees it, or its op is in last_op
  uint64_t last = last_op->load();
  for (uint32_t i = 0; i < ipc::kFenceSlots; ++i)
    LetStreamGo(w.fences[i], last, Code::kUnavailable);
}

}  // namespace

void LetStreamGo(ipc::FenceSlot& f, uint64_t op, Code code) {
  std::atomic_ref<uint64_t> done(f.done);
  if (done.load(std::memory_order_acquire) >= op) return;
  std::atomic_ref<int32_t>(f.status).store(static_cast<int32_t>(code), std::memory_order_relaxed);
  done.store(op, std::memory_order_release);
}

Status FenceWatchdog::Start(Watch watch) {
  if (thread_.joinable()) return FailedPrecondition("the fence watchdog runs already");
  OUTRIDER_ASSIGN_OR_RETURN(stop_, ipc::CreateEventFd());
  thread_ = std::thread(Run, std::move(watch), stop_.get(), &last_op_, &agent_gone_, &holding_);
  return Status::Ok();
}

void FenceWatchdog::Stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof(one));
  thread_.join();
}

}  // namespace outrider::shim
