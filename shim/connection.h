// The client's connection to its node agent: the Unix socket (hello, requests, goodbye) and the
// control segment's rings (submissions out, completions in), with the wait for either side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "base/status.h"
#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unix_channel.h"
#include "shim/connect_config.h"

namespace outrider::shim {

// An agent's control segment as the client maps it, with its memfd: what streams waiting on its
// fences keep alive, and what a later agent is given to signal them (ipc::kHelloFences).
struct ControlSegment {
  ipc::Mapping mapping;
  UniqueFd fd;
  ipc::FenceSlot* fence_slots() const;
  // The agent's ControlHeader::departure, which another thread may read (atomically).
  const uint16_t* departure_word() const;
};

// Thread-safety: one thread at a time (the owning Client's). fd() may be polled from another
// thread (the fence watchdog), which never reads the socket.
class Connection {
 public:
  // Connects to the agent's socket and says hello: maps the control segment and attaches the
  // rings. A connection that fails after connecting still says goodbye.
  // What a hello to a restarted agent says (ipc::kHelloReconnect): how long this client was
  // without an agent, and whether the previous one said goodbye (stopped) or vanished.
  struct Comeback {
    uint32_t away_ms = 0;
    bool after_goodbye = false;
    bool handed_over = false;  // ... and handed this client's job across nodes over
    // The memfd of the control segment whose fences this client's streams wait on (sent with
    // the hello, ipc::kHelloFences), else -1.
    int fences_fd = -1;
  };
  static Result<std::unique_ptr<Connection>> Open(const ConnectConfig& config,
                                                  std::optional<Comeback> comeback = {});
  ~Connection() { Close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Says goodbye unless the agent is gone (or was told already). Nothing is sent after it.
  void Close();
  // Once the agent is gone: connects to the agent at the socket again (a restarted one) and says
  // hello as `config`, with a new control segment and rings. Until it succeeds the connection
  // stays as it was: gone, its rings still readable. `fences_fd`: as Comeback::fences_fd.
  Status Reopen(const ConnectConfig& config, int fences_fd = -1);

  // Called once the agent is found gone (after gone() says why): streams waiting on the agent's
  // fences go on.
  void set_on_gone(std::function<void()> on_gone) { on_gone_ = std::move(on_gone); }

  // OK while the agent is there; else why it is gone.
  Status gone() const { return gone_.ok() ? Status::Ok() : gone_; }
  // Records why the agent is gone (`goodbye`: it said so; `handed_over`: its goodbye said it
  // handed this client's job across nodes over to the next agent) and runs the on_gone hook.
  void MarkGone(Status why, bool goodbye = false, bool handed_over = false);
  // The agent went saying it handed this client's job across nodes over (ipc::kGoodbyeHandedOver).
  bool handed_over() const { return !gone_.ok() && gone_handed_over_; }
  // Tells the agent this client leaves (a goodbye), records the client as gone (Cancelled) and
  // reads until the agent hangs up or `deadline` (monotonic ns) passes; the on_gone hook is not
  // run (the caller releases the fences itself).
  void LeaveAndDrain(uint64_t deadline);

  // Whether the socket has something to read (or hung up) right now.
  bool SocketReadable() const;
  // Reads whatever the agent sent on the socket; on EOF or goodbye records why it is gone.
  void OnSocketReadable();

  // Pushes an entry on the submission ring, ringing the agent's doorbell if it sleeps; false if
  // the ring is full.
  bool Push(const ipc::SubmitEntry& e);
  uint32_t sq_capacity() const { return sq_.capacity(); }
  // The submission ring's position for the next entry, and how many entries the agent took.
  uint64_t sq_position() const { return sq_.produced(); }
  uint64_t sq_taken() const { return sq_.consumed(); }
  ipc::RingResult PopCompletion(ipc::CompletionEntry* c) { return cq_.Pop(c); }
  bool CompletionsEmpty() const { return cq_.Empty(); }
  // Blocks until a completion may have arrived, the agent said something, `wake_fd` (if >= 0) is
  // readable, or `deadline` (monotonic ns; UINT64_MAX: none). False once the deadline passed.
  bool Await(uint64_t deadline, int wake_fd = -1);

  uint32_t NextRequestId() { return next_request_id_++; }
  // Sends a request and waits for its reply (a RegionReply: regions and communicators).
  Result<ipc::RegionReply> Request(const void* msg, size_t bytes, const int* fds, size_t nfds,
                                   uint32_t request_id);

  // Asks the agent about the job's generations (kQuery), or to move this client into the job's
  // next one (kReform; the agents take up to `timeout_ms`, 0: their default).
  Result<ipc::ReformReply> Reform(ipc::ReformMode mode, uint32_t timeout_ms);

  int fd() const { return channel_.fd(); }
  // The submission ring's doorbell (an eventfd the agent waits on).
  int doorbell_fd() const { return sq_efd_.get(); }
  const ipc::Mapping& control() const { return control_->mapping; }
  // The control segment, shared with whoever keeps it mapped after this connection moves on.
  const std::shared_ptr<const ControlSegment>& control_segment() const { return control_; }
  // Leaves the control segment mapped for good (streams may still use it).
  void LeakControl();

 private:
  explicit Connection(const ConnectConfig& config);
  Status Handshake(std::optional<Comeback> comeback);
  // Reads the reply to request `request_id` (a message of `bytes` bytes) into `out`, waiting
  // until `deadline` (monotonic ns); `what` names the request in errors.
  Status AwaitReply(uint32_t request_id, void* out, size_t bytes, uint64_t deadline,
                    const char* what);
  // Why the agent is gone, if a receive's result says so: failure, EOF or a goodbye.
  struct Gone {
    Status why;
    bool goodbye = false;
    bool handed_over = false;
  };
  static std::optional<Gone> Departure(const Result<size_t>& n, const uint8_t* buf);

  ConnectConfig config_;
  ipc::UnixChannel channel_;
  std::shared_ptr<const ControlSegment> control_;
  UniqueFd sq_efd_;
  UniqueFd cq_efd_;
  ipc::RingProducer<ipc::SubmitEntry> sq_;
  ipc::RingConsumer<ipc::CompletionEntry> cq_;
  ipc::AdaptiveSpin spin_;
  uint32_t next_request_id_ = 1;
  Status gone_;                    // set once the agent closed the connection
  uint64_t gone_ns_ = 0;           // when gone_ was set (monotonic)
  bool gone_goodbye_ = false;      // the agent said goodbye as it went
  bool gone_handed_over_ = false;  // ... saying it handed the client's job over
  bool closed_ = false;            // Close() ran
  std::function<void()> on_gone_;
};

// An agent reply's status (code and message field).
Status FromReply(int32_t code, const char* message);

}  // namespace outrider::shim
