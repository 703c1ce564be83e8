// Allreduce across nodes, direct and ring: in-process node groups joined by a FakeNetwork, driven
// delivery by delivery. Every result is compared bit for bit with a reference computed here, on
// every rank; an average divides once, as the reference does.
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

// Runs one allreduce on `nodes` x `local` ranks and checks every rank against the reference.
template <typename T>
void CheckAllreduce(int nodes, int local, uint64_t count, ReduceOp op, std::string_view algo) {
  NodeCluster c(nodes, local, kSmall);
  std::vector<Rank> ranks = Allreduce<T>(nodes * local, count, op);
  StartAll(c, local, ranks);
  c.Run();
  ExpectDoneEverywhere(c, algo);
  std::vector<uint8_t> want = ReferenceAllreduce<T>(nodes * local, count, op);
  for (size_t r = 0; r < ranks.size(); ++r)
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
}

TEST(DirectAllreduceTest, SumsSmallBuffersBitwiseEqualOnEveryRank) {
  CheckAllreduce<float>(3, 2, kSmallCount, ReduceOp::kSum, "direct");
}

TEST(DirectAllreduceTest, AveragesSmallBuffersBitwiseEqualOnEveryRank) {
  CheckAllreduce<float>(3, 2, kSmallCount, ReduceOp::kAvg, "direct");
}

TEST(DirectAllreduceTest, TakesTheMaximumOfIntegersOnEveryRank) {
  CheckAllreduce<int32_t>(3, 2, kSmallCount, ReduceOp::kMax, "direct");
}

TEST(RingAllreduceTest, SumsAcrossNodesInUnevenSegmentsBitwiseEqualOnEveryRank) {
  CheckAllreduce<float>(3, 2, kLargeCount, ReduceOp::kSum, "ring");
}

TEST(RingAllreduceTest, AveragesAcrossNodesBitwiseEqualOnEveryRank) {
  CheckAllreduce<float>(3, 2, kLargeCount, ReduceOp::kAvg, "ring");
}

TEST(RingAllreduceTest, TakesTheMaximumOfIntegersAcrossNodes) {
  CheckAllreduce<int32_t>(3, 2, kLargeCount, ReduceOp::kMax, "ring");
}

TEST(RingAllreduceTest, SingleRankNodesReduceFromTheClientsSendBufferAndLeaveItUnchanged) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(2, kLargeCount, ReduceOp::kAvg);
  std::vector<std::vector<uint8_t>> inputs = {ranks[0].send, ranks[1].send};
  StartAll(c, 1, ranks);
  c.Run();
  ExpectDoneEverywhere(c, "ring");
  std::vector<uint8_t> want = ReferenceAllreduce<float>(2, kLargeCount, ReduceOp::kAvg);
  for (size_t r = 0; r < 2; ++r) {
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
    ExpectBitwiseEqual(ranks[r].send, inputs[r], "send buffer of rank " + std::to_string(r));
  }
}

TEST(RingAllreduceTest, PumpReducesLocalInputsSliceBySliceBeforeTheRingMoves) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kLargeCount, ReduceOp::kSum);
  StartAll(c, 2, ranks);
  uint64_t slices = (kLargeCount * 4 + kSmall.chunk_bytes - 1) / kSmall.chunk_bytes;
  for (int n = 0; n < 3; ++n) {
    uint64_t pumped = 0;
    while (c.group(n).Pump()) ++pumped;
    EXPECT_EQ(pumped, slices) << "node " << n;
  }
  c.Run();
  ExpectDoneEverywhere(c, "ring");
  std::vector<uint8_t> want = ReferenceAllreduce<float>(6, kLargeCount, ReduceOp::kSum);
  for (size_t r = 0; r < ranks.size(); ++r)
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
}

TEST(RingAllreduceTest, PumpBetweenDeliveriesGivesTheSameResult) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kLargeCount, ReduceOp::kAvg);
  StartAll(c, 2, ranks);
  uint64_t pumped = 0;
  for (bool moved = true; moved;) {
    moved = c.net().Step();
    for (int n = 0; n < 3; ++n) pumped += c.group(n).Pump() ? 1 : 0;
  }
  EXPECT_GT(pumped, 0u);
  ExpectDoneEverywhere(c, "ring");
  std::vector<uint8_t> want = ReferenceAllreduce<float>(6, kLargeCount, ReduceOp::kAvg);
  for (size_t r = 0; r < ranks.size(); ++r)
    ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
}

TEST(RingAllreduceTest, BrokenLinkMidRingFailsTheInstanceInsteadOfHanging) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(2, kLargeCount, ReduceOp::kSum);
  StartAll(c, 1, ranks);
  // The fingerprints and the first ring chunks cross; then the link breaks.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(c.net().Step());
  ASSERT_EQ(c.done(0, 1, 0), nullptr);
  ASSERT_EQ(c.done(1, 1, 0), nullptr);
  c.net().Break(0, 1);
  c.Run();
  ExpectFailedEverywhere(c, Code::kPeerLost, {});
}

TEST(RingAllreduceTest,
     AChunkStillLandingWhenTheInstanceFailsKeepsTheClientsRegionMappedUntilItHasLanded) {
  NodeCluster c(2, 1, kSmall);
  c.net().LandLater();  // as a rendezvous transfer: the buffer is taken first, the bytes land later
  std::vector<Rank> ranks = Allreduce<float>(2, kLargeCount, ReduceOp::kSum);
  // Node 0's result lands in a client region that the op holds, as the agent's ops do.
  auto region = std::make_shared<std::vector<uint8_t>>(ranks[0].recv.size(), 0xEE);
  std::weak_ptr<std::vector<uint8_t>> mapped = region;
  ranks[0].op.recv = BufferSpan::Host(region->data(), region->size());
  ranks[0].op.Hold(region);
  StartAll(c, 1, ranks);
  auto landing_at_0 = [&] {
    for (const FakeNetwork::Envelope& e : c.net().InFlight()) {
      if (e.to == 0 && e.landing) return true;
    }
    return false;
  };
  while (!landing_at_0()) ASSERT_TRUE(c.net().Step()) << "no ring chunk took node 0's buffer";
  // The instance fails while that chunk is still landing; the op is gone and the client releases
  // the region.
  c.group(0).FailAll(PeerLost("node 1 of job 'job' is lost"));
  ASSERT_NE(c.done(0, 1, 0), nullptr);
  ranks[0].op.holds = {};
  region.reset();
  EXPECT_FALSE(mapped.expired()) << "the region went while a chunk was still landing in it";
  c.Run();  // it lands, into memory that is still there, and is dropped
  EXPECT_TRUE(mapped.expired()) << "the landed chunk still holds the region";
}

TEST(RingAllreduceTest, ChunkOffItsElementBoundariesFailsTheInstanceNamingIt) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(2, kLargeCount, ReduceOp::kSum);
  StartAll(c, 1, ranks);
  ExpectRingChunkRefused(ForgeRingChunkToNode0(c, 1, 8), "ring chunk of 8 bytes at offset");
  ExpectRingChunkRefused(c.done(0, 1, 0), "not whole f32 elements");
}

TEST(RingAllreduceTest, EmptyChunkFailsTheInstanceInsteadOfCountingAsArrived) {
  NodeCluster c(2, 1, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(2, kLargeCount, ReduceOp::kSum);
  StartAll(c, 1, ranks);
  ExpectRingChunkRefused(ForgeRingChunkToNode0(c, 0, 0), ": empty");
}

}  // namespace
}  // namespace outrider::agent
