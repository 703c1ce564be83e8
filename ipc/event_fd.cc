// eventfd helpers and the monotonic clock.
#include "ipc/event_fd.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace outrider::ipc {

Result<UniqueFd> CreateEventFd() {
  UniqueFd fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd.valid()) return ErrnoStatus("eventfd", errno);
  return fd;
}

void SignalEventFd(int fd) {
  uint64_t one = 1;
  while (::write(fd, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
}

void DrainEventFd(int fd) {
  uint64_t v;
  while (::read(fd, &v, sizeof(v)) < 0 && errno == EINTR) {
  }
}

int WaitReadable(int fd, int extra_fd, int timeout_ms) {
  struct pollfd p[2] = {{fd, POLLIN, 0}, {extra_fd, POLLIN, 0}};
  int n = extra_fd >= 0 ? 2 : 1;
  for (;;) {
    int r = ::poll(p, n, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    if (n == 2 && p[1].revents) return 2;
    return 1;
  }
}

int WaitReadable(int fd, int extra_fd, int third_fd, int timeout_ms) {
  struct pollfd p[3];
  int index[3];
  int n = 0;
  int fds[3] = {fd, extra_fd, third_fd};
  for (int i = 0; i < 3; ++i) {
    if (fds[i] < 0) continue;
    p[n] = {fds[i], POLLIN, 0};
    index[n++] = i;
  }
  for (;;) {
    int r = ::poll(p, static_cast<nfds_t>(n), timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    for (int i = 0; i < n; ++i) {
      if (p[i].revents) return index[i] + 1;
    }
    return 0;
  }
}

uint64_t MonotonicNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace outrider::ipc
