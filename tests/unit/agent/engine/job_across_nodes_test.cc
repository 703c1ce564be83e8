// Jobs that span nodes, as the agents' job tables run them: what one node tells the others when
// its job fails there (a peer agent lost, a rank gone with collectives unfinished, a rank that
// never submitted), that nobody passes it on, and that other jobs on the same agents never
// notice. The agents live in one process: a Network each over one FakeNetwork (messages move
// only when the test steps it) on a clock of its own, rendezvous over loopback on one event loop,
// clients as fakes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/engine/job_table.h"
#include "agent/event_loop.h"
#include "agent/net/network.h"
#include "agent/transport/fake/fake_transport.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kHeartbeatMs = 100;

// A client that records how its ops finished.
class FakeMember : public Member {
 public:
  struct Completion {
    uint64_t op_id;
    Status status;
  };
  FakeMember(std::string job, int rank, int world, int local_rank, int local_size,
             std::string root) {
    id_.job_id = std::move(job);
    id_.rank = rank;
    id_.world_size = world;
    id_.local_rank = local_rank;
    id_.local_world_size = local_size;
    id_.root_addr = std::move(root);
    id_.token = "token";
  }
  const ClientIdentity& identity() const override { return id_; }
  void Complete(uint64_t op_id, const Status& status, uint64_t, uint64_t,
                const OpReport*) override {
    completions.push_back({op_id, status});
  }
  void Partial(uint64_t, uint64_t, uint64_t, const OpReport&) override {}
  const Completion* Of(uint64_t op_id) const {
    for (const Completion& c : completions) {
      if (c.op_id == op_id) return &c;
    }
    return nullptr;
  }
  std::vector<Completion> completions;

 private:
  ClientIdentity id_;
};

// One allreduce of `count` floats and its memory.
struct Op {
  std::vector<float> send, recv;
  ValidatedOp op;
  Op(uint64_t op_id, uint64_t key, uint64_t count) : send(count, 1.0f), recv(count, 0.0f) {
    op.op_id = op_id;
    op.key = key;
    op.kind = ipc::OpKind::kAllreduce;
    op.dtype = ipc::DType::kF32;
    op.reduce_op = ipc::ReduceOp::kSum;
    op.count = count;
    op.send = BufferSpan::Host(send.data(), count * 4);
    op.recv = BufferSpan::Host(recv.data(), count * 4);
  }
};

// Large ops take the ring, whose data moves only after agreement.
const EngineOptions kSmall{.direct_max_bytes = 1024, .chunk_bytes = 4096};
constexpr uint64_t kRingCount = 10007;
constexpr uint64_t kDirectCount = 10;

class Agents {
 public:
  // One agent per entry of `peer_timeout_ms`.
  explicit Agents(std::vector<uint32_t> peer_timeout_ms) {
    auto loop = EventLoop::Create(0);
    EXPECT_TRUE(loop.ok());
    loop_ = std::move(loop).value();
    for (size_t a = 0; a < peer_timeout_ms.size(); ++a) {
      now_.push_back(1000 * kMs);
      auto table = std::make_unique<JobTable>();
      table->set_engine_options(kSmall);
      NetworkOptions o;
      o.listen_address = "127.0.0.1";
      o.port = 0;
      o.heartbeat_ms = kHeartbeatMs;
      o.peer_timeout_ms = peer_timeout_ms[a];
      o.rendezvous_timeout_ms = 20000;
      auto net = Network::Create(loop_.get(), table.get(), o, fake_.Factory(),
                                 [this, a] { return now_[a]; });
      EXPECT_TRUE(net.ok()) << net.status().ToString();
      table->set_network(net->get());
      tables_.push_back(std::move(table));
      nets_.push_back(std::move(net).value());
    }
  }
  ~Agents() {
    for (auto& t : tables_) t->FailAll(Cancelled("test over"));
  }

  FakeNetwork& fake() { return fake_; }
  JobTable& table(int a) { return *tables_[static_cast<size_t>(a)]; }
  std::string root(int a) const {
    return "127.0.0.1:" + std::to_string(nets_[static_cast<size_t>(a)]->rendezvous()->port());
  }

  // A client of `job` (one rank per node unless `local_size` says otherwise) at agent `agent`;
  // node 0 of the job is at agent `root_agent`.
  FakeMember* Join(int agent, const std::string& job, int rank, int world, int root_agent,
                   int local_size = 1) {
    members_.push_back(std::make_unique<FakeMember>(job, rank, world, rank % local_size, local_size,
                                                    root(root_agent)));
    Status st = table(agent).Join(members_.back().get());
    EXPECT_TRUE(st.ok()) << st.ToString();
    return members_.back().get();
  }
  // Runs the rendezvous until every job at every agent is connected to its peers.
  bool Connect() {
    uint64_t deadline = ipc::MonotonicNs() + 20'000 * kMs;
    bool all = false;
    EventLoop::Hooks hooks;
    hooks.poll = [&] {
      all = true;
      for (auto& t : tables_) {
        for (const auto& j : t->StatusJson()) all = all && j["network"] == "connected";
      }
      if (all || ipc::MonotonicNs() > deadline) loop_->Stop();
      return false;
    };
    hooks.prepare_sleep = [] { return true; };
    hooks.after_wake = [] {};
    hooks.timeout_ms = [] { return 5; };
    loop_->Run(hooks);
    return all;
  }
  // Advances the clocks of `agents` by `ms` in heartbeat steps, each agent ticking and everything
  // in flight delivered after each step.
  void Advance(const std::vector<int>& agents, uint32_t ms) {
    for (uint32_t t = 0; t < ms; t += kHeartbeatMs) {
      for (int a : agents) {
        now_[static_cast<size_t>(a)] += kHeartbeatMs * kMs;
        nets_[static_cast<size_t>(a)]->Tick(now_[static_cast<size_t>(a)]);
      }
      Deliver();
    }
  }
  // Delivers everything in flight, counting job failures sent from each agent to each other.
  void Deliver() {
    for (;;) {
      std::vector<FakeNetwork::Envelope> queued = fake_.InFlight();
      if (!queued.empty()) {
        PeerHeader h;
        std::memcpy(&h, queued.front().header.data(), sizeof(h));
        if (h.type == static_cast<uint16_t>(PeerMsg::kJobFailed))
          ++job_failed_[{queued.front().from, queued.front().to}];
      }
      if (!fake_.Step()) return;
    }
  }
  int job_failed(int from, int to) const {
    auto it = job_failed_.find({from, to});
    return it == job_failed_.end() ? 0 : it->second;
  }

 private:
  std::vector<uint64_t> now_;  // by agent
  FakeNetwork fake_;           // outlives the networks and their endpoints
  std::unique_ptr<EventLoop> loop_;
  std::vector<std::unique_ptr<Network>> nets_;
  std::vector<std::unique_ptr<JobTable>> tables_;  // their jobs use the networks as they end
  std::vector<std::unique_ptr<FakeMember>> members_;
  std::map<std::pair<int, int>, int> job_failed_;
};

::testing::AssertionResult FailedWith(const FakeMember* m, uint64_t op_id, Code code,
                                      const std::string& part) {
  const FakeMember::Completion* c = m->Of(op_id);
  if (c == nullptr)
    return ::testing::AssertionFailure()
           << "op " << op_id << " of rank " << m->identity().rank << " still waits";
  if (c->status.code() != code || c->status.message().find(part) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "rank " << m->identity().rank << ": " << c->status.ToString();
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Succeeded(const FakeMember* m, uint64_t op_id) {
  const FakeMember::Completion* c = m->Of(op_id);
  if (c == nullptr)
    return ::testing::AssertionFailure()
           << "op " << op_id << " of rank " << m->identity().rank << " still waits";
  if (!c->status.ok())
    return ::testing::AssertionFailure()
           << "rank " << m->identity().rank << ": " << c->status.ToString();
  return ::testing::AssertionSuccess();
}

// Agent 0 stops hearing agent 1 (its deadline is short); agent 2 would notice only a minute later.
// Agent 2's rank of the job that spans all three learns at once from agent 0, and a job on
// agents 0 and 2 only carries on.
TEST(JobAcrossNodesTest, PeerLostOnOneNodeFailsTheJobOnTheOthersNamingTheLostNodeAndWhoReportedIt) {
  Agents agents({1000, 1000, 60000});
  FakeMember* v[3];
  for (int r = 0; r < 3; ++r) v[r] = agents.Join(r, "victim", r, 3, 0);
  FakeMember* b0 = agents.Join(0, "bystander", 0, 2, 0);
  FakeMember* b1 = agents.Join(2, "bystander", 1, 2, 0);
  ASSERT_TRUE(agents.Connect());
  // Nodes 0 and 2 wait for node 1 in a ring allreduce.
  Op v0(1, 7, kRingCount), v2(1, 7, kRingCount);
  agents.table(0).Find("victim")->Submit(v[0], v0.op);
  agents.table(2).Find("victim")->Submit(v[2], v2.op);
  agents.Deliver();
  agents.fake().Silence(1);
  agents.Advance({0, 2}, 1500);
  ASSERT_TRUE(FailedWith(v[0], 1, Code::kPeerLost, "rank 1 (node 1) of job 'victim' is lost"));
  EXPECT_TRUE(FailedWith(v[2], 1, Code::kPeerLost,
                         "rank 1 (node 1) of job 'victim' is lost (reported by rank 0 (node 0))"));
  EXPECT_EQ(agents.job_failed(0, 2), 1);
  EXPECT_EQ(agents.job_failed(0, 1), 0) << "the lost node is not told";
  EXPECT_EQ(agents.job_failed(2, 0), 0) << "the report came back";
  // Agent 2's own deadline fires later: nothing is sent again.
  agents.Advance({0, 2}, 60000);
  EXPECT_EQ(agents.job_failed(2, 0), 0);
  EXPECT_EQ(agents.job_failed(0, 2), 1);
  // The job on agents 0 and 2 alone never noticed.
  Op x0(2, 9, kDirectCount), x1(2, 9, kDirectCount);
  agents.table(0).Find("bystander")->Submit(b0, x0.op);
  agents.table(2).Find("bystander")->Submit(b1, x1.op);
  agents.Deliver();
  EXPECT_TRUE(Succeeded(b0, 2));
  EXPECT_TRUE(Succeeded(b1, 2));
  (void)v[1];
}

// Rank 2 says goodbye while its instance is out (its contribution reached the others): nodes 0
// and 1 fail the job at once instead of starting a ring that node 2 will never serve.
TEST(JobAcrossNodesTest, RankThatLeavesInOrderWithAnInstanceUnfinishedFailsTheJobOnTheOtherNodes) {
  Agents agents({3000, 3000, 3000});
  FakeMember* m[3];
  for (int r = 0; r < 3; ++r) m[r] = agents.Join(r, "job", r, 3, 0);
  ASSERT_TRUE(agents.Connect());
  Op o2(1, 7, kRingCount);
  agents.table(2).Find("job")->Submit(m[2], o2.op);
  agents.Deliver();
  agents.table(2).Leave(m[2], PeerLost("client said goodbye"), /*orderly=*/true);
  agents.Deliver();
  EXPECT_EQ(agents.job_failed(2, 0), 1);
  EXPECT_EQ(agents.job_failed(2, 1), 1);
  Op o0(1, 7, kRingCount), o1(1, 7, kRingCount);
  agents.table(0).Find("job")->Submit(m[0], o0.op);
  agents.table(1).Find("job")->Submit(m[1], o1.op);
  agents.Deliver();
  EXPECT_TRUE(FailedWith(m[0], 1, Code::kPeerLost, "rank 2 (local rank 0"));
  EXPECT_TRUE(FailedWith(m[1], 1, Code::kPeerLost, "rank 2 (local rank 0"));
  EXPECT_EQ(agents.job_failed(0, 1) + agents.job_failed(1, 0) + agents.job_failed(0, 2) +
                agents.job_failed(1, 2),
            0);
}

// The normal end: every rank finished, then one leaves in order. Nothing fails anywhere.
TEST(JobAcrossNodesTest, RankThatLeavesInOrderWithNothingUnfinishedFailsNothingElsewhere) {
  Agents agents({3000, 3000, 3000});
  FakeMember* m[3];
  for (int r = 0; r < 3; ++r) m[r] = agents.Join(r, "job", r, 3, 0);
  ASSERT_TRUE(agents.Connect());
  std::vector<std::unique_ptr<Op>> ops;
  for (int r = 0; r < 3; ++r) {
    ops.push_back(std::make_unique<Op>(1, 7, kRingCount));
    agents.table(r).Find("job")->Submit(m[r], ops.back()->op);
  }
  agents.Deliver();
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(Succeeded(m[r], 1));
  agents.table(2).Leave(m[2], PeerLost("client said goodbye"), /*orderly=*/true);
  agents.Deliver();
  EXPECT_EQ(agents.job_failed(2, 0) + agents.job_failed(2, 1), 0);
  EXPECT_EQ(agents.table(0).Find("job")->StatusJson()["state"], "ok");
}

// Node 1's second rank never submits: once the op timeout fails the instance there, node 0's
// ranks, which had submitted theirs, fail too instead of waiting for node 1's contribution.
TEST(JobAcrossNodesTest, OpTimeoutOnOneNodeFailsTheInstanceOnEveryNode) {
  Agents agents({3000, 3000});
  FakeMember* m[4];
  for (int r = 0; r < 4; ++r) m[r] = agents.Join(r / 2, "job", r, 4, 0, /*local_size=*/2);
  ASSERT_TRUE(agents.Connect());
  std::vector<std::unique_ptr<Op>> ops;
  for (int r = 0; r < 3; ++r) {
    ops.push_back(std::make_unique<Op>(1, 7, kDirectCount));
    agents.table(r / 2).Find("job")->Submit(m[r], ops.back()->op);
  }
  agents.Deliver();
  agents.table(1).ExpireOps(ipc::MonotonicNs() + 2000 * kMs, 1000 * kMs);
  agents.Deliver();
  EXPECT_TRUE(FailedWith(m[2], 1, Code::kDeadlineExceeded, "for rank 3 (local rank 1) to submit"));
  for (int r = 0; r < 2; ++r)
    EXPECT_TRUE(FailedWith(m[r], 1, Code::kDeadlineExceeded, "ranks 2-3 (node 1)"));
}

TEST(JobAcrossNodesTest, JobKilledBeforeItFormedStaysThroughARefusedJoinAndFailsTheOtherNode) {
  // Node 1's only rank dies while node 1 waits for the job's rendezvous; a new client of the job
  // is refused there (the job lost a member). Node 1 keeps the job anyway until the rendezvous
  // completes, and node 0's rank then fails naming the dead rank instead of waiting for a node
  // that dropped the job.
  Agents agents({3000, 3000});
  FakeMember* dead = agents.Join(1, "job", 1, 2, 0);
  agents.table(1).Leave(dead, PeerLost("client closed its connection"), /*orderly=*/false);
  FakeMember late("job", 1, 2, 0, 1, agents.root(0));
  EXPECT_EQ(agents.table(1).Join(&late).code(), Code::kFailedPrecondition);
  FakeMember* m0 = agents.Join(0, "job", 0, 2, 0);
  Op op(1, 7, kDirectCount);
  agents.table(0).Find("job")->Submit(m0, op.op);
  ASSERT_TRUE(agents.Connect());
  agents.Deliver();
  EXPECT_TRUE(FailedWith(m0, 1, Code::kPeerLost, "rank 1 (local rank 0"));
}

// One rank's op is refused at its agent: the instance fails on every node (its peers would wait
// for that node's contribution), naming the rank, and the key's next instance lines up on every
// rank, small (direct) and large (ring) alike.
TEST(JobAcrossNodesTest, ARefusedOpFailsTheInstanceOnEveryNodeAndTheKeysNextInstanceLinesUp) {
  for (uint64_t count : {kDirectCount, kRingCount}) {
    SCOPED_TRACE("count " + std::to_string(count));
    Agents agents({3000, 3000});
    FakeMember* m[4];
    for (int r = 0; r < 4; ++r) m[r] = agents.Join(r / 2, "job", r, 4, 0, /*local_size=*/2);
    ASSERT_TRUE(agents.Connect());
    std::vector<std::unique_ptr<Op>> ops;
    for (int r = 0; r < 3; ++r) {
      ops.push_back(std::make_unique<Op>(1, 7, count));
      agents.table(r / 2).Find("job")->Submit(m[r], ops.back()->op);
    }
    agents.Deliver();
    agents.table(1).Find("job")->Refuse(
        m[3],
        Job::RefusedOp{.key = 7,
                       .op_id = 1,
                       .kind = ipc::OpKind::kAllreduce,
                       .dtype = ipc::DType::kF32,
                       .count = count},
        InvalidArgument("send and recv buffers overlap without being the op's in-place layout"));
    agents.Deliver();
    EXPECT_TRUE(FailedWith(m[3], 1, Code::kInvalidArgument, "overlap"));
    for (int r = 0; r < 3; ++r)
      EXPECT_TRUE(FailedWith(m[r], 1, Code::kInvalidArgument, "rank 3's op was refused"));
    // The next instance of key 7: rank r contributes r + 1 everywhere.
    std::vector<std::unique_ptr<Op>> next;
    for (int r = 0; r < 4; ++r) {
      next.push_back(std::make_unique<Op>(2, 7, count));
      std::fill(next.back()->send.begin(), next.back()->send.end(), static_cast<float>(r + 1));
      agents.table(r / 2).Find("job")->Submit(m[r], next.back()->op);
    }
    agents.Deliver();
    for (int r = 0; r < 4; ++r) {
      ASSERT_TRUE(Succeeded(m[r], 2));
      EXPECT_EQ(next[static_cast<size_t>(r)]->recv, std::vector<float>(count, 10.0f))
          << "rank " << r;
    }
  }
}

}  // namespace
}  // namespace outrider::agent
