// A job's next generation: this node's collection of its ranks' asks, the report to the deciding
// agent, the decision, and the answers (reform.h).
#include "agent/engine/reform.h"

#include <sys/socket.h>

#include <algorithm>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/job_table.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "agent/observability.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kDecidedMemoryNs = 600'000 * kMs;
constexpr int kMaxRedirects = 4;

std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (int32_t r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s.empty() ? "none" : s;
}

// The peer of a held connection gave up on it (closed: it was cancelled or died).
bool Closed(const UniqueFd& fd) {
  char c;
  ssize_t n = ::recv(fd.get(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

bool Loopback(const std::string& addr) { return addr.rfind("127.", 0) == 0; }

std::string HostOf(const std::string& addr) { return addr.substr(0, addr.rfind(':')); }
std::string PortOf(const std::string& addr) {
  size_t colon = addr.rfind(':');
  return colon == std::string::npos ? "" : addr.substr(colon + 1);
}

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
}

int Reformer::RanksPerNode(const std::vector<size_t>& sizes) {
  size_t best = 0, best_total = 0;
  for (size_t l : sizes) {
    if (l == 0) continue;
    size_t nodes = 0;
    for (size_t s : sizes) nodes += s >= l;
    if (l * nodes > best_total || (l * nodes == best_total && l > best)) {
      best = l;
      best_total = l * nodes;
    }
  }
  return static_cast<int>(best);
}

Job* Reformer::Live(const std::string& base) const { return jobs_->LiveGeneration(base); }

void Reformer::Answer(UniqueFd fd, const nlohmann::json& j) {
  JobShape none;
  RendezvousServer::Reply(std::move(fd),
                          rendezvous::Encode(rendezvous::kReformResult, none, 0, {j.dump()}));
}

void Reformer::Redirect(UniqueFd fd, const std::string& to) {
  JobShape none;
  RendezvousServer::Reply(std::move(fd), rendezvous::Encode(rendezvous::kRedirect, none, 0, {to}));
}

// ---- This node's side. ----

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
    Collection c;
    c.base = base;
    c.joiners = true;
    c.token = id.token;
    c.timeout_ms = timeout_ms;
    c.started_ns = now;
    c.send_by_ns = now;
    if (Job* live = Live(base); live != nullptr) {
      // A live generation here: its node 0 holds joiners.
      c.candidates.push_back(
          live->num_nodes() > 1 && !live->agent_addrs().empty() ? live->agent_addrs()[0] : self);
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
    std::string key = base + "\n" + std::to_string(reinterpret_cast<uintptr_t>(owner));
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
    auto known = agents_of_.find(job->id());
    if (job->num_nodes() > 1) {
      const auto& addrs = !job->agent_addrs().empty() || known == agents_of_.end()
                              ? job->agent_addrs()
                              : known->second;
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
      it = collections_.erase(it);  // cancels the call: the deciding agent drops the joiner
      continue;
    }
    // Its rank stays in a report already sent (and gives up its place once assigned one).
    w->reply = nullptr;
    w->owner = nullptr;
    std::string key = it->first;
    ++it;
    MaybeSend(key);
  }
}

void Reformer::Poke(const std::string& base) {
  if (collections_.count(base) != 0) MaybeSend(base);
  if (rounds_.count(base) != 0) MaybeDecide(base);
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
  nlohmann::json body = {{"kind", c.joiners ? "joiner" : "node"},
                         {"generation", c.generation},
                         {"port", net_->rendezvous()->port()},
                         {"timeout_ms", c.timeout_ms}};
  int node = 0;
  if (!c.joiners) {
    Job* job = jobs_->Find(GenerationJobId(c.base, c.generation));
    node = job != nullptr ? job->node_rank() : 0;
    std::vector<int32_t> ranks;
    for (const Waiter& w : c.waiters) ranks.push_back(w.id.rank);
    body["ranks"] = ranks;
  }
  body["node"] = node;
  JobShape shape{c.base, c.token, 0, 0};
  std::string frame = rendezvous::Encode(rendezvous::kReform, shape, node, {body.dump()});
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
  nlohmann::json j;
  if (r->type == rendezvous::kReformResult && r->blobs.size() == 1)
    j = nlohmann::json::parse(r->blobs[0], nullptr, false);
  if (!j.is_object()) {
    Logger("engine")->warn("job '{}': agent {} answered with a malformed frame", c.base, c.asking);
    return SendNext(key);
  }
  if (j.value("absent", false)) return SendNext(key);
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
  int code = j.value("code", static_cast<int>(Code::kInternal));
  if (code != 0) {
    Code cd = code > 0 && code <= kMaxCode ? static_cast<Code>(code) : Code::kInternal;
    return FinishCollection(key, Status(cd, j.value("message", std::string("no reason"))));
  }
  FinishCollection(key, Status::Ok(), &j);
}

void Reformer::FinishCollection(const std::string& key, const Status& why,
                                const nlohmann::json* decision) {
  auto it = collections_.find(key);
  if (it == collections_.end()) return;
  Collection c = std::move(it->second);
  collections_.erase(it);
  AgentMetrics& m = Metrics();
  double seconds = static_cast<double>(ipc::MonotonicNs() - c.started_ns) * 1e-9;
  if (m.enabled() && decision != nullptr) m.reconfiguration_duration->Observe(seconds);
  const nlohmann::json* assign = nullptr;
  uint32_t generation = 0;
  int32_t world = 0, local_size = 0;
  std::string root;
  if (decision != nullptr) {
    assign = &(*decision)["assign"];
    generation = decision->value("generation", 0u);
    world = decision->value("world_size", 0);
    local_size = decision->value("local_world_size", 0);
    root = decision->value("root", std::string());
    if (decision->contains("agents") && (*decision)["agents"].is_array()) {
      std::vector<std::string> agents;
      for (const auto& a : (*decision)["agents"]) {
        if (a.is_string()) agents.push_back(a.get<std::string>());
      }
      std::string id = GenerationJobId(c.base, generation);
      if (agents_of_.emplace(id, std::move(agents)).second) {
        agents_order_.push_back(id);
        if (agents_order_.size() > 256) {
          agents_of_.erase(agents_order_.front());
          agents_order_.pop_front();
        }
      }
    }
    if (!assign->is_array() || assign->size() != c.waiters.size() || world < 1 || local_size < 1) {
      decision = nullptr;
      Logger("engine")->warn("job '{}': agent {} sent a malformed decision", c.base, c.asking);
    }
  }
  std::vector<int32_t> gave_up;  // new local ranks whose client left before the answer came
  for (size_t i = 0; i < c.waiters.size(); ++i) {
    Waiter& w = c.waiters[i];
    Result<ReformAssignment> a =
        why.ok() ? Internal("malformed decision") : Result<ReformAssignment>(why);
    if (decision != nullptr) {
      const nlohmann::json& slot = (*assign)[i];
      if (slot.is_object()) {
        ReformAssignment as{generation, slot.value("rank", 0),
                            world,      slot.value("local_rank", 0),
                            local_size, root};
        if (as.rank < 0 || as.rank >= world || as.local_rank < 0 || as.local_rank >= local_size)
          a = Internal("decision out of range");
        else
          a = as;
        if (a.ok() && w.owner == nullptr) gave_up.push_back(as.local_rank);
      } else {
        a = FailedPrecondition(
            "left out of generation " + std::to_string(generation) + " of job '" + c.base + "': " +
            (slot.is_string() ? slot.get<std::string>() : std::string("no place for this rank")));
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
                           std::to_string(local_size) + " on this node died before joining it");
    std::string id = GenerationJobId(c.base, generation);
    if (Job* nj = jobs_->Find(id); nj != nullptr) {
      nj->GiveUp(lost);
    } else {
      net_->rendezvous()->Abandon(id, lost);
      if (!root.empty()) WithdrawAt(root, id, c.token, lost);
    }
  }
}

void Reformer::WithdrawAt(const std::string& root, const std::string& id, const std::string& token,
                          const Status& why) {
  JobShape shape{id, token, 0, 0};
  std::string frame = rendezvous::Encode(rendezvous::kWithdraw, shape, 0, {why.message()});
  // Calls are few (one per rank that died mid-change); the oldest is cancelled past 64.
  withdrawals_.push_back(std::make_unique<FrameCall>(net_->loop(), root, std::move(frame), 5000,
                                                     [](const Result<FrameReply>&) {}));
  if (withdrawals_.size() > 64) withdrawals_.erase(withdrawals_.begin());
}

// ---- The deciding agent's side. ----

void Reformer::OnReport(const std::string& base, const std::string& token, std::string body,
                        UniqueFd fd, const std::string& local, const std::string& peer) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) {
    Answer(std::move(fd), {{"code", static_cast<int>(Code::kProtocol)},
                           {"message", "malformed request for a new generation"}});
    return;
  }
  uint64_t now = ipc::MonotonicNs();
  std::string kind = j["kind"].get<std::string>();
  uint32_t timeout_ms = std::clamp<uint32_t>(j.value("timeout_ms", kDefaultTimeoutMs), 1, 600'000);
  Report rep;
  rep.agent = peer + ":" + std::to_string(j.value("port", 0));
  rep.old_node = j.value("node", -1);
  rep.deadline_ns = now + uint64_t{timeout_ms} * kMs;
  rep.local = local;
  auto wrong_token = [&](Job* job) {
    if (TokensEqual(token, job->token())) return false;
    Logger("engine")->warn("job '{}': refused a {} from {}: wrong job token", base, kind,
                           rep.agent);
    Answer(std::move(fd), {{"code", static_cast<int>(Code::kPermissionDenied)},
                           {"message", "agent " + local + " refused to admit this rank to job '" +
                                           base + "': wrong job token"}});
    return true;
  };
  if (kind == "joiner") {
    rep.joiner = true;
    Job* job = Live(base);
    if (job == nullptr) {
      Answer(std::move(fd), {{"absent", true},
                             {"code", static_cast<int>(Code::kUnavailable)},
                             {"message", "no rank of job '" + base + "' runs at agent " + local}});
      return;
    }
    if (wrong_token(job)) return;
    if (job->node_rank() != 0) {
      if (!job->agent_addrs().empty() && !job->agent_addrs()[0].empty()) {
        Redirect(std::move(fd), job->agent_addrs()[0]);
      } else {
        Answer(std::move(fd), {{"absent", true}});
      }
      return;
    }
    rep.fd = std::move(fd);
    Logger("engine")->info("job '{}': a joiner from agent {} waits for generation {}", base,
                           rep.agent, job->generation() + 1);
    joiners_[base].push_back(std::move(rep));
    if (rounds_.count(base) != 0) MaybeDecide(base);
    return;
  }
  auto generation = j.value("generation", 0u);
  if (auto d = decided_.find(base); d != decided_.end() && d->second.from >= generation) {
    Answer(std::move(fd),
           {{"code", static_cast<int>(Code::kFailedPrecondition)},
            {"message", "job '" + base + "' went on as generation " + std::to_string(d->second.to) +
                            " without node " + std::to_string(rep.old_node) + " of generation " +
                            std::to_string(generation) +
                            ": its ranks asked after the agents decided"}});
    return;
  }
  Job* job = jobs_->Find(GenerationJobId(base, generation));
  if (job == nullptr || job->member_count() == 0) {
    Answer(std::move(fd), {{"absent", true}});
    return;
  }
  if (wrong_token(job)) return;
  if (j.contains("ranks") && j["ranks"].is_array()) {
    for (const auto& r : j["ranks"]) {
      if (r.is_number_integer()) rep.ranks.push_back(r.get<int32_t>());
    }
  }
  auto [it, fresh] = rounds_.try_emplace(base);
  Round& round = it->second;
  if (fresh || round.generation < generation) {
    round = Round{};
    round.generation = generation;
    round.started_ns = now;
    round.self_node = job->node_rank();
  } else if (round.generation > generation) {
    Answer(std::move(fd),
           {{"code", static_cast<int>(Code::kFailedPrecondition)},
            {"message",
             "job '" + base + "' is forming generation " + std::to_string(round.generation + 1) +
                 "; this node reported for generation " + std::to_string(generation + 1)}});
    return;
  }
  if (round.role == Round::Role::kRedirect) {
    Redirect(std::move(fd), round.redirect);
    return;
  }
  if (rep.old_node == round.self_node && round.role == Round::Role::kUndecided) {
    // This node's own report came back here: no lower node has ranks left, so this agent decides.
    round.role = Round::Role::kDeciding;
    round.deadline_ns = now + uint64_t{timeout_ms} * kMs * 3 / 4;
    Logger("engine")->info("job '{}': deciding generation {} here (node {})", base, generation + 1,
                           round.self_node);
  }
  rep.fd = std::move(fd);
  round.reports.push_back(std::move(rep));
  MaybeDecide(base);
}

void Reformer::MaybeDecide(const std::string& base) {
  auto it = rounds_.find(base);
  if (it == rounds_.end() || it->second.role != Round::Role::kDeciding) return;
  Round& round = it->second;
  Job* job = jobs_->Find(GenerationJobId(base, round.generation));
  bool all = true;
  if (job != nullptr) {
    for (int n = 0; n < job->num_nodes() && all; ++n) {
      bool reported = std::any_of(round.reports.begin(), round.reports.end(),
                                  [n](const Report& r) { return r.old_node == n; });
      all = reported || n < round.self_node || job->node_gone(n);
    }
  }
  if (all || ipc::MonotonicNs() >= round.deadline_ns) Decide(base, round);
}

void Reformer::Decide(const std::string& base, Round& round) {
  uint64_t now = ipc::MonotonicNs();
  Job* old = jobs_->Find(GenerationJobId(base, round.generation));
  int old_world = old != nullptr ? old->world_size() : 0;
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
    if (Closed(r->fd)) continue;  // the node gave up meanwhile: its ranks cannot hear of it
    Entry e{r->agent, {}};
    for (size_t i = 0; i < r->ranks.size(); ++i)
      e.slots.push_back({r, static_cast<int>(i), r->ranks[i]});
    std::sort(e.slots.begin(), e.slots.end(),
              [](const Slot& a, const Slot& b) { return a.old_rank < b.old_rank; });
    entries.push_back(std::move(e));
  }
  std::vector<Report>& held = joiners_[base];
  for (Report& jr : held) {
    if (Closed(jr.fd)) continue;
    auto e = std::find_if(entries.begin(), entries.end(),
                          [&](const Entry& x) { return x.agent == jr.agent; });
    if (e == entries.end()) {
      entries.push_back(Entry{jr.agent, {}});
      e = entries.end() - 1;
    }
    e->slots.push_back({&jr, -1, -1});
  }
  std::vector<size_t> sizes;
  for (const Entry& e : entries) sizes.push_back(e.slots.size());
  int per_node = RanksPerNode(sizes);
  uint32_t next = round.generation + 1;
  // Answers by report: an assignment per rank (or why it has no place).
  std::map<Report*, nlohmann::json> answers;
  for (Report* r : nodes) answers[r] = nlohmann::json::array();
  for (Report* r : nodes) {
    for (size_t i = 0; i < r->ranks.size(); ++i) answers[r].push_back(nullptr);
  }
  std::vector<int32_t> kept_old;
  int kept_nodes = 0, joined = 0;
  std::string root;
  std::vector<std::string> kept_agents;
  std::vector<std::string> moves;
  for (Entry& e : entries) {
    bool keep = per_node > 0 && e.slots.size() >= static_cast<size_t>(per_node);
    for (size_t s = 0; s < e.slots.size(); ++s) {
      Slot& sl = e.slots[s];
      nlohmann::json a;
      if (keep && s < static_cast<size_t>(per_node)) {
        int32_t rank = kept_nodes * per_node + static_cast<int32_t>(s);
        a = {{"rank", rank}, {"local_rank", static_cast<int32_t>(s)}};
        if (sl.old_rank >= 0) {
          kept_old.push_back(sl.old_rank);
          if (sl.old_rank != rank)
            moves.push_back(std::to_string(sl.old_rank) + "->" + std::to_string(rank));
        } else {
          ++joined;
          moves.push_back("joiner->" + std::to_string(rank));
        }
      } else {
        a = keep ? "its node keeps " + std::to_string(per_node) + " ranks"
                 : "its node has " + std::to_string(e.slots.size()) +
                       " ranks, and every node of "
                       "the new generation runs " +
                       std::to_string(per_node);
      }
      if (sl.index >= 0) {
        answers[sl.report][static_cast<size_t>(sl.index)] = a;
      } else {
        answers[sl.report] = nlohmann::json::array({a});
      }
    }
    if (keep) {
      if (kept_nodes == 0) root = e.agent;
      kept_agents.push_back(e.agent);
      ++kept_nodes;
    }
  }
  int32_t world = kept_nodes * per_node;
  auto reply = [&](Report& r) {
    nlohmann::json j;
    if (world == 0) {
      j = {{"code", static_cast<int>(Code::kFailedPrecondition)},
           {"message",
            "job '" + base + "' has no rank left for generation " + std::to_string(next)}};
    } else {
      // An agent that reported to itself over loopback is named as the others reached it.
      auto seen = [&](const std::string& a) {
        return Loopback(a) && !Loopback(r.local) ? HostOf(r.local) + ":" + PortOf(a) : a;
      };
      std::vector<std::string> agents;
      for (const std::string& a : kept_agents) agents.push_back(seen(a));
      j = {{"code", 0},          {"generation", next},           {"world_size", world},
           {"root", seen(root)}, {"local_world_size", per_node}, {"assign", answers[&r]},
           {"agents", agents}};
    }
    Answer(std::move(r.fd), j);
  };
  for (Report* r : nodes) {
    if (r->fd.valid()) reply(*r);
  }
  for (Report& jr : held) {
    if (answers.count(&jr) != 0 && jr.fd.valid()) reply(jr);
  }
  held.erase(
      std::remove_if(held.begin(), held.end(), [](const Report& r) { return !r.fd.valid(); }),
      held.end());
  if (held.empty()) joiners_.erase(base);
  std::sort(kept_old.begin(), kept_old.end());
  std::vector<int32_t> left;
  for (int32_t r = 0; r < old_world; ++r) {
    if (!std::binary_search(kept_old.begin(), kept_old.end(), r)) left.push_back(r);
  }
  std::string renumbered;
  for (const std::string& mv : moves) renumbered += (renumbered.empty() ? "" : ", ") + mv;
  Logger("engine")->info(
      "job '{}': generation {} -> {} decided here in {:.3f} s: {} ranks on {} nodes ({} per "
      "node); left: ranks {}; joined: {}; renumbered: {}",
      base, round.generation, next, static_cast<double>(now - round.started_ns) * 1e-9, world,
      kept_nodes, per_node, RankList(left), joined, renumbered.empty() ? "none" : renumbered);
  decided_[base] = Decided{round.generation, next, now};
  rounds_.erase(base);
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

uint32_t Reformer::JoinersWaiting(const std::string& base) const {
  auto it = joiners_.find(base);
  if (it == joiners_.end()) return 0;
  uint32_t n = 0;
  for (const Report& r : it->second) n += r.fd.valid() && !Closed(r.fd);
  return n;
}

void Reformer::Tick(uint64_t now_ns) {
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
  for (const auto& [b, v] : joiners_) out["joiners_waiting"][b] = JoinersWaiting(b);
  return out;
}

}  // namespace outrider::agent
