// The agent's Unix socket: accepts clients, checks their credentials, performs the hello
// handshake (protocol version, job identity, control segment and eventfds), and owns the
// resulting sessions until they close.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/control/control_options.h"
#include "agent/control/hello.h"
#include "agent/control/nccl_telemetry.h"
#include "agent/control/session.h"
#include "agent/engine/job_table.h"
#include "agent/event_loop.h"
#include "ipc/unix_channel.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class ControlServer {
 public:
  ControlServer(ControlServerOptions options, EventLoop* loop, JobTable* jobs);
  ~ControlServer();

  // Creates the socket directory (0700, or 0750 for a group) and starts listening.
  Status Start();
  // Stops accepting and removes the socket file.
  void StopListening();
  // Drains every session's submission ring and starts the fenced ops whose fences are ready.
  // Returns true if any entry was found or op started.
  bool PollSessions();
  // Fenced ops whose fence is not ready this long after submission fail (0: they wait for good).
  void set_fence_timeout_ns(uint64_t ns) { fence_timeout_ns_ = ns; }
  // Some session has ops waiting for a fence: the loop must poll (fences are plain memory).
  bool HasFencedWaits() const;
  bool PrepareSleep();
  void FinishSleep();
  // Says goodbye to every client with `why` and drops them (their jobs fail pending ops first).
  void CloseAll(const Status& why);
  size_t session_count() const { return sessions_.size(); }
  // Bytes of client memory mapped by the agent.
  uint64_t RegisteredBytes() const;
  // For /status: one entry per connected client.
  nlohmann::json ClientsJson() const;

 private:
  // Hands a validated op to its job.
  Session::OpSink Sink();
  struct PendingHandshake {
    ipc::UnixChannel channel;
    ipc::PeerCredentials peer;
    // Set when the connection is refused: the reply waits for the hello, because closing a
    // socket with the hello unread would make the client see ECONNRESET instead of the reason.
    Status refusal;
  };
  void OnAccept();
  void OnHandshakeReadable(int fd);
  // Creates the client's control segment and eventfds, joins its job and answers the hello.
  Status Handshake(PendingHandshake& hs, const Hello& hello, uint32_t request_id);
  void RejectHello(ipc::UnixChannel& channel, uint32_t request_id, const Status& st);
  Status CheckPeer(const ipc::PeerCredentials& peer) const;
  // Removes closed sessions: their jobs learn first, then fds and mappings are released.
  void ReapClosed();
  // Some job of the session (its own or a communicator's) still has sends reading its memory.
  bool JobsBusy(const Session& s) const;

  ControlServerOptions options_;
  EventLoop* loop_;   // Not owned; outlives this server.
  JobTable* jobs_;    // Not owned; outlives this server.
  UniqueFd listen_fd_;
  bool listening_ = false;
  std::unique_ptr<NcclTelemetrySink> nccl_telemetry_;  // <socket>.nccl
  gid_t group_gid_ = static_cast<gid_t>(-1);
  uint32_t next_client_id_ = 1;
  std::map<int, PendingHandshake> handshakes_;       // by socket fd
  std::map<int, std::unique_ptr<Session>> sessions_;  // by socket fd
  // Closed sessions whose memory a job's in-flight sends may still read.
  std::vector<std::unique_ptr<Session>> graveyard_;
  uint64_t fence_timeout_ns_ = 0;
};

}  // namespace outrider::agent
