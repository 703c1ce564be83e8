// Sparse exchanges driven in process (nodes as objects, a FIFO as the network): every algorithm
// against a dense reference, bitwise equality across nodes and algorithms, and the codec's size
// accounting against what it actually encodes.
#include "agent/engine/sparse/exchange.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "agent/engine/sparse/cost_model.h"
#include "tests/unit/agent/engine/sparse/exchange_harness.h"

namespace outrider::agent::sparse {
namespace {

using namespace harness;

void ExpectMatches(const Rows& got, const std::map<uint64_t, std::vector<double>>& ref,
                   const Table& t) {
  ASSERT_EQ(got.size(), ref.size());
  size_t i = 0;
  for (const auto& [id, row] : ref) {
    ASSERT_EQ(got.ids[i], id);
    for (uint64_t k = 0; k < t.dim; ++k)
      ASSERT_EQ(got.vals[i * t.dim + k], row[k]) << "id " << id << " col " << k;
    ++i;
  }
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
        for (uint64_t& id : r.ids)
          id = id - id % static_cast<uint64_t>(c.nodes) + static_cast<uint64_t>(i);
        for (uint64_t& id : r.ids)
          id = std::min(
              id, c.rows - 1 -
                      (c.rows - 1 - static_cast<uint64_t>(i)) % static_cast<uint64_t>(c.nodes));
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

INSTANTIATE_TEST_SUITE_P(
    Algorithms, ReplicatedTest,
    ::testing::Combine(::testing::Values(SparseAlgo::kAllgather, SparseAlgo::kBalanced,
                                         SparseAlgo::kBlock, SparseAlgo::kDense),
                       ::testing::Values(ipc::DType::kF32, ipc::DType::kF16, ipc::DType::kBF16)));

TEST(SparseSumTest, HalfPrecisionSumsInF32AndRoundsOnce) {
  Table t = MakeTable(10, 1, ipc::DType::kF16);
  // 2048 + 1 + 1 in f16 step by step gives 2048 (ties to even); in f32 then rounded, 2050.
  Rows a{{3, 3, 3}, {2048.0f, 1.0f, 1.0f}};
  Rows s = Coalesce(a, t);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.vals[0], 2050.0f);
}

TEST(SparseSumTest, AppendsToARowSetBuiltInIdOrderRoundingOnlyWhatItAdds) {
  Table t = MakeTable(10, 1, ipc::DType::kBF16);
  Rows out{{1}, {1.001f}};  // not a bf16 value: rounding it would change it
  Rows a{{4, 6}, {256.0f, 1.0f}}, b{{4}, {1.0f}};
  const Rows* parts[] = {&a, &b};
  SumAppend(parts, t, &out);
  EXPECT_EQ(out.ids, (std::vector<uint64_t>{1, 4, 6}));
  ASSERT_EQ(out.vals.size(), 3u);
  EXPECT_EQ(out.vals[0], 1.001f);
  EXPECT_EQ(out.vals[1], 256.0f);  // 257 rounded to bf16 (8 bits of mantissa)
  EXPECT_EQ(out.vals[2], 1.0f);
  // Node parts: summed in node order, then freed.
  std::vector<std::optional<Rows>> nodes = {Rows{{8}, {2.0f}}, Rows{{8, 9}, {3.0f, 4.0f}}};
  SumParts(&nodes, t, &out);
  EXPECT_EQ(out.ids, (std::vector<uint64_t>{1, 4, 6, 8, 9}));
  EXPECT_EQ(out.vals[3], 5.0f);
  EXPECT_FALSE(nodes[0].has_value() || nodes[1].has_value());
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
      ex.push_back(MakeShard(Context{nodes, i, RankLayout::Even(nodes, local), t, 4, {}}, scheme));
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
    ex.push_back(MakeLookup(
        Context{nodes, i, RankLayout::Even(nodes, 1), t, 4, {}}, [&, i](uint64_t id, float* dst) {
          EXPECT_EQ(ShardOwnerRank(id, t.rows, world, ipc::ShardScheme::kRange), i);
          for (uint64_t k = 0; k < t.dim; ++k) dst[k] = value(id, k);
        }));
  }
  Net net;
  std::vector<Rows> got = RunAll(ex, want, &net);
  for (int i = 0; i < nodes; ++i) {
    ASSERT_EQ(got[static_cast<size_t>(i)].ids, want[static_cast<size_t>(i)].ids);
    for (size_t j = 0; j < want[static_cast<size_t>(i)].size(); ++j) {
      for (uint64_t k = 0; k < t.dim; ++k)
        EXPECT_EQ(got[static_cast<size_t>(i)].vals[j * t.dim + k],
                  value(want[static_cast<size_t>(i)].ids[j], k));
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
      size_t b = static_cast<size_t>(std::lower_bound(r.ids.begin(), r.ids.end(), range.lo) -
                                     r.ids.begin());
      size_t e = static_cast<size_t>(std::lower_bound(r.ids.begin(), r.ids.end(), range.hi) -
                                     r.ids.begin());
      for (auto enc : {Encoding::kSparse, Encoding::kBlocks, Encoding::kDense}) {
        std::vector<uint8_t> bytes = Encode(enc, r, b, e, range, t, 8);
        uint64_t count = enc == Encoding::kBlocks ? CountBlocks(r, b, e, 8) : e - b;
        // CountBlocks aligns blocks to id 0, the encoding to the range start: the same here
        // because 1000 is a multiple of 8.
        EXPECT_EQ(bytes.size(), EncodedBytes(enc, count, range, t, 8))
            << "n " << n << " enc " << static_cast<int>(enc);
        Result<Rows> back = Decode(bytes.data(), bytes.size(), range, t, 8);
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(back->ids, std::vector<uint64_t>(r.ids.begin() + static_cast<long>(b),
                                                   r.ids.begin() + static_cast<long>(e)));
      }
    }
  }
}

TEST(SparseCodecTest, RejectsMalformedPayloads) {
  Table t = MakeTable(100, 2);
  Rows r{{1, 2, 3}, {1, 1, 2, 2, 3, 3}};
  std::vector<uint8_t> good = Encode(Encoding::kSparse, r, 0, 3, IdRange{0, 100}, t, 8);
  EXPECT_FALSE(Decode(good.data(), 8, IdRange{0, 100}, t, 8).ok());                // short header
  EXPECT_FALSE(Decode(good.data(), good.size() - 1, IdRange{0, 100}, t, 8).ok());  // short values
  EXPECT_FALSE(Decode(good.data(), good.size(), IdRange{0, 2}, t, 8).ok());  // ids past the range
  std::vector<uint8_t> bad = good;
  bad[0] = 99;  // unknown format
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
  EXPECT_LT(repeated.coalesced_s, unsorted.coalesced_s)
      << "fewer unique rows cost less to copy and merge";
  in.nnz = 20;  // a few rows: the launches cost more than the host's sort
  in.unique_ratio = 1;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu);
  in.nnz = 0;
  EXPECT_FALSE(ChooseCoalesce(in).on_gpu);
}

// The agreed id ranges of a table of `rows`: 16, even.
std::vector<uint64_t> EvenStarts(uint64_t rows) {
  std::vector<uint64_t> s;
  for (uint64_t k = 1; k < kAllgatherRanges; ++k) s.push_back(rows * k / kAllgatherRanges);
  return s;
}

TEST(SparseCostModelTest, PicksByDensity) {
  Context c{4, 0, RankLayout::Even(4, 1), MakeTable(1000000, 128), 8, EvenStarts(1000000)};
  CostInputs in;
  in.ctx = c;
  in.time.link_bytes_per_s = 250e6;
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

TEST(SparseCostModelTest, BalancedMustSaveMoreThanItsLastRangesReturnToBeatAllgather) {
  Context c{4, 0, RankLayout::Even(4, 1), MakeTable(1000000, 128), 8, EvenStarts(1000000)};
  CostInputs in;
  in.ctx = c;
  in.time.link_bytes_per_s = 250e6;
  in.nodes.assign(4, NodeAnnounce{100000, 100000});
  // Balanced moves (N-1)/N (d + N u d) against allgather's (N-1) d: 3 % fewer bytes with a union
  // of 0.72 of the rows sent, 10 % fewer with 0.65. An owner returns its last range only after
  // every share of it is in (1/16 of its returns, after the last byte): 3 % is not enough, 10 % is.
  in.union_ratio = 0.72;
  Prediction ag = Predict(SparseAlgo::kAllgather, in), bal = Predict(SparseAlgo::kBalanced, in);
  ASSERT_LT(bal.sent[0], ag.sent[0]);
  EXPECT_GT(static_cast<double>(ag.sent[0]) / static_cast<double>(bal.sent[0]), 1.02);
  EXPECT_GT(bal.work.tail_wire, 0);
  EXPECT_EQ(Choose(in).algo, SparseAlgo::kAllgather);
  in.union_ratio = 0.65;
  EXPECT_EQ(Choose(in).algo, SparseAlgo::kBalanced);
  // Without agreed ranges (one range) every return follows the last share: allgather again.
  in.ctx.range_starts.clear();
  EXPECT_EQ(Choose(in).algo, SparseAlgo::kAllgather);
}

TEST(SparseCostModelTest, TheTimeIsTheSlowerOfLinkAndSumsPlusTailAndRounds) {
  ExchangeWork w;
  w.wire = 100e6;
  w.summed = 100e6;
  w.tail_wire = 1e6;
  w.tail_sum = 2e6;
  w.rounds = 3;
  TimeParams p;
  p.link_bytes_per_s = 100e6;  // 1 s of wire
  p.sum_bytes_per_s = 1e9;     // 0.1 s of sums, hidden behind the wire
  p.round_s = 1e-3;
  EXPECT_NEAR(ExchangeSeconds(w, p), 3e-3 + 1.0 + 0.01 + 0.002, 1e-9);
  p.link_bytes_per_s = 10e9;  // a fast link: the sums are the limit
  EXPECT_NEAR(ExchangeSeconds(w, p), 3e-3 + 0.1 + 1e-4 + 0.002, 1e-9);
  // The work of the owner schemes: the busiest node, its last range's return.
  std::vector<uint64_t> sent = {10, 40, 20}, recv = {30, 20, 50}, returned = {0, 32, 16};
  ExchangeWork bal = WorkOf(SparseAlgo::kBalanced, sent, recv, returned, 16);
  EXPECT_EQ(bal.wire, 50);
  EXPECT_EQ(bal.summed, 50);
  EXPECT_EQ(bal.tail_wire, 2);
  EXPECT_EQ(bal.rounds, 3);
  EXPECT_EQ(WorkOf(SparseAlgo::kAllgather, sent, recv, {}, 16).rounds, 2);
}

TEST(SparseCostModelTest, PredictedBytesMatchEncodedBytesForAllgather) {
  Table t = MakeTable(100000, 16);
  std::mt19937_64 rng(5);
  std::vector<Rows> in;
  CostInputs ci;
  ci.ctx = Context{3, 0, RankLayout::Even(3, 1), t, 8, {}};
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
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(p.sent[static_cast<size_t>(i)], net.sent[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace outrider::agent::sparse
