// TCP on loopback for the targets that play other agents at a rendezvous port. libFuzzer's
// timers interrupt system calls (EINTR), so both calls finish what was interrupted.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ipc/unique_fd.h"

namespace outrider::fuzz {

// A connection to 127.0.0.1:port. Closing it resets it (SO_LINGER 0): thousands of runs leave no
// TIME_WAIT sockets behind, as long as this side never half-closes.
inline UniqueFd ConnectLoopback(uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int err = fd.valid() ? 0 : errno;
  if (err == 0 && ::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    err = errno;
    // Interrupted: the connection goes on; wait for it and take its outcome.
    for (pollfd p{fd.get(), POLLOUT, 0}; err == EINTR || err == EALREADY || err == EINPROGRESS;) {
      if (::poll(&p, 1, 5000) < 0 && errno == EINTR) continue;
      socklen_t len = sizeof(err);
      if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    }
  }
  if (err != 0) {
    std::fprintf(stderr, "connecting to 127.0.0.1:%u: %s\n", static_cast<unsigned>(port),
                 std::strerror(err));
    std::abort();
  }
  linger l{1, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  return fd;
}

// Sends all of `bytes` (the receiver reads it from its socket buffer later).
inline void SendAll(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::fprintf(stderr, "sending %zu bytes on loopback: %s\n", bytes.size(),
                   std::strerror(errno));
      std::abort();
    }
    off += static_cast<size_t>(n);
  }
}

}  // namespace outrider::fuzz
