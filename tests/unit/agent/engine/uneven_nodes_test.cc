// Every collective across nodes that run different numbers of ranks (2, 1 and 3: a generation that
// lost a rank keeps that rank's node-mates), against a reference computed here, on every rank:
// the direct and pipelined algorithms, alltoallv and every sparse exchange. In-process node groups
// joined by a FakeNetwork.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ipc/protocol.h"
#include "tests/unit/agent/engine/node_cluster.h"

namespace outrider::agent {
namespace {

using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;

// Large ops take the ring (several chunks per segment); small ones the direct exchange.
const EngineOptions kSmall{.direct_max_bytes = 1024, .chunk_bytes = 4096};
const RankLayout kRanks = RankLayout::FromCounts({2, 1, 3});
constexpr uint64_t kKey = 9;

// One rank's op and its memory. Not copied once filled: the op names it.
struct Rank {
  std::vector<float> send, recv;
  std::vector<int64_t> ids, out_ids;
  ValidatedOp op;
};

float Value(int rank, uint64_t i) {
  return static_cast<float>((static_cast<uint64_t>(rank) * 7 + i) % 13) * 0.5f;
}

void Dense(Rank& x, int rank, uint64_t send_count, uint64_t recv_count) {
  x.send.resize(send_count);
  for (uint64_t i = 0; i < send_count; ++i) x.send[i] = Value(rank, i);
  x.recv.assign(recv_count, -1.0f);
  x.op.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
  x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
}

class UnevenNodes : public ::testing::Test {
 protected:
  // One op per rank, `fill` gives each its kind and memory; runs it on every node to the end.
  template <typename Fill>
  void Run(Fill fill) {
    ranks_ = std::vector<Rank>(static_cast<size_t>(kRanks.world()));
    for (int r = 0; r < kRanks.world(); ++r) {
      Rank& x = ranks_[static_cast<size_t>(r)];
      x.op.op_id = static_cast<uint64_t>(r + 1);
      x.op.key = kKey;
      x.op.dtype = DType::kF32;
      fill(x, r);
    }
    for (int n = 0; n < kRanks.nodes(); ++n) {
      std::vector<const ValidatedOp*> ops;
      for (int r = kRanks.first_rank(n); r < kRanks.first_rank(n + 1); ++r)
        ops.push_back(&ranks_[static_cast<size_t>(r)].op);
      c_.group(n).Start(kKey, seq_, ops);
    }
    c_.Run();
    for (int n = 0; n < kRanks.nodes(); ++n) {
      const NodeDone* d = c_.done(n, kKey, seq_);
      ASSERT_NE(d, nullptr) << "node " << n << " did not finish";
      EXPECT_TRUE(d->status.ok()) << "node " << n << ": " << d->status.ToString();
      algo_ = d->algo;
    }
    ++seq_;
  }

  const std::vector<float>& recv(int r) const { return ranks_[static_cast<size_t>(r)].recv; }

  NodeCluster c_{kRanks, kSmall};
  std::vector<Rank> ranks_;
  std::string algo_;
  uint64_t seq_ = 0;
};

TEST_F(UnevenNodes, AllreduceSumsAndAveragesOverEveryRankDirectAndByRing) {
  for (uint64_t count : {uint64_t{100}, uint64_t{10007}}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
      Run([&](Rank& x, int r) {
        x.op.kind = OpKind::kAllreduce;
        x.op.reduce_op = op;
        x.op.count = count;
        Dense(x, r, count, count);
      });
      EXPECT_EQ(algo_, count == 100 ? "direct" : "ring");
      for (int r = 0; r < kRanks.world(); ++r) {
        for (uint64_t i = 0; i < count; ++i) {
          float sum = 0;
          for (int q = 0; q < kRanks.world(); ++q) sum += Value(q, i);
          float want = op == ReduceOp::kSum ? sum : sum / static_cast<float>(kRanks.world());
          ASSERT_FLOAT_EQ(recv(r)[i], want) << "rank " << r << " element " << i;
        }
      }
    }
  }
}

TEST_F(UnevenNodes, BroadcastFromARankOnEachNodeReachesEveryRankDirectAndByChain) {
  for (uint64_t count : {uint64_t{100}, uint64_t{10007}}) {
    for (int root : {1, 2, 4}) {  // node 0's second rank, node 1's only one, node 2's second
      Run([&](Rank& x, int r) {
        x.op.kind = OpKind::kBroadcast;
        x.op.count = count;
        x.op.root = root;
        Dense(x, r, count, 0);
        x.op.recv = x.op.send;
      });
      EXPECT_EQ(algo_, count == 100 ? "direct" : "chain");
      for (int r = 0; r < kRanks.world(); ++r) {
        for (uint64_t i = 0; i < count; ++i)
          ASSERT_EQ(ranks_[static_cast<size_t>(r)].send[i], Value(root, i)) << "rank " << r;
      }
    }
  }
}

TEST_F(UnevenNodes, AllgatherPutsEveryRanksBlockAtItsRankDirectAndByRing) {
  for (uint64_t block : {uint64_t{10}, uint64_t{3001}}) {
    Run([&](Rank& x, int r) {
      x.op.kind = OpKind::kAllgather;
      x.op.count = block;
      Dense(x, r, block, block * static_cast<uint64_t>(kRanks.world()));
    });
    EXPECT_EQ(algo_, block == 10 ? "direct" : "ring");
    for (int r = 0; r < kRanks.world(); ++r) {
      for (int q = 0; q < kRanks.world(); ++q) {
        for (uint64_t i = 0; i < block; ++i)
          ASSERT_EQ(recv(r)[static_cast<uint64_t>(q) * block + i], Value(q, i))
              << "rank " << r << ", block of rank " << q;
      }
    }
  }
}

TEST_F(UnevenNodes, ReduceScatterGivesEachRankItsSliceOfTheSum) {
  constexpr uint64_t kSlice = 50;
  Run([&](Rank& x, int r) {
    x.op.kind = OpKind::kReduceScatter;
    x.op.reduce_op = ReduceOp::kSum;
    x.op.count = kSlice;
    Dense(x, r, kSlice * static_cast<uint64_t>(kRanks.world()), kSlice);
  });
  for (int r = 0; r < kRanks.world(); ++r) {
    for (uint64_t i = 0; i < kSlice; ++i) {
      float sum = 0;
      for (int q = 0; q < kRanks.world(); ++q)
        sum += Value(q, static_cast<uint64_t>(r) * kSlice + i);
      ASSERT_FLOAT_EQ(recv(r)[i], sum) << "rank " << r << " element " << i;
    }
  }
}

TEST_F(UnevenNodes, AlltoallvDeliversEveryPairsBlock) {
  // Rank q sends rank p (q + p) % 4 + 1 elements, each q * 100 + p.
  int world = kRanks.world();
  auto n = [](int q, int p) { return static_cast<int64_t>((q + p) % 4 + 1); };
  Run([&](Rank& x, int r) {
    x.op.kind = OpKind::kAlltoallv;
    for (int p = 0; p < world; ++p) {
      x.op.send_counts.push_back(n(r, p));
      x.op.recv_counts.push_back(n(p, r));
      for (int64_t e = 0; e < n(r, p); ++e) x.send.push_back(static_cast<float>(r * 100 + p));
    }
    int64_t in = 0;
    for (int64_t c : x.op.recv_counts) in += c;
    x.recv.assign(static_cast<size_t>(in), -1.0f);
    x.op.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
  });
  for (int r = 0; r < world; ++r) {
    size_t at = 0;
    for (int q = 0; q < world; ++q) {
      for (int64_t e = 0; e < n(q, r); ++e, ++at)
        ASSERT_EQ(recv(r)[at], static_cast<float>(q * 100 + r)) << "rank " << r << " from " << q;
    }
  }
}

// Rank r's rows: ids r, r + 3, r + 6, ... (overlapping between ranks), values from Value.
constexpr uint64_t kRows = 1000, kDim = 8, kNnz = 200;

void SparseInput(Rank& x, int r) {
  x.op.count = kDim;
  x.op.rows = kRows;
  x.op.id_dtype = DType::kI64;
  for (uint64_t i = 0; i < kNnz; ++i)
    x.ids.push_back(static_cast<int64_t>(i * 3 + static_cast<uint64_t>(r)));
  x.send.resize(kNnz * kDim);
  for (uint64_t i = 0; i < kNnz * kDim; ++i) x.send[i] = Value(r, i);
  x.op.ids = BufferSpan::Host(x.ids.data(), x.ids.size() * 8);
  x.op.nnz = kNnz;
  x.op.send = BufferSpan::Host(x.send.data(), x.send.size() * 4);
  x.op.capacity = kRows;
  x.out_ids.assign(kRows, -1);
  x.recv.assign(kRows * kDim, 0);
  x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size() * 4);
  x.op.out_ids = BufferSpan::Host(x.out_ids.data(), x.out_ids.size() * 8);
}

// Every id's summed row over all ranks.
std::map<int64_t, std::vector<float>> SparseSum(int world) {
  std::map<int64_t, std::vector<float>> sum;
  for (int r = 0; r < world; ++r) {
    for (uint64_t i = 0; i < kNnz; ++i) {
      auto& row = sum[static_cast<int64_t>(i * 3 + static_cast<uint64_t>(r))];
      row.resize(kDim, 0.0f);
      for (uint64_t d = 0; d < kDim; ++d) row[d] += Value(r, i * kDim + d);
    }
  }
  return sum;
}

// Rank r's output holds exactly `want`'s ids, in order, with their rows.
void ExpectRows(const Rank& x, const std::map<int64_t, std::vector<float>>& want, int r) {
  size_t i = 0;
  for (const auto& [id, row] : want) {
    ASSERT_LT(i, x.out_ids.size());
    ASSERT_EQ(x.out_ids[i], id) << "rank " << r << " output row " << i;
    for (uint64_t d = 0; d < kDim; ++d)
      ASSERT_FLOAT_EQ(x.recv[i * kDim + d], row[d]) << "rank " << r << " id " << id;
    ++i;
  }
  if (i < x.out_ids.size()) {
    EXPECT_EQ(x.out_ids[i], -1) << "rank " << r << ": rows past the sum";
  }
}

TEST_F(UnevenNodes, SparseAllreduceByEveryAlgorithmGivesEveryRankTheSum) {
  auto want = SparseSum(kRanks.world());
  for (ipc::SparseAlgo algo : {ipc::SparseAlgo::kAllgather, ipc::SparseAlgo::kBalanced,
                               ipc::SparseAlgo::kBlock, ipc::SparseAlgo::kDense}) {
    Run([&](Rank& x, int r) {
      x.op.kind = OpKind::kSparseAllreduce;
      x.op.algo = static_cast<uint32_t>(algo);
      SparseInput(x, r);
    });
    SCOPED_TRACE(ipc::SparseAlgoName(algo));
    EXPECT_EQ(algo_, ipc::SparseAlgoName(algo));
    for (int r = 0; r < kRanks.world(); ++r) ExpectRows(ranks_[static_cast<size_t>(r)], want, r);
  }
}

TEST_F(UnevenNodes, SparseShardGivesEachRankTheSumOfTheRowsItOwns) {
  auto sum = SparseSum(kRanks.world());
  Run([&](Rank& x, int r) {
    x.op.kind = OpKind::kSparseShard;
    x.op.algo = static_cast<uint32_t>(ipc::ShardScheme::kRange);
    SparseInput(x, r);
  });
  for (int r = 0; r < kRanks.world(); ++r) {
    uint64_t lo = ipc::ShardFirstRow(kRows, kRanks.world(), r),
             hi = ipc::ShardFirstRow(kRows, kRanks.world(), r + 1);
    std::map<int64_t, std::vector<float>> mine;
    for (const auto& [id, row] : sum) {
      if (static_cast<uint64_t>(id) >= lo && static_cast<uint64_t>(id) < hi) mine[id] = row;
    }
    ExpectRows(ranks_[static_cast<size_t>(r)], mine, r);
  }
}

}  // namespace
}  // namespace outrider::agent
