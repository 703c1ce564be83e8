// A job's next generation (reform.h): what both sides share, the deadlines and /status. This
// node's collection of its ranks' asks is in reform_collect.cc, the deciding agent's side in
// reform_decide.cc.
#include "agent/engine/reform.h"

#include <algorithm>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/job_table.h"
#include "agent/engine/reform_internal.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

using reform_internal::kMs;

namespace {

// How long a decision (and an idle round) is remembered: a late report is told what became of it.
constexpr uint64_t kDecidedMemoryNs = 600'000 * kMs;

}  // namespace

std::string GenerationJobId(const std::string& base, uint32_t generation) {
  if (generation == 0) return base;
  std::string suffix = "~g" + std::to_string(generation);
  return base.substr(0, ipc::kJobIdBytes - 1 - suffix.size()) + suffix;
}

Reformer::~Reformer() {
  for (auto& [k, c] : collections_) c.call.reset();
}

void Reformer::set_network(Network* net) {
  net_ = net;
  if (net_ == nullptr) return;
  net_->rendezvous()->set_reform_handler([this](const std::string& job_id, const std::string& token,
                                                std::string body, UniqueFd fd,
                                                const std::string& local, const std::string& peer) {
    OnReport(job_id, token, std::move(body), std::move(fd), local, peer);
  });
  net_->rendezvous()->set_on_node_left(
      [this](const std::string& id, int32_t node) { NoteNodeLeft(id, node); });
  net_->rendezvous()->set_vouch(
      [this](const std::string& id, const std::string& token) { return Vouches(id, token); });
}

Job* Reformer::Live(const std::string& base) const { return jobs_->LiveGeneration(base); }

const std::vector<std::string>& Reformer::AgentsOf(const Job& job) const {
  if (!job.agent_addrs().empty()) return job.agent_addrs();
  auto known = agents_of_.find(job.id());
  return known != agents_of_.end() ? known->second : job.agent_addrs();
}

bool Reformer::Vouches(const std::string& id, const std::string& token) {
  if (Job* job = jobs_->Find(id); job != nullptr) return TokensEqual(token, job->token());
  // A generation decided here or elsewhere whose rendezvous this agent hosts: the generations of
  // its job that still run here know the token.
  for (const auto& [base, d] : decided_) {
    if (GenerationJobId(base, d.to) != id) continue;
    if (Job* live = Live(base); live != nullptr) return TokensEqual(token, live->token());
  }
  for (const auto& [gen_id, agents] : agents_of_) {
    if (gen_id != id) continue;
    size_t tilde = id.rfind("~g");
    if (tilde == std::string::npos) continue;
    if (Job* live = Live(id.substr(0, tilde)); live != nullptr)
      return TokensEqual(token, live->token());
  }
  return false;
}

void Reformer::Answer(UniqueFd fd, const nlohmann::json& j) {
  JobShape none;
  net_->rendezvous()->Reply(std::move(fd),
                            rendezvous::Encode(rendezvous::kReformResult, none, 0, {j.dump()}));
}

void Reformer::Redirect(UniqueFd fd, const std::string& to) {
  JobShape none;
  net_->rendezvous()->Reply(std::move(fd),
                            rendezvous::Encode(rendezvous::kRedirect, none, 0, {to}));
}

void Reformer::Entered(Job& job) {
  if (auto g = gave_up_.find(job.id()); g != gave_up_.end()) {
    Status lost = g->second;
    gave_up_.erase(g);
    job.GiveUp(lost);
  }
  const std::string& base = job.base_id();
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
    OnReport(e.base, e.token, std::move(e.body), std::move(e.fd), e.local, e.peer);
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
  if (Live(base) != nullptr || asking) return;
  // It never will: the reports and joiners it holds go on to the job's next agent at once, even
  // if it had begun to decide (its own ranks asked, then died): deciding without them, it would
  // answer the nodes that reported while the others, on their way, decide apart.
  if (auto r = rounds_.find(base); r != rounds_.end() && r->second.role != Round::Role::kRedirect) {
    for (Report& rep : r->second.reports) Answer(std::move(rep.fd), {{"absent", true}});
    r->second.reports.clear();
    if (r->second.role == Round::Role::kDeciding) rounds_.erase(r);
  }
  if (auto j = joiners_.find(base); j != joiners_.end()) {
    for (Report& rep : j->second) Answer(std::move(rep.fd), {{"absent", true}});
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
  size_t tilde = id.rfind("~g");
  if (tilde != std::string::npos) Poke(id.substr(0, tilde));
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
    Answer(std::move(it->fd), {{"absent", true}});
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
      if (now_ns >= r.deadline_ns)
        Answer(std::move(r.fd), {{"code", static_cast<int>(Code::kDeadlineExceeded)},
                                 {"message", "the ranks of job '" + b + "' on agent " + r.local +
                                                 " never asked for the next generation"}});
    }
    reps.erase(
        std::remove_if(reps.begin(), reps.end(), [](const Report& r) { return !r.fd.valid(); }),
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
      if (now_ns >= r.deadline_ns)
        Answer(std::move(r.fd), {{"code", static_cast<int>(Code::kDeadlineExceeded)},
                                 {"message", "job '" + it->first +
                                                 "' formed no new generation while the joiner "
                                                 "waited"}});
    }
    v.erase(std::remove_if(v.begin(), v.end(), [](const Report& r) { return !r.fd.valid(); }),
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

}  // namespace outrider::agent
