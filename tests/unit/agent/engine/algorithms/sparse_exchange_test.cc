// The sparse exchange adapter on two in-process node groups joined by a FakeNetwork: how it
// reassembles the chunks of another node's messages, whatever their headers claim.
#include "agent/engine/algorithms/sparse_exchange.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/unit/agent/engine/node_cluster.h"
#include "agent/engine/sparse/codec.h"
#include "ipc/defaults.h"

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

TEST(SparseExchangeTest, ChunkAnnouncingAMessageLargerThanTheOpCouldProduceFailsTheOp) {
  NodeCluster c(2, 1);
  SparseRank r0, r1;
  c.group(0).Start(kKey, 0, {&r0.op});
  c.group(1).Start(kKey, 0, {&r1.op});
  PeerHeader real = StepToFirstSparseChunkFor0(c);
  // A chunk of 16 bytes at the end of a message it claims is 1 TiB long: node 0 reserves nothing
  // for it and fails the op, naming why.
  PeerHeader huge = real;
  huge.message_bytes = ipc::kMaxOpBytes;
  huge.offset = ipc::kMaxOpBytes - 16;
  std::vector<uint8_t> bytes(16, 0xab);
  c.group(0).OnMessage(huge, bytes.data(), bytes.size());
  const NodeDone* d = c.done(0, kKey, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
  EXPECT_NE(d->status.message().find("larger than this op can produce"), std::string::npos) << d->status.ToString();
}

TEST(SparseExchangeTest, ChunkThatChangesAMessagesLengthFailsTheOp) {
  NodeCluster c(2, 1);
  SparseRank r0, r1;
  c.group(0).Start(kKey, 0, {&r0.op});
  c.group(1).Start(kKey, 0, {&r1.op});
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
  const NodeDone* d = c.done(0, kKey, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
  EXPECT_NE(d->status.message().find("changed a sparse message's length"), std::string::npos) << d->status.ToString();
}

TEST(SparseExchangeTest, MessageWhoseChunksArriveLastFirstIsAssembled) {
  NodeCluster c(2, 1);
  SparseRank r0, r1;
  c.group(0).Start(kKey, 0, {&r0.op});
  c.group(1).Start(kKey, 0, {&r1.op});
  PeerHeader h = StepToFirstSparseChunkFor0(c);
  // Node 1's allgather message (its rows, encoded as it encodes them) reaches node 0 in two
  // chunks, the second first.
  sparse::Table table{r1.op.rows, r1.op.count, r1.op.dtype};
  sparse::Rows rows;
  rows.ids = {1, 5, 9};
  rows.vals = r1.vals;
  std::vector<uint8_t> msg = sparse::Encode(sparse::Encoding::kSparse, rows, 0, rows.size(), {0, table.rows}, table, 8);
  ASSERT_EQ(msg.size(), h.message_bytes);
  uint64_t half = msg.size() / 2;
  PeerHeader second = h, first = h;
  second.offset = half;
  first.offset = 0;
  c.group(0).OnMessage(second, msg.data() + half, msg.size() - half);
  EXPECT_EQ(c.group(0).WaitingFor(kKey, 0), "sparse exchange messages");
  c.group(0).OnMessage(first, msg.data(), half);
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

}  // namespace
}  // namespace outrider::agent
