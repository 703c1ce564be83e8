// A job's next generation decided by agents over a fake port and a fake clock
// (tests/fakes/membership/): the rules of docs/elastic.md's failure table, one test each, with
// the interleaving each names written out.
#include "agent/membership/reformer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "tests/fakes/membership/fake_agents.h"

namespace outrider::agent::membership {
namespace {

using fakes::FakeAgents;
using ::testing::HasSubstr;

constexpr uint32_t kTimeoutMs = 10'000;

class ReformerTest : public ::testing::Test {
 protected:
  // Rank `rank` of generation `generation` of "job" on agent `agent` asks for the next one.
  fakes::Ask& AskNext(int agent, int32_t rank, uint32_t generation = 0) {
    asks_.emplace_back();
    fakes::Ask& a = asks_.back();
    Asker asker;
    asker.job_id = GenerationJobId("job", generation);
    asker.job_base = "job";
    asker.rank = rank;
    asker.token = "tok";
    net_.reformer(agent).Ask(&a, asker, kTimeoutMs,
                             [&a](Result<ReformAssignment> r) { a.answer = std::move(r); });
    return a;
  }
  // A joiner connected to `agent` asks to join "job" (naming `root`, if any).
  fakes::Ask& Join(int agent, const std::string& root = "", const std::string& token = "tok") {
    asks_.emplace_back();
    fakes::Ask& a = asks_.back();
    Asker asker;
    asker.job_id = "job";
    asker.token = token;
    asker.root_addr = root;
    asker.joiner = true;
    net_.reformer(agent).Ask(&a, asker, kTimeoutMs,
                             [&a](Result<ReformAssignment> r) { a.answer = std::move(r); });
    return a;
  }
  // One of `agent`'s ranks of generation `generation` is gone (it died, or left): its ask (if
  // any) is forgotten and the job table says so.
  void RankGone(int agent, fakes::Ask* ask, uint32_t generation = 0) {
    if (ask != nullptr) net_.reformer(agent).Forget(ask);
    net_.job(agent, GenerationJobId("job", generation)).members -= 1;
    net_.reformer(agent).Poke("job");
  }
  // Ranks of the generation each ask placed, in the asks' order.
  static std::vector<int32_t> Ranks(const std::vector<fakes::Ask*>& asks) {
    std::vector<int32_t> v;
    for (const fakes::Ask* a : asks) v.push_back(a->ok() ? a->placed().rank : -1);
    return v;
  }

  FakeAgents net_{3};
  std::deque<fakes::Ask> asks_;  // stable addresses: they are the owners the Reformer knows
};

// Every node keeps all its ranks whatever the others run; ranks are numbered node by node in the
// order of their old ranks, and the generation's node 0 is the first kept node.
TEST_F(ReformerTest, EveryNodeKeepsItsRanksNumberedNodeByNode) {
  net_.RunJob("job", 0, {2, 2, 2});
  RankGone(1, nullptr);  // rank 3 died before it asked
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(0, 1);
  fakes::Ask& r2 = AskNext(1, 2);
  fakes::Ask& r4 = AskNext(2, 4);
  fakes::Ask& r5 = AskNext(2, 5);
  net_.Run();
  EXPECT_EQ(Ranks({&r0, &r1, &r2, &r4, &r5}), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  const ReformAssignment& a = r4.placed();
  EXPECT_EQ(a.generation, 1u);
  EXPECT_EQ(a.world_size, 5);
  EXPECT_EQ(a.node_ranks, (std::vector<int32_t>{2, 1, 2}));
  EXPECT_EQ(a.node, 2);
  EXPECT_EQ(a.local_rank, 0);
  EXPECT_EQ(a.local_world_size, 2);
  EXPECT_EQ(a.root_addr, net_.addr(0));
  EXPECT_EQ(r2.placed().local_world_size, 1);
}

// A survivor that dies before its node reported it is not in the report: the others go on
// without it. A rank that never asks is left out once half the deadline passed.
TEST_F(ReformerTest, ASurvivorDyingBeforeItsNodeReportedIsLeftOut) {
  net_.RunJob("job", 0, {2, 2});
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(0, 1);
  fakes::Ask& r2 = AskNext(1, 2);
  fakes::Ask& r3 = AskNext(1, 3);
  net_.Run();
  ASSERT_TRUE(r0.ok() && r1.ok() && r2.ok() && r3.ok());  // generation 1: four ranks
  for (int node = 0; node < 2; ++node) {
    GenerationInfo g = net_.job(node, "job");
    g.id = GenerationJobId("job", 1);
    g.generation = 1;
    net_.at(node).jobs.jobs[g.id] = g;
    net_.job(node, "job").members = 0;
  }
  fakes::Ask& again0 = AskNext(0, 0, 1);
  fakes::Ask& again1 = AskNext(0, 1, 1);
  fakes::Ask& again2 = AskNext(1, 2, 1);
  RankGone(1, nullptr, 1);  // rank 3 died before it asked: node 1's report carries rank 2 only
  net_.Run();
  EXPECT_EQ(Ranks({&again0, &again1, &again2}), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(again2.placed().node_ranks, (std::vector<int32_t>{2, 1}));
  // A rank that is there but does not ask: its node reports without it at half the deadline.
  net_.RunJob("job", 2, {1, 2});
  fakes::Ask& late0 = AskNext(0, 0, 2);
  fakes::Ask& late1 = AskNext(1, 1, 2);
  net_.Run();
  EXPECT_FALSE(late0.answered());
  EXPECT_FALSE(late1.answered());
  // Half the deadline: node 1 reports rank 1 alone; rank 2, asking once the report is out, is
  // too late.
  net_.clock().now_ns += uint64_t{kTimeoutMs} / 2 * 1'000'000;
  net_.reformer(1).Tick(net_.clock().now_ns);
  fakes::Ask& too_late = AskNext(1, 2, 2);
  net_.Run();
  ASSERT_TRUE(late1.ok()) << late1.message();
  EXPECT_EQ(late1.placed().world_size, 2);
  EXPECT_EQ(too_late.code(), Code::kFailedPrecondition);
  EXPECT_THAT(too_late.message(), HasSubstr("asked too late and is left out"));
}

// A survivor that dies after its node reported it: the generation cannot form. Its node gives
// the generation up (its rendezvous here refuses joins) and tells the new generation's node 0,
// naming the node, so the others' next round does not wait for it.
TEST_F(ReformerTest, ASurvivorDyingAfterItsNodeReportedWithdrawsTheGeneration) {
  net_.RunJob("job", 0, {1, 2});
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(1, 1);
  fakes::Ask& r2 = AskNext(1, 2);  // node 1 reports ranks 1 and 2 now
  net_.reformer(1).Forget(&r2);    // rank 2 dies before the answer comes
  net_.Run();
  ASSERT_TRUE(r0.ok() && r1.ok());
  EXPECT_FALSE(r2.answered());  // gone: nobody to tell
  std::string g1 = GenerationJobId("job", 1);
  EXPECT_THAT(net_.at(1).abandoned, ::testing::Contains(g1));
  ASSERT_EQ(net_.withdrawals.size(), 1u);
  EXPECT_EQ(net_.withdrawals[0].to, net_.addr(0));
  EXPECT_EQ(net_.withdrawals[0].id, g1);
  EXPECT_EQ(net_.withdrawals[0].node_left, 1);
  // Node 0 decided generation 1 and vouches for its token: the withdrawal reached it.
  EXPECT_THAT(net_.at(0).abandoned, ::testing::Contains(g1));
  // Rank 1 enters generation 1 here after all: it fails it at once.
  GenerationInfo g = net_.job(1, "job");
  g.id = g1;
  g.generation = 1;
  net_.at(1).jobs.jobs[g1] = g;
  net_.reformer(1).Entered(g1, "job");
  ASSERT_EQ(net_.at(1).jobs.given_up.size(), 1u);
  EXPECT_EQ(net_.at(1).jobs.given_up[0].first, g1);
  EXPECT_EQ(net_.at(1).jobs.given_up[0].second.code(), Code::kPeerLost);
}

// Node 0's agent is gone: the other nodes' reports find it gone and go to node 1, which decides
// and hosts the new generation.
TEST_F(ReformerTest, WithNodeZerosAgentGoneTheNextNodeDecides) {
  net_.RunJob("job", 0, {1, 1, 1});
  net_.Kill(0);
  fakes::Ask& r1 = AskNext(1, 1);
  fakes::Ask& r2 = AskNext(2, 2);
  net_.Run();
  ASSERT_TRUE(r1.ok()) << r1.message();
  ASSERT_TRUE(r2.ok()) << r2.message();
  EXPECT_EQ(Ranks({&r1, &r2}), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(r2.placed().root_addr, net_.addr(1));
}

// The deciding agent dies mid-round: the nodes waiting on it find it gone and report to the next
// node.
TEST_F(ReformerTest, TheDecidingAgentDyingMidRoundLeavesTheNextNodeToDecide) {
  net_.RunJob("job", 0, {1, 1, 1});
  AskNext(0, 0);
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();  // node 0 decides, holding its own report and node 1's; node 2 has not asked
  EXPECT_FALSE(r1.answered());
  net_.Kill(0);
  net_.Run();  // node 1's report comes back to node 1, which now decides
  EXPECT_FALSE(r1.answered());
  fakes::Ask& r2 = AskNext(2, 2);
  net_.Run();
  ASSERT_TRUE(r1.ok()) << r1.message();
  ASSERT_TRUE(r2.ok()) << r2.message();
  EXPECT_EQ(r1.placed().world_size, 2);
  EXPECT_EQ(r1.placed().root_addr, net_.addr(1));
}

// Node 0's rank dies after the other nodes reported to its agent, before it asked: node 0's agent
// can no longer decide, sends the reports it holds on at once, and the next node decides.
TEST_F(ReformerTest, NodeZerosRankDyingAfterTheOthersReportedLeavesTheNextNodeToDecide) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();
  EXPECT_FALSE(r1.answered());  // held at node 0, whose rank has not asked
  RankGone(0, nullptr);
  net_.Run();
  ASSERT_TRUE(r1.ok()) << r1.message();
  EXPECT_EQ(r1.placed().world_size, 1);
  EXPECT_EQ(r1.placed().root_addr, net_.addr(1));
}

// Two ranks die at once: both leave; the others form one generation without them.
TEST_F(ReformerTest, TwoRanksDyingAtOnceLeaveTogether) {
  net_.RunJob("job", 0, {2, 2});
  RankGone(0, nullptr);
  RankGone(1, nullptr);
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r3 = AskNext(1, 3);
  net_.Run();
  EXPECT_EQ(Ranks({&r0, &r3}), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(r3.placed().node_ranks, (std::vector<int32_t>{1, 1}));
}

// A joiner with the wrong job token is refused; the job never hears of it.
TEST_F(ReformerTest, AJoinerWithTheWrongTokenIsRefusedAndNotCounted) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& j = Join(1, "", "guess");
  net_.Run();
  EXPECT_EQ(j.code(), Code::kPermissionDenied);
  EXPECT_THAT(j.message(), HasSubstr("wrong job token"));
  EXPECT_EQ(net_.reformer(0).JoinersHeld("job"), 0u);
  EXPECT_EQ(net_.reformer(0).JoinersWaiting("job"), 0u);
}

// A joiner is held at node 0 and joins the next generation on the node where it started, after
// that node's ranks.
TEST_F(ReformerTest, AJoinerIsHeldAtNodeZeroAndJoinsOnItsOwnNode) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& j = Join(1);
  net_.Run();
  EXPECT_EQ(net_.reformer(0).JoinersWaiting("job"), 1u);
  EXPECT_EQ(net_.reformer(1).JoinersWaiting("job"), 0u);  // node 1's ranks re-form for nothing
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();
  EXPECT_EQ(Ranks({&r0, &r1, &j}), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(j.placed().node_ranks, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(j.placed().node, 1);
  EXPECT_EQ(j.placed().local_rank, 1);
}

// A joiner asks while the job's node 0 has no rank left: the lowest node that still has ranks
// holds it, and it joins the generation that node decides.
TEST_F(ReformerTest, AJoinerForAGoneNodeZeroIsHeldByTheLowestNodeWithRanks) {
  net_.RunJob("job", 0, {1, 1, 1});
  net_.reformer(0).Remember("job", net_.addrs());
  RankGone(0, nullptr);  // node 0's rank left: its agent runs no rank of the job
  for (int node : {1, 2}) net_.job(node, "job").gone[0] = true;
  fakes::Ask& j = Join(0);  // the replacement starts on node 0
  net_.Run();
  EXPECT_FALSE(j.answered());
  EXPECT_EQ(net_.reformer(1).JoinersWaiting("job"), 1u);
  fakes::Ask& r1 = AskNext(1, 1);
  fakes::Ask& r2 = AskNext(2, 2);
  net_.Run();
  EXPECT_EQ(Ranks({&r1, &r2, &j}), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(j.placed().root_addr, net_.addr(1));
  EXPECT_EQ(j.placed().node_ranks, (std::vector<int32_t>{1, 1, 1}));
}

// A joiner asks an agent whose new generation failed before its rendezvous completed (so it knows
// no agents of it from a rendezvous): it is passed to that generation's node 0, named by the
// decision that made it.
TEST_F(ReformerTest, AJoinerAtAGenerationWithoutARendezvousGoesToItsDecidedNodeZero) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();
  ASSERT_TRUE(r0.ok() && r1.ok());
  net_.RunJob("job", 1, {1, 1});
  for (int node : {0, 1}) net_.job(node, "job").members = 0;
  net_.job(1, GenerationJobId("job", 1)).agents.clear();  // its rendezvous never completed
  fakes::Ask& j = Join(1);
  net_.Run();
  EXPECT_FALSE(j.answered());
  EXPECT_EQ(net_.reformer(0).JoinersHeld("job"), 1u);
}

// Every rank of the job leaves while a joiner waits: the joiner is told at once, not at its
// deadline.
TEST_F(ReformerTest, AHeldJoinerIsToldAtOnceWhenItsJobEnds) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& j = Join(1);
  net_.Run();
  ASSERT_EQ(net_.reformer(0).JoinersHeld("job"), 1u);
  RankGone(1, nullptr);
  RankGone(0, nullptr);
  net_.Run();
  EXPECT_EQ(j.code(), Code::kUnavailable);
  EXPECT_THAT(j.message(), HasSubstr("could decide"));
}

// A joiner dies after it asked: its request stays open but shut for sending; an agent that has
// not decided yet leaves it out.
TEST_F(ReformerTest, AJoinerDyingAfterItAskedIsLeftOut) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& j = Join(1);
  net_.Run();
  net_.reformer(1).Forget(&j);
  EXPECT_EQ(net_.reformer(0).JoinersHeld("job"), 0u);
  fakes::Ask& r0 = AskNext(0, 0);
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();
  EXPECT_EQ(Ranks({&r0, &r1}), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(r1.placed().world_size, 2);
  EXPECT_FALSE(j.answered());
}

// Past 64 joiners on one node, a joiner is refused with RESOURCE_EXHAUSTED.
TEST_F(ReformerTest, TooManyJoinersOnANodeAreRefused) {
  net_.RunJob("job", 0, {1, 1});
  for (size_t i = 0; i < Reformer::kMaxJoinersPerNode; ++i) Join(1);
  fakes::Ask& one_more = Join(1);
  EXPECT_EQ(one_more.code(), Code::kResourceExhausted);
  net_.Run();
  EXPECT_EQ(net_.reformer(0).JoinersHeld("job"), Reformer::kMaxJoinersPerNode);
}

// A request about a job with another token, or a body that is not a request, is answered before
// anything of it is trusted.
TEST_F(ReformerTest, RequestsWithoutTheTokenOrMalformedAreRefused) {
  net_.RunJob("job", 0, {1, 1});
  struct Capture final : Responder {
    explicit Capture(std::optional<ReformDecision>* out) : out_(out) {}
    void Answer(const ReformDecision& d) override { *out_ = d; }
    void Redirect(const std::string&) override {}
    bool Closed() const override { return false; }
    std::optional<ReformDecision>* out_;
  };
  ReformRequest req;
  req.node = 1;
  req.ranks = {1};
  std::string good = EncodeReformRequest(req);
  std::optional<ReformDecision> d;
  net_.reformer(0).OnRequest("job", "guess", good, std::make_unique<Capture>(&d), "a", "b");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->status_code(), Code::kPermissionDenied);
  d.reset();
  net_.reformer(0).OnRequest("job", "tok", "{\"kind\":\"node\"}", std::make_unique<Capture>(&d),
                             "a", "b");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->status_code(), Code::kProtocol);
  EXPECT_THAT(d->message, HasSubstr("malformed request"));
  d.reset();
  net_.reformer(0).OnRequest("other", "tok", good, std::make_unique<Capture>(&d), "a", "b");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->absent);
  EXPECT_EQ(net_.reformer(0).StatusJson()["deciding"].size(), 0u);
}

// The decider waits for every node that still has ranks, but not past its deadline: a node that
// never reported is left out, and its late report is told the job went on without it.
TEST_F(ReformerTest, ANodeThatNeverReportsIsLeftOutAtTheDeadlineAndToldSoLater) {
  net_.RunJob("job", 0, {1, 1});
  fakes::Ask& r0 = AskNext(0, 0);
  net_.Run();
  EXPECT_FALSE(r0.answered());
  net_.Advance(kTimeoutMs * 3 / 4);
  ASSERT_TRUE(r0.ok()) << r0.message();
  EXPECT_EQ(r0.placed().world_size, 1);
  fakes::Ask& r1 = AskNext(1, 1);
  net_.Run();
  EXPECT_EQ(r1.code(), Code::kFailedPrecondition);
  EXPECT_THAT(r1.message(), HasSubstr("went on as generation 1 without node 1"));
}

// A report for a generation this agent's ranks have not entered yet waits for them (a fast node
// re-forms again at once) rather than being passed over as absent.
TEST_F(ReformerTest, AnEarlyReportWaitsForThisNodesRanksToEnter) {
  net_.RunJob("job", 0, {1, 1});
  net_.RunJob("job", 1, {1, 1});
  net_.job(1, "job").members = 0;                         // node 1's rank is in generation 1
  net_.at(0).jobs.jobs.erase(GenerationJobId("job", 1));  // node 0's is on its way
  fakes::Ask& r1 = AskNext(1, 1, 1);
  net_.Run();
  EXPECT_FALSE(r1.answered());
  net_.RunJob("job", 1, {1, 1});
  net_.job(0, "job").members = 0;
  net_.reformer(0).Entered(GenerationJobId("job", 1), "job");
  fakes::Ask& r0 = AskNext(0, 0, 1);
  net_.Run();
  ASSERT_TRUE(r0.ok()) << r0.message();
  ASSERT_TRUE(r1.ok()) << r1.message();
  EXPECT_EQ(r1.placed().generation, 2u);
  EXPECT_EQ(r1.placed().world_size, 2);
}

// Without the agents' port (a single-node agent), a generation is refused saying why.
TEST(ReformerSingleNodeTest, WithoutThePortAGenerationIsRefused) {
  fakes::FakeDirectory jobs;
  fakes::FakeClock clock;
  Reformer r(&jobs, nullptr, &clock, nullptr);
  std::optional<Result<ReformAssignment>> got;
  Asker a;
  a.job_id = "job";
  r.Ask(&got, a, 0, [&](Result<ReformAssignment> x) { got = std::move(x); });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), Code::kFailedPrecondition);
  EXPECT_THAT(got->status().message(), HasSubstr("--port 0"));
}

}  // namespace
}  // namespace outrider::agent::membership
