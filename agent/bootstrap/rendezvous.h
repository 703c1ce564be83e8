// Job rendezvous between agents over TCP. The agent on node 0 of a job (its root) collects one
// join per other node on its agent port, checks each join's job token (constant-time) and shape,
// and answers every node with the table of all nodes' transport addresses. Afterwards the
// agents talk over the data-plane transport only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/bootstrap/port_connections.h"
#include "agent/event_loop.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// Transport addresses by node rank, and where each node's agent listens (host:port of its agent
// port, as the root reached it; "" where unknown).
struct NodeTable : std::vector<std::string> {
  using std::vector<std::string>::vector;
  std::vector<std::string> agents;
};
using RendezvousDone = std::function<void(Result<NodeTable>)>;

// Constant-time comparison (the time does not depend on where the strings differ).
bool TokensEqual(const std::string& a, const std::string& b);

// What the agent port hands to the job generations (agent/membership/, which implements it; the
// Agent sets it): this layer knows the frames, not what they decide.
class GenerationFrames {
 public:
  virtual ~GenerationFrames() = default;
  // A kReform frame about job `job_id`: its one blob, and its connection, to answer (Reply) when
  // it likes; `local` is this agent's address as the sender reached it, `peer_host` the sender's.
  virtual void OnReformFrame(const std::string& job_id, const std::string& token, std::string body,
                             UniqueFd fd, const std::string& local,
                             const std::string& peer_host) = 0;
  // Whether `token` is the token of job `id` as far as this agent's jobs know (a withdrawal of a
  // rendezvous not offered here is trusted only then).
  virtual bool Vouches(const std::string& id, const std::string& token) = 0;
  // A trusted withdrawal named node `node` of generation `id` as one that has no rank in it.
  virtual void OnNodeLeft(const std::string& id, int32_t node) = 0;
};

// Root side, and the agent port's other frames (a job's next generation, withdrawals). Frames
// come from anyone who reaches the port (port_connections.h bounds and reads them); joins are
// checked against the offered job's token, withdrawals against a token the engine vouches for.
// Thread-safety: loop thread only.
class RendezvousServer {
 public:
  // Most nodes a relayed rendezvous (a communicator without members at the root) may have.
  static constexpr int32_t kMaxNodes = 1 << 16;
  // Most joins held for rendezvous this agent has not offered (a relay's, a late root's).
  static constexpr size_t kMaxUnofferedJoins = 1024;
  RendezvousServer(EventLoop* loop, uint32_t timeout_ms,
                   PortConnections::Limits limits = PortConnections::Limits());
  Status Listen(const std::string& address, uint16_t port);
  uint16_t port() const { return conns_.port(); }
  const PortConnections& connections() const { return conns_; }
  // Joins held (offered or not) for rendezvous that are not whole yet.
  size_t joins_waiting() const;
  // The root's own job is ready; `done` runs once every node joined (or the rendezvous failed).
  void Offer(const JobShape& shape, const std::string& own_address, RendezvousDone done);
  // Forgets a job (it ended); its waiting joins are refused.
  void Withdraw(const std::string& job_id, const Status& why);
  // The job's rendezvous can never complete (a node's ranks died before they joined it): its
  // offer fails and its joins are refused, now and when they come (the last 1024 such jobs).
  void Abandon(const std::string& job_id, const Status& why);
  // Refuses joins and offers older than the rendezvous timeout; drops connections past theirs.
  void Expire(uint64_t now_ns);
  // Where the port's frames about jobs' generations go (null: refused as malformed, withdrawals
  // of rendezvous not offered here untrusted). Not owned; outlives this or is unset first.
  void set_generation_frames(GenerationFrames* frames) { generations_ = frames; }
  // Counts a dropped connection by why (PortConnections::DropName).
  void set_on_drop(std::function<void(const char* why)> f) { on_drop_ = std::move(f); }
  // Sends one frame on a connection a handler kept, without blocking, and closes it.
  void Reply(UniqueFd fd, const std::string& frame);

 private:
  struct Join {
    UniqueFd fd;
    int32_t node_rank, num_nodes, local_size;
    uint32_t layout;
    std::string token;
    std::string address;
    uint64_t arrived_ns;
    std::string agent_address;  // "" from a joiner that did not say
  };
  struct Pending {
    bool offered = false;
    JobShape shape;  // a relay's: set once the joins of one token are whole
    std::string own_address;
    RendezvousDone done;
    uint64_t offered_ns = 0;
    std::vector<Join> joins;
  };
  void OnFrame(rendezvous::Frame frame, UniqueFd fd);
  void TryComplete(const std::string& job_id);
  // Refuses the joins that differ from `shape`; true if the rest make the job whole.
  bool AcceptJoins(const std::string& job_id, Pending& p, const JobShape& shape, bool relay);
  // Answers a join with why it has no place, and what kind of failure that is.
  void Refuse(Join& join, const std::string& why, Code code = Code::kPermissionDenied);
  size_t UnofferedJoins() const;
  // Forgets the joins already answered (refused: their connection is gone).
  static void DropRefused(std::vector<Join>& joins);

  uint32_t timeout_ms_;
  GenerationFrames* generations_ = nullptr;
  std::function<void(const char*)> on_drop_;
  std::map<std::string, Pending> pending_;
  std::map<std::string, std::string> abandoned_;  // job id -> why
  std::deque<std::string> abandoned_order_;
  // Last: its callbacks reach the members above, so it goes first.
  PortConnections conns_;
};

// Non-root side: connects to the root (retrying until the deadline), sends the join and waits
// for the node table on a thread of its own; `done` runs on the loop thread.
// Thread-safety: create and destroy on the loop thread; destruction cancels and joins.
class RendezvousClient {
 public:
  // `agent_port`: this agent's port, told to the root with the address it is reached at.
  RendezvousClient(EventLoop* loop, const JobShape& shape, int32_t node_rank,
                   const std::string& root_addr, const std::string& own_address,
                   uint32_t timeout_ms, RendezvousDone done, uint16_t agent_port = 0);
  ~RendezvousClient();

 private:
  Result<NodeTable> Run(const JobShape& shape, int32_t node_rank, const std::string& root_addr,
                        const std::string& own_address, uint32_t timeout_ms, uint16_t agent_port);
  UniqueFd cancel_fd_;
  std::shared_ptr<bool> alive_;  // guarded by the loop thread: false once destroyed
  std::thread thread_;
};

}  // namespace outrider::agent
