#include "agent/transport/tcp_congestion.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace outrider::agent {
namespace {

// TCP_CA_NAME_MAX in the kernel, the terminating NUL included.
constexpr size_t kNameMax = 16;

// Socket options only (ENOTSOCK for anything else): a descriptor here may belong to another
// thread of the agent (UCX's), and getsockopt is all the scan asks of it.
bool IsTcpSocket(int fd) {
  int domain = 0, protocol = 0;
  socklen_t len = sizeof(domain);
  if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0) return false;
  if (domain != AF_INET && domain != AF_INET6) return false;
  len = sizeof(protocol);
  return ::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 && protocol == IPPROTO_TCP;
}

std::string Available() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_available_congestion_control");
  std::string line;
  std::getline(in, line);
  return line.empty() ? "unknown" : line;
}

}  // namespace

Status ValidateCongestionControlName(std::string_view name) {
  if (name == kKernelCongestionControl) return Status::Ok();
  bool ok = !name.empty() && name.size() < kNameMax;
  for (char c : name) ok &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  if (!ok) {
    return InvalidArgument(
        "tcp_congestion_control must be `system` or an algorithm's name (1-15 of "
        "a-z, 0-9, _), got '" +
        std::string(name) + "'");
  }
  return Status::Ok();
}

Result<std::string> TcpCongestionControl(int fd) {
  char name[kNameMax] = {};
  socklen_t len = sizeof(name);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) {
    return ErrnoStatus("getsockopt(TCP_CONGESTION)", errno);
  }
  return std::string(name, strnlen(name, len));
}

std::vector<int> OwnTcpSockets() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (dirent* e = ::readdir(dir)) {
    int fd = -1;
    std::string_view n(e->d_name);
    if (std::from_chars(n.data(), n.data() + n.size(), fd).ec != std::errc() || fd == ::dirfd(dir))
      continue;
    if (IsTcpSocket(fd)) fds.push_back(fd);
  }
  ::closedir(dir);
  return fds;
}

Result<int> SetTcpCongestionControlOnOwnSockets(const std::string& name) {
  int changed = 0;
  for (int fd : OwnTcpSockets()) {
    Result<std::string> now = TcpCongestionControl(fd);
    if (!now.ok() || *now == name) continue;  // closed meanwhile, or already set
    if (::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(),
                     static_cast<socklen_t>(name.size())) == 0) {
      ++changed;
      continue;
    }
    int err = errno;
    if (err == EBADF || err == ENOTSOCK || err == ENOPROTOOPT)
      continue;  // closed (perhaps reused) since the scan
    if (err == EPERM) {
      return PermissionDenied(
          "TCP congestion control '" + name +
          "' is not permitted to the agent (it is not in "
          "net.ipv4.tcp_allowed_congestion_control, and the agent lacks CAP_NET_ADMIN); "
          "connections keep '" +
          *now + "'");
    }
    if (err == ENOENT) {
      return InvalidArgument("TCP congestion control '" + name +
                             "' is not in this kernel (available: " + Available() + ")");
    }
    return ErrnoStatus("setting TCP congestion control '" + name + "'", err);
  }
  return changed;
}

}  // namespace outrider::agent
