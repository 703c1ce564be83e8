// Frames over the agents' TCP port: the I/O helpers and FrameCall (frame_io.h).
#include "agent/bootstrap/frame_io.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ipc/event_fd.h"

namespace outrider::agent {
namespace frame_io {

// Waits for `events` on fd (and watches cancel_fd); false on timeout or cancel.
bool WaitFd(int fd, short events, int cancel_fd, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline_ns) return false;
    pollfd p[2] = {{fd, events, 0}, {cancel_fd, POLLIN, 0}};
    int r = ::poll(p, cancel_fd >= 0 ? 2 : 1, static_cast<int>((deadline_ns - now) / 1000000 + 1));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    if (cancel_fd >= 0 && p[1].revents) return false;
    return true;
  }
}

Status WriteAll(int fd, const std::string& data, int cancel_fd, uint64_t deadline_ns) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return ErrnoStatus("rendezvous send", errno);
    if (!WaitFd(fd, POLLOUT, cancel_fd, deadline_ns))
      return DeadlineExceeded("rendezvous send timed out");
  }
  return Status::Ok();
}

Status ReadAll(int fd, void* buf, size_t len, int cancel_fd, uint64_t deadline_ns) {
  size_t off = 0;
  while (off < len) {
    ssize_t n = ::recv(fd, static_cast<char*>(buf) + off, len - off, MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return Unavailable("rendezvous peer closed the connection");
    if (errno != EAGAIN && errno != EINTR) return ErrnoStatus("rendezvous receive", errno);
    if (!WaitFd(fd, POLLIN, cancel_fd, deadline_ns))
      return DeadlineExceeded("rendezvous receive timed out");
  }
  return Status::Ok();
}

// Reads one frame: header plus the blobs that follow it.
Result<rendezvous::Frame> ReadFrame(int fd, int cancel_fd, uint64_t deadline_ns) {
  uint32_t len = 0;
  OUTRIDER_RETURN_IF_ERROR(ReadAll(fd, &len, 4, cancel_fd, deadline_ns));
  if (len < sizeof(rendezvous::FrameHeader) || len > rendezvous::kMaxFrame) {
    return ProtocolError("bad rendezvous frame length");
  }
  std::string body(len, '\0');
  OUTRIDER_RETURN_IF_ERROR(ReadAll(fd, body.data(), len, cancel_fd, deadline_ns));
  return rendezvous::Decode(body);
}

namespace {

// The IPv4 address `get` (getsockname or getpeername) says of a connected socket ("" if unknown).
std::string HostBy(int fd, int (*get)(int, sockaddr*, socklen_t*)) {
  sockaddr_in sa{};
  socklen_t sl = sizeof(sa);
  if (get(fd, reinterpret_cast<sockaddr*>(&sa), &sl) != 0) return "";
  char buf[INET_ADDRSTRLEN] = {};
  if (::inet_ntop(AF_INET, &sa.sin_addr, buf, sizeof(buf)) == nullptr) return "";
  return buf;
}

}  // namespace

std::string LocalHost(int fd) { return HostBy(fd, ::getsockname); }
std::string PeerHost(int fd) { return HostBy(fd, ::getpeername); }

// Resolves "host:port" (IPv4).
Result<sockaddr_in> Resolve(const std::string& address, const char* what) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    return InvalidArgument(std::string(what) + " address '" + address + "' is not host:port");
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return Unavailable("cannot resolve " + std::string(what) + " " + address + ": " +
                       gai_strerror(rc));
  }
  sockaddr_in sa;
  std::memcpy(&sa, res->ai_addr, sizeof(sa));
  ::freeaddrinfo(res);
  return sa;
}

// One non-blocking connect attempt, waiting until `deadline_ns`; errno says why on failure.
Result<UniqueFd> ConnectOnce(const sockaddr_in& sa, int cancel_fd, uint64_t deadline_ns) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int r = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof(sa));
  if (r != 0 && errno == EINPROGRESS) {
    if (WaitFd(fd.get(), POLLOUT, cancel_fd, deadline_ns)) {
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      r = err == 0 ? 0 : -1;
      errno = err;
    } else {
      errno = ETIMEDOUT;
    }
  }
  if (r != 0) return ErrnoStatus("connect", errno);
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace frame_io

using frame_io::ConnectOnce;
using frame_io::LocalHost;
using frame_io::ReadFrame;
using frame_io::Resolve;
using frame_io::WriteAll;

FrameCall::FrameCall(EventLoop* loop, std::string address, std::string frame, uint32_t timeout_ms,
                     std::function<void(Result<FrameReply>)> done)
    : alive_(std::make_shared<bool>(true)) {
  auto efd = ipc::CreateEventFd();
  if (efd.ok()) cancel_fd_ = std::move(*efd);
  std::weak_ptr<bool> alive = alive_;
  int cancel = cancel_fd_.get();
  std::shared_ptr<Conn> conn = conn_;
  thread_ = std::thread([loop, address = std::move(address), frame = std::move(frame), timeout_ms,
                         done = std::move(done), alive, cancel, conn] {
    uint64_t deadline = ipc::MonotonicNs() + uint64_t{timeout_ms} * 1'000'000;
    auto call = [&]() -> Result<FrameReply> {
      OUTRIDER_ASSIGN_OR_RETURN(sockaddr_in sa, Resolve(address, "agent"));
      Result<UniqueFd> fd = ConnectOnce(sa, cancel, deadline);
      if (!fd.ok()) return Unavailable("agent " + address + ": " + fd.status().message());
      FrameReply reply;
      reply.local = LocalHost(fd->get());
      bool half_closed = false;
      {
        MutexLock lock(&conn->mu);
        conn->fd = fd->get();
        half_closed = conn->half_closed;
      }
      struct Forget {  // the socket closes with `fd`: HalfClose must not reach it after
        Conn* c;
        ~Forget() {
          MutexLock lock(&c->mu);
          c->fd = -1;
        }
      } forget{conn.get()};
      if (half_closed) return Cancelled("agent " + address + ": the request was withdrawn");
      OUTRIDER_RETURN_IF_ERROR(WriteAll(fd->get(), frame, cancel, deadline));
      Result<rendezvous::Frame> f = ReadFrame(fd->get(), cancel, deadline);
      if (!f.ok()) return f.status().Annotate("agent " + address);
      reply.type = f->header.type;
      reply.blobs = std::move(f->blobs);
      return reply;
    };
    Result<FrameReply> r = call();
    loop->Post([alive, done, r]() mutable {
      auto a = alive.lock();
      if (a && *a) done(std::move(r));
    });
  });
}

void FrameCall::HalfClose() {
  MutexLock lock(&conn_->mu);
  conn_->half_closed = true;
  if (conn_->fd >= 0) ::shutdown(conn_->fd, SHUT_WR);
}

FrameCall::~FrameCall() {
  *alive_ = false;
  if (cancel_fd_.valid()) ipc::SignalEventFd(cancel_fd_.get());
  if (thread_.joinable()) thread_.join();
}

}  // namespace outrider::agent
