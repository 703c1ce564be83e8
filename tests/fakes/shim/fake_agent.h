// An agent the shim's unit tests script, in the test's own process: it listens on a socket,
// answers one client's hello with a real control segment and rings, and then does only what the
// test says. Requests (regions, communicators) are answered at once, with the next id or with the
// refusal the test set; submissions wait on the ring until the test takes them, and complete as
// the test says; hanging up is the agent dying. What the client sent is kept for the test to read.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unique_fd.h"

namespace outrider::shim {

// Thread-safety: the test thread calls everything; a thread of its own serves the socket.
class FakeAgent {
 public:
  struct Options {
    uint16_t version = ipc::kProtocolVersion;  // the protocol version it says it speaks
    Status refuse_hello;                       // not OK: the hello is refused with it
    uint32_t sq_entries = 64;
  };
  // Listens on `socket_path` and serves the first client that connects.
  static std::unique_ptr<FakeAgent> Start(const std::string& socket_path, Options options);
  static std::unique_ptr<FakeAgent> Start(const std::string& socket_path) {
    return Start(socket_path, Options{});
  }
  ~FakeAgent();
  FakeAgent(const FakeAgent&) = delete;
  FakeAgent& operator=(const FakeAgent&) = delete;

  // Requests from now on are refused with `why` (OK: answered again).
  void RefuseRequests(Status why);
  // Communicator requests from now on are answered with `id`, right or wrong (0: the next id).
  void AnswerCommsWith(uint32_t id) { comm_id_.store(id); }
  // A request for the job's next generation (kReform) is answered with `place` (its header and
  // code filled in here); unanswered until this is called.
  void PlaceOnReform(const ipc::ReformReply& place);

  // The next entry the client pushed on the submission ring, waiting up to `timeout_ms`.
  std::optional<ipc::SubmitEntry> NextSubmission(int timeout_ms);
  // Completes `op_id` with `status` (its message travels), waking the client if it sleeps.
  void Complete(uint64_t op_id, const Status& status);
  // Gives `op_id` back unstarted, as an agent handing its jobs over does (kCompletionMoved).
  void Move(uint64_t op_id);
  // Closes the client's socket without a goodbye, as an agent that died would.
  void HangUp();
  // Says goodbye (UNAVAILABLE: stopping), then closes it, as an agent that was stopped does.
  void Leave();

  // What the client sent, in order: message types of every request after the hello.
  std::vector<ipc::MsgType> requests() const;
  std::vector<ipc::CommCreate> comm_requests() const;
  // The client's hello (empty before it came).
  std::optional<ipc::HelloRequest> hello() const;
  // Whether the client said hello and goodbye.
  bool greeted() const { return greeted_.load(); }
  bool said_goodbye() const { return goodbye_.load(); }

 private:
  FakeAgent(std::string path, Options options) : path_(std::move(path)), options_(options) {}
  void Serve();
  // Answers one message; false once the client is gone.
  bool Handle(const uint8_t* msg, size_t n, std::vector<UniqueFd>& fds);
  Status Hello(const ipc::HelloRequest& hello);
  void Reply(ipc::MsgType type, uint32_t request_id, const Status& st, uint32_t id);

  std::string path_;
  Options options_;
  UniqueFd listen_, client_, stop_;
  std::thread thread_;
  ipc::Mapping control_;
  UniqueFd control_fd_, sq_efd_, cq_efd_;
  ipc::RingConsumer<ipc::SubmitEntry> sq_;  // the test thread's
  ipc::RingProducer<ipc::CompletionEntry> cq_;
  std::atomic<bool> rings_ready_{false}, greeted_{false}, goodbye_{false};
  std::atomic<uint32_t> comm_id_{0};
  std::atomic<int> client_fd_{-1};  // client_'s, for HangUp
  mutable std::mutex mu_;
  std::condition_variable hello_said_;  // with mu_: the rings are ready
  Status refuse_;                       // guarded by mu_
  uint32_t next_id_ = 1;
  std::vector<ipc::MsgType> requests_;          // guarded by mu_
  std::vector<ipc::CommCreate> comm_requests_;  // guarded by mu_
  std::optional<ipc::HelloRequest> hello_;      // guarded by mu_
  std::optional<ipc::ReformReply> place_;       // guarded by mu_
};

}  // namespace outrider::shim
