// Sparse exchanges driven in process (nodes as objects, a FIFO as the network): every algorithm
// against a dense reference, bitwise equality across nodes and algorithms, and the codec's size
// accounting against what it actually encodes.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <random>

#include "agent/engine/sparse/cost_model.h"
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {
namespace {

using ipc::SparseAlgo;

Table MakeTable(uint64_t rows, uint64_t dim, ipc::DType dtype = ipc::DType::kF32) { return Table{rows, dim, dtype}; }

// Rows with integer values (exact in every dtype for small sums), possibly duplicated ids.
Rows RandomRows(std::mt19937_64& rng, const Table& t, size_t n, uint64_t max_id, bool zipf = false) {
  Rows r;
  std::uniform_int_distribution<uint64_t> id(0, max_id - 1);
  std::uniform_int_distribution<int> val(-4, 4);
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = id(rng);
    if (zipf) x = x * x / max_id;  // piles up near 0
    r.ids.push_back(x);
    for (uint64_t k = 0; k < t.dim; ++k) r.vals.push_back(static_cast<float>(val(rng)));
  }
  return r;
}

Rows Coalesce(const Rows& r, const Table& t) {
  const Rows* p = &r;
  return Sum(std::span<const Rows* const>(&p, 1), t);
}

// Dense reference: sum per id over all inputs (doubles; exact for these integers).
std::map<uint64_t, std::vector<double>> Reference(const std::vector<Rows>& in, const Table& t) {
  std::map<uint64_t, std::vector<double>> ref;
  for (const Rows& r : in) {
    for (size_t i = 0; i < r.size(); ++i) {
      auto& row = ref[r.ids[i]];
      row.resize(t.dim, 0.0);
      for (uint64_t k = 0; k < t.dim; ++k) row[k] += r.vals[i * t.dim + k];
    }
  }
  return ref;
}

// Fractional values: sums depend on the order they are added in.
std::vector<Rows> FractionalInputs(int nodes, const Table& t, size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> id(0, t.rows - 1);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  std::vector<Rows> in(static_cast<size_t>(nodes));
  for (Rows& r : in) {
    for (size_t i = 0; i < n; ++i) {
      r.ids.push_back(id(rng));
      for (uint64_t k = 0; k < t.dim; ++k) r.vals.push_back(val(rng));
    }
  }
  return in;
}

struct Net {
  struct Msg {
    int from, to;
    uint32_t phase;
    std::vector<uint8_t> bytes;
  };
  std::deque<Msg> queue;
  std::vector<uint64_t> sent;
  size_t largest = 0;  // bytes of the largest message
};

// Runs one exchange per node to completion; returns each node's result.
std::vector<Rows> RunAll(const std::vector<std::unique_ptr<Exchange>>& ex, std::vector<Rows> mine, Net* net) {
  int n = static_cast<int>(ex.size());
  net->sent.assign(static_cast<size_t>(n), 0);
  auto post = [&](int from, std::vector<Outgoing>& out) {
    for (auto& o : out) {
      net->sent[static_cast<size_t>(from)] += o.bytes->size();
      net->largest = std::max(net->largest, o.bytes->size());
      net->queue.push_back({from, o.node, o.phase, *o.bytes});
    }
    out.clear();
  };
  std::vector<Outgoing> out;
  for (int i = 0; i < n; ++i) {
    ex[static_cast<size_t>(i)]->Start(std::move(mine[static_cast<size_t>(i)]), &out);
    post(i, out);
  }
  for (;;) {
    if (net->queue.empty()) {  // everything sent is delivered: each sender may have more held back
      for (int i = 0; i < n; ++i) {
        ex[static_cast<size_t>(i)]->Pull(&out);
        post(i, out);
      }
      if (net->queue.empty()) break;
    }
    Net::Msg m = std::move(net->queue.front());
    net->queue.pop_front();
    Status st = ex[static_cast<size_t>(m.to)]->OnMessage(m.from, m.phase, m.bytes.data(), m.bytes.size(), &out);
    EXPECT_TRUE(st.ok()) << st.ToString();
    post(m.to, out);
  }
  std::vector<Rows> results;
  for (auto& e : ex) {
    EXPECT_TRUE(e->done());
    results.push_back(e->result());
  }
  return results;
}

std::vector<Rows> RunReplicated(SparseAlgo algo, const std::vector<Rows>& node_rows, const Table& t, Net* net) {
  int n = static_cast<int>(node_rows.size());
  std::vector<std::unique_ptr<Exchange>> ex;
  std::vector<Rows> mine;
  for (int i = 0; i < n; ++i) {
    Context c{n, i, 1, t, 4, {}};
    ex.push_back(MakeReplicated(algo, c));
    mine.push_back(Coalesce(node_rows[static_cast<size_t>(i)], t));
  }
  return RunAll(ex, std::move(mine), net);
}

void ExpectMatches(const Rows& got, const std::map<uint64_t, std::vector<double>>& ref, const Table& t) {
  ASSERT_EQ(got.size(), ref.size());
  size_t i = 0;
  for (const auto& [id, row] : ref) {
    ASSERT_EQ(got.ids[i], id);
    for (uint64_t k = 0; k < t.dim; ++k) ASSERT_EQ(got.vals[i * t.dim + k], row[k]) << "id " << id << " col " << k;
    ++i;
  }
}

void ExpectBitwiseEqual(const Rows& a, const Rows& b) {
  ASSERT_EQ(a.ids, b.ids);
  ASSERT_EQ(a.vals.size(), b.vals.size());
  if (!a.vals.empty()) ASSERT_EQ(0, std::memcmp(a.vals.data(), b.vals.data(), a.vals.size() * sizeof(float)));
}

struct Case {
  const char* name;
  int nodes;
  uint64_t rows;
  std::vector<size_t> nnz;  // per node
  bool zipf = false;
  bool identical = false;  // every node the same ids
  bool disjoint = false;   // node i only ids = i mod nodes
  bool edges = false;      // include ids 0 and rows - 1
};

class ReplicatedTest : public ::testing::TestWithParam<std::tuple<SparseAlgo, ipc::DType>> {};

TEST_P(ReplicatedTest, MatchesDenseReferenceAndAgreesAcrossNodes) {
  auto [algo, dtype] = GetParam();
  std::vector<Case> cases = {
      {"random_with_duplicates", 4, 1000, {200, 150, 300, 100}},
      {"empty_on_some_nodes", 4, 500, {0, 40, 0, 25}},
      {"all_empty", 3, 100, {0, 0, 0}},
      {"identical_ids", 3, 300, {60, 60, 60}, false, true},
      {"disjoint_ids", 4, 400, {50, 50, 50, 50}, false, false, true},
      {"heavy_skew", 5, 10000, {500, 500, 500, 500, 500}, true},
      {"edges", 2, 77, {10, 10}, false, false, false, true},
      {"one_node_dense", 2, 64, {640, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Table t = MakeTable(c.rows, 3, dtype);
    std::mt19937_64 rng(42);
    std::vector<Rows> in;
    for (int i = 0; i < c.nodes; ++i) {
      Rows r = RandomRows(rng, t, c.nnz[static_cast<size_t>(i)], c.rows, c.zipf);
      if (c.identical && i > 0) r = in[0];
      if (c.disjoint) {
        for (uint64_t& id : r.ids) id = id - id % static_cast<uint64_t>(c.nodes) + static_cast<uint64_t>(i);
        for (uint64_t& id : r.ids) id = std::min(id, c.rows - 1 - (c.rows - 1 - static_cast<uint64_t>(i)) % static_cast<uint64_t>(c.nodes));
      }
      if (c.edges) {
        r.ids[0] = 0;
        r.ids[1] = c.rows - 1;
      }
      in.push_back(r);
    }
    Net net;
    std::vector<Rows> got = RunReplicated(algo, in, t, &net);
    ExpectMatches(got[0], Reference(in, t), t);
    for (size_t i = 1; i < got.size(); ++i) ExpectBitwiseEqual(got[0], got[i]);
    // And the same bits as allgather (the baseline) for the same inputs.
    Net net2;
    std::vector<Rows> base = RunReplicated(SparseAlgo::kAllgather, in, t, &net2);
    ExpectBitwiseEqual(got[0], base[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ReplicatedTest,
                         ::testing::Combine(::testing::Values(SparseAlgo::kAllgather, SparseAlgo::kBalanced,
                                                              SparseAlgo::kBlock, SparseAlgo::kDense),
                                            ::testing::Values(ipc::DType::kF32, ipc::DType::kF16, ipc::DType::kBF16)));

TEST(SparseRangesTest, QuantilesCutSortedIdsIntoNearlyEqualPartsAndEveryNodeMergesThemAlike) {
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 1600; ++i) ids.push_back(i * i);  // skewed: dense at the start
  std::vector<uint64_t> q = IdQuantiles(ids, 16);
  ASSERT_EQ(q.size(), 15u);
  for (size_t i = 0; i < q.size(); ++i) EXPECT_EQ(q[i], ids[(i + 1) * 100]);
  EXPECT_TRUE(IdQuantiles(std::vector<uint64_t>{}, 16).empty());
  EXPECT_EQ(IdQuantiles(std::vector<uint64_t>{0, 1}, 16), std::vector<uint64_t>{1});  // never 0, never repeated
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

TEST(SparseAllgatherTest, StreamsAgreedIdRangesSummedInNodeOrder) {
  Table t = MakeTable(100000, 16);
  const int nodes = 4;
  std::vector<Rows> in = FractionalInputs(nodes, t, 2000);
  std::vector<Rows> mine;
  std::vector<std::vector<uint64_t>> quantiles;
  for (const Rows& r : in) {
    mine.push_back(Coalesce(r, t));
    quantiles.push_back(IdQuantiles(mine.back().ids, kAllgatherRanges));
  }
  std::vector<uint64_t> starts = MergeQuantiles(quantiles);
  ASSERT_EQ(starts.size(), kAllgatherRanges - 1);
  std::vector<std::unique_ptr<Exchange>> ex;
  for (int i = 0; i < nodes; ++i) {
    Context c{nodes, i, 1, t, 4, starts};
    ex.push_back(MakeReplicated(SparseAlgo::kAllgather, c));
  }
  Net net;
  std::vector<Rows> got = RunAll(ex, mine, &net);
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
      want += AllgatherMessageBytes(n, r, t);
    }
    EXPECT_EQ(net.sent[static_cast<size_t>(i)], want * (nodes - 1)) << "node " << i;
  }
}

TEST(SparseAllgatherTest, ARangeThatIsNotTheOpsOrComesTwiceIsAProtocolError) {
  Table t = MakeTable(1000, 4);
  Context c0{2, 0, 1, t, 4, {500}}, c1{2, 1, 1, t, 4, {500}};
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
  Context c0{nodes, 0, 1, t, 4, {}};
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
  std::unique_ptr<Exchange> ex = MakeReplicated(SparseAlgo::kDense, Context{3, 1, 1, t, 4, {}});
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
  std::unique_ptr<Exchange> owner = MakeReplicated(SparseAlgo::kDense, Context{2, 0, 1, t, 4, {}});
  std::unique_ptr<Exchange> sender = MakeReplicated(SparseAlgo::kDense, Context{2, 1, 1, t, 4, {}});
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

TEST(SparseSumTest, HalfPrecisionSumsInF32AndRoundsOnce) {
  Table t = MakeTable(10, 1, ipc::DType::kF16);
  // 2048 + 1 + 1 in f16 step by step gives 2048 (ties to even); in f32 then rounded, 2050.
  Rows a{{3, 3, 3}, {2048.0f, 1.0f, 1.0f}};
  Rows s = Coalesce(a, t);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.vals[0], 2050.0f);
}

TEST(SparseShardTest, RowsArriveSummedAtTheirOwnerOnly) {
  for (auto scheme : {ipc::ShardScheme::kRange, ipc::ShardScheme::kHash}) {
    Table t = MakeTable(1000, 2);
    int nodes = 3, local = 2;
    std::mt19937_64 rng(7);
    std::vector<Rows> in;
    std::vector<std::unique_ptr<Exchange>> ex;
    std::vector<Rows> mine;
    for (int i = 0; i < nodes; ++i) {
      in.push_back(RandomRows(rng, t, 300, t.rows));
      ex.push_back(MakeShard(Context{nodes, i, local, t, 4, {}}, scheme));
      mine.push_back(Coalesce(in.back(), t));
    }
    Net net;
    std::vector<Rows> got = RunAll(ex, mine, &net);
    auto ref = Reference(in, t);
    size_t total = 0;
    for (int i = 0; i < nodes; ++i) {
      std::map<uint64_t, std::vector<double>> owned;
      for (const auto& [id, row] : ref) {
        if (ShardOwnerRank(id, t.rows, nodes * local, scheme) / local == i) owned[id] = row;
      }
      ExpectMatches(got[static_cast<size_t>(i)], owned, t);
      total += got[static_cast<size_t>(i)].size();
    }
    EXPECT_EQ(total, ref.size());
  }
}

TEST(SparseLookupTest, OwnersAnswerWithTheirRows) {
  Table t = MakeTable(100, 2);
  int nodes = 3, world = 3;
  auto value = [](uint64_t id, uint64_t k) { return static_cast<float>(id * 10 + k); };
  std::vector<std::unique_ptr<Exchange>> ex;
  std::vector<Rows> want(3);
  want[0].ids = {0, 5, 50, 99};
  want[1].ids = {};
  want[2].ids = {33, 34, 66, 67};
  for (int i = 0; i < nodes; ++i) {
    ex.push_back(MakeLookup(Context{nodes, i, 1, t, 4, {}}, [&, i](uint64_t id, float* dst) {
      EXPECT_EQ(ShardOwnerRank(id, t.rows, world, ipc::ShardScheme::kRange), i);
      for (uint64_t k = 0; k < t.dim; ++k) dst[k] = value(id, k);
    }));
  }
  Net net;
  std::vector<Rows> got = RunAll(ex, want, &net);
  for (int i = 0; i < nodes; ++i) {
    ASSERT_EQ(got[static_cast<size_t>(i)].ids, want[static_cast<size_t>(i)].ids);
    for (size_t j = 0; j < want[static_cast<size_t>(i)].size(); ++j) {
      for (uint64_t k = 0; k < t.dim; ++k) EXPECT_EQ(got[static_cast<size_t>(i)].vals[j * t.dim + k], value(want[static_cast<size_t>(i)].ids[j], k));
    }
  }
}

TEST(SparseCodecTest, EncodedBytesIsExactForEveryEncoding) {
  std::mt19937_64 rng(3);
  for (auto dtype : {ipc::DType::kF32, ipc::DType::kBF16}) {
    Table t = MakeTable(5000, 4, dtype);
    for (size_t n : {size_t{0}, size_t{1}, size_t{30}, size_t{800}, size_t{4000}}) {
      Rows r = Coalesce(RandomRows(rng, t, n, t.rows), t);
      IdRange range{1000, 4000};
      size_t b = static_cast<size_t>(std::lower_bound(r.ids.begin(), r.ids.end(), range.lo) - r.ids.begin());
      size_t e = static_cast<size_t>(std::lower_bound(r.ids.begin(), r.ids.end(), range.hi) - r.ids.begin());
      for (auto enc : {Encoding::kSparse, Encoding::kBlocks, Encoding::kDense}) {
        std::vector<uint8_t> bytes = Encode(enc, r, b, e, range, t, 8);
        uint64_t count = enc == Encoding::kBlocks ? CountBlocks(r, b, e, 8) : e - b;
        // CountBlocks aligns blocks to id 0, the encoding to the range start: the same here
        // because 1000 is a multiple of 8.
        EXPECT_EQ(bytes.size(), EncodedBytes(enc, count, range, t, 8)) << "n " << n << " enc " << static_cast<int>(enc);
        Result<Rows> back = Decode(bytes.data(), bytes.size(), range, t, 8);
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(back->ids, std::vector<uint64_t>(r.ids.begin() + static_cast<long>(b), r.ids.begin() + static_cast<long>(e)));
      }
    }
  }
}

TEST(SparseCodecTest, RejectsMalformedPayloads) {
  Table t = MakeTable(100, 2);
  Rows r{{1, 2, 3}, {1, 1, 2, 2, 3, 3}};
  std::vector<uint8_t> good = Encode(Encoding::kSparse, r, 0, 3, IdRange{0, 100}, t, 8);
  EXPECT_FALSE(Decode(good.data(), 8, IdRange{0, 100}, t, 8).ok());                  // short header
  EXPECT_FALSE(Decode(good.data(), good.size() - 1, IdRange{0, 100}, t, 8).ok());     // short values
  EXPECT_FALSE(Decode(good.data(), good.size(), IdRange{0, 2}, t, 8).ok());           // ids past the range
  std::vector<uint8_t> bad = good;
  bad[0] = 99;                                                                          // unknown format
  EXPECT_FALSE(Decode(bad.data(), bad.size(), IdRange{0, 100}, t, 8).ok());
}

TEST(SparseCostModelTest, CoalescesOnTheGpuOnlyRowsSeenUnsortedOrRepeatedAndNotTooFew) {
  CoalesceInputs in;
  in.nnz = 100000;
  in.dim = 64;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu) << "nothing seen yet: rows go as they are";
  in.seen = true;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu) << "sorted without repeats: nothing to gain";
  in.strictly_increasing = false;
  CoalescePrediction unsorted = ChooseCoalesce(in);
  EXPECT_TRUE(unsorted.on_gpu) << unsorted.staged_s << " vs " << unsorted.coalesced_s;
  in.unique_ratio = 0.1;
  CoalescePrediction repeated = ChooseCoalesce(in);
  EXPECT_TRUE(repeated.on_gpu);
  EXPECT_LT(repeated.coalesced_s, unsorted.coalesced_s) << "fewer unique rows cost less to copy and merge";
  in.nnz = 20;  // a few rows: the launches cost more than the host's sort
  in.unique_ratio = 1;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu);
  in.nnz = 0;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu);
}

TEST(SparseCostModelTest, PicksByDensity) {
  Context c{4, 0, 1, MakeTable(1000000, 128), 8, {}};
  CostInputs in;
  in.ctx = c;
  in.link_bytes_per_s = 250e6;
  auto with_nnz = [&](uint64_t nnz) {
    in.nodes.assign(4, NodeAnnounce{nnz, nnz});
    return Choose(in).algo;
  };
  // Nodes touch different rows: the union is as large as all contributions together, and on 4
  // nodes owners returning it cost more than every node receiving everything
  // ((N-1)/N * (d + N d) > (N-1) d).
  in.union_ratio = 1.0;
  EXPECT_EQ(with_nnz(10000), SparseAlgo::kAllgather);
  // Skewed ids overlap: the union is much smaller than the sum, owners win.
  in.union_ratio = 0.4;
  EXPECT_EQ(with_nnz(10000), SparseAlgo::kBalanced);
  // Every node touches every row: the dense exchange has no index overhead.
  in.union_ratio = 0.25;
  EXPECT_EQ(with_nnz(1000000), SparseAlgo::kDense);
}

TEST(SparseCostModelTest, BalancedMustSaveMoreThanItsWholeMessagesCostToBeatStreamingAllgather) {
  Context c{4, 0, 1, MakeTable(1000000, 128), 8, {}};
  CostInputs in;
  in.ctx = c;
  in.link_bytes_per_s = 250e6;
  in.nodes.assign(4, NodeAnnounce{100000, 100000});
  // Balanced moves (N-1)/N (d + N u d) against allgather's (N-1) d, (1 + N u) / N of it: with a
  // union of 0.65 of the rows sent (10 % fewer bytes) streaming allgather still wins; with 0.4
  // (35 % fewer) balanced does.
  in.union_ratio = 0.65;
  Prediction ag = Predict(SparseAlgo::kAllgather, in), bal = Predict(SparseAlgo::kBalanced, in);
  ASSERT_LT(bal.sent[0], ag.sent[0]);
  EXPECT_GT(static_cast<double>(ag.sent[0]) / static_cast<double>(bal.sent[0]), 1.05);
  EXPECT_EQ(Choose(in).algo, SparseAlgo::kAllgather);
  in.union_ratio = 0.4;
  EXPECT_EQ(Choose(in).algo, SparseAlgo::kBalanced);
}

TEST(SparseCostModelTest, PredictedBytesMatchEncodedBytesForAllgather) {
  Table t = MakeTable(100000, 16);
  std::mt19937_64 rng(5);
  std::vector<Rows> in;
  CostInputs ci;
  ci.ctx = Context{3, 0, 1, t, 8, {}};
  ci.chunk_bytes = 1 << 30;
  ci.chunk_overhead = 0;
  for (int i = 0; i < 3; ++i) {
    in.push_back(RandomRows(rng, t, 2000, t.rows));
    Rows c = Coalesce(in.back(), t);
    ci.nodes.push_back({c.size(), CountBlocks(c, 0, c.size(), 8)});
  }
  Net net;
  RunReplicated(SparseAlgo::kAllgather, in, t, &net);
  Prediction p = Predict(SparseAlgo::kAllgather, ci);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.sent[static_cast<size_t>(i)], net.sent[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace outrider::agent::sparse
