// The dense collective algorithms across nodes: in-process node groups joined by a FakeNetwork
// (3 nodes of 2 local ranks unless a test says otherwise), driven delivery by delivery. Every
// result is compared bit for bit with a reference computed here, on every rank. Input values are
// small multiples of 0.5, so sums are exact whatever order an algorithm adds in; an average then
// divides once, as the reference does.
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

// Large ops take the ring: small thresholds give several chunks per ring segment, and the counts
// below split unevenly into segments and chunks.
const EngineOptions kSmall{.direct_max_bytes = 1024, .chunk_bytes = 4096};
constexpr uint64_t kSmallCount = 100;    // 400 bytes: direct
constexpr uint64_t kLargeCount = 10007;  // 40028 bytes: 3 ring segments of ~13 KiB, 4 chunks each

// One rank's op and its memory.
struct Rank {
  std::vector<uint8_t> send, recv;
  ValidatedOp op;
};

template <typename T>
T Value(int rank, uint64_t i);
template <>
float Value<float>(int rank, uint64_t i) {
  return static_cast<float>(static_cast<int>((rank * 37 + i * 11) % 61) - 30) * 0.5f;
}
template <>
int32_t Value<int32_t>(int rank, uint64_t i) {
  return static_cast<int32_t>((rank * 7919 + i * 104729) % 20001) - 10000;
}
template <typename T>
constexpr DType kDType = std::is_same_v<T, float> ? DType::kF32 : DType::kI32;

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Bitwise comparison that names the first differing byte.
void ExpectBitwiseEqual(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  auto diff = std::mismatch(got.begin(), got.end(), want.begin());
  EXPECT_TRUE(diff.first == got.end()) << what << ": first difference at byte " << (diff.first - got.begin());
}

void StartAll(NodeCluster& c, int local, std::vector<Rank>& ranks, uint64_t key = 1, uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    std::vector<const ValidatedOp*> ops;
    for (int l = 0; l < local; ++l) ops.push_back(&ranks[static_cast<size_t>(n * local + l)].op);
    c.group(n).Start(key, seq, ops);
  }
}

void ExpectDoneEverywhere(const NodeCluster& c, std::string_view algo, uint64_t key = 1, uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeDone* d = c.done(n, key, seq);
    ASSERT_NE(d, nullptr) << "node " << n << " never finished";
    EXPECT_TRUE(d->status.ok()) << "node " << n << ": " << d->status.ToString();
    EXPECT_EQ(d->algo, algo) << "node " << n;
    EXPECT_EQ(d->calls, 1) << "node " << n;
  }
}

// Every node finished (key, seq) with `code`, its message containing each of `parts`.
void ExpectFailedEverywhere(const NodeCluster& c, Code code, const std::vector<std::string>& parts, uint64_t key = 1) {
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeDone* d = c.done(n, key, 0);
    ASSERT_NE(d, nullptr) << "node " << n << " never finished";
    EXPECT_EQ(d->status.code(), code) << "node " << n << ": " << d->status.ToString();
    for (const std::string& p : parts) EXPECT_NE(d->status.message().find(p), std::string::npos) << "node " << n << ": " << d->status.message();
    EXPECT_EQ(d->calls, 1) << "node " << n;
  }
}

// Delivers messages until the next one queued for node 0 is a ring chunk; hands node 0 that
// chunk's header moved by `shift` bytes with a payload of `len` bytes instead. Returns how node 0
// finished instance (1, 0), or nullptr while it has not.
const NodeDone* ForgeRingChunkToNode0(NodeCluster& c, uint64_t shift, uint64_t len) {
  for (;;) {
    std::vector<FakeNetwork::Envelope> queued = c.net().InFlight();
    EXPECT_FALSE(queued.empty()) << "no ring chunk for node 0";
    if (queued.empty()) return nullptr;
    PeerHeader h;
    std::memcpy(&h, queued.front().header.data(), sizeof(h));
    if (queued.front().to == 0 && h.type == static_cast<uint16_t>(PeerMsg::kRing)) {
      h.offset += shift;
      std::vector<uint8_t> payload(len, 0x3c);
      c.group(0).OnMessage(h, payload.data(), payload.size());
      return c.done(0, 1, 0);
    }
    c.net().Step();
  }
}

void ExpectRingChunkRefused(const NodeDone* d, const std::string& why) {
  ASSERT_NE(d, nullptr) << "node 0 took the chunk";
  EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
  EXPECT_NE(d->status.message().find(why), std::string::npos) << d->status.ToString();
}

// Rank r's op of instance key 1 (op id r + 1); memory is named by the caller.
ValidatedOp Op(int r, OpKind kind, DType dtype, uint64_t count) {
  ValidatedOp o;
  o.op_id = static_cast<uint64_t>(r + 1);
  o.key = 1;
  o.kind = kind;
  o.dtype = dtype;
  o.count = count;
  return o;
}

// ---- Allreduce ----

template <typename T>
std::vector<Rank> Allreduce(int world, uint64_t count, ReduceOp op) {
  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    Rank& x = ranks[static_cast<size_t>(r)];
    std::vector<T> v(count);
    for (uint64_t i = 0; i < count; ++i) v[i] = Value<T>(r, i);
    x.send = Bytes(v);
    x.recv.assign(x.send.size(), 0xEE);
    x.op = Op(r, OpKind::kAllreduce, kDType<T>, count);
    x.op.reduce_op = op;
    x.op.send = BufferSpan::Host(x.send.data(), x.send.size());
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size());
  }
  return ranks;
}

template <typename T>
std::vector<uint8_t> ReferenceAllreduce(int world, uint64_t count, ReduceOp op) {
  std::vector<T> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    T acc = Value<T>(0, i);
    for (int r = 1; r < world; ++r) acc = op == ReduceOp::kMax ? std::max(acc, Value<T>(r, i)) : acc + Value<T>(r, i);
    if (op == ReduceOp::kAvg) acc /= static_cast<T>(world);
    out[i] = acc;
  }
  return Bytes(out);
}

// Runs one allreduce on `nodes` x `local` ranks and checks every rank against the reference.
template <typename T>
void CheckAllreduce(int nodes, int local, uint64_t count, ReduceOp op, std::string_view algo) {
  NodeCluster c(nodes, local, kSmall);
  std::vector<Rank> ranks = Allreduce<T>(nodes * local, count, op);
  StartAll(c, local, ranks);
  c.Run();
  ExpectDoneEverywhere(c, algo);
  std::vector<uint8_t> want = ReferenceAllreduce<T>(nodes * local, count, op);
  for (size_t r = 0; r < ranks.size(); ++r) ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
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
  for (size_t r = 0; r < ranks.size(); ++r) ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
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
  for (size_t r = 0; r < ranks.size(); ++r) ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
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

TEST(RingAllreduceTest, AChunkStillLandingWhenTheInstanceFailsKeepsTheClientsRegionMappedUntilItHasLanded) {
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
  for (size_t r = 0; r < ranks.size(); ++r) ExpectBitwiseEqual(ranks[r].recv, want, "rank " + std::to_string(r));
}

TEST(BroadcastTest, SmallBufferFromARootOnAnotherNodeReachesEveryRank) { CheckBroadcast(kSmallCount, "direct"); }

TEST(BroadcastTest, LargeBufferTravelsTheChainFromTheRootsNodeToEveryRank) { CheckBroadcast(kLargeCount, "chain"); }

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
  for (size_t r = 0; r < ranks.size(); ++r) ExpectBitwiseEqual(ranks[r].recv, Bytes(want), "rank " + std::to_string(r));
}

TEST(AllgatherTest, SmallBlocksReachEveryRankInRankOrder) { CheckAllgather(40, false, "direct"); }

TEST(AllgatherTest, SmallBlocksInPlaceReachEveryRankInRankOrder) { CheckAllgather(40, true, "direct"); }

TEST(AllgatherTest, LargeBlocksTravelTheRingToEveryRankInRankOrder) { CheckAllgather(1001, false, "ring"); }

TEST(AllgatherTest, LargeBlocksInPlaceTravelTheRingToEveryRankInRankOrder) { CheckAllgather(1001, true, "ring"); }

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
  for (size_t r = 0; r < 6; ++r) ranks[r].op = Op(static_cast<int>(r), OpKind::kBarrier, DType::kF32, 0);
  for (int n = 0; n < 2; ++n) c.group(n).Start(1, 0, {&ranks[static_cast<size_t>(2 * n)].op, &ranks[static_cast<size_t>(2 * n + 1)].op});
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
      for (int64_t k = 0; k < Count(i, j); ++k) out.push_back(static_cast<int32_t>(1000 * i + 100 * j + static_cast<size_t>(k)));
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
      for (int64_t k = 0; k < Count(i, j); ++k) want.push_back(static_cast<int32_t>(1000 * i + 100 * j + static_cast<size_t>(k)));
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
  ExpectFailedEverywhere(c, Code::kMismatch, {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
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
  // Rank 1 (node 0) sends rank 2 (node 1) one element more than rank 2 expects; node 2 agrees with both.
  SendMore(ranks, 1, 2, 1);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch, {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

TEST(AlltoallvTest, CountDisagreementInsideOneNodeFailsEveryNode) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Alltoallv(6);
  // Rank 2 sends rank 3 (both on node 1) one element more than rank 3 expects.
  SendMore(ranks, 2, 3, 1);
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch, {"alltoallv counts disagree among ranks 2-3 (node 1)"});
  EXPECT_NE(c.done(1, 1, 0)->status.message().find("rank 2 sends 1 elements to rank 3, which expects 0"), std::string::npos)
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
  ExpectFailedEverywhere(c, Code::kMismatch, {"alltoallv counts disagree", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

// ---- Agreement between nodes, departures ----

TEST(NodeAgreementTest, NodesDisagreeingOnCountFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (size_t r = 4; r < 6; ++r) ranks[r].op.count = kSmallCount - 1;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch, {"disagree on count", "ranks 0-1 (node 0) has 100", "ranks 4-5 (node 2) has 99"});
}

TEST(NodeAgreementTest, NodesDisagreeingOnDtypeFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (size_t r = 2; r < 4; ++r) ranks[r].op.dtype = DType::kI32;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch, {"disagree on dtype", "ranks 0-1 (node 0)", "ranks 2-3 (node 1)"});
}

TEST(NodeAgreementTest, NodesDisagreeingOnRootFailEverywhereNamingTheField) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Broadcast(6, kSmallCount, 3);
  for (size_t r = 4; r < 6; ++r) ranks[r].op.root = 2;
  StartAll(c, 2, ranks);
  c.Run();
  ExpectFailedEverywhere(c, Code::kMismatch, {"disagree on root", "ranks 0-1 (node 0) has 3", "ranks 4-5 (node 2) has 2"});
}

TEST(NodeDepartureTest, NodeThatLeftFailsInstancesStillMissingItsContribution) {
  NodeCluster c(3, 2, kSmall);
  std::vector<Rank> ranks = Allreduce<float>(6, kSmallCount, ReduceOp::kSum);
  for (int n = 0; n < 2; ++n) c.group(n).Start(1, 0, {&ranks[static_cast<size_t>(2 * n)].op, &ranks[static_cast<size_t>(2 * n + 1)].op});
  c.Run();
  ASSERT_EQ(c.done(0, 1, 0), nullptr);
  c.group(2).SayJobLeft();
  c.Run();
  for (int n = 0; n < 2; ++n) {
    const NodeDone* d = c.done(n, 1, 0);
    ASSERT_NE(d, nullptr) << "node " << n;
    EXPECT_EQ(d->status.code(), Code::kPeerLost) << d->status.ToString();
    EXPECT_NE(d->status.message().find("ranks 4-5 (node 2) left job 'job'"), std::string::npos) << d->status.message();
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
  EXPECT_NE(d->status.message().find("ranks 4-5 (node 2) left"), std::string::npos) << d->status.message();
}

}  // namespace
}  // namespace outrider::agent
