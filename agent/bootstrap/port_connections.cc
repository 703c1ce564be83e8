// The agent port's connections (port_connections.h): accept, read one request, reply, bounded.
#include "agent/bootstrap/port_connections.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/log.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

const char* PortConnections::DropName(Drop d) {
  switch (d) {
    case Drop::kTimeout:
      return "timeout";
    case Drop::kCapacity:
      return "capacity";
    case Drop::kMalformed:
      return "malformed";
    case Drop::kFdLimit:
      return "fd_limit";
    case Drop::kWrite:
      return "write";
    case Drop::kCount:
      break;
  }
  return "unknown";
}

PortConnections::PortConnections(EventLoop* loop, Limits limits, OnFrame on_frame, OnDrop on_drop)
    : loop_(loop),
      limits_(limits),
      on_frame_(std::move(on_frame)),
      on_drop_(std::move(on_drop)),
      spare_fd_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {}

PortConnections::~PortConnections() {
  for (Conn& c : conns_) loop_->Remove(c.fd.get());
  if (accepting_) loop_->Remove(listen_fd_.get());
}

Status PortConnections::Listen(const std::string& address, uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    return InvalidArgument("listen_address '" + address + "' is not an IPv4 address");
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    return ErrnoStatus("binding the agent port " + address + ":" + std::to_string(port), errno);
  }
  if (::listen(fd.get(), 128) != 0) return ErrnoStatus("listen on the agent port", errno);
  socklen_t sl = sizeof(sa);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &sl);
  port_ = ntohs(sa.sin_port);
  listen_fd_ = std::move(fd);
  OUTRIDER_RETURN_IF_ERROR(loop_->Add(listen_fd_.get(), EPOLLIN, [this](uint32_t) { OnAccept(); }));
  accepting_ = true;
  return Status::Ok();
}

void PortConnections::OnAccept() {
  for (;;) {
    int cfd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (cfd >= 0) {
      MakeRoom(false, true, 0);
      Track(Conn{UniqueFd(cfd), false, ipc::MonotonicNs() + limits_.read_timeout_ns, {}, 0},
            EPOLLIN);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EMFILE && errno != ENFILE) return;  // EAGAIN: the backlog is empty
    // Out of fds: the pending connection would wake the loop again at once. The spare fd makes
    // room to take it off the backlog and close it; without one, stop listening until Expire.
    Count(Drop::kFdLimit);
    if (spare_fd_.valid()) {
      spare_fd_.reset();
      UniqueFd shed(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      spare_fd_ = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      if (shed.valid()) {
        Logger("rendezvous")->warn("agent port: out of fds; closed a new connection");
        continue;
      }
    }
    Logger("rendezvous")->warn("agent port: out of fds; not accepting until some close");
    loop_->Remove(listen_fd_.get());
    accepting_ = false;
    return;
  }
}

void PortConnections::Track(Conn conn, uint32_t events) {
  int fd = conn.fd.get();
  (conn.writing ? writing_bytes_ : reading_bytes_) += conn.buf.size();
  reading_ += !conn.writing;
  bool writing = conn.writing;
  auto it = conns_.insert(conns_.end(), std::move(conn));
  by_fd_[fd] = it;
  Status st = loop_->Add(fd, events, [this, fd, writing](uint32_t) {
    if (writing) {
      OnWritable(fd);
    } else {
      OnReadable(fd);
    }
  });
  if (!st.ok()) {
    Logger("rendezvous")->warn("agent port: {}", st.ToString());
    Untrack(it);
  }
}

UniqueFd PortConnections::Untrack(Conns::iterator it) {
  (it->writing ? writing_bytes_ : reading_bytes_) -= it->buf.size();
  reading_ -= !it->writing;
  loop_->Remove(it->fd.get());
  by_fd_.erase(it->fd.get());
  UniqueFd fd = std::move(it->fd);
  conns_.erase(it);
  return fd;
}

void PortConnections::Count(Drop why) {
  ++dropped_[static_cast<size_t>(why)];
  if (on_drop_) on_drop_(why);
}

void PortConnections::Close(Conns::iterator it, Drop why) {
  Count(why);
  Untrack(it);
}

void PortConnections::MakeRoom(bool writing, bool one_more, size_t more_bytes) {
  size_t max_n = writing ? limits_.max_writing : limits_.max_reading;
  size_t max_bytes = writing ? limits_.max_writing_bytes : limits_.max_reading_bytes;
  auto over = [&] {
    size_t n = writing ? conns_.size() - reading_ : reading_;
    size_t bytes = writing ? writing_bytes_ : reading_bytes_;
    return n + (one_more ? 1 : 0) > max_n || bytes + more_bytes > max_bytes;
  };
  for (auto it = conns_.begin(); it != conns_.end() && over();) {
    auto next = std::next(it);
    if (it->writing == writing) Close(it, Drop::kCapacity);
    it = next;
  }
}

void PortConnections::OnReadable(int fd) {
  auto found = by_fd_.find(fd);
  if (found == by_fd_.end()) return;
  Conns::iterator it = found->second;
  Conn& c = *it;
  for (;;) {
    // The length first, then exactly the frame it announces.
    size_t want = 4;
    if (c.buf.size() >= 4) {
      uint32_t len;
      std::memcpy(&len, c.buf.data(), 4);
      if (len < sizeof(rendezvous::FrameHeader) || len > limits_.max_request_bytes)
        return Close(it, Drop::kMalformed);
      want = 4 + size_t{len};
    }
    if (c.buf.size() == want) break;
    size_t room = want - c.buf.size();
    if (reading_bytes_ + room > limits_.max_reading_bytes) {
      MakeRoom(false, false, room);
      if (by_fd_.count(fd) == 0) return;  // it was the oldest
    }
    size_t had = c.buf.size();
    c.buf.resize(want);
    ssize_t n = ::recv(fd, c.buf.data() + had, room, MSG_DONTWAIT);
    c.buf.resize(had + static_cast<size_t>(n > 0 ? n : 0));
    reading_bytes_ += c.buf.size() - had;
    if (n > 0) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    return Close(it, Drop::kMalformed);  // closed (or failed) before its request was whole
  }
  Result<rendezvous::Frame> frame = rendezvous::Decode(std::string_view(c.buf).substr(4));
  if (!frame.ok()) return Close(it, Drop::kMalformed);
  on_frame_(std::move(*frame), Untrack(it));
}

void PortConnections::Send(UniqueFd fd, std::string frame) {
  if (!fd.valid()) return;
  ssize_t n = ::send(fd.get(), frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n == static_cast<ssize_t>(frame.size())) return;
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    return Count(Drop::kWrite);
  size_t off = n > 0 ? static_cast<size_t>(n) : 0;
  MakeRoom(true, true, frame.size());
  Track(Conn{std::move(fd), true, ipc::MonotonicNs() + limits_.write_timeout_ns, std::move(frame),
             off},
        EPOLLOUT);
}

void PortConnections::OnWritable(int fd) {
  auto found = by_fd_.find(fd);
  if (found == by_fd_.end()) return;
  Conns::iterator it = found->second;
  Conn& c = *it;
  while (c.off < c.buf.size()) {
    ssize_t n = ::send(fd, c.buf.data() + c.off, c.buf.size() - c.off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    return Close(it, Drop::kWrite);
  }
  Untrack(it);  // sent whole: closes
}

void PortConnections::Expire(uint64_t now_ns) {
  for (auto it = conns_.begin(); it != conns_.end();) {
    auto next = std::next(it);
    if (now_ns >= it->deadline_ns) Close(it, it->writing ? Drop::kWrite : Drop::kTimeout);
    it = next;
  }
  if (!accepting_ && listen_fd_.valid()) {
    if (!spare_fd_.valid()) spare_fd_ = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (spare_fd_.valid() &&
        loop_->Add(listen_fd_.get(), EPOLLIN, [this](uint32_t) { OnAccept(); }).ok()) {
      accepting_ = true;
      OnAccept();
    }
  }
}

}  // namespace outrider::agent
