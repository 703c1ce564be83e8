// Sparse embedding-gradient collectives through real agents: one node with several clients, and
// three agents on loopback with two ranks each. Every algorithm (and the cost model's choice)
// against a dense reference, bitwise equality across ranks, sharded gradients and lookups, and
// bad input failing every rank with a clear error while the job and agents carry on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "ipc/protocol.h"
#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kRows = 5000;
constexpr uint64_t kDim = 4;

// Rank r's contribution: ids with duplicates and skew, integer values (exact sums).
void Contribution(int r, uint64_t nnz, std::vector<int64_t>* ids, std::vector<float>* vals) {
  std::mt19937_64 rng(1000 + static_cast<uint64_t>(r));
  std::uniform_int_distribution<uint64_t> id(0, kRows - 1);
  for (uint64_t i = 0; i < nnz; ++i) {
    uint64_t x = id(rng);
    if (i % 3 == 0) x = x * x / kRows;  // skew toward low ids
    if (i == 0) x = 0;
    if (i == 1) x = kRows - 1;
    ids->push_back(static_cast<int64_t>(x));
    for (uint64_t k = 0; k < kDim; ++k)
      vals->push_back(static_cast<float>((r + 1) * (k + 1) + static_cast<int>(x % 5)));
  }
}

uint64_t Nnz(int r) {
  return r == 2 ? 0 : 300 + 50 * static_cast<uint64_t>(r);
}  // rank 2 brings nothing

// The reference union over `world` ranks: id -> summed row.
std::map<int64_t, std::vector<float>> Reference(int world) {
  std::map<int64_t, std::vector<float>> ref;
  for (int r = 0; r < world; ++r) {
    std::vector<int64_t> ids;
    std::vector<float> vals;
    Contribution(r, Nnz(r), &ids, &vals);
    for (size_t i = 0; i < ids.size(); ++i) {
      auto& row = ref[ids[i]];
      row.resize(kDim, 0.0f);
      for (uint64_t k = 0; k < kDim; ++k) row[k] += vals[i * kDim + k];
    }
  }
  return ref;
}

// Runs one sparse allreduce; checks it against the reference; stores (rows, fnv of the result)
// in `out` so the parent can compare ranks bitwise.
int SparseAllreduceAndCheck(outrider_client_t* c, int r, int world, uint32_t algo,
                            outrider_dtype_t id_dtype, uint8_t* out, std::string* why) {
  std::vector<int64_t> ids;
  std::vector<float> vals;
  Contribution(r, Nnz(r), &ids, &vals);
  size_t idw = id_dtype == OUTRIDER_I32 ? 4 : 8;
  uint64_t cap = kRows;
  auto* in_ids = static_cast<uint8_t*>(outrider_alloc(c, ids.size() * idw + 8));
  auto* in_vals = static_cast<float*>(outrider_alloc(c, vals.size() * 4 + 4));
  auto* out_ids = static_cast<uint8_t*>(outrider_alloc(c, cap * idw));
  auto* out_vals = static_cast<float*>(outrider_alloc(c, cap * kDim * 4));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (idw == 4) {
      auto v = static_cast<int32_t>(ids[i]);
      std::memcpy(in_ids + 4 * i, &v, 4);
    } else {
      std::memcpy(in_ids + 8 * i, &ids[i], 8);
    }
  }
  if (!vals.empty()) std::memcpy(in_vals, vals.data(), vals.size() * 4);
  outrider_sparse_t s;
  outrider_sparse_init(&s);
  s.rows = kRows;
  s.dim = kDim;
  s.dtype = OUTRIDER_F32;
  s.id_dtype = id_dtype;
  s.ids = in_ids;
  s.values = in_vals;
  s.nnz = ids.size();
  s.out_ids = out_ids;
  s.out_values = out_vals;
  s.capacity = cap;
  s.algo = algo;
  outrider_op_t h = 0;
  int rc = outrider_sparse_allreduce(c, &s, nullptr, &h);
  outrider_op_result_t res{};
  res.size = sizeof(res);
  if (rc == OUTRIDER_OK) rc = outrider_wait_result(c, h, 30000, &res);
  if (rc != OUTRIDER_OK) return rc;
  auto ref = Reference(world);
  if (res.result_rows != ref.size()) {
    *why = "result has " + std::to_string(res.result_rows) + " rows, reference " +
           std::to_string(ref.size());
    return 99;
  }
  size_t i = 0;
  for (const auto& [id, row] : ref) {
    int64_t got = 0;
    if (idw == 4) {
      int32_t v;
      std::memcpy(&v, out_ids + 4 * i, 4);
      got = v;
    } else {
      std::memcpy(&got, out_ids + 8 * i, 8);
    }
    if (got != id || std::memcmp(out_vals + i * kDim, row.data(), kDim * 4) != 0) {
      *why = "row " + std::to_string(i) + " differs from the reference (id " + std::to_string(got) +
             ")";
      return 98;
    }
    ++i;
  }
  uint64_t hash = ipc::Fnv1a(out_vals, res.result_rows * kDim * 4);
  std::memcpy(out, &res.result_rows, 8);
  std::memcpy(out + 8, &hash, 8);
  std::memcpy(out + 16, &res.algo, 4);
  std::memcpy(out + 24, &res.wire_bytes_sent, 8);
  return OUTRIDER_OK;
}

// Rows rank r's next batch needs: a few rows of the union (including the first and last id) and
// one no rank contributes.
std::vector<int64_t> Demand(int r) {
  std::vector<int64_t> d = {0, static_cast<int64_t>(kRows - 1), 7 + 11 * r, 400 + r, 7 + 11 * r};
  return d;
}

// A sparse allreduce with row demand: the demanded rows must be in the output when
// outrider_wait_demand returns (sorted, first), the rest after them once the op completes, every
// row as the reference has it.
int DemandAndCheck(outrider_client_t* c, int r, int world, uint32_t algo, uint8_t* out,
                   std::string* why) {
  std::vector<int64_t> ids;
  std::vector<float> vals;
  Contribution(r, Nnz(r), &ids, &vals);
  std::vector<int64_t> want = Demand(r);
  auto* in_ids = static_cast<int64_t*>(outrider_alloc(c, ids.size() * 8 + 8));
  auto* in_vals = static_cast<float*>(outrider_alloc(c, vals.size() * 4 + 4));
  auto* dem = static_cast<int64_t*>(outrider_alloc(c, want.size() * 8));
  auto* out_ids = static_cast<int64_t*>(outrider_alloc(c, kRows * 8));
  auto* out_vals = static_cast<float*>(outrider_alloc(c, kRows * kDim * 4));
  if (!ids.empty()) std::memcpy(in_ids, ids.data(), ids.size() * 8);
  if (!vals.empty()) std::memcpy(in_vals, vals.data(), vals.size() * 4);
  std::memcpy(dem, want.data(), want.size() * 8);
  outrider_sparse_t s;
  outrider_sparse_init(&s);
  s.rows = kRows;
  s.dim = kDim;
  s.ids = in_ids;
  s.values = in_vals;
  s.nnz = ids.size();
  s.out_ids = out_ids;
  s.out_values = out_vals;
  s.capacity = kRows;
  s.algo = algo;
  s.demand_ids = dem;
  s.demand_nnz = want.size();
  outrider_op_t h = 0;
  int rc = outrider_sparse_allreduce(c, &s, nullptr, &h);
  if (rc != OUTRIDER_OK) return rc;
  auto ref = Reference(world);
  std::set<int64_t> demanded;  // every rank's demand that is in the union
  for (int q = 0; q < world; ++q) {
    for (int64_t id : Demand(q)) {
      if (ref.count(id)) demanded.insert(id);
    }
  }
  auto check_row = [&](size_t i, int64_t id) {
    if (out_ids[i] != id || std::memcmp(out_vals + i * kDim, ref[id].data(), kDim * 4) != 0) {
      *why = "row " + std::to_string(i) + " is id " + std::to_string(out_ids[i]) + ", expected " +
             std::to_string(id) + " with its reference values";
      return false;
    }
    return true;
  };
  outrider_op_result_t early{};
  early.size = sizeof(early);
  rc = outrider_wait_demand(c, h, 30000, &early);
  if (rc != OUTRIDER_OK) return rc;
  if (early.demand_rows != demanded.size()) {
    *why = "wait_demand reported " + std::to_string(early.demand_rows) + " rows, expected " +
           std::to_string(demanded.size());
    return 97;
  }
  size_t i = 0;
  for (int64_t id : demanded) {
    if (!check_row(i++, id)) return 96;
  }
  outrider_op_result_t res{};
  res.size = sizeof(res);
  rc = outrider_wait_result(c, h, 30000, &res);
  if (rc != OUTRIDER_OK) return rc;
  if (res.result_rows != ref.size() || res.demand_rows != demanded.size()) {
    *why = "result has " + std::to_string(res.result_rows) + " rows (" +
           std::to_string(res.demand_rows) + " demanded), reference " + std::to_string(ref.size()) +
           " (" + std::to_string(demanded.size()) + ")";
    return 95;
  }
  i = 0;
  for (int64_t id : demanded) {
    if (!check_row(i++, id)) return 94;
  }
  for (const auto& [id, row] : ref) {
    if (!demanded.count(id) && !check_row(i++, id)) return 93;
  }
  uint64_t hash = ipc::Fnv1a(out_vals, res.result_rows * kDim * 4);
  std::memcpy(out, &res.result_rows, 8);
  std::memcpy(out + 8, &hash, 8);
  return OUTRIDER_OK;
}

class SparseTest : public MultiNodeTest {};

TEST_F(SparseTest, DemandedRowsArriveFirstAndTheRestFollowsOnOneAndThreeNodes) {
  StartAgents(3);
  for (uint32_t algo : {OUTRIDER_SPARSE_ALLGATHER, OUTRIDER_SPARSE_DENSE, OUTRIDER_SPARSE_AUTO}) {
    SCOPED_TRACE("algo " + std::to_string(algo));
    RunJob("dm-" + std::to_string(algo), 3, 2, "tok", [&](outrider_client_t* c, int r) {
      std::string why;
      int rc = DemandAndCheck(c, r, 6, algo, results_->out[r], &why);
      if (!why.empty()) CopyText(results_->error[r], 256, why.c_str());
      return rc;
    });
    for (int r = 1; r < 6; ++r)
      EXPECT_EQ(0, std::memcmp(results_->out[0], results_->out[r], 16)) << "rank " << r;
  }
  RunJob("dm-single", 1, 3, "", [&](outrider_client_t* c, int r) {
    std::string why;
    int rc = DemandAndCheck(c, r, 3, OUTRIDER_SPARSE_AUTO, results_->out[r], &why);
    if (!why.empty()) CopyText(results_->error[r], 256, why.c_str());
    return rc;
  });
}

TEST_F(SparseTest, SingleNodeUnionOfThreeClientsMatchesReference) {
  agents_.push_back(StartAgent());
  ports_.push_back(0);
  ASSERT_NE(agents_[0], nullptr);
  for (outrider_dtype_t idt : {OUTRIDER_I32, OUTRIDER_I64}) {
    RunJob("sn-" + std::to_string(idt), 1, 3, "", [&](outrider_client_t* c, int r) {
      std::string why;
      int rc = SparseAllreduceAndCheck(c, r, 3, OUTRIDER_SPARSE_AUTO, idt, results_->out[r], &why);
      if (!why.empty()) CopyText(results_->error[r], 256, why.c_str());
      return rc;
    });
    for (int r = 1; r < 3; ++r) EXPECT_EQ(0, std::memcmp(results_->out[0], results_->out[r], 16));
  }
}

TEST_F(SparseTest, EveryAlgorithmAcrossThreeNodesMatchesReferenceBitwiseOnEveryRank) {
  StartAgents(3);
  const int nodes = 3, local = 2, world = 6;
  for (uint32_t algo : {OUTRIDER_SPARSE_ALLGATHER, OUTRIDER_SPARSE_BALANCED, OUTRIDER_SPARSE_BLOCK,
                        OUTRIDER_SPARSE_DENSE, OUTRIDER_SPARSE_AUTO}) {
    SCOPED_TRACE("algo " + std::to_string(algo));
    outrider_dtype_t idt = algo % 2 == 0 ? OUTRIDER_I32 : OUTRIDER_I64;
    RunJob("sp-" + std::to_string(algo), nodes, local, "tok", [&](outrider_client_t* c, int r) {
      std::string why;
      int rc = SparseAllreduceAndCheck(c, r, world, algo, idt, results_->out[r], &why);
      if (!why.empty()) CopyText(results_->error[r], 256, why.c_str());
      return rc;
    });
    for (int r = 1; r < world; ++r)
      EXPECT_EQ(0, std::memcmp(results_->out[0], results_->out[r], 20)) << "rank " << r;
    uint32_t ran;
    std::memcpy(&ran, results_->out[0] + 16, 4);
    if (algo != OUTRIDER_SPARSE_AUTO) {
      EXPECT_EQ(ran, algo);
    }
    uint64_t wire;
    std::memcpy(&wire, results_->out[0] + 24, 8);
    EXPECT_GT(wire, 0u);
  }
}

TEST_F(SparseTest, ShardedGradientsArriveSummedAtOwnersAndLookupsReturnOwnedRows) {
  StartAgents(2);
  const int nodes = 2, local = 2, world = 4;
  auto ref = Reference(world);
  RunJob("shard", nodes, local, "tok", [&](outrider_client_t* c, int r) -> int {
    std::vector<int64_t> ids;
    std::vector<float> vals;
    Contribution(r, Nnz(r), &ids, &vals);
    uint64_t first = 0, count = 0;
    outrider_shard_range(kRows, world, r, &first, &count);
    auto* in_ids = static_cast<int64_t*>(outrider_alloc(c, ids.size() * 8 + 8));
    auto* in_vals = static_cast<float*>(outrider_alloc(c, vals.size() * 4 + 4));
    auto* out_ids = static_cast<int64_t*>(outrider_alloc(c, count * 8));
    auto* out_vals = static_cast<float*>(outrider_alloc(c, count * kDim * 4));
    if (!ids.empty()) std::memcpy(in_ids, ids.data(), ids.size() * 8);
    if (!vals.empty()) std::memcpy(in_vals, vals.data(), vals.size() * 4);
    outrider_sparse_t s;
    outrider_sparse_init(&s);
    s.rows = kRows;
    s.dim = kDim;
    s.ids = in_ids;
    s.values = in_vals;
    s.nnz = ids.size();
    s.out_ids = out_ids;
    s.out_values = out_vals;
    s.capacity = count;
    s.algo = OUTRIDER_SHARD_RANGE;
    outrider_op_t h = 0;
    outrider_op_result_t res{};
    res.size = sizeof(res);
    int rc = outrider_sparse_shard(c, &s, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait_result(c, h, 30000, &res);
    if (rc != OUTRIDER_OK) return rc;
    size_t i = 0;
    for (const auto& [id, row] : ref) {
      if (static_cast<uint64_t>(id) < first || static_cast<uint64_t>(id) >= first + count) continue;
      if (i >= res.result_rows || out_ids[i] != id ||
          std::memcmp(out_vals + i * kDim, row.data(), kDim * 4) != 0)
        return 97;
      ++i;
    }
    if (i != res.result_rows) return 96;
    // The shard now holds id * 10 + k; every rank looks up rows owned by other ranks.
    auto* shard = static_cast<float*>(outrider_alloc(c, count * kDim * 4));
    for (uint64_t row = 0; row < count; ++row) {
      for (uint64_t k = 0; k < kDim; ++k)
        shard[row * kDim + k] = static_cast<float>((first + row) * 10 + k);
    }
    std::vector<int64_t> want = {static_cast<int64_t>((first + kRows / 2) % kRows), 0,
                                 static_cast<int64_t>(kRows - 1), 7, 7};
    auto* want_ids = static_cast<int64_t*>(outrider_alloc(c, want.size() * 8));
    auto* got = static_cast<float*>(outrider_alloc(c, want.size() * kDim * 4));
    std::memcpy(want_ids, want.data(), want.size() * 8);
    outrider_sparse_t q;
    outrider_sparse_init(&q);
    q.rows = kRows;
    q.dim = kDim;
    q.ids = want_ids;
    q.nnz = want.size();
    q.values = shard;
    q.out_values = got;
    q.capacity = want.size();
    rc = outrider_sparse_lookup(c, &q, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 30000);
    if (rc != OUTRIDER_OK) return rc;
    for (size_t j = 0; j < want.size(); ++j) {
      for (uint64_t k = 0; k < kDim; ++k) {
        if (got[j * kDim + k] != static_cast<float>(static_cast<uint64_t>(want[j]) * 10 + k))
          return 95;
      }
    }
    return OUTRIDER_OK;
  });
}

// Submits a sparse allreduce with a per-rank twist; returns rc and fills the error text.
int SubmitTwisted(outrider_client_t* c, int r, uint64_t dim, int64_t bad_id, uint64_t cap,
                  outrider_op_result_t* res) {
  auto* ids = static_cast<int64_t*>(outrider_alloc(c, 3 * 8));
  auto* vals = static_cast<float*>(outrider_alloc(c, 3 * dim * 4));
  auto* oid = static_cast<int64_t*>(outrider_alloc(c, (cap + 1) * 8));
  auto* ov = static_cast<float*>(outrider_alloc(c, (cap + 1) * dim * 4));
  ids[0] = r;
  ids[1] = 100 + r;
  ids[2] = bad_id;
  for (uint64_t i = 0; i < 3 * dim; ++i) vals[i] = 1.0f;
  outrider_sparse_t s;
  outrider_sparse_init(&s);
  s.rows = kRows;
  s.dim = dim;
  s.ids = ids;
  s.values = vals;
  s.nnz = 3;
  s.out_ids = oid;
  s.out_values = ov;
  s.capacity = cap;
  outrider_op_t h = 0;
  int rc = outrider_sparse_allreduce(c, &s, nullptr, &h);
  return rc == OUTRIDER_OK ? outrider_wait_result(c, h, 30000, res) : rc;
}

TEST_F(SparseTest, BadIdsDisagreeingDimAndSmallOutputsFailEveryRankClearlyAndTheJobGoesOn) {
  StartAgents(2);
  const int nodes = 2, local = 2, world = 4;
  RunJob("bad", nodes, local, "tok", [&](outrider_client_t* c, int r) {
    outrider_op_result_t res{};
    res.size = sizeof(res);
    std::string log;
    // 1. Rank 3 sends an id past the table, rank 1 a negative one: everyone fails, naming them.
    int rc = SubmitTwisted(c, r, kDim,
                           r == 3   ? static_cast<int64_t>(kRows)
                           : r == 1 ? -5
                                    : 7,
                           64, &res);
    log += std::to_string(rc) + "|" + outrider_last_error(c) + "\n";
    // 2. Rank 2 disagrees on dim: a mismatch on every rank.
    rc = SubmitTwisted(c, r, r == 2 ? kDim + 1 : kDim, 8, 64, &res);
    log += std::to_string(rc) + "|" + outrider_last_error(c) + "\n";
    // 3. Rank 0's output is too small: only rank 0 fails, told how many rows it needs.
    rc = SubmitTwisted(c, r, kDim, 9, r == 0 ? 2 : 64, &res);
    log += std::to_string(rc) + "|" + std::to_string(res.result_rows) + "|" +
           (rc ? outrider_last_error(c) : "") + "\n";
    // 4. And the job still works.
    rc = SubmitTwisted(c, r, kDim, 10, 64, &res);
    log += std::to_string(rc) + "|" + std::to_string(res.result_rows) + "\n";
    CopyText(reinterpret_cast<char*>(results_->out[r]), 4096, log.c_str());
    return 0;
  });
  for (int r = 0; r < world; ++r) {
    std::string log(reinterpret_cast<char*>(results_->out[r]));
    SCOPED_TRACE("rank " + std::to_string(r) + ":\n" + log);
    EXPECT_THAT(log, HasSubstr(std::to_string(OUTRIDER_ERR_INVALID_ARGUMENT) + "|"));
    EXPECT_THAT(log,
                ::testing::AnyOf(HasSubstr("rank 1 sent id -5"), HasSubstr("rank 3 sent id 5000")));
    EXPECT_THAT(log, HasSubstr(std::to_string(OUTRIDER_ERR_MISMATCH) + "|"));
    EXPECT_THAT(log, HasSubstr("disagree on dim"));
    // Ids 0..3, 100..103 and 9: 9 rows.
    if (r == 0) {
      EXPECT_THAT(log, HasSubstr(std::to_string(OUTRIDER_ERR_OUTPUT_TOO_SMALL) + "|9|"));
      EXPECT_THAT(log, HasSubstr("at least 9 rows"));
    } else {
      EXPECT_THAT(log, HasSubstr("\n0|9|\n"));
    }
    EXPECT_THAT(log, ::testing::EndsWith("0|9\n"));
  }
}

TEST_F(SparseTest, DenseOnATableTooLargeToHoldFailsEveryRankAndAutoPicksAnotherAlgorithm) {
  // 2^40 rows: the dense algorithm would hold the whole table at every agent. Asked for, it fails
  // every rank with RESOURCE_EXHAUSTED; the cost model never picks it; the agents carry on.
  StartAgents(2);
  constexpr uint64_t kHugeRows = uint64_t{1} << 40;
  RunJob("huge", 2, 1, "tok", [&](outrider_client_t* c, int r) {
    auto* ids = static_cast<int64_t*>(outrider_alloc(c, 8 * sizeof(int64_t)));
    auto* vals = static_cast<float*>(outrider_alloc(c, 8 * sizeof(float)));
    auto* out_ids = static_cast<int64_t*>(outrider_alloc(c, 16 * sizeof(int64_t)));
    auto* out_vals = static_cast<float*>(outrider_alloc(c, 16 * sizeof(float)));
    for (int i = 0; i < 8; ++i) {
      ids[i] = static_cast<int64_t>(kHugeRows - 1 - static_cast<uint64_t>(i + 8 * r));
      vals[i] = 1.0f;
    }
    std::string log;
    for (uint32_t algo : {uint32_t{OUTRIDER_SPARSE_DENSE}, uint32_t{OUTRIDER_SPARSE_AUTO}}) {
      outrider_sparse_t s;
      outrider_sparse_init(&s);
      s.rows = kHugeRows;
      s.dim = 1;
      s.dtype = OUTRIDER_F32;
      s.id_dtype = OUTRIDER_I64;
      s.ids = ids;
      s.values = vals;
      s.nnz = 8;
      s.out_ids = out_ids;
      s.out_values = out_vals;
      s.capacity = 16;
      s.algo = algo;
      outrider_op_t h;
      outrider_op_result_t res{};
      res.size = sizeof(res);
      int rc = outrider_sparse_allreduce(c, &s, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait_result(c, h, 30000, &res);
      log += std::to_string(rc) + "|" + std::to_string(res.result_rows) + "|" +
             (rc ? outrider_last_error(c) : "") + "\n";
    }
    CopyText(reinterpret_cast<char*>(results_->out[r]), 4096, log.c_str());
    return 0;
  });
  for (int r = 0; r < 2; ++r) {
    std::string log(reinterpret_cast<char*>(results_->out[r]));
    SCOPED_TRACE("rank " + std::to_string(r) + ":\n" + log);
    EXPECT_THAT(log, ::testing::StartsWith(std::to_string(OUTRIDER_ERR_RESOURCE_EXHAUSTED) + "|"));
    EXPECT_THAT(log, HasSubstr("the dense algorithm holds the whole 1099511627776 x 1 table"));
    EXPECT_THAT(log, ::testing::EndsWith("\n0|16|\n"));
  }
}

}  // namespace
}  // namespace outrider::testing
