// The agent port's connections. Anyone who reaches the port can connect, so nothing here blocks
// the loop or grows without bound: each connection's one request frame is read as its bytes
// arrive (per-connection state, a deadline), replies are written the same way, connections
// waiting for their request and the bytes they hold are capped (the oldest is dropped first), a
// length or header that is not a request closes the connection, and running out of fds neither
// spins the loop nor stops it. Every dropped connection is counted by why.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/event_loop.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class PortConnections {
 public:
  struct Limits {
    size_t max_reading = 64;  // connections whose request has not fully arrived
    size_t max_reading_bytes = size_t{4} << 20;
    uint32_t max_request_bytes = 64 << 10;  // a join or a report is a few hundred bytes
    uint64_t read_timeout_ns = 2'000'000'000;
    size_t max_writing = 256;  // replies not yet taken by their peer
    size_t max_writing_bytes = size_t{64} << 20;
    uint64_t write_timeout_ns = 2'000'000'000;
  };
  // Why a connection was dropped (the metric's label: DropName).
  enum class Drop { kTimeout, kCapacity, kMalformed, kFdLimit, kWrite, kCount };
  static const char* DropName(Drop d);
  using OnFrame = std::function<void(rendezvous::Frame frame, UniqueFd fd)>;
  using OnDrop = std::function<void(Drop why)>;

  PortConnections(EventLoop* loop, Limits limits, OnFrame on_frame, OnDrop on_drop = nullptr);
  ~PortConnections();
  PortConnections(const PortConnections&) = delete;
  PortConnections& operator=(const PortConnections&) = delete;

  Status Listen(const std::string& address, uint16_t port);
  uint16_t port() const { return port_; }
  // Writes `frame` to `fd` without blocking, then closes it (dropped past the write timeout).
  void Send(UniqueFd fd, std::string frame);
  // Drops connections past their deadline; listens again after running out of fds.
  void Expire(uint64_t now_ns);
  size_t reading() const { return reading_; }
  size_t writing() const { return conns_.size() - reading_; }
  uint64_t dropped(Drop d) const { return dropped_[static_cast<size_t>(d)]; }

 private:
  struct Conn {
    UniqueFd fd;
    bool writing = false;
    uint64_t deadline_ns = 0;
    std::string buf;  // reading: the bytes so far; writing: the frame
    size_t off = 0;   // writing: bytes sent
  };
  using Conns = std::list<Conn>;  // oldest first

  void OnAccept();
  void OnReadable(int fd);
  void OnWritable(int fd);
  void Track(Conn conn, uint32_t events);
  void Close(Conns::iterator it, Drop why);
  // Stops watching the connection and forgets it; its fd, which closes unless the caller keeps it.
  UniqueFd Untrack(Conns::iterator it);
  void Count(Drop why);
  // Drops the oldest connections reading (writing) until `one_more` connection and `more_bytes`
  // fit under the caps.
  void MakeRoom(bool writing, bool one_more, size_t more_bytes);

  EventLoop* loop_;  // Not owned; outlives this.
  Limits limits_;
  OnFrame on_frame_;
  OnDrop on_drop_;
  UniqueFd listen_fd_;
  UniqueFd spare_fd_;  // given up to accept (and close) one connection when out of fds
  bool accepting_ = false;
  uint16_t port_ = 0;
  Conns conns_;
  std::unordered_map<int, Conns::iterator> by_fd_;
  // Invariant: reading_ and the byte counts are the sums over conns_.
  size_t reading_ = 0, reading_bytes_ = 0, writing_bytes_ = 0;
  uint64_t dropped_[static_cast<size_t>(Drop::kCount)] = {};
};

}  // namespace outrider::agent
