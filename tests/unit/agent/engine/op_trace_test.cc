// OpTrace: spans of overlapping pieces, milestones, and the trace a ring allreduce leaves on
// each node of an in-process cluster.
#include "agent/engine/op_trace.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/unit/agent/engine/node_cluster.h"

namespace outrider::agent {
namespace {

TEST(OpTraceTest, OverlappingPiecesOfOneKindCountTheirUnionOnce) {
  OpTrace t;
  t.Start(1000);
  t.Begin(OpTrace::kReduce, 1010);
  t.Begin(OpTrace::kReduce, 1015);  // overlaps the first
  t.End(OpTrace::kReduce, 1020);
  t.End(OpTrace::kReduce, 1030);
  t.Begin(OpTrace::kReduce, 1100);
  t.End(OpTrace::kReduce, 1105);
  t.Begin(OpTrace::kWire, 1000);  // another kind overlaps freely
  t.End(OpTrace::kWire, 1200);
  t.End(OpTrace::kCopy, 1300);  // an end without a begin changes nothing
  t.Finish(1400);
  EXPECT_EQ(t.busy_ns(OpTrace::kReduce), 25u);
  EXPECT_EQ(t.busy_ns(OpTrace::kWire), 200u);
  EXPECT_EQ(t.busy_ns(OpTrace::kCopy), 0u);
  EXPECT_EQ(t.duration_ns(), 400u);
}

TEST(OpTraceTest, FinishClosesKindsStillOpenAndMilestonesAreRelativeToStart) {
  OpTrace t;
  t.Start(1'000'000);
  t.Agreed(2'000'000);
  t.Begin(OpTrace::kWire, 3'000'000);
  t.Received(4'000'000);
  t.Received(6'000'000);
  t.Begin(OpTrace::kQueued, 5'000'000);
  t.Finish(9'000'000);
  t.Finish(10'000'000);  // once only
  EXPECT_EQ(t.busy_ns(OpTrace::kQueued), 4'000'000u);
  nlohmann::json j = t.Json();
  EXPECT_DOUBLE_EQ(j["duration_ms"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(j["agreed_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["first_send_ms"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["first_recv_ms"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["last_recv_ms"].get<double>(), 5.0);
  EXPECT_EQ(j["chunks_recv"].get<uint64_t>(), 2u);
  EXPECT_DOUBLE_EQ(j["busy_ms"]["wire"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(j["busy_ms"]["credit_wait"].get<double>(), 4.0);
  for (const char* k : {"local_reduce", "reduce", "copy", "write_back"})
    EXPECT_DOUBLE_EQ(j["busy_ms"][k].get<double>(), 0.0) << k;
}

TEST(OpTraceTest, PrivateMemoryCountsAnonymousPagesThisProcessTouches) {
  uint64_t before = OpTrace::PrivateBytes();
  ASSERT_GT(before, 0u);
  std::vector<uint8_t> big(64u << 20);
  std::memset(big.data(), 1, big.size());
  EXPECT_GE(OpTrace::PrivateBytes(), before + (48u << 20));
  EXPECT_GT(big[12345], 0);
}

// A ring allreduce on 3 nodes of 2 local ranks: every node's trace counts the chunks it received
// and the time of the work it did.
TEST(OpTraceTest, RingAllreduceLeavesATraceOfItsChunksAndWorkOnEveryNode) {
  const EngineOptions options{.direct_max_bytes = 1024, .chunk_bytes = 4096};
  constexpr int kNodes = 3, kLocal = 2;
  constexpr uint64_t kCount = 10007;  // 3 ring segments of ~13 KiB: 4 chunks each
  NodeCluster c(kNodes, kLocal, options);
  std::vector<std::vector<float>> send(kNodes * kLocal, std::vector<float>(kCount, 1.5f)),
      recv = send;
  std::vector<ValidatedOp> ops(kNodes * kLocal);
  for (size_t r = 0; r < ops.size(); ++r) {
    ValidatedOp& o = ops[r];
    o.op_id = r + 1;
    o.key = 1;
    o.kind = ipc::OpKind::kAllreduce;
    o.dtype = ipc::DType::kF32;
    o.count = kCount;
    o.send = BufferSpan::Host(send[r].data(), kCount * 4);
    o.recv = BufferSpan::Host(recv[r].data(), kCount * 4);
  }
  for (int n = 0; n < kNodes; ++n) c.group(n).Start(1, 0, {&ops[n * kLocal], &ops[n * kLocal + 1]});
  c.Run();
  for (int n = 0; n < kNodes; ++n) {
    const NodeDone* d = c.done(n, 1, 0);
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(d->status.ok()) << d->status.ToString();
    nlohmann::json j = d->trace.Json();
    // Reduce-scatter brings every segment but this node's, allgather every one but the next's.
    EXPECT_EQ(j["chunks_recv"].get<uint64_t>(), 2u * 2u * 4u) << "node " << n;
    EXPECT_GT(d->trace.busy_ns(OpTrace::kLocalReduce), 0u) << "node " << n;
    EXPECT_GT(d->trace.busy_ns(OpTrace::kReduce), 0u) << "node " << n;
    EXPECT_GT(d->trace.busy_ns(OpTrace::kWriteBack), 0u) << "node " << n;  // local rank 1's copy
    EXPECT_GE(d->trace.duration_ns(), d->trace.busy_ns(OpTrace::kReduce)) << "node " << n;
    EXPECT_TRUE(j.contains("agreed_ms") && j.contains("first_send_ms") &&
                j.contains("last_recv_ms"))
        << j.dump();
  }
  for (const auto& r : recv) EXPECT_EQ(r[kCount - 1], 1.5f * kNodes * kLocal);
}

}  // namespace
}  // namespace outrider::agent
