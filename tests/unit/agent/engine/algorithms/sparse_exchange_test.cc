// The sparse exchange adapter on two in-process node groups joined by a FakeNetwork: how it
// reassembles the chunks of another node's messages, whatever their headers claim.
#include "agent/engine/algorithms/sparse_exchange.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "agent/engine/sparse/codec.h"
#include "ipc/defaults.h"
#include "tests/unit/agent/engine/node_cluster.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kKey = 3;

// One node's sparse allreduce (allgather) of a few rows.
struct SparseRank {
  std::vector<int64_t> ids{1, 5, 9};
  std::vector<float> vals = std::vector<float>(3 * 2, 1.0f);
  std::vector<int64_t> out_ids = std::vector<int64_t>(16, -1);
  std::vector<float> out_vals = std::vector<float>(16 * 2, 0.0f);
  ValidatedOp op;

  SparseRank() {
    op.kind = ipc::OpKind::kSparseAllreduce;
    op.dtype = ipc::DType::kF32;
    op.count = 2;  // dim
    op.rows = 100;
    op.id_dtype = ipc::DType::kI64;
    op.algo = static_cast<uint32_t>(ipc::SparseAlgo::kAllgather);
    op.ids = BufferSpan::Host(ids.data(), ids.size() * 8);
    op.nnz = ids.size();
    op.send = BufferSpan::Host(vals.data(), vals.size() * 4);
    op.capacity = 16;
    op.recv = BufferSpan::Host(out_vals.data(), out_vals.size() * 4);
    op.out_ids = BufferSpan::Host(out_ids.data(), out_ids.size() * 8);
  }
};

// Delivers messages until the next one queued for node 0 is a sparse chunk (both nodes agreed);
// returns its header.
PeerHeader StepToFirstSparseChunkFor0(NodeCluster& c) {
  for (;;) {
    std::vector<FakeNetwork::Envelope> queued = c.net().InFlight();
    EXPECT_FALSE(queued.empty());
    if (queued.empty()) return {};
    PeerHeader h;
    std::memcpy(&h, queued.front().header.data(), sizeof(h));
    if (queued.front().to == 0 && h.type == static_cast<uint16_t>(PeerMsg::kSparse)) return h;
    c.net().Step();
  }
}

// Two nodes, each starting a sparse allreduce of a few rows.
class SparseExchangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    c.group(0).Start(kKey, 0, {&r0.op});
    c.group(1).Start(kKey, 0, {&r1.op});
  }
  // Node `n` finished the op with a protocol error whose message contains `why`.
  void ExpectProtocolError(int n, const std::string& why) {
    const NodeDone* d = c.done(n, kKey, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
    EXPECT_NE(d->status.message().find(why), std::string::npos) << d->status.ToString();
  }

  NodeCluster c{2, 1};
  SparseRank r0, r1;
};

TEST_F(SparseExchangeTest, ChunkAnnouncingAMessageLargerThanTheOpCouldProduceFailsTheOp) {
  PeerHeader real = StepToFirstSparseChunkFor0(c);
  // A chunk of 16 bytes at the end of a message it claims is 1 TiB long: node 0 reserves nothing
  // for it and fails the op, naming why.
  PeerHeader huge = real;
  huge.message_bytes = ipc::kMaxOpBytes;
  huge.offset = ipc::kMaxOpBytes - 16;
  std::vector<uint8_t> bytes(16, 0xab);
  c.group(0).OnMessage(huge, bytes.data(), bytes.size());
  ExpectProtocolError(0, "larger than this op can produce");
}

TEST_F(SparseExchangeTest, ChunkThatChangesAMessagesLengthFailsTheOp) {
  PeerHeader real = StepToFirstSparseChunkFor0(c);
  // A chunk of 16 bytes past the end of the real message, announcing it 16 bytes longer: held.
  PeerHeader longer = real;
  longer.message_bytes = real.message_bytes + 16;
  longer.offset = real.message_bytes;
  std::vector<uint8_t> bytes(16, 0xab);
  c.group(0).OnMessage(longer, bytes.data(), bytes.size());
  EXPECT_EQ(c.done(0, kKey, 0), nullptr);
  // The same message then arrives with its real length: node 0 fails the op, naming why.
  c.Run();
  ExpectProtocolError(0, "changed a sparse message's length");
}

TEST_F(SparseExchangeTest, AnnouncementWhoseQuantilesDoNotIncreaseFailsTheOp) {
  // Node 1's announcement reaches node 0 forged ahead of the real one (which is then a duplicate).
  std::optional<PeerHeader> contrib;
  for (const FakeNetwork::Envelope& e : c.net().InFlight()) {
    PeerHeader h;
    std::memcpy(&h, e.header.data(), sizeof(h));
    if (e.to == 0 && h.type == static_cast<uint16_t>(PeerMsg::kContrib)) contrib = h;
  }
  ASSERT_TRUE(contrib.has_value());
  SparseAnnounce a{};
  a.rows = r1.op.rows;
  a.nnz = 3;
  a.blocks = 2;
  a.block_rows = 8;
  a.union_ratio = a.block_union_ratio = -1;
  a.quantile_n = 3;
  std::vector<uint8_t> payload(sizeof(a) + 3 * 8);
  std::memcpy(payload.data(), &a, sizeof(a));
  const uint64_t quantiles[3] = {5, 1, 9};
  std::memcpy(payload.data() + sizeof(a), quantiles, sizeof(quantiles));
  c.group(0).OnMessage(*contrib, payload.data(), payload.size());
  c.Run();
  ExpectProtocolError(0, "quantiles");
  // Node 1 is told and fails too: nobody waits.
  ASSERT_NE(c.done(1, kKey, 0), nullptr);
  EXPECT_FALSE(c.done(1, kKey, 0)->status.ok());
}

TEST_F(SparseExchangeTest, MessagesWhoseChunksArriveLastFirstAreAssembled) {
  PeerHeader h = StepToFirstSparseChunkFor0(c);
  // Node 1's allgather messages (one per agreed id range, encoded as it encodes them) reach node 0
  // in two chunks each, the second first.
  sparse::Table table{r1.op.rows, r1.op.count, r1.op.dtype};
  sparse::Rows rows;
  rows.ids = {1, 5, 9};
  rows.vals.assign(r1.vals.begin(), r1.vals.end());
  std::vector<uint64_t> q = sparse::IdQuantiles(rows.ids, sparse::kAllgatherRanges);
  std::vector<sparse::IdRange> ranges =
      sparse::RangesFrom(sparse::MergeQuantiles({q, q}), table.rows);
  ASSERT_GT(ranges.size(), 1u);
  size_t begin = 0;
  for (uint64_t k = 0; k < ranges.size(); ++k) {
    size_t end = begin;
    while (end < rows.size() && rows.ids[end] < ranges[k].hi) ++end;
    std::vector<uint8_t> msg =
        sparse::EncodeTrailed(sparse::Encoding::kSparse, rows, begin, end, ranges[k], table, 8, k);
    begin = end;
    PeerHeader second = h, first = h;
    first.message_bytes = second.message_bytes = msg.size();
    first.sent_before = second.sent_before = k;
    uint64_t half = msg.size() / 2;
    second.offset = half;
    first.offset = 0;
    c.group(0).OnMessage(second, msg.data() + half, msg.size() - half);
    EXPECT_EQ(c.group(0).WaitingFor(kKey, 0), "sparse exchange messages");
    c.group(0).OnMessage(first, msg.data(), half);
  }
  // Node 0 has its result; it reports it once its own sends are delivered.
  EXPECT_EQ(c.group(0).WaitingFor(kKey, 0), "sends to finish");
  c.Run();
  const NodeDone* d = c.done(0, kKey, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->status.ok()) << d->status.ToString();
  EXPECT_EQ(r0.out_ids[0], 1);
  EXPECT_EQ(r0.out_ids[1], 5);
  EXPECT_EQ(r0.out_ids[2], 9);
  EXPECT_EQ(r0.out_vals[0], 2.0f);  // node 0's 1.0 plus node 1's
}

// Three nodes, each with 300 rows of a 100,000-row table, by `algo`.
struct OwnerRank {
  std::vector<int64_t> ids;
  std::vector<float> vals;
  std::vector<int64_t> out_ids = std::vector<int64_t>(1000, -1);
  std::vector<float> out_vals = std::vector<float>(1000 * 4, 0.0f);
  ValidatedOp op;

  OwnerRank(int node, ipc::SparseAlgo algo) {
    for (int64_t i = 0; i < 300; ++i) ids.push_back((i * 331 + node * 97) % 100000);
    vals.assign(ids.size() * 4, 1.0f);
    op.kind = ipc::OpKind::kSparseAllreduce;
    op.dtype = ipc::DType::kF32;
    op.count = 4;
    op.rows = 100000;
    op.id_dtype = ipc::DType::kI64;
    op.algo = static_cast<uint32_t>(algo);
    op.ids = BufferSpan::Host(ids.data(), ids.size() * 8);
    op.nnz = ids.size();
    op.send = BufferSpan::Host(vals.data(), vals.size() * 4);
    op.capacity = 1000;
    op.recv = BufferSpan::Host(out_vals.data(), out_vals.size() * 4);
    op.out_ids = BufferSpan::Host(out_ids.data(), out_ids.size() * 8);
  }
};

TEST(SparseOwnerSendsTest, EveryNodeSendsAllItsSharesBeforeAnyReturn) {
  for (ipc::SparseAlgo algo : {ipc::SparseAlgo::kBalanced, ipc::SparseAlgo::kBlock}) {
    SCOPED_TRACE(std::string(ipc::SparseAlgoName(algo)));
    NodeCluster c{3, 1};
    std::vector<OwnerRank> ranks;
    for (int n = 0; n < 3; ++n) ranks.emplace_back(n, algo);
    for (int n = 0; n < 3; ++n) c.group(n).Start(kKey, 0, {&ranks[static_cast<size_t>(n)].op});
    // The network delivers in the order sent: note each node's sparse chunks as they go.
    std::vector<std::vector<uint32_t>> phases(3);
    while (c.net().queued() > 0) {
      std::vector<FakeNetwork::Envelope> queued = c.net().InFlight();
      if (!queued.empty()) {
        PeerHeader h;
        std::memcpy(&h, queued.front().header.data(), sizeof(h));
        if (h.type == static_cast<uint16_t>(PeerMsg::kSparse))
          phases[static_cast<size_t>(queued.front().from)].push_back(h.step);
      }
      c.net().Step();
    }
    for (int n = 0; n < 3; ++n) {
      const std::vector<uint32_t>& p = phases[static_cast<size_t>(n)];
      // Each range's shares for the 2 other owners, then its returns to the 2 other nodes (one
      // chunk each): as many of one as of the other, about 16 ranges.
      auto shares = static_cast<size_t>(std::count(p.begin(), p.end(), 0u));
      EXPECT_GE(shares, 2u * 8) << "node " << n;
      EXPECT_EQ(p.size(), 2 * shares) << "node " << n;
      EXPECT_TRUE(std::is_sorted(p.begin(), p.end()))
          << "node " << n << " sent a return before a share";
      const NodeDone* d = c.done(n, kKey, 0);
      ASSERT_NE(d, nullptr);
      EXPECT_TRUE(d->status.ok()) << d->status.ToString();
    }
    // Every node has the union, each row the sum of the nodes that sent it.
    const OwnerRank& r = ranks[0];
    std::map<int64_t, float> want;
    for (const OwnerRank& x : ranks)
      for (int64_t id : x.ids) want[id] += 1.0f;
    size_t i = 0;
    for (auto [id, v] : want) {
      ASSERT_EQ(r.out_ids[i], id);
      EXPECT_EQ(r.out_vals[i * 4], v);
      ++i;
    }
  }
}

}  // namespace
}  // namespace outrider::agent
