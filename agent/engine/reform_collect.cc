// A job's next generation, this node's side (reform.h): its ranks' asks, the report to the
// deciding agent, and the answers to the ranks.
#include <algorithm>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/job_table.h"
#include "agent/engine/rank_layout.h"
#include "agent/engine/reform.h"
#include "agent/engine/reform_internal.h"
#include "agent/engine/reform_messages.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "agent/observability.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

using reform_internal::kMs;
using reform_internal::RankList;

namespace {

constexpr int kMaxRedirects = 4;  // redirects one report follows

}  // namespace

void Reformer::Ask(const void* owner, const ClientIdentity& id, uint32_t timeout_ms, Reply reply) {
  if (timeout_ms == 0) timeout_ms = kDefaultTimeoutMs;
  const std::string& base = id.job_base.empty() ? id.job_id : id.job_base;
  if (net_ == nullptr) {
    reply(FailedPrecondition("a new generation of job '" + base +
                             "' needs the agents' ports; this agent runs with --port 0"));
    return;
  }
  uint64_t now = ipc::MonotonicNs();
  Waiter w{owner, id, now + uint64_t{timeout_ms} * kMs, std::move(reply)};
  std::string self = "127.0.0.1:" + std::to_string(net_->rendezvous()->port());
  if (id.joiner) {
    size_t joining = std::count_if(collections_.begin(), collections_.end(), [&](const auto& kv) {
      return kv.second.joiners && kv.second.base == base;
    });
    if (joining >= kMaxJoinersPerNode) {
      reply(ResourceExhausted("job '" + base + "' already has " + std::to_string(joining) +
                              " joiners waiting on this node (at most " +
                              std::to_string(kMaxJoinersPerNode) + ")"));
      return;
    }
    Collection c;
    c.base = base;
    c.joiners = true;
    c.token = id.token;
    c.timeout_ms = timeout_ms;
    c.started_ns = now;
    c.send_by_ns = now;
    if (Job* live = Live(base); live != nullptr) {
      // A live generation here: its node 0 holds joiners.
      const auto& agents = AgentsOf(*live);
      c.candidates.push_back(live->num_nodes() > 1 && !agents.empty() ? agents[0] : self);
    } else if (!id.root_addr.empty() || remembered_.count(base) != 0) {
      if (!id.root_addr.empty()) c.candidates.push_back(id.root_addr);
      // The job's agents this one knew: the root named may have no rank of the job any more.
      if (auto r = remembered_.find(base); r != remembered_.end()) {
        for (const std::string& a : r->second) {
          if (!a.empty() && a != id.root_addr) c.candidates.push_back(a);
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
                           id.peer.pid, at.candidates[0]);
    SendNext(key);
    return;
  }
  Job* job = jobs_->Find(id.job_id);
  if (job == nullptr) {
    w.reply(FailedPrecondition("this client is in no live generation of job '" + base + "'"));
    return;
  }
  auto it = collections_.find(base);
  if (it != collections_.end() && it->second.generation != job->generation()) {
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
    c.generation = job->generation();
    c.token = job->token();
    c.timeout_ms = timeout_ms;
    c.started_ns = now;
    c.send_by_ns = now + uint64_t{timeout_ms} * kMs / 2;
    if (job->num_nodes() > 1) {
      const auto& addrs = AgentsOf(*job);
      for (int n = 0; n < job->num_nodes(); ++n) {
        if (n != job->node_rank() && job->node_gone(n)) continue;
        if (static_cast<size_t>(n) < addrs.size() && !addrs[static_cast<size_t>(n)].empty())
          c.candidates.push_back(addrs[static_cast<size_t>(n)]);
      }
    } else {
      c.candidates.push_back(self);
    }
    it = collections_.emplace(base, std::move(c)).first;
    Logger("engine")->info("job '{}': rank {} asks for generation {}", base, id.rank,
                           job->generation() + 1);
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
  Job* job = jobs_->Find(GenerationJobId(c.base, c.generation));
  size_t live = 0, asked = 0;
  if (job != nullptr) {
    for (Member* m : job->members()) live += m != nullptr;
  }
  for (const Waiter& w : c.waiters) asked += w.owner != nullptr;
  if (asked < live && ipc::MonotonicNs() < c.send_by_ns) return;
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
  uint64_t now = ipc::MonotonicNs();
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
  req.port = net_->rendezvous()->port();
  req.timeout_ms = std::min(c.timeout_ms, ReformRequest::kMaxTimeoutMs);
  int node = 0;
  if (!c.joiners) {
    Job* job = jobs_->Find(GenerationJobId(c.base, c.generation));
    node = job != nullptr ? job->node_rank() : 0;
    for (const Waiter& w : c.waiters) req.ranks.push_back(w.id.rank);
  }
  req.node = node;
  JobShape shape{c.base, c.token, 0, 0};
  std::string frame =
      rendezvous::Encode(rendezvous::kReform, shape, node, {EncodeReformRequest(req)});
  auto remaining = static_cast<uint32_t>((deadline - now) / kMs + 1);
  c.call.reset();
  c.call = std::make_unique<FrameCall>(net_->loop(), c.asking, std::move(frame), remaining,
                                       [this, key](Result<FrameReply> r) { OnAnswer(key, r); });
}

void Reformer::OnAnswer(const std::string& key, Result<FrameReply> r) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection& c = it->second;
  if (!r.ok()) {
    Logger("engine")->info("job '{}': agent {} cannot decide the next generation: {}", c.base,
                           c.asking, r.status().message());
    return SendNext(key);
  }
  if (r->type == rendezvous::kRedirect && r->blobs.size() == 1) {
    if (c.candidates.size() < c.next + kMaxRedirects)
      c.candidates.insert(c.candidates.begin() + static_cast<ptrdiff_t>(c.next), r->blobs[0]);
    return SendNext(key);
  }
  Result<ReformDecision> d = ProtocolError("not a decision");
  if (r->type == rendezvous::kReformResult && r->blobs.size() == 1)
    d = ParseReformDecision(r->blobs[0]);
  if (!d.ok()) {
    Logger("engine")->warn("job '{}': agent {} answered with a malformed frame: {}", c.base,
                           c.asking, d.status().message());
    return SendNext(key);
  }
  if (d->absent) return SendNext(key);
  // Another agent decides (or decided): reports held here go there.
  if (!c.joiners) {
    auto round = rounds_.find(c.base);
    if (round != rounds_.end() && round->second.role == Round::Role::kUndecided) {
      round->second.role = Round::Role::kRedirect;
      round->second.redirect = c.asking;
      for (Report& rep : round->second.reports) Redirect(std::move(rep.fd), c.asking);
      round->second.reports.clear();
    }
  }
  if (d->code != 0) {
    return FinishCollection(
        key, Status(d->status_code(), d->message.empty() ? "no reason" : d->message));
  }
  FinishCollection(key, Status::Ok(), &*d);
}

void Reformer::FinishCollection(const std::string& key, const Status& why,
                                const ReformDecision* decision) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection c = std::move(it->second);
  collections_.erase(it);
  AgentMetrics& m = Metrics();
  double seconds = static_cast<double>(ipc::MonotonicNs() - c.started_ns) * 1e-9;
  if (m.enabled() && decision != nullptr) m.reconfiguration_duration->Observe(seconds);
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
    if (m.enabled()) m.reconfigurations->Get({result})->Inc();
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
    if (Job* nj = jobs_->Find(id); nj != nullptr) {
      nj->GiveUp(lost);
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
      net_->rendezvous()->Abandon(id, lost);
      if (!root.empty()) WithdrawAt(root, id, c.token, lost, others ? -1 : gave_up_node);
    }
  }
}

void Reformer::WithdrawAt(const std::string& root, const std::string& id, const std::string& token,
                          const Status& why, int32_t node_left) {
  JobShape shape{id, token, 0, 0};
  std::vector<std::string> blobs = {why.message()};
  if (node_left >= 0) blobs.push_back(std::to_string(node_left));
  std::string frame = rendezvous::Encode(rendezvous::kWithdraw, shape, 0, blobs);
  // Calls are few (one per rank that died mid-change); the oldest is cancelled past 64.
  withdrawals_.push_back(std::make_unique<FrameCall>(net_->loop(), root, std::move(frame), 5000,
                                                     [](const Result<FrameReply>&) {}));
  if (withdrawals_.size() > 64) withdrawals_.erase(withdrawals_.begin());
}

}  // namespace outrider::agent
