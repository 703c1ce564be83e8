// Agents of a job's generations without sockets or threads: each fake agent is a Reformer over a
// fake job directory, a fake clock shared by all, and a fake agents' port that carries requests
// and answers between them as messages (encoded and parsed with wire.h, as on the real port). An
// agent can die (its Reformer goes: the requests it held close, its calls are cancelled) or be
// unreachable. Messages move only when a test runs the network, so every interleaving a test
// wants is one it writes down. Thread-safety: one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/membership/generation_id.h"
#include "agent/membership/ports.h"
#include "agent/membership/reformer.h"
#include "agent/membership/wire.h"
#include "base/status.h"

namespace outrider::fakes {

using agent::membership::Asker;
using agent::membership::Call;
using agent::membership::CallAnswer;
using agent::membership::GenerationInfo;
using agent::membership::ReformAssignment;
using agent::membership::ReformDecision;
using agent::membership::Reformer;
using agent::membership::ReformRequest;
using agent::membership::Responder;

class FakeClock final : public agent::membership::Clock {
 public:
  uint64_t NowNs() const override { return now_ns; }
  uint64_t now_ns = 1'000'000'000;
};

// The jobs one agent runs, as the generations see them; tests edit them as ranks come and go.
class FakeDirectory final : public agent::membership::JobDirectory {
 public:
  std::optional<GenerationInfo> Generation(const std::string& id) const override {
    auto it = jobs.find(id);
    if (it == jobs.end()) return std::nullopt;
    return it->second;
  }
  std::optional<GenerationInfo> LiveGeneration(const std::string& base) const override {
    const GenerationInfo* best = nullptr;
    for (const auto& [id, g] : jobs) {
      if (g.base != base || g.members == 0) continue;
      if (best == nullptr || g.generation > best->generation) best = &g;
    }
    if (best == nullptr) return std::nullopt;
    return *best;
  }
  void GiveUp(const std::string& id, const Status& why) override { given_up.emplace_back(id, why); }
  std::map<std::string, GenerationInfo> jobs;  // by generation id
  std::vector<std::pair<std::string, Status>> given_up;
};

class FakeAgents;

// One request on the fake port, between the asking agent's Call and the answering agent's
// Responder.
struct Exchange {
  std::string from, to;  // agents' addresses
  std::function<void(Result<CallAnswer>)> done;
  bool cancelled = false;    // the caller's Call went
  bool half_closed = false;  // the caller said it is done sending
  bool finished = false;     // answered, refused or failed
  uint64_t deadline_ns = 0;
};

// One fake agent: its address, its jobs, and its Reformer (null once it died).
struct FakeAgent {
  std::string addr;
  FakeDirectory jobs;
  std::unique_ptr<agent::membership::PeerLink> link;
  std::unique_ptr<Reformer> reformer;
  bool reachable = true;
  std::vector<std::string> abandoned;  // generations whose rendezvous here can never complete
};

class FakeAgents {
 public:
  static constexpr uint16_t kPort = 29400;

  // Agents "10.0.0.1:29400" ... "10.0.0.<n>:29400".
  explicit FakeAgents(int n) {
    for (int i = 0; i < n; ++i) {
      auto a = std::make_unique<FakeAgent>();
      a->addr = "10.0.0." + std::to_string(i + 1) + ":" + std::to_string(kPort);
      agents_.push_back(std::move(a));
      Start(i);
    }
  }
  ~FakeAgents() {
    for (auto& a : agents_) a->reformer.reset();
  }

  FakeAgent& at(int i) { return *agents_[static_cast<size_t>(i)]; }
  Reformer& reformer(int i) { return *at(i).reformer; }
  FakeClock& clock() { return clock_; }
  const std::string& addr(int i) { return at(i).addr; }
  std::vector<std::string> addrs() {
    std::vector<std::string> v;
    for (auto& a : agents_) v.push_back(a->addr);
    return v;
  }

  // Job `base`'s generation `generation` on `nodes` (one per agent, in order), ranks numbered node
  // by node, `ranks_per_node[i]` on node i; each agent's directory gets its own view.
  void RunJob(const std::string& base, uint32_t generation, const std::vector<int>& ranks_per_node,
              const std::string& token = "tok") {
    int world = 0;
    for (int r : ranks_per_node) world += r;
    for (size_t i = 0; i < ranks_per_node.size(); ++i) {
      GenerationInfo g;
      g.base = base;
      g.id = agent::membership::GenerationJobId(base, generation);
      g.token = token;
      g.generation = generation;
      g.num_nodes = static_cast<int32_t>(ranks_per_node.size());
      g.node_rank = static_cast<int32_t>(i);
      g.world_size = world;
      g.members = static_cast<size_t>(ranks_per_node[i]);
      g.gone.assign(ranks_per_node.size(), false);
      g.agents = ranks_per_node.size() > 1 ? addrs() : std::vector<std::string>{};
      g.agents.resize(ranks_per_node.size() > 1 ? ranks_per_node.size() : 0);
      at(static_cast<int>(i)).jobs.jobs[g.id] = g;
    }
  }
  GenerationInfo& job(int agent, const std::string& id) { return at(agent).jobs.jobs.at(id); }

  // The agent's Reformer goes, as when its process dies: what it held closes, its calls end.
  void Kill(int i) {
    at(i).reformer.reset();
    at(i).reachable = false;
  }

  // Delivers messages until none is left (at most `max` of them).
  size_t Run(size_t max = 10'000) {
    size_t n = 0;
    while (!queue_.empty() && n < max) {
      auto f = std::move(queue_.front());
      queue_.pop_front();
      f();
      ++n;
    }
    return n;
  }
  // Moves the clock to `ns`: calls past their deadline fail, every Reformer ticks; then runs.
  void AdvanceTo(uint64_t ns) {
    clock_.now_ns = ns;
    for (auto& e : exchanges_) {
      if (!e->finished && !e->cancelled && ns >= e->deadline_ns)
        Finish(e, DeadlineExceeded("the call to " + e->to + " timed out"));
    }
    Run();
    for (auto& a : agents_) {
      if (a->reformer != nullptr && ns >= a->reformer->NextDeadlineNs()) a->reformer->Tick(ns);
    }
    Run();
  }
  void Advance(uint64_t ms) { AdvanceTo(clock_.now_ns + ms * 1'000'000); }

  // Withdrawals sent: (to, generation id, node left).
  struct Withdrawal {
    std::string to, id;
    int32_t node_left;
  };
  std::vector<Withdrawal> withdrawals;

 private:
  class Link;
  class FakeResponder;
  class FakeCall;

  // Gives agent `i` its port and its Reformer.
  void Start(int i);
  FakeAgent* Find(const std::string& addr) {
    for (auto& a : agents_) {
      if (a->addr == addr) return a.get();
    }
    return nullptr;
  }
  // The call ends with `r`, delivered as a message (never to a cancelled call).
  void Finish(const std::shared_ptr<Exchange>& e, Result<CallAnswer> r) {
    if (e->finished) return;
    e->finished = true;
    queue_.push_back([e, r = std::move(r)]() mutable {
      if (!e->cancelled) e->done(std::move(r));
    });
  }

  std::vector<std::unique_ptr<FakeAgent>> agents_;
  FakeClock clock_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::shared_ptr<Exchange>> exchanges_;
};

// The answering side of an exchange: what it sends goes through the wire format.
class FakeAgents::FakeResponder final : public Responder {
 public:
  FakeResponder(FakeAgents* net, std::shared_ptr<Exchange> e) : net_(net), e_(std::move(e)) {}
  ~FakeResponder() override {
    if (!e_->finished) net_->Finish(e_, Unavailable("agent " + e_->to + " closed the connection"));
  }
  void Answer(const ReformDecision& d) override {
    Result<ReformDecision> parsed =
        agent::membership::ParseReformDecision(agent::membership::EncodeReformDecision(d));
    if (!parsed.ok()) return net_->Finish(e_, parsed.status());
    CallAnswer a;
    a.decision = std::move(*parsed);
    net_->Finish(e_, std::move(a));
  }
  void Redirect(const std::string& agent) override {
    CallAnswer a;
    a.redirect = agent;
    net_->Finish(e_, std::move(a));
  }
  bool Closed() const override { return e_->cancelled || e_->half_closed; }

 private:
  FakeAgents* net_;
  std::shared_ptr<Exchange> e_;
};

class FakeAgents::FakeCall final : public Call {
 public:
  explicit FakeCall(std::shared_ptr<Exchange> e) : e_(std::move(e)) {}
  ~FakeCall() override { e_->cancelled = true; }
  void HalfClose() override { e_->half_closed = true; }

 private:
  std::shared_ptr<Exchange> e_;
};

class FakeAgents::Link final : public agent::membership::PeerLink {
 public:
  Link(FakeAgents* net, int self) : net_(net), self_(self) {}
  uint16_t port() const override { return kPort; }
  std::unique_ptr<Call> Ask(const std::string& agent, const std::string& base,
                            const std::string& token, const ReformRequest& request,
                            uint32_t timeout_ms,
                            std::function<void(Result<CallAnswer>)> done) override {
    auto e = std::make_shared<Exchange>();
    e->from = net_->at(self_).addr;
    e->to = agent;
    e->done = std::move(done);
    e->deadline_ns = net_->clock_.now_ns + uint64_t{timeout_ms} * 1'000'000;
    net_->exchanges_.push_back(e);
    std::string body = agent::membership::EncodeReformRequest(request);
    std::string host = e->from.substr(0, e->from.rfind(':'));
    net_->queue_.push_back([net = net_, e, base, token, body, host]() mutable {
      if (e->cancelled || e->finished) return;
      FakeAgent* to = net->Find(e->to);
      if (to == nullptr || !to->reachable || to->reformer == nullptr)
        return net->Finish(e, Unavailable("connection to " + e->to + " refused"));
      to->reformer->OnRequest(base, token, std::move(body), std::make_unique<FakeResponder>(net, e),
                              to->addr, host);
    });
    return std::make_unique<FakeCall>(e);
  }
  std::unique_ptr<Call> Withdraw(const std::string& root, const std::string& id,
                                 const std::string& token, const Status&,
                                 int32_t node_left) override {
    net_->withdrawals.push_back({root, id, node_left});
    auto e = std::make_shared<Exchange>();
    net_->queue_.push_back([net = net_, e, root, id, token, node_left] {
      FakeAgent* to = net->Find(root);
      if (e->cancelled || to == nullptr || to->reformer == nullptr) return;
      // As the rendezvous server does: trusted only when vouched for.
      if (!to->reformer->Vouches(id, token)) return;
      to->abandoned.push_back(id);
      if (node_left >= 0) to->reformer->NoteNodeLeft(id, node_left);
    });
    return std::make_unique<FakeCall>(e);
  }
  void Abandon(const std::string& id, const Status&) override {
    net_->at(self_).abandoned.push_back(id);
  }

 private:
  FakeAgents* net_;
  int self_;
};

inline void FakeAgents::Start(int i) {
  FakeAgent& a = at(i);
  a.link = std::make_unique<Link>(this, i);
  a.reformer = std::make_unique<Reformer>(&a.jobs, a.link.get(), &clock_, nullptr);
}

// A rank's ask, and what it was told.
struct Ask {
  std::optional<Result<ReformAssignment>> answer;
  bool answered() const { return answer.has_value(); }
  bool ok() const { return answer.has_value() && answer->ok(); }
  const ReformAssignment& placed() const { return **answer; }
  Code code() const { return answer.has_value() ? answer->status().code() : Code::kOk; }
  std::string message() const {
    return answer.has_value() && !answer->ok() ? answer->status().message() : "";
  }
};

}  // namespace outrider::fakes
