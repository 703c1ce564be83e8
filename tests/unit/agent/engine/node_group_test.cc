// How a job's node groups end what can no longer complete: a node lost or gone in the middle of
// an instance, an instance that fails on one node only, and messages that arrive for instances a
// node already finished. In-process node groups (3 nodes of one local rank) joined by a
// FakeNetwork and driven delivery by delivery; a link's messages stay in order, the network's
// need not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/agent/engine/node_cluster.h"

namespace outrider::agent {
namespace {

using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;

// Large ops take the ring with several chunks per segment; sparse messages travel in several
// chunks.
const EngineOptions kSmall{.direct_max_bytes = 1024, .chunk_bytes = 4096};
constexpr uint64_t kKey = 1;
constexpr int kNodes = 3;

enum class Kind {
  kRingAllreduce,
  kChainBroadcast,
  kGatherRing,
  kSparseAllreduce,
  kDirectAllreduce
};

std::string KindName(Kind k) {
  switch (k) {
    case Kind::kRingAllreduce:
      return "RingAllreduce";
    case Kind::kChainBroadcast:
      return "ChainBroadcast";
    case Kind::kGatherRing:
      return "GatherRing";
    case Kind::kSparseAllreduce:
      return "SparseAllreduce";
    case Kind::kDirectAllreduce:
      return "DirectAllreduce";
  }
  return "";
}

// One rank's op of instance (kKey, seq) and its memory. Not copied once filled: the op names it.
struct Rank {
  std::vector<float> send, recv;
  std::vector<int64_t> ids, out_ids;
  ValidatedOp op;
};

void Fill(Rank& x, Kind kind, int r, int world) {
  constexpr uint64_t kCount = 10007, kBlock = 1001, kRows = 1000, kDim = 8, kNnz = 300;
  ValidatedOp& o = x.op;
  o.op_id = static_cast<uint64_t>(r + 1);
  o.key = kKey;
  o.dtype = DType::kF32;
  auto values = [&](uint64_t n) {
    x.send.resize(n);
    for (uint64_t i = 0; i < n; ++i)
      x.send[i] = static_cast<float>((static_cast<uint64_t>(r) * 7 + i) % 13) * 0.5f;
  };
  switch (kind) {
    case Kind::kRingAllreduce:
    case Kind::kDirectAllreduce:
      o.kind = OpKind::kAllreduce;
      o.reduce_op = ReduceOp::kSum;
      o.count = kind == Kind::kRingAllreduce ? kCount : 100;
      values(o.count);
      x.recv.assign(o.count, -1.0f);
      o.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
      o.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
      return;
    case Kind::kChainBroadcast:
      // From rank 1: the chain runs node 1 -> 2 -> 0.
      o.kind = OpKind::kBroadcast;
      o.count = kCount;
      o.root = 1;
      values(o.count);
      o.recv = o.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
      return;
    case Kind::kGatherRing:
      o.kind = OpKind::kAllgather;
      o.count = kBlock;
      values(kBlock);
      x.recv.assign(kBlock * static_cast<uint64_t>(world), -1.0f);
      o.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
      o.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
      return;
    case Kind::kSparseAllreduce:
      o.kind = OpKind::kSparseAllreduce;
      o.count = kDim;
      o.rows = kRows;
      o.id_dtype = DType::kI64;
      o.algo = static_cast<uint32_t>(ipc::SparseAlgo::kAllgather);
      for (uint64_t i = 0; i < kNnz; ++i)
        x.ids.push_back(static_cast<int64_t>(i * 3 + static_cast<uint64_t>(r)));
      values(kNnz * kDim);
      o.ids = BufferSpan::Host(x.ids.data(), x.ids.size() * 8);
      o.nnz = kNnz;
      o.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
      o.capacity = kRows;
      x.out_ids.assign(kRows, -1);
      x.recv.assign(kRows * kDim, 0);
      o.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
      o.out_ids = BufferSpan::Host(x.out_ids.data(), x.out_ids.size() * 8);
      return;
  }
}

std::vector<Rank> Ranks(Kind kind, int world = kNodes) {
  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) Fill(ranks[static_cast<size_t>(r)], kind, r, world);
  return ranks;
}

void StartAll(NodeCluster& c, std::vector<Rank>& ranks, uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n)
    c.group(n).Start(kKey, seq, {&ranks[static_cast<size_t>(n)].op});
}

// Every node has every node's fingerprint (the instance is agreed, or done) for (kKey, seq).
bool AllAgreed(NodeCluster& c, uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    if (c.group(n).WaitingFor(kKey, seq).rfind("contributions of", 0) == 0) return false;
  }
  return true;
}

bool Contains(const Status& st, const std::string& part) {
  return st.message().find(part) != std::string::npos;
}

void ExpectOkEverywhere(const NodeCluster& c, uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeDone* d = c.done(n, kKey, seq);
    ASSERT_NE(d, nullptr) << "node " << n << " never finished seq " << seq;
    EXPECT_TRUE(d->status.ok()) << "node " << n << ": " << d->status.ToString();
    EXPECT_EQ(d->calls, 1) << "node " << n;
  }
}

// Delivers until some node has finished (kKey, 0) while another has not; returns the last such
// node, or -1 if the network ran dry first.
int StepUntilSomeButNotAllFinished(NodeCluster& c) {
  for (;;) {
    if (!c.net().Step()) return -1;
    int done = 0, finished = -1;
    for (int n = 0; n < c.nodes(); ++n) {
      if (c.done(n, kKey, 0) != nullptr) {
        ++done;
        finished = n;
      }
    }
    if (done > 0 && done < c.nodes()) return finished;
  }
}

// ---- Nodes lost or gone mid-instance ----

class MidFlightTest : public ::testing::TestWithParam<Kind> {
 protected:
  // Starts the instance on every node and delivers until every node has every fingerprint.
  void StartAndAgree() {
    StartAll(c_, ranks_);
    while (!AllAgreed(c_)) ASSERT_TRUE(c_.net().Step());
    ASSERT_EQ(c_.done(0, kKey, 0), nullptr)
        << "node 0 finished already; the test needs it mid-flight";
  }
  void ExpectNodeZeroFailed(Code code, const std::string& part) {
    const NodeDone* d = c_.done(0, kKey, 0);
    ASSERT_NE(d, nullptr) << "node 0 still waits for " << c_.group(0).WaitingFor(kKey, 0);
    EXPECT_EQ(d->status.code(), code) << d->status.ToString();
    EXPECT_TRUE(Contains(d->status, part)) << d->status.message();
    EXPECT_EQ(d->calls, 1);
    EXPECT_FALSE(c_.group(0).busy());
  }

  NodeCluster c_{kNodes, 1, kSmall};
  std::vector<Rank> ranks_ = Ranks(GetParam());
};

// Nodes 1 and 2 stop hearing each other (only their silence deadlines notice), so their jobs fail
// and end; node 0, which still reaches both and waits for data that would have passed between
// them, must fail too once they leave.
TEST_P(MidFlightTest, NodesThatGaveUpAfterLosingEachOtherFailTheInstanceOnTheNodeThatReachesBoth) {
  StartAndAgree();
  c_.group(1).FailAll(PeerLost("rank 2 (node 2) of job 'job' is lost: no message for 3000 ms"));
  c_.group(2).FailAll(PeerLost("rank 1 (node 1) of job 'job' is lost: no message for 3000 ms"));
  c_.Run();
  ASSERT_EQ(c_.done(0, kKey, 0), nullptr) << "nothing told node 0 yet";
  c_.group(1).SayJobLeft(/*lost_node=*/2);
  c_.group(2).SayJobLeft(/*lost_node=*/1);
  c_.Run();
  ExpectNodeZeroFailed(Code::kPeerLost, "of job 'job' is lost (reported by rank");
}

// The link between nodes 1 and 2 breaks: their sends to each other fail, and node 0 hears of it
// from them at once.
TEST_P(MidFlightTest, LinkThatBreaksBetweenTwoNodesFailsTheInstanceOnTheThirdToo) {
  StartAndAgree();
  c_.net().Break(1, 2);
  c_.Run();
  ExpectNodeZeroFailed(Code::kPeerLost, "broke");
}

INSTANTIATE_TEST_SUITE_P(EveryPipelinedAlgorithm, MidFlightTest,
                         ::testing::Values(Kind::kRingAllreduce, Kind::kChainBroadcast,
                                           Kind::kGatherRing, Kind::kSparseAllreduce),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return KindName(info.param);
                         });

// Node 2 contributed, then gave up (it lost node 1) before node 0's ranks submitted: node 0 must
// not start a ring that node 2 will never serve.
TEST(NodeDepartureTest, InstanceStartedAfterANodeGaveUpFailsAtOnceThoughItsContributionArrived) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kRingAllreduce);
  c.group(1).Start(kKey, 0, {&ranks[1].op});
  c.group(2).Start(kKey, 0, {&ranks[2].op});
  c.Run();
  c.group(2).FailAll(PeerLost("rank 1 (node 1) of job 'job' is lost: no message for 3000 ms"));
  c.group(2).SayJobLeft(/*lost_node=*/1);
  c.Run();
  c.group(0).Start(kKey, 0, {&ranks[0].op});
  const NodeDone* d = c.done(0, kKey, 0);
  ASSERT_NE(d, nullptr) << "node 0 waits for " << c.group(0).WaitingFor(kKey, 0);
  EXPECT_EQ(d->status.code(), Code::kPeerLost) << d->status.ToString();
  EXPECT_TRUE(
      Contains(d->status, "rank 1 (node 1) of job 'job' is lost (reported by rank 2 (node 2))"))
      << d->status.message();
}

TEST(NodeDepartureTest, NodeThatFinishedItsPartAndLeftInOrderLetsTheOthersComplete) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kRingAllreduce);
  StartAll(c, ranks);
  // Deliver until one node has its result while another still waits for ring chunks.
  int finished = StepUntilSomeButNotAllFinished(c);
  ASSERT_GE(finished, 0) << "no node finished while another still waited";
  ASSERT_FALSE(c.group(finished).busy());
  c.group(finished).SayJobLeft();
  c.Run();
  ExpectOkEverywhere(c);
}

// A node whose ranks left in order after an earlier op failed (they saw the error and shut down)
// finished every instance it contributed to: the others complete those, and fail only what still
// misses its contribution, naming the earlier failure. A node that gave up with that failure left
// instances half done: the others fail every one they still run.
TEST(NodeDepartureTest,
     NodeThatLeftAfterAnEarlierFailureFailsOnlyWhatMissesItsContributionUnlessItGaveUp) {
  for (bool gave_up : {false, true}) {
    SCOPED_TRACE(gave_up ? "gave up" : "left in order");
    NodeCluster c(kNodes, 1, kSmall);
    std::vector<Rank> ranks = Ranks(Kind::kRingAllreduce);
    std::vector<Rank> next = Ranks(Kind::kDirectAllreduce);
    StartAll(c, ranks);
    int finished = StepUntilSomeButNotAllFinished(c);
    ASSERT_GE(finished, 0) << "no node finished while another still waited";
    // Seq 1 starts everywhere but on the leaving node.
    for (int n = 0; n < kNodes; ++n) {
      if (n != finished) c.group(n).Start(kKey, 1, {&next[static_cast<size_t>(n)].op});
    }
    // What the leaving node sent arrives; then its departure, before the rest of seq 0 passes
    // between the others.
    auto deliver_from_leaver = [&] {
      for (int n = 0; n < kNodes; ++n) {
        while (n != finished && c.net().StepLink(finished, n)) {
        }
      }
    };
    deliver_from_leaver();
    std::vector<int> waited;  // nodes still waiting for data of seq 0 when the departure comes
    for (int n = 0; n < kNodes; ++n) {
      std::string what = c.group(n).WaitingFor(kKey, 0);
      if (n != finished && !what.empty() && what != "sends to finish") waited.push_back(n);
    }
    c.group(finished).SayJobLeft(-1, Mismatch("allreduce seq 7: ranks disagree on count"), gave_up);
    deliver_from_leaver();
    c.Run();
    if (gave_up) {
      ASSERT_FALSE(waited.empty()) << "every node finished seq 0 before the departure";
    }
    for (int n = 0; n < kNodes; ++n) {
      if (n == finished) continue;
      const NodeDone* d = c.done(n, kKey, 0);
      ASSERT_NE(d, nullptr) << "node " << n << " waits for " << c.group(n).WaitingFor(kKey, 0);
      bool doomed = gave_up && std::find(waited.begin(), waited.end(), n) != waited.end();
      EXPECT_EQ(d->status.code(), doomed ? Code::kMismatch : Code::kOk)
          << "node " << n << ": " << d->status.ToString();
      const NodeDone* missing = c.done(n, kKey, 1);
      ASSERT_NE(missing, nullptr) << "node " << n << " waits for "
                                  << c.group(n).WaitingFor(kKey, 1);
      EXPECT_EQ(missing->status.code(), Code::kMismatch) << missing->status.ToString();
      EXPECT_TRUE(Contains(missing->status, "seq 7: ranks disagree on count"))
          << missing->status.message();
    }
  }
}

// A rank elsewhere got its result and died at once: its node fails the job on every node while
// an instance that already has every contribution here still waits for its own sends to go out.
// That instance's result stands, and its ranks get it once, whatever the sends do next.
TEST(NodeDepartureTest, InstanceFinishedHereWithSendsOnTheWayKeepsItsResultWhenTheJobFails) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kDirectAllreduce);
  StartAll(c, ranks);
  // Node 0 receives both other contributions; its own stay queued to nodes 1 and 2.
  while (c.net().StepLink(1, 0) || c.net().StepLink(2, 0)) {
  }
  ASSERT_EQ(c.done(0, kKey, 0), nullptr);
  ASSERT_EQ(c.group(0).WaitingFor(kKey, 0), "sends to finish");
  c.group(0).FailAll(
      PeerLost("rank 1 (local rank 0, pid 7) of job 'job' left: client closed its connection"));
  const NodeDone* d = c.done(0, kKey, 0);
  ASSERT_NE(d, nullptr) << "node 0 still waits for " << c.group(0).WaitingFor(kKey, 0);
  EXPECT_TRUE(d->status.ok()) << d->status.ToString();
  for (size_t i = 0; i < ranks[0].recv.size(); ++i) {
    float sum = ranks[0].send[i] + ranks[1].send[i] + ranks[2].send[i];
    ASSERT_EQ(ranks[0].recv[i], sum) << "element " << i;
  }
  c.Run();
  EXPECT_EQ(c.done(0, kKey, 0)->calls, 1);
  EXPECT_FALSE(c.group(0).busy());
}

// ---- An instance that fails on one node only ----

TEST(InstanceFailureTest, OpThatFailsOnOneNodeBeforeItsContributionFailsOnEveryNodeNamingIt) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kDirectAllreduce);
  // Node 2's op names device memory its data plane cannot reach.
  ranks[2].op.recv.kind = MemoryKind::kCudaFd;
  ranks[2].op.recv.device = 0;
  StartAll(c, ranks);
  c.Run();
  for (int n = 0; n < kNodes; ++n) {
    const NodeDone* d = c.done(n, kKey, 0);
    ASSERT_NE(d, nullptr) << "node " << n << " still waits for " << c.group(n).WaitingFor(kKey, 0);
    EXPECT_EQ(d->status.code(), Code::kFailedPrecondition) << d->status.ToString();
    EXPECT_TRUE(Contains(d->status, "not reachable by this agent's data plane"))
        << d->status.message();
    if (n != 2) {
      EXPECT_TRUE(Contains(d->status, "rank 2 (node 2)")) << d->status.message();
    }
    EXPECT_EQ(d->calls, 1);
  }
}

// A peer (here a stray endpoint speaking for node 0) sends node 1 a chunk outside the buffer in
// the middle of a ring: node 1 fails the instance, and so must the nodes that wait for it.
TEST(InstanceFailureTest, RingThatFailsOnOneNodeMidFlightFailsOnEveryNodeAndLateChunksAreDropped) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kRingAllreduce);
  StartAll(c, ranks);
  while (!AllAgreed(c)) ASSERT_TRUE(c.net().Step());
  std::unique_ptr<FakeTransport> stray = c.net().Attach({});
  Result<PeerId> to1 = stray->Connect(FakeNetwork::Address(1));
  ASSERT_TRUE(to1.ok());
  PeerHeader h{};
  h.magic = kPeerMagic;
  h.version = kPeerVersion;
  h.type = static_cast<uint16_t>(PeerMsg::kRing);
  h.job_hash = 7;
  h.key = kKey;
  h.from_node = 0;
  h.offset = 1ull << 40;
  uint8_t bad[4] = {};
  ASSERT_TRUE(stray->Send(*to1, Lane::kBulk, &h, sizeof(h), bad, sizeof(bad), nullptr).ok());
  ASSERT_TRUE(c.net().StepLink(stray->index(), 1));
  ASSERT_NE(c.done(1, kKey, 0), nullptr);
  // Everything node 1 sent arrives before the chunks node 0 had already sent it.
  while (c.net().StepLink(1, 0) || c.net().StepLink(1, 2)) {
  }
  bool late = false;
  for (const FakeNetwork::Envelope& e : c.net().InFlight()) late |= e.from == 0 && e.to == 1;
  ASSERT_TRUE(late) << "no chunk of node 0 left on its way to node 1";
  c.Run();
  for (int n = 0; n < kNodes; ++n) {
    const NodeDone* d = c.done(n, kKey, 0);
    ASSERT_NE(d, nullptr) << "node " << n << " still waits for " << c.group(n).WaitingFor(kKey, 0);
    EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
    if (n != 1) {
      EXPECT_TRUE(Contains(d->status, "rank 1 (node 1)")) << d->status.message();
    }
    EXPECT_EQ(d->calls, 1);
    EXPECT_EQ(c.group(n).WaitingFor(kKey, 0), "") << "node " << n << " holds the instance again";
  }
}

// ---- Messages for instances already finished ----

TEST(StaleMessageTest, ContributionArrivingAfterItsInstanceWasAbortedIsDroppedAndTheNextSeqRuns) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<Rank> ranks = Ranks(Kind::kDirectAllreduce);
  c.group(0).Start(kKey, 0, {&ranks[0].op});
  c.group(1).Start(kKey, 0, {&ranks[1].op});
  // Node 2's ranks disagreed among themselves: it aborts the instance on every node, and its
  // aborts arrive before the contributions nodes 0 and 1 sent it.
  c.group(2).Abort(kKey, 0, Mismatch("ranks 2 and 5 disagree"));
  ASSERT_TRUE(c.net().StepLink(2, 0));
  ASSERT_TRUE(c.net().StepLink(2, 1));
  c.Run();
  for (int n = 0; n < 2; ++n) {
    const NodeDone* d = c.done(n, kKey, 0);
    ASSERT_NE(d, nullptr) << "node " << n;
    EXPECT_EQ(d->status.code(), Code::kMismatch) << d->status.ToString();
  }
  EXPECT_EQ(c.group(2).WaitingFor(kKey, 0), "") << "a late contribution brought the instance back";
  EXPECT_EQ(c.group(2).instance_count(), 0u);
  std::vector<Rank> next = Ranks(Kind::kDirectAllreduce);
  StartAll(c, next, 1);
  c.Run();
  ExpectOkEverywhere(c, 1);
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(c.group(n).instance_count(), 0u) << "node " << n;
}

TEST(StaleMessageTest, FinishedInstancesLeaveNothingBehindWhateverOrderTheyFinishIn) {
  NodeCluster c(kNodes, 1, kSmall);
  std::vector<std::vector<Rank>> seqs;
  for (int s = 0; s < 3; ++s) seqs.push_back(Ranks(Kind::kDirectAllreduce));
  // Seq 2 and seq 1 finish before seq 0: node 0 submits seq 0 last.
  for (uint64_t s : {2, 1}) StartAll(c, seqs[s], s);
  for (int n = 1; n < kNodes; ++n) c.group(n).Start(kKey, 0, {&seqs[0][static_cast<size_t>(n)].op});
  c.Run();
  ASSERT_NE(c.done(0, kKey, 1), nullptr);
  ASSERT_EQ(c.done(0, kKey, 0), nullptr);
  c.group(0).Start(kKey, 0, {&seqs[0][0].op});
  c.Run();
  for (uint64_t s = 0; s < 3; ++s) ExpectOkEverywhere(c, s);
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(c.group(n).instance_count(), 0u) << "node " << n;
}

}  // namespace
}  // namespace outrider::agent
