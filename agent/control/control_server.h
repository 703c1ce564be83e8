// The agent's Unix socket: accepts clients, checks their credentials, performs the hello
// handshake (protocol version, job identity, control segment and eventfds), and owns the
// resulting sessions until they close.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/control/control_options.h"
#include "agent/control/hello.h"
#include "agent/control/nccl_stats_receiver.h"
#include "agent/control/session.h"
#include "agent/engine/job_table.h"
#include "agent/event_loop.h"
#include "ipc/unix_channel.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class ControlServer {
 public:
  // `generations` re-form clients' jobs (null: refused). Neither is owned; both outlive this.
  // `metrics` (not owned; may be null: nothing counted) counts the trainers' NCCL telemetry.
  ControlServer(ControlServerOptions options, EventLoop* loop, JobTable* jobs,
                membership::Reformer* generations = nullptr, AgentMetrics* metrics = nullptr);
  ~ControlServer();

  // Creates the socket directory (0700, or 0750 for a group) and starts listening.
  Status Start();
  // Stops accepting and removes the socket file.
  void StopListening();
  // Drains every session's submission ring and starts the fenced ops whose fences are ready.
  // Returns true if any entry was found or op started.
  bool PollSessions();
  // Where clients' ops on GPU memory go (null: refused). Not owned; outlives this server.
  void set_device_path(DevicePath* devices) { devices_ = devices; }
  // Fenced ops whose fence is not ready this long after submission fail (0: they wait for good).
  void set_fence_timeout_ns(uint64_t ns) { fence_timeout_ns_ = ns; }
  // Some session has ops waiting for a fence: the loop must poll (fences are plain memory).
  bool HasFencedWaits() const;
  // Closes connections that have not said hello within handshake_timeout_ms, and listens again
  // once a pause for want of file descriptors is over.
  void Tick(uint64_t now_ns);
  // When Tick has work next (a handshake's deadline, the end of a pause), or UINT64_MAX.
  uint64_t NextDeadlineNs() const;
  // Connections accepted that have not finished their hello.
  size_t handshake_count() const { return handshakes_.size(); }
  // Most connections waiting for their hello at once: a new one beyond it closes the oldest.
  static constexpr size_t kMaxHandshakes = 128;
  // How long accepting pauses when the process is out of file descriptors.
  static constexpr uint64_t kAcceptPauseNs = 100'000'000;
  bool PrepareSleep();
  void FinishSleep();
  // Says goodbye to every client with `why` and drops them (their jobs fail pending ops first).
  void CloseAll(const Status& why);
  size_t session_count() const { return sessions_.size(); }
  size_t communicator_count() const { return comms_in_use_; }
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
    uint64_t serial = 0;       // names it in handshake_order_ (fd numbers are reused)
    uint64_t deadline_ns = 0;  // closed unless its hello came by then
  };
  // Drops a pending handshake without an answer (it said nothing in time, or made room).
  void DropHandshake(int fd, const char* why);
  // Stops watching the listening socket until kAcceptPauseNs from now.
  void PauseAccepting(const Status& why);
  void OnAccept();
  void OnHandshakeReadable(int fd);
  // Creates the client's control segment and eventfds, joins its job and answers the hello.
  // `fences`: the memfd that came with a hello of kHelloFences, else invalid.
  Status Handshake(PendingHandshake& hs, const Hello& hello, uint32_t request_id, UniqueFd fences);
  void RejectHello(ipc::UnixChannel& channel, uint16_t version, uint32_t request_id,
                   const Status& st);
  Status CheckPeer(const ipc::PeerCredentials& peer) const;
  // Removes closed sessions: their jobs learn first, then fds and mappings are released.
  void ReapClosed();
  // Some job of the session (its own or a communicator's) still has sends reading its memory.
  bool JobsBusy(const Session& s) const;

  ControlServerOptions options_;
  EventLoop* loop_;                    // Not owned; outlives this server.
  JobTable* jobs_;                     // Not owned; outlives this server.
  membership::Reformer* generations_;  // Not owned; may be null.
  AgentMetrics* metrics_;              // Not owned; may be null.
  DevicePath* devices_ = nullptr;      // Not owned; may be null.
  UniqueFd listen_fd_;
  bool listening_ = false;
  std::unique_ptr<NcclStatsReceiver> nccl_telemetry_;  // <socket>.nccl
  gid_t group_gid_ = static_cast<gid_t>(-1);
  uint32_t next_client_id_ = 1;
  // Communicator memberships of all sessions (the graveyard's included). Declared before the
  // sessions: they count down as they are destroyed.
  size_t comms_in_use_ = 0;
  std::map<int, PendingHandshake> handshakes_;  // by socket fd
  // (serial, fd) of pending handshakes in accept order, so in deadline order; entries whose
  // handshake already ended are skipped when they reach the front.
  std::deque<std::pair<uint64_t, int>> handshake_order_;
  uint64_t next_serial_ = 1;
  uint64_t accept_paused_until_ns_ = 0;               // 0: accepting
  std::map<int, std::unique_ptr<Session>> sessions_;  // by socket fd
  // Closed sessions whose memory a job's in-flight sends may still read.
  std::vector<std::unique_ptr<Session>> graveyard_;
  uint64_t fence_timeout_ns_ = 0;
};

}  // namespace outrider::agent
