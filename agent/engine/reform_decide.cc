// A job's next generation, the deciding agent's side (reform.h): the reports, the decision and
// the answers.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/job_table.h"
#include "agent/engine/reform.h"
#include "agent/engine/reform_internal.h"
#include "agent/engine/reform_messages.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

using reform_internal::kMs;
using reform_internal::RankList;

namespace {

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

// `agent` as a peer that reached this agent at `local` reaches it: an agent that reported over
// loopback is named by the address the peer used.
std::string SeenFrom(const std::string& agent, const std::string& local) {
  return Loopback(agent) && !Loopback(local) ? HostOf(local) + ":" + PortOf(agent) : agent;
}

}  // namespace

void Reformer::OnReport(const std::string& base, const std::string& token, std::string body,
                        UniqueFd fd, const std::string& local, const std::string& peer) {
  // Authenticated before parsed: a frame about a job this agent does not run, or with another
  // token, is answered without reading its body.
  Job* live = Live(base);
  if (live == nullptr) {
    Answer(std::move(fd), {{"absent", true},
                           {"code", static_cast<int>(Code::kUnavailable)},
                           {"message", "no rank of job '" + base + "' runs at agent " + local}});
    return;
  }
  if (!TokensEqual(token, live->token())) {
    Logger("engine")->warn("job '{}': refused a request from {}: wrong job token", base, peer);
    Answer(std::move(fd), {{"code", static_cast<int>(Code::kPermissionDenied)},
                           {"message", "agent " + local + " refused a request about job '" + base +
                                           "': wrong job token"}});
    return;
  }
  Result<ReformRequest> req = ParseReformRequest(body);
  if (!req.ok()) {
    Logger("engine")->warn("job '{}': a malformed request from {}: {}", base, peer,
                           req.status().message());
    Answer(std::move(fd),
           {{"code", static_cast<int>(Code::kProtocol)},
            {"message", "malformed request for a new generation: " + req.status().message()}});
    return;
  }
  uint64_t now = ipc::MonotonicNs();
  uint32_t timeout_ms = req->timeout_ms;
  Report rep;
  rep.agent = peer + ":" + std::to_string(req->port);
  rep.old_node = req->node;
  rep.deadline_ns = now + uint64_t{timeout_ms} * kMs;
  rep.local = local;
  auto wrong_token = [&](Job* job) {
    if (TokensEqual(token, job->token())) return false;
    Answer(std::move(fd), {{"code", static_cast<int>(Code::kPermissionDenied)},
                           {"message", "agent " + local + " refused to admit this rank to job '" +
                                           base + "': wrong job token"}});
    return true;
  };
  if (req->joiner) {
    rep.joiner = true;
    Job* job = live;
    // Joiners wait at the lowest node that still has ranks of the job: node 0, or the node that
    // decides (and hosts) the next generation once the nodes below it are gone. An agent that
    // decided a generation without its own ranks sends them to its node 0.
    if (auto d = decided_.find(base);
        d != decided_.end() && d->second.to > job->generation() && !d->second.root.empty()) {
      Redirect(std::move(fd), SeenFrom(d->second.root, local));
      return;
    }
    int lowest = JoinersNode(*job);
    if (lowest < job->node_rank()) {
      const auto& addrs = AgentsOf(*job);
      if (static_cast<size_t>(lowest) < addrs.size() &&
          !addrs[static_cast<size_t>(lowest)].empty()) {
        Redirect(std::move(fd), addrs[static_cast<size_t>(lowest)]);
      } else {
        Answer(std::move(fd), {{"absent", true}});
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
      Answer(std::move(fd),
             {{"code", static_cast<int>(Code::kResourceExhausted)},
              {"message", "job '" + base + "' already holds " + std::to_string(held.size()) +
                              " joiners (" + std::to_string(from_agent) + " from agent " +
                              rep.agent + ")"}});
      return;
    }
    rep.fd = std::move(fd);
    Logger("engine")->info("job '{}': a joiner from agent {} waits for generation {}", base,
                           rep.agent, job->generation() + 1);
    held.push_back(std::move(rep));
    if (rounds_.count(base) != 0) MaybeDecide(base);
    return;
  }
  uint32_t generation = req->generation;
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
    if (live->generation() < generation && early_.size() < kMaxEarly) {
      // This node's ranks are still on their way into that generation: the report waits for
      // them (Entered). Answered absent, it would go to a higher node, which would decide the
      // next generation alone beside this one.
      early_.push_back(
          Early{base, token, std::move(body), local, peer, std::move(fd),
                now + std::min<uint64_t>(kEarlyWaitNs, uint64_t{timeout_ms} * kMs / 4)});
      return;
    }
    Answer(std::move(fd), {{"absent", true}});
    return;
  }
  if (wrong_token(job)) return;
  rep.ranks = std::move(req->ranks);
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
  // This agent's ranks of that generation are all gone: it passes the round on (ReleaseIfGone)
  // rather than decide for the nodes that happened to report.
  if (job == nullptr) return;
  bool all = true;
  for (int n = 0; n < job->num_nodes() && all; ++n) {
    bool reported = std::any_of(round.reports.begin(), round.reports.end(),
                                [n](const Report& r) { return r.old_node == n; });
    all = reported || n < round.self_node || job->node_gone(n) || NodeLeft(job->id(), n);
  }
  if (all || ipc::MonotonicNs() >= round.deadline_ns) Decide(base, round);
}

std::string Reformer::Unreported(const Round& round, Job* job) const {
  std::string missing;
  for (int n = 0; job != nullptr && n < job->num_nodes(); ++n) {
    bool reported = std::any_of(round.reports.begin(), round.reports.end(),
                                [n](const Report& r) { return r.old_node == n; });
    if (!reported && n >= round.self_node && !job->node_gone(n) && !NodeLeft(job->id(), n))
      missing += (missing.empty() ? "" : ", ") + std::to_string(n);
  }
  return missing;
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
    if (Closed(jr.fd)) {
      jr.fd.reset();  // the joiner is gone (or its agent gave up): no place, no answer
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
  // Answers by report: an assignment per rank (or why it has no place).
  std::map<Report*, nlohmann::json> answers;
  for (Report* r : nodes) answers[r] = nlohmann::json::array();
  for (Report* r : nodes) {
    for (size_t i = 0; i < r->ranks.size(); ++i) answers[r].push_back(nullptr);
  }
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
      nlohmann::json a;
      if (local < static_cast<int32_t>(kMaxJoinersPerNode)) {
        int32_t rank = world + local;
        a = {{"rank", rank}, {"local_rank", local}};
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
        a = "its node runs " + std::to_string(kMaxJoinersPerNode) +
            " ranks of the job, the most one agent serves";
      }
      if (sl.index >= 0) {
        answers[sl.report][static_cast<size_t>(sl.index)] = a;
      } else {
        answers[sl.report] = nlohmann::json::array({a});
      }
    }
    if (local == 0) continue;
    if (root.empty()) root = e.agent;
    kept_agents.push_back(e.agent);
    node_ranks.push_back(local);
    world += local;
  }
  auto reply = [&](Report& r) {
    nlohmann::json j;
    if (world == 0) {
      j = {{"code", static_cast<int>(Code::kFailedPrecondition)},
           {"message",
            "job '" + base + "' has no rank left for generation " + std::to_string(next)}};
    } else {
      // An agent that reported to itself over loopback is named as the others reached it.
      auto seen = [&](const std::string& a) { return SeenFrom(a, r.local); };
      std::vector<std::string> agents;
      for (const std::string& a : kept_agents) agents.push_back(seen(a));
      j = {{"code", 0},          {"generation", next},       {"world_size", world},
           {"root", seen(root)}, {"node_ranks", node_ranks}, {"assign", answers[&r]},
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
    if (r.fd.valid()) Redirect(std::move(r.fd), SeenFrom(root, r.local));
  }
  it->second.clear();
}

int Reformer::JoinersNode(const Job& job) const {
  // In a generation its ranks are leaving, a node whose ranks moved on already looks gone: a
  // joiner held here then goes on once this agent's ranks are in the next one (SendOnJoiners).
  int lowest = 0;
  while (lowest < job.node_rank() && job.node_gone(lowest)) ++lowest;
  return lowest;
}

void Reformer::SendOnJoiners(const std::string& base) {
  Job* live = Live(base);
  if (live == nullptr || joiners_.count(base) == 0 || rounds_.count(base) != 0) return;
  int lowest = JoinersNode(*live);
  const auto& agents = AgentsOf(*live);
  if (lowest >= live->node_rank() || static_cast<size_t>(lowest) >= agents.size()) return;
  SendOnHeld(base, agents[static_cast<size_t>(lowest)]);
  joiners_.erase(base);
}

uint32_t Reformer::JoinersHeld(const std::string& base) const {
  auto it = joiners_.find(base);
  if (it == joiners_.end()) return 0;
  size_t n = 0;
  for (const Report& r : it->second) n += r.fd.valid() && !Closed(r.fd) ? r.places() : 0;
  return static_cast<uint32_t>(n);
}

uint32_t Reformer::JoinersWaiting(const std::string& base) const {
  // Only the node that decides counts them: the others' ranks would re-form for nothing. Every
  // joiner held has a place in the next generation, on the node where it started.
  Job* live = Live(base);
  if (live != nullptr && JoinersNode(*live) != live->node_rank()) return 0;
  return JoinersHeld(base);
}

}  // namespace outrider::agent
