// A job's next generation (reformer.h): this node's collection of its ranks' asks and its report
// to the deciding agent; the deciding agent's side (the reports, the decision, the answers); the
// deadlines and /status.
#include "agent/membership/reformer.h"

#include <algorithm>

#include "agent/bootstrap/rank_layout.h"
#include "agent/bootstrap/rendezvous.h"
#include "agent/log.h"
#include "agent/membership/generation_id.h"
#include "agent/observability.h"

namespace outrider::agent::membership {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr int kMaxRedirects = 4;  // redirects one report follows
// How long a decision (and an idle round) is remembered: a late report is told what became of it.
constexpr uint64_t kDecidedMemoryNs = 600'000 * kMs;

// "2, 5, 7", or "none".
std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (int32_t r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s.empty() ? "none" : s;
}

bool Loopback(const std::string& addr) { return addr.rfind("127.", 0) == 0; }
std::string HostOf(const std::string& addr) { return addr.substr(0, addr.rfind(':')); }
std::string PortOf(const std::string& addr) {
  size_t colon = addr.rfind(':');
  return colon == std::string::npos ? "" : addr.substr(colon + 1);
}

// `agent` as a peer that reached this agent at `local` reaches it: an agent that reported over
// loopback is named by the address the peer used.
std::string SeenFrom(const std::string& agent, const std::string& local) {
  return Loopback(agent) && !Loopback(local) ? HostOf(local) + ":" + PortOf(agent) : agent;
}

void Answer(std::unique_ptr<Responder> r, const ReformDecision& d) {
  if (r != nullptr) r->Answer(d);
}

void Redirect(std::unique_ptr<Responder> r, const std::string& to) {
  if (r != nullptr) r->Redirect(to);
}

// The asker of a held request gave up on it (closed: it was cancelled or died).
bool Gone(const std::unique_ptr<Responder>& r) { return r == nullptr || r->Closed(); }

}  // namespace

Reformer::Reformer(JobDirectory* jobs, PeerLink* link, const Clock* clock, AgentMetrics* metrics)
    : jobs_(jobs), link_(link), clock_(clock), metrics_(metrics) {}

Reformer::~Reformer() {
  for (auto& [k, c] : collections_) c.call.reset();
}

// ---- This node's side: its ranks' asks, the report to the deciding agent, the answers.

void Reformer::Ask(const void* owner, const Asker& asker, uint32_t timeout_ms, Reply reply) {
  if (timeout_ms == 0) timeout_ms = kDefaultTimeoutMs;
  const std::string& base = asker.base();
  if (link_ == nullptr) {
    reply(FailedPrecondition("a new generation of job '" + base +
                             "' needs the agents' ports; this agent runs with --port 0"));
    return;
  }
  uint64_t now = Now();
  Waiter w{owner, asker, now + uint64_t{timeout_ms} * kMs, std::move(reply)};
  std::string self = "127.0.0.1:" + std::to_string(link_->port());
  if (asker.joiner) {
    size_t joining = std::count_if(collections_.begin(), collections_.end(), [&](const auto& kv) {
      return kv.second.joiners && kv.second.base == base;
    });
    if (joining >= kMaxJoinersPerNode) {
      w.reply(ResourceExhausted("job '" + base + "' already has " + std::to_string(joining) +
                                " joiners waiting on this node (at most " +
                                std::to_string(kMaxJoinersPerNode) + ")"));
      return;
    }
    Collection c;
    c.base = base;
    c.joiners = true;
    c.token = asker.token;
    c.timeout_ms = timeout_ms;
    c.started_ns = now;
    c.send_by_ns = now;
    if (std::optional<GenerationInfo> live = jobs_->LiveGeneration(base)) {
      // A live generation here: its node 0 holds joiners.
      std::vector<std::string> agents = AgentsOf(*live);
      c.candidates.push_back(live->num_nodes > 1 && !agents.empty() ? agents[0] : self);
    } else if (!asker.root_addr.empty() || remembered_.count(base) != 0) {
      if (!asker.root_addr.empty()) c.candidates.push_back(asker.root_addr);
      // The job's agents this one knew: the root named may have no rank of the job any more.
      if (auto r = remembered_.find(base); r != remembered_.end()) {
        for (const std::string& a : r->second) {
          if (!a.empty() && a != asker.root_addr) c.candidates.push_back(a);
        }
      }
    } else {
      w.reply(FailedPrecondition(
          "no rank of job '" + base +
          "' runs on this node, and the joiner names no agent of it: set OUTRIDER_ROOT_ADDR (or "
          "MASTER_ADDR) to a node of the job"));
      return;
    }
    c.waiters.push_back(std::move(w));
    // Keyed by a number of its own: a client that connects after a joiner left may reuse the
    // left one's address, whose collection still waits for its answer.
    std::string key = base + "\n" + std::to_string(++joiner_asks_);
    Collection& at = collections_[key] = std::move(c);
    at.sent = true;
    Logger("engine")->info("job '{}': a joiner (pid {}) asks {} for the next generation", base,
                           asker.pid, at.candidates[0]);
    SendNext(key);
    return;
  }
  std::optional<GenerationInfo> job = jobs_->Generation(asker.job_id);
  if (!job) {
    w.reply(FailedPrecondition("this client is in no live generation of job '" + base + "'"));
    return;
  }
  auto it = collections_.find(base);
  if (it != collections_.end() && it->second.generation != job->generation) {
    FinishCollection(base, Cancelled("a newer generation of job '" + base + "' was asked for"));
    it = collections_.end();
  }
  if (it != collections_.end() && it->second.sent) {
    w.reply(
        FailedPrecondition("this node already reported its ranks for the next generation of "
                           "job '" +
                           base + "': this rank asked too late and is left out"));
    return;
  }
  if (it == collections_.end()) {
    Collection c;
    c.base = base;
    c.generation = job->generation;
    c.token = job->token;
    c.timeout_ms = timeout_ms;
    c.started_ns = now;
    c.send_by_ns = now + uint64_t{timeout_ms} * kMs / 2;
    if (job->num_nodes > 1) {
      std::vector<std::string> addrs = AgentsOf(*job);
      for (int n = 0; n < job->num_nodes; ++n) {
        if (n != job->node_rank && job->node_gone(n)) continue;
        if (static_cast<size_t>(n) < addrs.size() && !addrs[static_cast<size_t>(n)].empty())
          c.candidates.push_back(addrs[static_cast<size_t>(n)]);
      }
    } else {
      c.candidates.push_back(self);
    }
    it = collections_.emplace(base, std::move(c)).first;
    Logger("engine")->info("job '{}': rank {} asks for generation {}", base, asker.rank,
                           job->generation + 1);
  }
  it->second.waiters.push_back(std::move(w));
  MaybeSend(base);
}

void Reformer::Forget(const void* owner) {
  for (auto it = collections_.begin(); it != collections_.end();) {
    Collection& c = it->second;
    auto w = std::find_if(c.waiters.begin(), c.waiters.end(),
                          [owner](const Waiter& x) { return x.owner == owner; });
    if (w == c.waiters.end()) {
      ++it;
      continue;
    }
    if (c.joiners) {
      // The joiner is gone. Its call stays open for the answer but says it is done: an agent that
      // has not decided yet leaves it out; one that placed it already answers, and the new
      // generation is told its place stays empty (FinishCollection's gave_up).
      if (c.call) c.call->HalfClose();
      w->reply = nullptr;
      w->owner = nullptr;
      ++it;
      continue;
    }
    // Its rank stays in a report already sent (and gives up its place once assigned one).
    w->reply = nullptr;
    w->owner = nullptr;
    std::string key = it->first, base = c.base;
    ++it;
    MaybeSend(key);
    // The last rank here that asked is gone: what this agent holds for the job goes on.
    ReleaseIfGone(base);
  }
}

void Reformer::MaybeSend(const std::string& key) {
  auto it = collections_.find(key);
  if (it == collections_.end() || it->second.sent) return;
  Collection& c = it->second;
  std::optional<GenerationInfo> job = jobs_->Generation(GenerationJobId(c.base, c.generation));
  size_t live = job ? job->members : 0, asked = 0;
  for (const Waiter& w : c.waiters) asked += w.owner != nullptr;
  if (asked < live && Now() < c.send_by_ns) return;
  c.sent = true;
  if (asked == 0) {
    FinishCollection(key, Cancelled("no rank of this node asks any more"));
    return;
  }
  SendNext(key);
}

void Reformer::SendNext(const std::string& key) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection& c = it->second;
  uint64_t now = Now();
  uint64_t deadline = c.started_ns + uint64_t{c.timeout_ms} * kMs;
  if (c.joiners && c.waiters.front().owner == nullptr) {
    // The joiner left before an agent held it: it asks nobody else.
    FinishCollection(key, Cancelled("the joiner left"));
    return;
  }
  if (c.next >= c.candidates.size() || now >= deadline) {
    std::string tried;
    for (size_t i = 0; i < c.next && i < c.candidates.size(); ++i)
      tried += (tried.empty() ? "" : ", ") + c.candidates[i];
    FinishCollection(key,
                     now >= deadline
                         ? DeadlineExceeded("job '" + c.base +
                                            "' did not agree on its next "
                                            "generation within " +
                                            std::to_string(c.timeout_ms) + " ms")
                         : Unavailable("no agent of job '" + c.base +
                                       "' could decide its next generation (asked " + tried + ")"));
    return;
  }
  c.asking = c.candidates[c.next++];
  ReformRequest req;
  req.joiner = c.joiners;
  req.generation = c.generation;
  req.port = link_->port();
  req.timeout_ms = std::min(c.timeout_ms, ReformRequest::kMaxTimeoutMs);
  req.node = 0;
  if (!c.joiners) {
    std::optional<GenerationInfo> job = jobs_->Generation(GenerationJobId(c.base, c.generation));
    req.node = job ? job->node_rank : 0;
    for (const Waiter& w : c.waiters) req.ranks.push_back(w.asker.rank);
  }
  auto remaining = static_cast<uint32_t>((deadline - now) / kMs + 1);
  c.call.reset();
  c.call = link_->Ask(c.asking, c.base, c.token, req, remaining,
                      [this, key](Result<CallAnswer> a) { OnAnswer(key, std::move(a)); });
}

void Reformer::OnAnswer(const std::string& key, Result<CallAnswer> a) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection& c = it->second;
  if (!a.ok()) {
    if (a.status().code() == Code::kProtocol) {
      Logger("engine")->warn("job '{}': agent {} answered with a malformed frame: {}", c.base,
                             c.asking, a.status().message());
    } else {
      Logger("engine")->info("job '{}': agent {} cannot decide the next generation: {}", c.base,
                             c.asking, a.status().message());
    }
    return SendNext(key);
  }
  if (!a->redirect.empty()) {
    if (c.candidates.size() < c.next + kMaxRedirects)
      c.candidates.insert(c.candidates.begin() + static_cast<ptrdiff_t>(c.next), a->redirect);
    return SendNext(key);
  }
  const ReformDecision& d = a->decision;
  if (d.absent) return SendNext(key);
  // Another agent decides (or decided): reports held here go there.
  if (!c.joiners) {
    auto round = rounds_.find(c.base);
    if (round != rounds_.end() && round->second.role == Round::Role::kUndecided) {
      round->second.role = Round::Role::kRedirect;
      round->second.redirect = c.asking;
      for (Report& rep : round->second.reports) Redirect(std::move(rep.responder), c.asking);
      round->second.reports.clear();
    }
  }
  if (d.code != 0) {
    return FinishCollection(key,
                            Status(d.status_code(), d.message.empty() ? "no reason" : d.message));
  }
  FinishCollection(key, Status::Ok(), &d);
}

void Reformer::FinishCollection(const std::string& key, const Status& why,
                                const ReformDecision* decision) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection c = std::move(it->second);
  collections_.erase(it);
  bool metered = Counting(metrics_) != nullptr;
  double seconds = static_cast<double>(Now() - c.started_ns) * 1e-9;
  if (metered && decision != nullptr) metrics_->reconfiguration_duration->Observe(seconds);
  uint32_t generation = 0;
  int32_t world = 0;
  RankLayout layout;
  std::string root;
  if (decision != nullptr) {
    generation = decision->generation;
    world = decision->world_size;
    layout = RankLayout::FromCounts(decision->node_ranks);
    root = decision->root;
    std::string id = GenerationJobId(c.base, generation);
    if (!decision->agents.empty() && agents_of_.emplace(id, decision->agents).second) {
      agents_order_.push_back(id);
      if (agents_order_.size() > 256) {
        agents_of_.erase(agents_order_.front());
        agents_order_.pop_front();
      }
    }
    if (decision->assign.size() != c.waiters.size()) {
      Logger("engine")->warn("job '{}': agent {} placed {} ranks; this node asked for {}", c.base,
                             c.asking, decision->assign.size(), c.waiters.size());
      decision = nullptr;
    }
  }
  std::vector<int32_t> gave_up;  // new local ranks whose client left before the answer came
  int32_t gave_up_node = -1;     // their node in the new generation
  for (size_t i = 0; i < c.waiters.size(); ++i) {
    Waiter& w = c.waiters[i];
    Result<ReformAssignment> a =
        why.ok() ? Internal("malformed decision") : Result<ReformAssignment>(why);
    if (decision != nullptr) {
      const ReformSlot& slot = decision->assign[i];
      if (slot.why.empty()) {
        int node = layout.node_of(slot.rank);
        ReformAssignment as{
            generation, slot.rank,           world, slot.local_rank, layout.ranks_on(node), root,
            node,       decision->node_ranks};
        a = as;
        if (w.owner == nullptr) {
          gave_up.push_back(as.local_rank);
          gave_up_node = node;
        }
      } else {
        a = FailedPrecondition("left out of generation " + std::to_string(generation) +
                               " of job '" + c.base + "': " + slot.why);
      }
    }
    const char* result = a.ok() ? "ok" : decision != nullptr ? "left_out" : "failed";
    if (metered) metrics_->reconfigurations->Get({result})->Inc();
    if (w.reply) w.reply(std::move(a));
  }
  if (decision != nullptr) {
    Logger("engine")->info("job '{}': generation {} decided by agent {} in {:.3f} s: {} ranks",
                           c.base, generation, c.asking, seconds, world);
  } else {
    Logger("engine")->warn("job '{}': no new generation for {} rank(s) of this node: {}", c.base,
                           c.waiters.size(), why.ToString());
  }
  // A rank that died after its node reported it: the new generation waits for it in vain. Its
  // other ranks here (if any) fail it on every node; else its rendezvous does.
  if (!gave_up.empty()) {
    Status lost = PeerLost("job '" + c.base + "' generation " + std::to_string(generation) +
                           ": local rank(s) " + RankList(gave_up) + " of " +
                           std::to_string(layout.ranks_on(gave_up_node)) +
                           " on this node died before joining it");
    std::string id = GenerationJobId(c.base, generation);
    if (jobs_->Generation(id)) {
      jobs_->GiveUp(id, lost);
    } else {
      // No rank of this node entered it yet. Unless another request of this node for the job
      // is still out (its node report, another joiner), the node has none in the new generation,
      // and the next round must not wait for it.
      bool others = std::any_of(collections_.begin(), collections_.end(),
                                [&](const auto& kv) { return kv.second.base == c.base; });
      // Another rank of this node may still enter it, after its rendezvous completed: it fails
      // the generation then (Entered), rather than the others waiting out their op timeout.
      if (gave_up_.size() >= 256) gave_up_.erase(gave_up_.begin());
      gave_up_[id] = lost;
      link_->Abandon(id, lost);
      if (!root.empty()) WithdrawAt(root, id, c.token, lost, others ? -1 : gave_up_node);
    }
  }
}

void Reformer::WithdrawAt(const std::string& root, const std::string& id, const std::string& token,
                          const Status& why, int32_t node_left) {
  // Calls are few (one per rank that died mid-change); the oldest is cancelled past 64.
  withdrawals_.push_back(link_->Withdraw(root, id, token, why, node_left));
  if (withdrawals_.size() > 64) withdrawals_.erase(withdrawals_.begin());
}

// ---- The deciding agent's side: the reports, the decision and the answers.

void Reformer::OnRequest(const std::string& base, const std::string& token, std::string body,
                         std::unique_ptr<Responder> responder, const std::string& local,
                         const std::string& peer) {
  // Authenticated before parsed: a request about a job this agent does not run, or with another
  // token, is answered without reading its body.
  std::optional<GenerationInfo> live = jobs_->LiveGeneration(base);
  if (!live) {
    Answer(std::move(responder),
           ReformDecision::Absent("no rank of job '" + base + "' runs at agent " + local));
    return;
  }
  if (!TokensEqual(token, live->token)) {
    Logger("engine")->warn("job '{}': refused a request from {}: wrong job token", base, peer);
    Answer(std::move(responder),
           ReformDecision::Refusal(
               Code::kPermissionDenied,
               "agent " + local + " refused a request about job '" + base + "': wrong job token"));
    return;
  }
  Result<ReformRequest> req = ParseReformRequest(body);
  if (!req.ok()) {
    Logger("engine")->warn("job '{}': a malformed request from {}: {}", base, peer,
                           req.status().message());
    Answer(std::move(responder),
           ReformDecision::Refusal(Code::kProtocol, "malformed request for a new generation: " +
                                                        req.status().message()));
    return;
  }
  uint64_t now = Now();
  uint32_t timeout_ms = req->timeout_ms;
  Report rep;
  rep.agent = peer + ":" + std::to_string(req->port);
  rep.old_node = req->node;
  rep.deadline_ns = now + uint64_t{timeout_ms} * kMs;
  rep.local = local;
  if (req->joiner) {
    rep.joiner = true;
    const GenerationInfo& job = *live;
    // Joiners wait at the lowest node that still has ranks of the job: node 0, or the node that
    // decides (and hosts) the next generation once the nodes below it are gone. An agent that
    // decided a generation without its own ranks sends them to its node 0.
    if (auto d = decided_.find(base);
        d != decided_.end() && d->second.to > job.generation && !d->second.root.empty()) {
      Redirect(std::move(responder), SeenFrom(d->second.root, local));
      return;
    }
    int lowest = JoinersNode(job);
    if (lowest < job.node_rank) {
      std::vector<std::string> addrs = AgentsOf(job);
      if (static_cast<size_t>(lowest) < addrs.size() &&
          !addrs[static_cast<size_t>(lowest)].empty()) {
        Redirect(std::move(responder), addrs[static_cast<size_t>(lowest)]);
      } else {
        Answer(std::move(responder), ReformDecision::Absent());
      }
      return;
    }
    std::vector<Report>& held = joiners_[base];
    size_t from_agent = 0, places = 0;
    for (const Report& r : held) {
      from_agent += r.agent == rep.agent ? r.places() : 0;
      places += r.places();
    }
    if (from_agent + rep.places() > kMaxJoinersPerNode ||
        places + rep.places() > kMaxJoinersPerJob) {
      Answer(std::move(responder),
             ReformDecision::Refusal(
                 Code::kResourceExhausted,
                 "job '" + base + "' already holds " + std::to_string(held.size()) + " joiners (" +
                     std::to_string(from_agent) + " from agent " + rep.agent + ")"));
      if (held.empty()) joiners_.erase(base);
      return;
    }
    rep.responder = std::move(responder);
    Logger("engine")->info("job '{}': a joiner from agent {} waits for generation {}", base,
                           rep.agent, job.generation + 1);
    held.push_back(std::move(rep));
    if (rounds_.count(base) != 0) MaybeDecide(base);
    return;
  }
  uint32_t generation = req->generation;
  if (auto d = decided_.find(base); d != decided_.end() && d->second.from >= generation) {
    Answer(std::move(responder),
           ReformDecision::Refusal(
               Code::kFailedPrecondition,
               "job '" + base + "' went on as generation " + std::to_string(d->second.to) +
                   " without node " + std::to_string(rep.old_node) + " of generation " +
                   std::to_string(generation) + ": its ranks asked after the agents decided"));
    return;
  }
  std::optional<GenerationInfo> job = jobs_->Generation(GenerationJobId(base, generation));
  if (!job || job->members == 0) {
    if (live->generation < generation && early_.size() < kMaxEarly) {
      // This node's ranks are still on their way into that generation: the report waits for
      // them (Entered). Answered absent, it would go to a higher node, which would decide the
      // next generation alone beside this one.
      early_.push_back(
          Early{base, token, std::move(body), local, peer, std::move(responder),
                now + std::min<uint64_t>(kEarlyWaitNs, uint64_t{timeout_ms} * kMs / 4)});
      return;
    }
    Answer(std::move(responder), ReformDecision::Absent());
    return;
  }
  if (!TokensEqual(token, job->token)) {
    Answer(std::move(responder),
           ReformDecision::Refusal(Code::kPermissionDenied,
                                   "agent " + local + " refused to admit this rank to job '" +
                                       base + "': wrong job token"));
    return;
  }
  rep.ranks = std::move(req->ranks);
  auto [it, fresh] = rounds_.try_emplace(base);
  Round& round = it->second;
  if (fresh || round.generation < generation) {
    round = Round{};
    round.generation = generation;
    round.started_ns = now;
    round.self_node = job->node_rank;
  } else if (round.generation > generation) {
    Answer(std::move(responder),
           ReformDecision::Refusal(
               Code::kFailedPrecondition,
               "job '" + base + "' is forming generation " + std::to_string(round.generation + 1) +
                   "; this node reported for generation " + std::to_string(generation + 1)));
    return;
  }
  if (round.role == Round::Role::kRedirect) {
    Redirect(std::move(responder), round.redirect);
    return;
  }
  if (rep.old_node == round.self_node && round.role == Round::Role::kUndecided) {
    // This node's own report came back here: no lower node has ranks left, so this agent decides.
    round.role = Round::Role::kDeciding;
    round.deadline_ns = now + uint64_t{timeout_ms} * kMs * 3 / 4;
    Logger("engine")->info("job '{}': deciding generation {} here (node {})", base, generation + 1,
                           round.self_node);
  }
  rep.responder = std::move(responder);
  round.reports.push_back(std::move(rep));
  MaybeDecide(base);
}

void Reformer::MaybeDecide(const std::string& base) {
  auto it = rounds_.find(base);
  if (it == rounds_.end() || it->second.role != Round::Role::kDeciding) return;
  Round& round = it->second;
  std::optional<GenerationInfo> job = jobs_->Generation(GenerationJobId(base, round.generation));
  // This agent's ranks of that generation are all gone: it passes the round on (ReleaseIfGone)
  // rather than decide for the nodes that happened to report.
  if (!job) return;
  bool all = true;
  for (int n = 0; n < job->num_nodes && all; ++n) {
    bool reported = std::any_of(round.reports.begin(), round.reports.end(),
                                [n](const Report& r) { return r.old_node == n; });
    all = reported || n < round.self_node || job->node_gone(n) || NodeLeft(job->id, n);
  }
  if (all || Now() >= round.deadline_ns) Decide(base, round);
}

std::string Reformer::Unreported(const Round& round,
                                 const std::optional<GenerationInfo>& job) const {
  std::string missing;
  for (int n = 0; job && n < job->num_nodes; ++n) {
    bool reported = std::any_of(round.reports.begin(), round.reports.end(),
                                [n](const Report& r) { return r.old_node == n; });
    if (!reported && n >= round.self_node && !job->node_gone(n) && !NodeLeft(job->id, n))
      missing += (missing.empty() ? "" : ", ") + std::to_string(n);
  }
  return missing;
}

void Reformer::Decide(const std::string& base, Round& round) {
  uint64_t now = Now();
  std::optional<GenerationInfo> old = jobs_->Generation(GenerationJobId(base, round.generation));
  int old_world = old ? old->world_size : 0;
  // Nodes in old order, then the joiners' agents in arrival order. A slot is (report, index in
  // its ranks), or (joiner report, -1).
  struct Slot {
    Report* report;
    int index;
    int32_t old_rank;
  };
  struct Entry {
    std::string agent;
    std::vector<Slot> slots;
  };
  std::vector<Entry> entries;
  std::vector<Report*> nodes;
  for (Report& r : round.reports) nodes.push_back(&r);
  std::sort(nodes.begin(), nodes.end(),
            [](const Report* a, const Report* b) { return a->old_node < b->old_node; });
  for (Report* r : nodes) {
    if (Gone(r->responder)) continue;  // the node gave up meanwhile: its ranks cannot hear of it
    Entry e{r->agent, {}};
    for (size_t i = 0; i < r->ranks.size(); ++i)
      e.slots.push_back({r, static_cast<int>(i), r->ranks[i]});
    std::sort(e.slots.begin(), e.slots.end(),
              [](const Slot& a, const Slot& b) { return a.old_rank < b.old_rank; });
    entries.push_back(std::move(e));
  }
  std::vector<Report>& held = joiners_[base];
  for (Report& jr : held) {
    if (Gone(jr.responder)) {
      jr.responder.reset();  // the joiner is gone (or its agent gave up): no place, no answer
      continue;
    }
    auto e = std::find_if(entries.begin(), entries.end(),
                          [&](const Entry& x) { return x.agent == jr.agent; });
    if (e == entries.end()) {
      entries.push_back(Entry{jr.agent, {}});
      e = entries.end() - 1;
    }
    e->slots.push_back({&jr, -1, -1});
  }
  uint32_t next = round.generation + 1;
  // Places by report: one per rank (or why it has none).
  std::map<Report*, std::vector<ReformSlot>> answers;
  for (Report* r : nodes) answers[r].resize(r->ranks.size());
  // Every node keeps all its ranks, whatever the others run: a healthy rank is never sent away
  // because a node-mate died, and a replacement or spare joins on the node where it started.
  // Ranks are numbered node by node.
  std::vector<int32_t> kept_old;
  int32_t world = 0;
  int joined = 0;
  std::string root;
  std::vector<std::string> kept_agents;
  std::vector<int32_t> node_ranks;
  std::vector<std::string> moves;
  for (Entry& e : entries) {
    int32_t local = 0;
    for (Slot& sl : e.slots) {
      ReformSlot a;
      if (local < static_cast<int32_t>(kMaxJoinersPerNode)) {
        int32_t rank = world + local;
        a.rank = rank;
        a.local_rank = local;
        if (sl.old_rank >= 0) {
          kept_old.push_back(sl.old_rank);
          if (sl.old_rank != rank)
            moves.push_back(std::to_string(sl.old_rank) + "->" + std::to_string(rank));
        } else {
          ++joined;
          moves.push_back("joiner->" + std::to_string(rank));
        }
        ++local;
      } else {
        a.why = "its node runs " + std::to_string(kMaxJoinersPerNode) +
                " ranks of the job, the most one agent serves";
      }
      if (sl.index >= 0) {
        answers[sl.report][static_cast<size_t>(sl.index)] = a;
      } else {
        answers[sl.report] = {a};
      }
    }
    if (local == 0) continue;
    if (root.empty()) root = e.agent;
    kept_agents.push_back(e.agent);
    node_ranks.push_back(local);
    world += local;
  }
  auto reply = [&](Report& r) {
    ReformDecision d;
    if (world == 0) {
      d = ReformDecision::Refusal(Code::kFailedPrecondition, "job '" + base +
                                                                 "' has no rank left for "
                                                                 "generation " +
                                                                 std::to_string(next));
    } else {
      // An agent that reported to itself over loopback is named as the others reached it.
      d.generation = next;
      d.world_size = world;
      d.root = SeenFrom(root, r.local);
      d.node_ranks = node_ranks;
      d.assign = answers[&r];
      for (const std::string& a : kept_agents) d.agents.push_back(SeenFrom(a, r.local));
    }
    Answer(std::move(r.responder), d);
  };
  for (Report* r : nodes) {
    if (r->responder != nullptr) reply(*r);
  }
  for (Report& jr : held) {
    if (answers.count(&jr) != 0 && jr.responder != nullptr) reply(jr);
  }
  held.erase(std::remove_if(held.begin(), held.end(),
                            [](const Report& r) { return r.responder == nullptr; }),
             held.end());
  // The decider's own node (its report, if its ranks asked) may have no place in the new
  // generation: then what waits here for the next one goes to the new generation's node 0.
  std::string self_agent;
  for (Report* r : nodes) {
    if (r->old_node == round.self_node) self_agent = r->agent;
  }
  bool self_kept = !self_agent.empty() && std::find(kept_agents.begin(), kept_agents.end(),
                                                    self_agent) != kept_agents.end();
  if (world > 0 && !self_kept) SendOnHeld(base, root);
  if (held.empty()) joiners_.erase(base);
  std::sort(kept_old.begin(), kept_old.end());
  std::vector<int32_t> left;
  for (int32_t r = 0; r < old_world; ++r) {
    if (!std::binary_search(kept_old.begin(), kept_old.end(), r)) left.push_back(r);
  }
  std::string renumbered;
  for (const std::string& mv : moves) renumbered += (renumbered.empty() ? "" : ", ") + mv;
  std::string missing = Unreported(round, old);
  Logger("engine")->info(
      "job '{}': generation {} -> {} decided here in {:.3f} s: {} ranks on {} nodes (ranks per "
      "node {}); left: ranks {}; joined: {}; renumbered: {}{}",
      base, round.generation, next, static_cast<double>(now - round.started_ns) * 1e-9, world,
      node_ranks.size(), RankLayout::FromCounts(node_ranks).ToString(), RankList(left), joined,
      renumbered.empty() ? "none" : renumbered,
      missing.empty() ? "" : "; at the deadline, without node(s) " + missing + " (never reported)");
  decided_[base] = Decided{round.generation, next, now, world > 0 && !self_kept ? root : ""};
  rounds_.erase(base);
}

void Reformer::SendOnHeld(const std::string& base, const std::string& root) {
  auto it = joiners_.find(base);
  if (it == joiners_.end()) return;
  for (Report& r : it->second) {
    if (r.responder != nullptr) Redirect(std::move(r.responder), SeenFrom(root, r.local));
  }
  it->second.clear();
}

int Reformer::JoinersNode(const GenerationInfo& job) {
  // In a generation its ranks are leaving, a node whose ranks moved on already looks gone: a
  // joiner held here then goes on once this agent's ranks are in the next one (SendOnJoiners).
  int lowest = 0;
  while (lowest < job.node_rank && job.node_gone(lowest)) ++lowest;
  return lowest;
}

void Reformer::SendOnJoiners(const std::string& base) {
  std::optional<GenerationInfo> live = jobs_->LiveGeneration(base);
  if (!live || joiners_.count(base) == 0 || rounds_.count(base) != 0) return;
  int lowest = JoinersNode(*live);
  std::vector<std::string> agents = AgentsOf(*live);
  if (lowest >= live->node_rank || static_cast<size_t>(lowest) >= agents.size()) return;
  SendOnHeld(base, agents[static_cast<size_t>(lowest)]);
  joiners_.erase(base);
}

uint32_t Reformer::JoinersHeld(const std::string& base) const {
  auto it = joiners_.find(base);
  if (it == joiners_.end()) return 0;
  size_t n = 0;
  for (const Report& r : it->second) n += !Gone(r.responder) ? r.places() : 0;
  return static_cast<uint32_t>(n);
}

uint32_t Reformer::JoinersWaiting(const std::string& base) const {
  // Only the node that decides counts them: the others' ranks would re-form for nothing. Every
  // joiner held has a place in the next generation, on the node where it started.
  std::optional<GenerationInfo> live = jobs_->LiveGeneration(base);
  if (live && JoinersNode(*live) != live->node_rank) return 0;
  return JoinersHeld(base);
}

// ---- What both sides share: the jobs' agents, events from the job table, deadlines, /status.

std::vector<std::string> Reformer::AgentsOf(const GenerationInfo& job) const {
  if (!job.agents.empty()) return job.agents;
  auto known = agents_of_.find(job.id);
  return known != agents_of_.end() ? known->second : job.agents;
}

bool Reformer::Vouches(const std::string& id, const std::string& token) const {
  if (std::optional<GenerationInfo> job = jobs_->Generation(id))
    return TokensEqual(token, job->token);
  // A generation decided here or elsewhere whose rendezvous this agent hosts: the generations of
  // its job that still run here know the token.
  for (const auto& [base, d] : decided_) {
    if (GenerationJobId(base, d.to) != id) continue;
    if (std::optional<GenerationInfo> live = jobs_->LiveGeneration(base))
      return TokensEqual(token, live->token);
  }
  if (agents_of_.count(id) != 0) {
    std::string base = BaseOfGeneration(id);
    if (base.empty()) return false;
    if (std::optional<GenerationInfo> live = jobs_->LiveGeneration(base))
      return TokensEqual(token, live->token);
  }
  return false;
}

void Reformer::Entered(const std::string& id, const std::string& base) {
  if (auto g = gave_up_.find(id); g != gave_up_.end()) {
    Status lost = g->second;
    gave_up_.erase(g);
    jobs_->GiveUp(id, lost);
  }
  std::vector<Early> now;
  for (auto it = early_.begin(); it != early_.end();) {
    if (it->base == base) {
      now.push_back(std::move(*it));
      it = early_.erase(it);
    } else {
      ++it;
    }
  }
  for (Early& e : now)
    OnRequest(e.base, e.token, std::move(e.body), std::move(e.responder), e.local, e.peer);
}

void Reformer::Poke(const std::string& base) {
  if (collections_.count(base) != 0) MaybeSend(base);
  ReleaseIfGone(base);
  SendOnJoiners(base);
  if (rounds_.count(base) != 0) MaybeDecide(base);
}

void Reformer::ReleaseIfGone(const std::string& base) {
  // This agent still has ranks of the job, or ranks that asked and are still here: it may yet
  // decide.
  auto c = collections_.find(base);
  bool asking =
      c != collections_.end() && std::any_of(c->second.waiters.begin(), c->second.waiters.end(),
                                             [](const Waiter& w) { return w.owner != nullptr; });
  if (jobs_->LiveGeneration(base) || asking) return;
  // It never will: the reports and joiners it holds go on to the job's next agent at once, even
  // if it had begun to decide (its own ranks asked, then died): deciding without them, it would
  // answer the nodes that reported while the others, on their way, decide apart.
  if (auto r = rounds_.find(base); r != rounds_.end() && r->second.role != Round::Role::kRedirect) {
    for (Report& rep : r->second.reports)
      Answer(std::move(rep.responder), ReformDecision::Absent());
    r->second.reports.clear();
    if (r->second.role == Round::Role::kDeciding) rounds_.erase(r);
  }
  if (auto j = joiners_.find(base); j != joiners_.end()) {
    for (Report& rep : j->second) Answer(std::move(rep.responder), ReformDecision::Absent());
    joiners_.erase(j);
  }
}

void Reformer::NoteNodeLeft(const std::string& id, int32_t node) {
  if (nodes_left_.count(id) == 0) {
    nodes_left_order_.push_back(id);
    if (nodes_left_order_.size() > 256) {
      nodes_left_.erase(nodes_left_order_.front());
      nodes_left_order_.pop_front();
    }
  }
  nodes_left_[id].insert(node);
  if (std::string base = BaseOfGeneration(id); !base.empty()) Poke(base);
}

bool Reformer::NodeLeft(const std::string& id, int32_t node) const {
  auto it = nodes_left_.find(id);
  return it != nodes_left_.end() && it->second.count(node) != 0;
}

void Reformer::Remember(const std::string& base, const std::vector<std::string>& agents) {
  if (agents.empty()) return;
  if (remembered_.count(base) == 0) {
    remembered_order_.push_back(base);
    if (remembered_order_.size() > 1024) {
      remembered_.erase(remembered_order_.front());
      remembered_order_.pop_front();
    }
  }
  remembered_[base] = agents;
}

void Reformer::Tick(uint64_t now_ns) {
  for (auto it = early_.begin(); it != early_.end();) {
    if (now_ns < it->deadline_ns) {
      ++it;
      continue;
    }
    // This node's ranks never entered that generation: the report goes to the next node.
    Answer(std::move(it->responder), ReformDecision::Absent());
    it = early_.erase(it);
  }
  std::vector<std::string> keys;
  for (const auto& [k, c] : collections_) keys.push_back(k);
  for (const std::string& k : keys) {
    auto it = collections_.find(k);
    if (it == collections_.end()) continue;
    Collection& c = it->second;
    if (!c.sent && now_ns >= c.send_by_ns) {
      MaybeSend(k);
    } else if (now_ns >= c.started_ns + uint64_t{c.timeout_ms} * kMs + 1000 * kMs) {
      // The call's own deadline passed long ago and it never answered.
      FinishCollection(
          k, DeadlineExceeded("job '" + c.base + "' did not agree on its next generation in time"));
    }
  }
  keys.clear();
  for (const auto& [b, r] : rounds_) keys.push_back(b);
  for (const std::string& b : keys) {
    auto it = rounds_.find(b);
    if (it == rounds_.end()) continue;
    Round& round = it->second;
    if (round.role == Round::Role::kDeciding) {
      if (now_ns >= round.deadline_ns) Decide(b, round);
      continue;
    }
    auto& reps = round.reports;
    for (Report& r : reps) {
      if (now_ns >= r.deadline_ns) {
        Answer(std::move(r.responder),
               ReformDecision::Refusal(Code::kDeadlineExceeded,
                                       "the ranks of job '" + b + "' on agent " + r.local +
                                           " never asked for the next generation"));
      }
    }
    reps.erase(std::remove_if(reps.begin(), reps.end(),
                              [](const Report& r) { return r.responder == nullptr; }),
               reps.end());
    if (reps.empty() && round.role == Round::Role::kUndecided &&
        now_ns >= round.started_ns + kDecidedMemoryNs)
      rounds_.erase(it);
  }
  keys.clear();
  for (const auto& [b, v] : joiners_) keys.push_back(b);
  for (const std::string& b : keys) SendOnJoiners(b);
  for (auto it = joiners_.begin(); it != joiners_.end();) {
    auto& v = it->second;
    for (Report& r : v) {
      if (now_ns >= r.deadline_ns) {
        Answer(std::move(r.responder),
               ReformDecision::Refusal(
                   Code::kDeadlineExceeded,
                   "job '" + it->first + "' formed no new generation while the joiner waited"));
      }
    }
    v.erase(
        std::remove_if(v.begin(), v.end(), [](const Report& r) { return r.responder == nullptr; }),
        v.end());
    it = v.empty() ? joiners_.erase(it) : std::next(it);
  }
  for (auto it = decided_.begin(); it != decided_.end();)
    it = now_ns - it->second.at_ns > kDecidedMemoryNs ? decided_.erase(it) : std::next(it);
}

uint64_t Reformer::NextDeadlineNs() const {
  uint64_t next = UINT64_MAX;
  for (const Early& e : early_) next = std::min(next, e.deadline_ns);
  for (const auto& [k, c] : collections_) {
    next = std::min(
        next, c.sent ? c.started_ns + uint64_t{c.timeout_ms} * kMs + 1000 * kMs : c.send_by_ns);
  }
  for (const auto& [b, r] : rounds_) {
    if (r.role == Round::Role::kDeciding) next = std::min(next, r.deadline_ns);
    for (const Report& rep : r.reports) next = std::min(next, rep.deadline_ns);
  }
  for (const auto& [b, v] : joiners_) {
    for (const Report& r : v) next = std::min(next, r.deadline_ns);
  }
  return next;
}

nlohmann::json Reformer::StatusJson() const {
  nlohmann::json out = {{"collecting", nlohmann::json::array()},
                        {"deciding", nlohmann::json::array()},
                        {"joiners_waiting", nlohmann::json::object()}};
  for (const auto& [k, c] : collections_) {
    size_t asked = 0;
    for (const Waiter& w : c.waiters) asked += w.owner != nullptr;
    out["collecting"].push_back({{"job", c.base},
                                 {"generation", c.generation},
                                 {"joiner", c.joiners},
                                 {"asked", asked},
                                 {"sent", c.sent},
                                 {"asking", c.asking}});
  }
  for (const auto& [b, r] : rounds_) {
    const char* role = r.role == Round::Role::kDeciding   ? "deciding"
                       : r.role == Round::Role::kRedirect ? "redirect"
                                                          : "undecided";
    out["deciding"].push_back(
        {{"job", b}, {"generation", r.generation}, {"role", role}, {"reports", r.reports.size()}});
  }
  for (const auto& [b, v] : joiners_) out["joiners_waiting"][b] = JoinersHeld(b);
  return out;
}

}  // namespace outrider::agent::membership
