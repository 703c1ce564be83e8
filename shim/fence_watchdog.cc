// The fence watchdog's thread: a poll for the socket's hang-up, then every lagging fence released.
#include "shim/fence_watchdog.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "ipc/event_fd.h"

namespace outrider::shim {
namespace {

// Until `stop_fd` is readable: once `socket_fd` hangs up (the agent exited, was killed or dropped
// the client), every slot whose done word is behind the newest op is set to that op, status
// UNAVAILABLE: a stream waits for done >= its op, so each one goes on. It polls for no event, so
// only a hang-up or an error wakes it.
void Watch(int socket_fd, int stop_fd, std::atomic<uint64_t>* last_op,
           std::atomic<bool>* agent_gone, ipc::FenceSlot* fences) {
  pollfd p[2] = {{socket_fd, 0, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    int n = ::poll(p, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || p[1].revents != 0) return;
    if (p[0].revents != 0) break;
  }
  agent_gone->store(true);  // seq_cst: a submission after this sees it, or its op is in last_op
  uint64_t last = last_op->load();
  for (uint32_t i = 0; i < ipc::kFenceSlots; ++i) {
    std::atomic_ref<uint64_t> done(fences[i].done);
    if (done.load(std::memory_order_acquire) >= last) continue;
    std::atomic_ref<int32_t>(fences[i].status)
        .store(static_cast<int32_t>(Code::kUnavailable), std::memory_order_relaxed);
    done.store(last, std::memory_order_release);
  }
}

}  // namespace

Status FenceWatchdog::Start(int socket_fd, ipc::FenceSlot* fences) {
  OUTRIDER_ASSIGN_OR_RETURN(stop_, ipc::CreateEventFd());
  thread_ = std::thread(Watch, socket_fd, stop_.get(), &last_op_, &agent_gone_, fences);
  return Status::Ok();
}

void FenceWatchdog::Stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof(one));
  thread_.join();
}

}  // namespace outrider::shim
