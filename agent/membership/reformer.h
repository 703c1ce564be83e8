// A job's next generation (docs/elastic.md). After a rank or a node is lost, or to admit joiners,
// the surviving ranks ask their agents to go on. Each node's agent collects its own ranks' asks
// (a rank that does not ask within half the deadline is left out) and reports them to the lowest
// node of the job that still has ranks; that agent decides. It waits for every node that still
// has ranks (never past the deadline: a node that has not reported by then is left out), adds the
// joiners it holds on the nodes where they started, keeps every node's ranks (nodes may run
// different numbers), renumbers the members node by node in the order of their old ranks
// (joiners last on their node) and answers every node with the ranks per node. Each node's agent
// then moves its clients into the new generation, whose rendezvous its node 0 hosts. Joiners wait
// at the lowest node with ranks; an agent left with no rank of the job sends what it holds on to
// the next.
//
// Reports travel over the agents' ports (ports.h: PeerLink; port_link.h carries them in rendezvous
// frames). A node tries the job's nodes in order: an agent that is gone, or one with no rank of
// the job left, sends it on to the next; one that decided already (or redirects to the node
// deciding) says so.
//
// One class for both sides, a node collecting its ranks' asks and the agent deciding: every rule
// of the failure table reads both (a collection's answer turns the node's round into a redirect;
// an agent left without ranks releases its round and its joiners; a decision decides what the
// node's own collection hears), and split they would share all their state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/membership/ports.h"
#include "agent/membership/wire.h"
#include "base/status.h"

namespace outrider::agent {
class AgentMetrics;
}

namespace outrider::agent::membership {

// A rank's place in the new generation.
struct ReformAssignment {
  uint32_t generation = 0;
  int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  std::string root_addr;            // the agent of the generation's node 0 ("" when it is this one)
  int32_t node = 0;                 // the rank's node in the generation
  std::vector<int32_t> node_ranks;  // ranks on each of the generation's nodes, in node order
};

// A client that asks for its job's next generation.
struct Asker {
  std::string job_id;    // its generation's id (a joiner's: its hello's)
  std::string job_base;  // the job ("": job_id)
  int32_t rank = 0;      // in its generation
  std::string token;
  std::string root_addr;  // a joiner: an agent of the job it names
  bool joiner = false;
  int32_t pid = 0;
  const std::string& base() const { return job_base.empty() ? job_id : job_base; }
};

// Thread-safety: loop thread only.
class Reformer {
 public:
  static constexpr uint32_t kDefaultTimeoutMs = 30000;
  // Joiners held for one job: from one node's agent (hello's limit of ranks per node), in all.
  static constexpr size_t kMaxJoinersPerNode = 64;
  static constexpr size_t kMaxJoinersPerJob = 1024;
  using Reply = std::function<void(Result<ReformAssignment>)>;

  // `link` null: single node only, no generations across nodes. `metrics` may be null. None is
  // owned; all outlive this.
  Reformer(JobDirectory* jobs, PeerLink* link, const Clock* clock, AgentMetrics* metrics);
  ~Reformer();
  Reformer(const Reformer&) = delete;
  Reformer& operator=(const Reformer&) = delete;

  // A client asks for the next generation of its job. `owner` names the client for Forget.
  // `reply` runs once, on the loop thread, before which the client must stay in its generation.
  void Ask(const void* owner, const Asker& asker, uint32_t timeout_ms, Reply reply);
  // The client is gone: its ask, if any, is dropped (its rank is left out).
  void Forget(const void* owner);
  // A member of a generation of `base` left, or a node of it was found without ranks: the
  // collections and decisions waiting for them may go on.
  void Poke(const std::string& base);
  // A rank of this node entered generation `id` of job `base`: a rank of this node that died
  // before joining it fails it now, and reports that came ahead of it go on.
  void Entered(const std::string& id, const std::string& base);
  // Where the agents of a generation of `base` that had ranks here listen (kept after its ranks
  // here are gone: a joiner on this node finds the job through them).
  void Remember(const std::string& base, const std::vector<std::string>& agents);

  // From the agents' port: another agent's request about job `base`, answered through
  // `responder`; `local` is this agent's address as the sender reached it, `peer` the sender's
  // host. Authenticated (the job's token) before its body is read.
  void OnRequest(const std::string& base, const std::string& token, std::string body,
                 std::unique_ptr<Responder> responder, const std::string& local,
                 const std::string& peer);
  // Whether `token` is the token of generation `id` as this agent's jobs know it (the generation
  // itself, or one decided lately whose earlier generation still runs here).
  bool Vouches(const std::string& id, const std::string& token) const;
  // A withdrawal said node `node` of generation `id` has no rank: the next round skips it.
  void NoteNodeLeft(const std::string& id, int32_t node);

  // Joiners this agent holds for the next generation of `base`.
  uint32_t JoinersHeld(const std::string& base) const;
  // Of those, how many the next generation would add (all of them, at the node that decides; none
  // elsewhere): what the job's ranks re-form for.
  uint32_t JoinersWaiting(const std::string& base) const;
  // Deadlines: collections sent as they are, decisions taken without the late nodes, asks and
  // joiners past their own deadline answered.
  void Tick(uint64_t now_ns);
  uint64_t NextDeadlineNs() const;
  nlohmann::json StatusJson() const;

 private:
  struct Waiter {
    const void* owner = nullptr;
    Asker asker;
    uint64_t deadline_ns = 0;
    Reply reply;
  };
  // This node's side: its ranks' asks for one job, and the report on its way.
  struct Collection {
    std::string base;
    uint32_t generation = 0;  // the generation they leave
    bool joiners = false;     // a collection of one joiner (not of a generation's ranks)
    std::string token;
    uint32_t timeout_ms = 0;
    uint64_t started_ns = 0;
    uint64_t send_by_ns = 0;
    std::vector<Waiter> waiters;
    bool sent = false;
    std::vector<std::string> candidates;  // agents to report to, in order
    size_t next = 0;
    std::string asking;  // the candidate being asked
    std::unique_ptr<Call> call;
  };
  // A request that reached this agent, held until answered (`responder` null once it is).
  struct Report {
    bool joiner = false;
    std::string agent;  // host:port of the reporting agent
    int old_node = -1;
    std::vector<int32_t> ranks;  // old ranks (joiners: none)
    std::unique_ptr<Responder> responder;
    uint64_t deadline_ns = 0;
    std::string local;  // this agent's address as the reporter reached it
    // The places it asks for: its ranks, or one for a joiner.
    size_t places() const { return std::max<size_t>(ranks.size(), 1); }
  };
  // Deciding (or about to, or sending on) the next generation of a job.
  struct Round {
    uint32_t generation = 0;  // the generation being left
    enum class Role { kUndecided, kDeciding, kRedirect } role = Role::kUndecided;
    std::string redirect;  // kRedirect: the agent deciding
    uint64_t started_ns = 0;
    uint64_t deadline_ns = 0;
    int self_node = 0;
    std::vector<Report> reports;
  };
  // A node's report for a generation this agent decided, or heard of, before its own ranks
  // entered it (a fast node re-forms again at once): held for them, not passed over as absent.
  struct Early {
    std::string base, token, body, local, peer;
    std::unique_ptr<Responder> responder;
    uint64_t deadline_ns = 0;
  };
  static constexpr size_t kMaxEarly = 64;
  static constexpr uint64_t kEarlyWaitNs = 5'000'000'000;
  struct Decided {
    uint32_t from = 0, to = 0;
    uint64_t at_ns = 0;
    std::string root;  // the new generation's node 0, as this agent knows it ("": this agent)
  };

  void MaybeSend(const std::string& key);
  void SendNext(const std::string& key);
  void OnAnswer(const std::string& key, Result<CallAnswer> answer);
  void FinishCollection(const std::string& key, const Status& why,
                        const ReformDecision* decision = nullptr);
  void MaybeDecide(const std::string& base);
  // With no rank of `base` left here (none asking either), the reports and joiners held here
  // are sent on to the job's next agent.
  void ReleaseIfGone(const std::string& base);
  void Decide(const std::string& base, Round& round);
  // The nodes of `job` (the round's generation) the round still waits for: "1, 3", or "".
  std::string Unreported(const Round& round, const std::optional<GenerationInfo>& job) const;
  // Every node's agent of `job`: from its rendezvous, or (before that completed, or after it
  // failed) from the decision that made it. Empty when neither is known.
  std::vector<std::string> AgentsOf(const GenerationInfo& job) const;
  // Tells the rendezvous of generation `id` at agent `root` that it cannot complete (`why`).
  void WithdrawAt(const std::string& root, const std::string& id, const std::string& token,
                  const Status& why, int32_t node_left = -1);
  bool NodeLeft(const std::string& id, int32_t node) const;
  // The node of `job` where joiners wait: its lowest node that still has ranks.
  static int JoinersNode(const GenerationInfo& job);
  // Joiners held here while another node of the job's live generation decides go there.
  void SendOnJoiners(const std::string& base);
  // Once this agent decided a generation it has no rank in, the joiners waiting here for the next
  // one go to that generation's node 0.
  void SendOnHeld(const std::string& base, const std::string& root);
  uint64_t Now() const { return clock_->NowNs(); }

  JobDirectory* jobs_;     // Not owned.
  PeerLink* link_;         // Not owned; null on a single node.
  const Clock* clock_;     // Not owned.
  AgentMetrics* metrics_;  // Not owned; may be null.
  std::map<std::string, Collection>
      collections_;  // by base job id, or "<base>\n<joiner_asks_>" for joiners
  uint64_t joiner_asks_ = 0;
  std::map<std::string, Round> rounds_;                 // by base job id
  std::map<std::string, std::vector<Report>> joiners_;  // held for the next generation, by base
  std::map<std::string, Decided> decided_;              // the last generation decided here, by base
  std::vector<Early> early_;
  // Generations a rank of this node was placed in but died before any rank here entered them: the
  // first to enter fails the generation (its other nodes may have met already).
  std::map<std::string, Status> gave_up_;
  std::vector<std::unique_ptr<Call>> withdrawals_;  // in flight
  // Every node's agent of the generations decided lately, by the generation's job id: a
  // generation whose rendezvous never completed re-forms through them.
  std::map<std::string, std::vector<std::string>> agents_of_;
  std::deque<std::string> agents_order_;
  std::map<std::string, std::vector<std::string>> remembered_;  // by base, at most 1024
  std::map<std::string, std::set<int32_t>> nodes_left_;         // by generation id, at most 256
  std::deque<std::string> nodes_left_order_;
  std::deque<std::string> remembered_order_;
};

}  // namespace outrider::agent::membership
