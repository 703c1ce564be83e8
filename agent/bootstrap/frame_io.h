// Frames over the agents' TCP port (the rendezvous and a job's next generation): blocking reads
// and writes with a deadline and a cancel fd, addresses, one connect attempt, and FrameCall, one
// request to another agent on a thread of its own.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/event_loop.h"
#include "base/mutex.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {
namespace frame_io {

// Waits for `events` on fd (and watches cancel_fd); false on timeout or cancel.
bool WaitFd(int fd, short events, int cancel_fd, uint64_t deadline_ns);
Status WriteAll(int fd, const std::string& data, int cancel_fd, uint64_t deadline_ns);
Status ReadAll(int fd, void* buf, size_t len, int cancel_fd, uint64_t deadline_ns);
// Reads one frame: header plus the blobs that follow it.
Result<rendezvous::Frame> ReadFrame(int fd, int cancel_fd, uint64_t deadline_ns);
// The IPv4 address of a connected socket's local (remote) end ("" if unknown).
std::string LocalHost(int fd);
std::string PeerHost(int fd);
// Resolves "host:port" (IPv4); `what` names the address in errors.
Result<sockaddr_in> Resolve(const std::string& address, const char* what);
// One non-blocking connect attempt, waiting until `deadline_ns`.
Result<UniqueFd> ConnectOnce(const sockaddr_in& sa, int cancel_fd, uint64_t deadline_ns);

}  // namespace frame_io

// One request to another agent's port: connects (no retry: an agent that is not there is an
// answer), sends `frame`, and reads one frame back, within `timeout_ms`, on a thread of its own;
// `done` runs on the loop thread with the reply and this agent's address as the other one sees
// it. Thread-safety: create and destroy on the loop thread; destruction cancels and joins.
struct FrameReply {
  uint16_t type = 0;
  std::vector<std::string> blobs;
  std::string local;  // host:port of the local end (the port is the connection's, not the agent's)
};
class FrameCall {
 public:
  FrameCall(EventLoop* loop, std::string address, std::string frame, uint32_t timeout_ms,
            std::function<void(Result<FrameReply>)> done);
  ~FrameCall();
  // Says the request is all there is (shuts the connection for sending) and keeps waiting for the
  // reply: the other agent sees the peer closed. Thread-safe with the call's thread.
  void HalfClose();

 private:
  struct Conn {
    Mutex mu;
    int fd OUTRIDER_GUARDED_BY(mu) = -1;  // the call's socket while it is open
    bool half_closed OUTRIDER_GUARDED_BY(mu) = false;
  };
  UniqueFd cancel_fd_;
  std::shared_ptr<bool> alive_;
  std::shared_ptr<Conn> conn_ = std::make_shared<Conn>();
  std::thread thread_;
};

}  // namespace outrider::agent
