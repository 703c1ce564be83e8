// Streamed sparse exchanges: allgather's agreed id ranges, balanced's and block's owners by those
// ranges, dense's blocks. Each
// message is made when pulled, sums happen as soon as their parts are in, and the bits are the
// same as every other algorithm's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "agent/engine/sparse/exchange.h"
#include "tests/unit/agent/engine/sparse/exchange_harness.h"

namespace outrider::agent::sparse {
namespace {

using namespace harness;

TEST(SparseRangesTest, QuantilesCutSortedIdsIntoNearlyEqualPartsAndEveryNodeMergesThemAlike) {
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 1600; ++i) ids.push_back(i * i);  // skewed: dense at the start
  std::vector<uint64_t> q = IdQuantiles(ids, 16);
  ASSERT_EQ(q.size(), 15u);
  for (size_t i = 0; i < q.size(); ++i) EXPECT_EQ(q[i], ids[(i + 1) * 100]);
  EXPECT_TRUE(IdQuantiles(std::vector<uint64_t>{}, 16).empty());
  EXPECT_EQ(IdQuantiles(std::vector<uint64_t>{0, 1}, 16),
            std::vector<uint64_t>{1});  // never 0, never repeated
  // Two nodes: every second of their quantiles, in order, whichever node lists them first.
  std::vector<uint64_t> a = {10, 20, 30}, b = {15, 25, 35};
  EXPECT_EQ(MergeQuantiles({a, b}), (std::vector<uint64_t>{15, 25, 35}));
  EXPECT_EQ(MergeQuantiles({b, a}), MergeQuantiles({a, b}));
  std::vector<IdRange> r = RangesFrom({15, 25, 35}, 40);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].lo, 0u);
  EXPECT_EQ(r[0].hi, 15u);
  EXPECT_EQ(r[3].lo, 35u);
  EXPECT_EQ(r[3].hi, 40u);
  EXPECT_EQ(RangesFrom({}, 40).size(), 1u);
}

TEST(SparseRangesTest, RangesJoinTheResultInIdOrderWhateverOrderTheyCompleteIn) {
  Table t = MakeTable(100, 1);
  RangeResult ranges(3);
  Rows result;
  auto parts = [](uint64_t id, float v) {
    return std::vector<std::optional<Rows>>{Rows{{id}, {v}}, Rows{{id}, {1.0f}}};
  };
  auto p2 = parts(70, 7.0f), p0 = parts(5, 0.5f), p1 = parts(40, 4.0f);
  ranges.Complete(2, &p2, t, &result);
  EXPECT_TRUE(result.ids.empty());  // range 2 waits for 0 and 1
  EXPECT_FALSE(p2[0].has_value());  // its parts are summed and freed already
  ranges.Complete(0, &p0, t, &result);
  EXPECT_EQ(result.ids, std::vector<uint64_t>{5});
  EXPECT_FALSE(ranges.done());
  ranges.Complete(1, &p1, t, &result);
  EXPECT_TRUE(ranges.done());
  EXPECT_EQ(result.ids, (std::vector<uint64_t>{5, 40, 70}));
  EXPECT_EQ(result.vals, (sparse::Values{1.5f, 5.0f, 8.0f}));
}

TEST(SparseAllgatherTest, StreamsAgreedIdRangesSummedInNodeOrder) {
  Table t = MakeTable(100000, 16);
  const int nodes = 4;
  std::vector<Rows> in = FractionalInputs(nodes, t, 2000);
  std::vector<Rows> mine;
  for (const Rows& r : in) mine.push_back(Coalesce(r, t));
  std::vector<uint64_t> starts = AgreedStarts(mine);
  ASSERT_EQ(starts.size(), kAllgatherRanges - 1);
  Net net;
  std::vector<Rows> got = RunReplicated(SparseAlgo::kAllgather, mine, t, &net, starts);
  // Every node's rows summed in node order, as every algorithm sums them.
  std::vector<const Rows*> parts;
  for (const Rows& m : mine) parts.push_back(&m);
  Rows want = Sum(parts, t);
  for (const Rows& g : got) ExpectBitwiseEqual(g, want);
  // Each node sends every other node one message per range, each about a sixteenth of its rows.
  std::vector<IdRange> ranges = RangesFrom(starts, t.rows);
  for (int i = 0; i < nodes; ++i) {
    uint64_t want = 0;
    const Rows& m = mine[static_cast<size_t>(i)];
    for (const IdRange& r : ranges) {
      uint64_t n = static_cast<uint64_t>(std::lower_bound(m.ids.begin(), m.ids.end(), r.hi) -
                                         std::lower_bound(m.ids.begin(), m.ids.end(), r.lo));
      EXPECT_LE(n, m.size() / 8) << "a range holds more than twice its share";
      want += RangeMessageBytes(n, r, t);
    }
    EXPECT_EQ(net.sent[static_cast<size_t>(i)], want * (nodes - 1)) << "node " << i;
  }
}

TEST(SparseAllgatherTest, ARangeThatIsNotTheOpsOrComesTwiceIsAProtocolError) {
  Table t = MakeTable(1000, 4);
  Context c0{2, 0, RankLayout::Even(2, 1), t, 4, {500}},
      c1{2, 1, RankLayout::Even(2, 1), t, 4, {500}};
  std::unique_ptr<Exchange> recv = MakeReplicated(SparseAlgo::kAllgather, c0);
  std::unique_ptr<Exchange> send = MakeReplicated(SparseAlgo::kAllgather, c1);
  std::mt19937_64 rng(3);
  std::vector<Outgoing> out;
  recv->Start(Coalesce(RandomRows(rng, t, 50, t.rows), t), &out);
  send->Start(Coalesce(RandomRows(rng, t, 50, t.rows), t), &out);
  EXPECT_TRUE(out.empty());  // ranges wait to be pulled
  send->Pull(&out);
  ASSERT_EQ(out.size(), 1u);
  std::vector<uint8_t> msg = *out[0].bytes;
  std::vector<uint8_t> bad = msg;
  uint64_t k = 2;  // there are two ranges
  std::memcpy(bad.data() + bad.size() - 8, &k, 8);
  std::vector<Outgoing> sent;
  EXPECT_EQ(recv->OnMessage(1, 0, bad.data(), bad.size(), &sent).code(), Code::kProtocol);
  EXPECT_EQ(recv->OnMessage(1, 0, msg.data(), 4, &sent).code(), Code::kProtocol);
  EXPECT_EQ(recv->OnMessage(1, 1, msg.data(), msg.size(), &sent).code(), Code::kProtocol);
  ASSERT_TRUE(recv->OnMessage(1, 0, msg.data(), msg.size(), &sent).ok());
  Status st = recv->OnMessage(1, 0, msg.data(), msg.size(), &sent);
  EXPECT_EQ(st.code(), Code::kProtocol);
  EXPECT_NE(st.message().find("twice"), std::string::npos) << st.ToString();
  EXPECT_FALSE(recv->done());
}

TEST(SparseDenseTest, StreamsEachOwnerRangeBlockByBlockWithTheBitsOfAllgather) {
  Table t = MakeTable(40000, 64);  // 256-byte rows: about 4000 per block, 4 blocks per owner
  const int nodes = 3;
  std::vector<Rows> in = FractionalInputs(nodes, t, 3000);
  Net net;
  std::vector<Rows> got = RunReplicated(SparseAlgo::kDense, in, t, &net);
  Net base_net;
  std::vector<Rows> base = RunReplicated(SparseAlgo::kAllgather, in, t, &base_net);
  for (size_t i = 0; i < got.size(); ++i) ExpectBitwiseEqual(got[i], base[0]);
  EXPECT_LE(net.largest, kDenseBlockBytes);  // no message holds more than a block
  // Each node sends every other owner its blocks, and its own blocks' sums to every other node.
  Context c0{nodes, 0, RankLayout::Even(nodes, 1), t, 4, {}};
  Partitioning part = RangePartitioning(c0, 8);
  EXPECT_GT(DenseBlocks(part.range(0), t).size(), 2u);
  for (int i = 0; i < nodes; ++i) {
    uint64_t want = 0;
    for (int j = 0; j < nodes; ++j) {
      if (j == i) continue;
      for (IdRange b : DenseBlocks(part.range(j), t)) want += DenseBlockMessageBytes(b, t);
      for (IdRange b : DenseBlocks(part.range(i), t)) want += DenseBlockMessageBytes(b, t);
    }
    EXPECT_EQ(net.sent[static_cast<size_t>(i)], want) << "node " << i;
  }
}

TEST(SparseDenseTest, HoldsItsBlocksBackUntilPulledOneBlockPerOwnerAtATime) {
  Table t = MakeTable(40000, 64);
  std::vector<Rows> in = FractionalInputs(3, t, 3000);
  std::unique_ptr<Exchange> ex =
      MakeReplicated(SparseAlgo::kDense, Context{3, 1, RankLayout::Even(3, 1), t, 4, {}});
  std::vector<Outgoing> out;
  ex->Start(Coalesce(in[1], t), &out);
  EXPECT_TRUE(out.empty());
  ex->Pull(&out);
  ASSERT_EQ(out.size(), 2u);  // one block for each other owner, the next node first
  EXPECT_EQ(out[0].node, 2);
  EXPECT_EQ(out[1].node, 0);
  for (const Outgoing& o : out) EXPECT_EQ(o.phase, 0u);
}

TEST(SparseDenseTest, ABlockThatIsNotTheOwnersOrComesTwiceIsAProtocolError) {
  Table t = MakeTable(40000, 64);
  std::vector<Rows> in = FractionalInputs(2, t, 3000);
  std::unique_ptr<Exchange> owner =
      MakeReplicated(SparseAlgo::kDense, Context{2, 0, RankLayout::Even(2, 1), t, 4, {}});
  std::unique_ptr<Exchange> sender =
      MakeReplicated(SparseAlgo::kDense, Context{2, 1, RankLayout::Even(2, 1), t, 4, {}});
  std::vector<Outgoing> out;
  owner->Start(Coalesce(in[0], t), &out);
  sender->Start(Coalesce(in[1], t), &out);
  sender->Pull(&out);
  ASSERT_EQ(out.size(), 1u);
  std::vector<uint8_t> block = *out[0].bytes;
  std::vector<Outgoing> sent;
  // Moved by one row: no block of the owner starts there.
  std::vector<uint8_t> moved = block;
  uint64_t first = 0;
  std::memcpy(&first, moved.data() + moved.size() - 8, 8);
  ++first;
  std::memcpy(moved.data() + moved.size() - 8, &first, 8);
  Status st = owner->OnMessage(1, 0, moved.data(), moved.size(), &sent);
  EXPECT_EQ(st.code(), Code::kProtocol) << st.ToString();
  // Shorter than its framing, then an unknown phase.
  EXPECT_EQ(owner->OnMessage(1, 0, block.data(), 10, &sent).code(), Code::kProtocol);
  EXPECT_EQ(owner->OnMessage(1, 2, block.data(), block.size(), &sent).code(), Code::kProtocol);
  // The real block is taken once; the same block again is refused.
  ASSERT_TRUE(owner->OnMessage(1, 0, block.data(), block.size(), &sent).ok());
  st = owner->OnMessage(1, 0, block.data(), block.size(), &sent);
  EXPECT_EQ(st.code(), Code::kProtocol) << st.ToString();
  EXPECT_NE(st.message().find("twice"), std::string::npos) << st.ToString();
}

// Skewed rows (most near id 0, as Zipf-popular rows are) on 4 nodes, the ranges agreed as the
// agents agree them.
std::vector<Rows> SkewedInputs(const Table& t, int nodes, std::vector<uint64_t>* starts) {
  std::mt19937_64 rng(11);
  std::vector<Rows> mine;
  for (int i = 0; i < nodes; ++i)
    mine.push_back(Coalesce(RandomRows(rng, t, 3000, t.rows, true), t));
  *starts = AgreedStarts(mine);
  return mine;
}

TEST(SparseOwnerStreamTest, BalancedAndBlockSpreadSkewedRowsEvenlyWithTheBitsOfAllgather) {
  Table t = MakeTable(200000, 16);
  const int nodes = 4;
  std::vector<uint64_t> starts;
  std::vector<Rows> mine = SkewedInputs(t, nodes, &starts);
  Net base_net;
  std::vector<Rows> base = RunReplicated(SparseAlgo::kAllgather, mine, t, &base_net, starts);
  for (SparseAlgo algo : {SparseAlgo::kBalanced, SparseAlgo::kBlock}) {
    SCOPED_TRACE(std::string(ipc::SparseAlgoName(algo)));
    Net net;
    std::vector<Rows> got = RunReplicated(algo, mine, t, &net, starts);
    for (const Rows& g : got) ExpectBitwiseEqual(g, base[0]);
    // Hot rows sit at the front of the table, yet every node sends about as much as any other:
    // the owners are hashed (rows, blocks), not cut from the table in contiguous ranges.
    uint64_t most = *std::max_element(net.sent.begin(), net.sent.end());
    uint64_t least = *std::min_element(net.sent.begin(), net.sent.end());
    EXPECT_LE(static_cast<double>(most), 1.15 * static_cast<double>(least))
        << "most " << most << ", least " << least;
  }
}

TEST(SparseOwnerStreamTest, AnOwnerReturnsARangeAsSoonAsEveryShareOfItIsInBeforeLaterRanges) {
  Table t = MakeTable(200000, 16);
  const int nodes = 2;
  std::vector<uint64_t> starts;
  std::vector<Rows> mine = SkewedInputs(t, nodes, &starts);
  ASSERT_GE(starts.size(), 2u);
  for (SparseAlgo algo : {SparseAlgo::kBalanced, SparseAlgo::kBlock}) {
    SCOPED_TRACE(std::string(ipc::SparseAlgoName(algo)));
    std::unique_ptr<Exchange> a =
        MakeReplicated(algo, Context{2, 0, RankLayout::Even(2, 1), t, 4, starts});
    std::unique_ptr<Exchange> b =
        MakeReplicated(algo, Context{2, 1, RankLayout::Even(2, 1), t, 4, starts});
    std::vector<Outgoing> out;
    a->Start(mine[0], &out);
    b->Start(mine[1], &out);
    EXPECT_TRUE(out.empty());  // ranges wait to be pulled
    a->Pull(&out);
    ASSERT_EQ(out.size(), 1u);  // range 0's share for the other owner
    EXPECT_EQ(out[0].node, 1);
    EXPECT_EQ(out[0].phase, 0u);
    std::vector<uint8_t> share = *out[0].bytes;
    out.clear();
    // b holds its own share of range 0 only once it pulled it: then it sums and returns range 0
    // alone, with a's share in, before any later range of either node moves.
    ASSERT_TRUE(b->OnMessage(0, 0, share.data(), share.size(), &out).ok());
    EXPECT_TRUE(out.empty());
    b->Pull(&out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].phase, 0u);  // b's share of range 0 for a
    EXPECT_EQ(out[1].phase, 1u);  // b's sum of the rows of range 0 it owns
    std::vector<uint8_t> ret = *out[1].bytes, b_share = *out[0].bytes;
    out.clear();
    EXPECT_EQ(a->ready_rows(), 0u);
    ASSERT_TRUE(a->OnMessage(1, 1, ret.data(), ret.size(), &out).ok());
    EXPECT_TRUE(out.empty());
    ASSERT_TRUE(a->OnMessage(1, 0, b_share.data(), b_share.size(), &out).ok());
    ASSERT_EQ(out.size(), 1u);  // a's sum of range 0 for b
    EXPECT_EQ(out[0].phase, 1u);
    // Range 0 is whole at a: its rows are the result's first, before range 1 was even pulled.
    uint64_t hi = algo == SparseAlgo::kBlock ? starts[0] / 4 * 4 : starts[0];
    std::vector<const Rows*> parts;
    for (const Rows& m : mine) parts.push_back(&m);
    Rows all = Sum(parts, t);
    size_t want =
        static_cast<size_t>(std::lower_bound(all.ids.begin(), all.ids.end(), hi) - all.ids.begin());
    EXPECT_GT(want, 0u);
    EXPECT_EQ(a->ready_rows(), want);
    EXPECT_FALSE(a->done());
  }
}

TEST(SparseOwnerStreamTest, MessagesOfAnotherRangeOwnerPhaseOrTwiceAreProtocolErrors) {
  Table t = MakeTable(200000, 16);
  std::vector<uint64_t> starts;
  std::vector<Rows> mine = SkewedInputs(t, 2, &starts);
  for (SparseAlgo algo : {SparseAlgo::kBalanced, SparseAlgo::kBlock}) {
    SCOPED_TRACE(std::string(ipc::SparseAlgoName(algo)));
    std::unique_ptr<Exchange> a =
        MakeReplicated(algo, Context{2, 0, RankLayout::Even(2, 1), t, 4, starts});
    std::unique_ptr<Exchange> b =
        MakeReplicated(algo, Context{2, 1, RankLayout::Even(2, 1), t, 4, starts});
    std::vector<Outgoing> out, sent;
    a->Start(mine[0], &out);
    b->Start(mine[1], &out);
    b->Pull(&out);
    ASSERT_EQ(out.size(), 1u);
    std::vector<uint8_t> share = *out[0].bytes;
    ASSERT_GT(share.size(), 64u);  // holds rows
    auto refused = [&](const std::vector<uint8_t>& m, uint32_t phase, std::string_view says) {
      Status st = a->OnMessage(1, phase, m.data(), m.size(), &sent);
      EXPECT_EQ(st.code(), Code::kProtocol) << st.ToString();
      EXPECT_NE(st.message().find(says), std::string::npos) << st.ToString();
    };
    std::vector<uint8_t> bad = share;
    uint64_t k = starts.size() + 1;  // one past the last range
    std::memcpy(bad.data() + bad.size() - 8, &k, 8);
    refused(bad, 0, "range this op does not have");
    refused(share, 2, "unexpected phase");
    // The share b made for a, as if a (its owner) returned it: those rows are a's, not b's.
    refused(share, 1, "does not own");
    // Sent back to b as if from a: b does not own them.
    Status st = b->OnMessage(0, 0, share.data(), share.size(), &sent);
    EXPECT_EQ(st.code(), Code::kProtocol) << st.ToString();
    EXPECT_NE(st.message().find("does not own"), std::string::npos) << st.ToString();
    ASSERT_TRUE(a->OnMessage(1, 0, share.data(), share.size(), &sent).ok());
    refused(share, 0, "twice");
    EXPECT_FALSE(a->done());
  }
}

}  // namespace
}  // namespace outrider::agent::sparse
