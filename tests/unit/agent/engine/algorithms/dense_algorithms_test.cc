// The dense collective algorithms other than allreduce (broadcast, allgather, reduce-scatter,
// barrier, alltoallv) across nodes, and the nodes' agreement and departures: in-process node
// groups joined by a FakeNetwork (3 nodes of 2 local ranks unless a test says otherwise), driven
// delivery by delivery. Every result is compared bit for bit with a reference computed here, on
// every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/unit/agent/engine/algorithms/dense_harness.h"

namespace outrider::agent {
namespace {

using namespace dense_test;

// ---- Broadcast (in place: send and recv are the same buffer) ----

std::vector<Rank> Broadcast(int world, uint64_t count, int32_t root) {
  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    Rank& x = ranks[static_cast<size_t>(r)];
    std::vector<float> v(count);
    for (uint64_t i = 0; i < count; ++i) v[i] = r == root ? Value<float>(r, i) : -1.0f;
    x.recv = Bytes(v);
    x.op = Op(r, OpKind::kBroadcast, DType::kF32, count);
    x.op.root = root;
    x.op.recv = x.op.send = BufferSpan::Host(x.recv.data(), x.recv.size());
  }
  return ranks;
}

void CheckBroadcast(uint64_t count, std::string_view algo) {
  constexpr int32_t kRoot = 3;  // node 1, local rank 1
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Broadcast(6, count, kRoot);
  std::vector<uint8_t> want = ranks[kRoot].recv;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectDoneEverywhere(c, algo);
  for (size_t r = 0; r < ranks.size(); ++r)
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
}

TEST(BroadcastTest, SmallBufferFromARootOnAnotherNodeReachesEveryRank) {
  CheckBroadcast(kSmallCount, "direct");
}

TEST(BroadcastTest, LargeBufferTravelsTheChainFromTheRootsNodeToEveryRank) {
  CheckBroadcast(kLargeCount, "chain");
}

TEST(BroadcastTest, ChainChunkOffItsElementBoundariesFailsTheInstanceNamingIt) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Broadcast(2, kLargeCount, 1);  // node 1 sends node 0 the chain
  StartAll(c, 1, ranks);
  ExpectRingChunkRefused(ForgeRingChunkToNode0(c, 2, 4), "not whole f32 elements");
}

// ---- Allgather ----

// `in_place`: each rank's block sits in its own recv buffer, at its slot.
std::vector<Rank> Allgather(int world, uint64_t block, bool in_place) {
  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    Rank& x = ranks[static_cast<size_t>(r)];
    x.recv.assign(block * 4 * static_cast<size_t>(world), 0xEE);
    std::vector<float> v(block);
    for (uint64_t i = 0; i < block; ++i) v[i] = Value<float>(r, i);
    x.op = Op(r, OpKind::kAllgather, DType::kF32, block);
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size());
    if (in_place) {
      std::memcpy(x.recv.data() + static_cast<size_t>(r) * block * 4, v.data(), block * 4);
      x.op.send = x.op.recv.Sub(static_cast<uint64_t>(r) * block * 4, block * 4);
    } else {
      x.send = Bytes(v);
      x.op.send = BufferSpan::Host(x.send.data(), x.send.size());
    }
  }
  return ranks;
}

void CheckAllgather(uint64_t block, bool in_place, std::string_view algo) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allgather(6, block, in_place);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectDoneEverywhere(c, algo);
  std::vector<float> want;
  for (int r = 0; r < 6; ++r) {
    for (uint64_t i = 0; i < block; ++i) want.push_back(Value<float>(r, i));
  }
  for (size_t r = 0; r < ranks.size(); ++r)
    ExpectBitwiseEqual(ranks[r].recv, Bytes(want), "rank " + std::to_string(r));
}

TEST(AllgatherTest, SmallBlocksReachEveryRankInRankOrder) { CheckAllgather(40, false, "direct"); }

TEST(AllgatherTest, SmallBlocksInPlaceReachEveryRankInRankOrder) {
  CheckAllgather(40, true, "direct");
}

TEST(AllgatherTest, LargeBlocksTravelTheRingToEveryRankInRankOrder) {
  CheckAllgather(1001, false, "ring");
}

TEST(AllgatherTest, LargeBlocksInPlaceTravelTheRingToEveryRankInRankOrder) {
  CheckAllgather(1001, true, "ring");
}

TEST(AllgatherTest, RingChunkOffItsElementBoundariesFailsTheInstanceNamingIt) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Allgather(2, 1001, false);
  StartAll(c, 1, ranks);
  ExpectRingChunkRefused(ForgeRingChunkToNode0(c, 3, 4), "not whole f32 elements");
}

// ---- Reduce-scatter, barrier ----

TEST(ReduceScatterTest, EachRankGetsItsSliceReducedOverEveryRank) {
  constexpr uint64_t kBlock = 30;
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kBlock * 6, ReduceOp::kSum);
  for (Rank& x : ranks) {
    x.op.kind = OpKind::kReduceScatter;
    x.op.count = kBlock;
    x.recv.assign(kBlock * 4, 0xEE);
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size());
  }
  StartAll(c, 2, ranks);
  c.Run();
  ExpectDoneEverywhere(c, "direct");
  std::vector<uint8_t> full = ReferenceAllreduce<float>(6, kBlock * 6, ReduceOp::kSum);
  for (size_t r = 0; r < 6; ++r) {
    std::vector<uint8_t> want(full.begin() + static_cast<long>(r * kBlock * 4),
                              full.begin() + static_cast<long>((r + 1) * kBlock * 4));
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
  }
}

TEST(BarrierTest, CompletesOnNoNodeUntilEveryNodeArrived) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks(6);
  for (size_t r = 0; r < 6; ++r)
    ranks[r].op = Op(static_cast<int>(r), OpKind::kBarrier, DType::kF32, 0);
  for (int n = 0; n < 2; ++n)
    c.group(n).Start(
        1, 0, {&ranks[static_cast<size_t>(2 * n)].op, &ranks[static_cast<size_t>(2 * n + 1)].op});
  c.Run();
  for (int n = 0; n < 3; ++n) EXPECT_EQ(c.done(n, 1, 0), nullptr) << "node " << n;
  c.group(2).Start(1, 0, {&ranks[4].op, &ranks[5].op});
  c.Run();
  ExpectDoneEverywhere(c, "direct");
}

// ---- Alltoallv ----

// Rank i sends (i + 2j) % 4 elements to rank j (some blocks empty); element k of that block is
// 1000i + 100j + k.
int64_t Count(size_t i, size_t j) { return static_cast<int64_t>((i + 2 * j) % 4); }

std::vector<Rank> Alltoallv(size_t world) {
  std::vector<Rank> ranks(world);
  for (size_t i = 0; i < world; ++i) {
    Rank& x = ranks[i];
    x.op = Op(static_cast<int>(i), OpKind::kAlltoallv, DType::kI32, 0);
    std::vector<int32_t> out;
    uint64_t in = 0;
    for (size_t j = 0; j < world; ++j) {
      x.op.send_counts.push_back(Count(i, j));
      x.op.recv_counts.push_back(Count(j, i));
      for (int64_t k = 0; k < Count(i, j); ++k)
        out.push_back(static_cast<int32_t>(1000 * i + 100 * j + static_cast<size_t>(k)));
      in += static_cast<uint64_t>(Count(j, i));
    }
    x.send = Bytes(out);
    x.recv.assign(in * 4, 0xEE);
    x.op.send = BufferSpan::Host(x.send.data(), x.send.size());
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size());
  }
  return ranks;
}

TEST(AlltoallvTest, UnevenBlocksReachEveryRankInSenderOrder) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(6);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectDoneEverywhere(c, "direct");
  for (size_t j = 0; j < 6; ++j) {
    std::vector<int32_t> want;
    for (size_t i = 0; i < 6; ++i) {
      for (int64_t k = 0; k < Count(i, j); ++k)
        want.push_back(static_cast<int32_t>(1000 * i + 100 * j + static_cast<size_t>(k)));
    }
    ExpectBitwiseEqual(ranks[j].recv, Bytes(want), "rank " + std::to_string(j));
  }
}

TEST(AlltoallvTest, CountDisagreementBetweenNodesFailsEveryRankNamingBothSides) {
  NodeCluster c(2, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(4);
  // Rank 1 (node 0) sends rank 2 (node 1) one element more than rank 2 expects.
  ranks[1].op.send_counts[2] += 1;
  ranks[1].send.resize(ranks[1].send.size() + 4);
  ranks[1].op.send = BufferSpan::Host(ranks[1].send.data(), ranks[1].send.size());
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

// Rank `from` sends rank `to` `delta` elements more than it expects (its send buffer follows).
void SendMore(std::vector<Rank>& ranks, size_t from, size_t to, int64_t delta) {
  Rank& x = ranks[from];
  x.op.send_counts[to] += delta;
  int64_t total = 0;
  for (int64_t n : x.op.send_counts) total += n;
  x.send.resize(static_cast<size_t>(total) * 4);
  x.op.send = BufferSpan::Host(x.send.data(), x.send.size());
}

TEST(AlltoallvTest, CountDisagreementBetweenTwoNodesFailsTheThirdNodeToo) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(6);
  // Rank 1 (node 0) sends rank 2 (node 1) one element more than rank 2 expects; node 2 agrees with
  // both.
  SendMore(ranks, 1, 2, 1);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

TEST(AlltoallvTest, CountDisagreementInsideOneNodeFailsEveryNode) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(6);
  // Rank 2 sends rank 3 (both on node 1) one element more than rank 3 expects.
  SendMore(ranks, 2, 3, 1);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"alltoallv counts disagree among ranks 2-3 (node 1)"});
  EXPECT_NE(
      c.done(1, 1, 0)->status.message().find("rank 2 sends 1 elements to rank 3, which expects 0"),
      std::string::npos)
      << c.done(1, 1, 0)->status.message();
}

TEST(AlltoallvTest, PerRankCountsThatDisagreeInEqualTotalsFailEveryNodeInsteadOfMisplacingBlocks) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(6);
  // Rank 0 sends rank 2 one element more and rank 3 one fewer than they expect: node 0 still
  // sends node 1 as many elements in all as node 1 expects.
  SendMore(ranks, 0, 2, 1);
  SendMore(ranks, 0, 3, -1);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

// ---- Agreement between nodes, departures ----

TEST(NodeAgreementTest, NodesDisagreeingOnCountFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (size_t r = 4; r < 6; ++r) ranks[r].op.count = kSmallCount - 1;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(
      c, Code::kMismatch,
      {"disagree on count", "ranks 0-1 (node 0) has 100", "ranks 4-5 (node 2) has 99"});
}

TEST(NodeAgreementTest, NodesDisagreeingOnDtypeFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (size_t r = 2; r < 4; ++r) ranks[r].op.dtype = DType::kI32;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"disagree on dtype", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

TEST(NodeAgreementTest, NodesDisagreeingOnRootFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Broadcast(6, kSmallCount, 3);
  for (size_t r = 4; r < 6; ++r) ranks[r].op.root = 2;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(
      c, Code::kMismatch,
      {"disagree on root", "ranks 0-1 (node 0) has 3", "ranks 4-5 (node 2) has 2"});
}

TEST(NodeAgreementTest, AgentsWithDifferentDirectMaxBytesFailTheAllreduceNamingTheSetting) {
  // Node 2's agent would exchange 40 KB directly where the others run the ring.
  EngineOptions direct = kSmall;
  direct.direct_max_bytes = 1 << 20;
  NodeCluster c(2, {kSmall, kSmall, direct});
  std::vector<Rank> ranks = Allreduce<float>(6, kLargeCount, ReduceOp::kSum);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(
      c, Code::kMismatch,
      {"disagree on algorithm (the agents' direct_max_bytes differ)",
       "ranks 0-1 (node 0) has a ring or chain", "ranks 4-5 (node 2) has the direct exchange"});
}

TEST(NodeAgreementTest, AgentsWithDifferentDirectMaxBytesFailTheBroadcastToo) {
  EngineOptions direct = kSmall;
  direct.direct_max_bytes = 1 << 20;
  NodeCluster c(2, {direct, kSmall});
  std::vector<Rank> ranks = Broadcast(4, kLargeCount, 3);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch,
                         {"direct_max_bytes differ", "ranks 0-1 (node 0) has the direct exchange",
                          "ranks 2-3 (node 1) has a ring or chain"});
}

TEST(NodeDepartureTest, NodeThatLeftFailsInstancesStillMissingItsContribution) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (int n = 0; n < 2; ++n)
    c.group(n).Start(
        1, 0, {&ranks[static_cast<size_t>(2 * n)].op, &ranks[static_cast<size_t>(2 * n + 1)].op});
  c.Run();
  ASSERT_EQ(c.done(0, 1, 0), nullptr);
  c.group(2).SayJobLeft();
  c.Run();
  for (int n = 0; n < 2; ++n) {
    const NodeDone* d = c.done(n, 1, 0);
    ASSERT_NE(d, nullptr) << "node " << n;
    EXPECT_EQ(d->status.code(), Code::kPeerLost) << d->status.ToString();
    EXPECT_NE(d->status.message().find("ranks 4-5 (node 2) left job 'job'"), std::string::npos)
        << d->status.message();
  }
}

TEST(NodeDepartureTest, InstanceStartedAfterANodeLeftFailsAtOnce) {
  NodeCluster c(3, 2, kSmall);
  c.group(2).SayJobLeft();
  c.Run();
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  c.group(0).Start(1, 0, {&ranks[0].op, &ranks[1].op});
  const NodeDone* d = c.done(0, 1, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->status.code(), Code::kPeerLost) << d->status.ToString();
  EXPECT_NE(d->status.message().find("ranks 4-5 (node 2) left"), std::string::npos)
      << d->status.message();
}

}  // namespace
}  // namespace outrider::agent
