// SOCK_SEQPACKET messaging with SCM_RIGHTS and SO_PEERCRED.
#include "ipc/unix_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace outrider::ipc {
namespace {

Result<sockaddr_un> MakeAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty()) return InvalidArgument("socket path is empty");
  if (path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("socket path is longer than " +
                           std::to_string(sizeof(addr.sun_path) - 1) + " bytes: " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

}  // namespace

Result<UnixChannel> UnixChannel::Connect(const std::string& path) {
  OUTRIDER_ASSIGN_OR_RETURN(sockaddr_un addr, MakeAddress(path));
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int r;
  do {
    r = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } while (r != 0 && errno == EINTR);
  if (r != 0) {
    int err = errno;
    // What to do depends on why: nothing listens there, or the socket's permissions keep this
    // user out.
    const char* hint =
        err == EACCES || err == EPERM
            ? " (the agent's socket does not admit this user: start the agent with --socket-group "
              "set to a group of this user, or --allowed-uids with its uid)"
            : " (is outrider-agent running? set OUTRIDER_SOCKET to its --socket)";
    return ErrnoStatus("connecting to the outrider agent at " + path + hint, err);
  }
  return UnixChannel(std::move(fd));
}

Status UnixChannel::Send(const void* data, size_t bytes, const int* fds, size_t num_fds) {
  if (num_fds > kMaxFdsPerMessage) return InvalidArgument("too many fds in one message");
  iovec iov{const_cast<void*>(data), bytes};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  if (num_fds > 0) {
    std::memset(control, 0, sizeof(control));
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * num_fds);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * num_fds);
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * num_fds);
  }
  for (;;) {
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (n >= 0) return Status::Ok();
    if (errno == EINTR) continue;
    return ErrnoStatus("sending control message", errno);
  }
}

Result<size_t> UnixChannel::Recv(void* data, size_t cap, std::vector<UniqueFd>* fds,
                                 int timeout_ms) {
  if (timeout_ms >= 0) {
    pollfd p{fd_.get(), POLLIN, 0};
    int r;
    do {
      r = ::poll(&p, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    if (r == 0) return DeadlineExceeded("no reply within " + std::to_string(timeout_ms) + " ms");
    if (r < 0) return ErrnoStatus("poll", errno);
  }
  iovec iov{data, cap};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    n = ::recvmsg(fd_.get(), &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoStatus("receiving control message", errno);
  // Take ownership of every fd first, so none leaks whatever else is wrong with the message.
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (fds) {
          fds->emplace_back(fd);
        } else {
          ::close(fd);
        }
      }
    }
  }
  if (msg.msg_flags & MSG_CTRUNC) return ProtocolError("control message carried too many fds");
  if (msg.msg_flags & MSG_TRUNC) {
    return ProtocolError("control message longer than " + std::to_string(cap) + " bytes");
  }
  return static_cast<size_t>(n);
}

Result<PeerCredentials> UnixChannel::Peer() const {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd_.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return ErrnoStatus("SO_PEERCRED", errno);
  }
  PeerCredentials peer{cred.pid, cred.uid, cred.gid, {}};
  // SO_PEERGROUPS says how much room it needs when given too little (ERANGE).
  len = 0;
  if (::getsockopt(fd_.get(), SOL_SOCKET, SO_PEERGROUPS, nullptr, &len) != 0 && errno != ERANGE) {
    return ErrnoStatus("SO_PEERGROUPS", errno);
  }
  peer.groups.resize(len / sizeof(gid_t));
  if (!peer.groups.empty()) {
    if (::getsockopt(fd_.get(), SOL_SOCKET, SO_PEERGROUPS, peer.groups.data(), &len) != 0) {
      return ErrnoStatus("SO_PEERGROUPS", errno);
    }
    peer.groups.resize(len / sizeof(gid_t));
  }
  return peer;
}

bool PeerCredentials::InGroup(gid_t g) const {
  return gid == g || std::find(groups.begin(), groups.end(), g) != groups.end();
}

std::vector<gid_t> ProcessGroups(pid_t pid) {
  std::vector<gid_t> groups;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Groups:", 0) != 0) continue;
    std::istringstream in(line.substr(7));
    for (gid_t g; in >> g;) groups.push_back(g);
    break;
  }
  return groups;
}

bool UnixChannel::PeerGone() const {
  pollfd p{fd_.get(), POLLIN, 0};
  int r = ::poll(&p, 1, 0);
  if (r <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) return true;
  if (p.revents & POLLIN) {
    char c;
    ssize_t n = ::recv(fd_.get(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
  }
  return false;
}

Result<UniqueFd> ListenUnix(const std::string& path, int backlog) {
  OUTRIDER_ASSIGN_OR_RETURN(sockaddr_un addr, MakeAddress(path));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return FailedPrecondition(path + " exists and is not a socket; refusing to replace it");
    }
    // A live agent answers; a stale file from a crashed one refuses. The probe is non-blocking
    // so a live agent with a full backlog (EAGAIN) cannot hang us; it sees the probe as a client
    // that connected and left.
    UniqueFd probe(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (probe.valid()) {
      int r = ::connect(probe.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
      if (r == 0 || errno == EAGAIN) {
        return FailedPrecondition("another agent is already listening on " + path);
      }
    }
    ::unlink(path.c_str());
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return ErrnoStatus("binding " + path, errno);
  }
  if (::listen(fd.get(), backlog) != 0) return ErrnoStatus("listen on " + path, errno);
  return fd;
}

Result<UniqueFd> AcceptUnix(int listen_fd) {
  int fd;
  do {
    fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return ErrnoStatus("accept", errno);
  return UniqueFd(fd);
}

}  // namespace outrider::ipc
