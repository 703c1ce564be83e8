// Sparse exchanges driven in process for tests: nodes as objects, a FIFO as the network, inputs
// whose sums are exact or order-dependent, and bitwise comparison of results.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse::harness {

using ipc::SparseAlgo;

inline Table MakeTable(uint64_t rows, uint64_t dim, ipc::DType dtype = ipc::DType::kF32) {
  return Table{rows, dim, dtype};
}

// Rows with integer values (exact in every dtype for small sums), possibly duplicated ids.
inline Rows RandomRows(std::mt19937_64& rng, const Table& t, size_t n, uint64_t max_id,
                       bool zipf = false) {
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

inline Rows Coalesce(const Rows& r, const Table& t) {
  const Rows* p = &r;
  return Sum(std::span<const Rows* const>(&p, 1), t);
}

// Dense reference: sum per id over all inputs (doubles; exact for these integers).
inline std::map<uint64_t, std::vector<double>> Reference(const std::vector<Rows>& in,
                                                         const Table& t) {
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
inline std::vector<Rows> FractionalInputs(int nodes, const Table& t, size_t n) {
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
inline std::vector<Rows> RunAll(const std::vector<std::unique_ptr<Exchange>>& ex,
                                std::vector<Rows> mine, Net* net) {
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
    Status st = ex[static_cast<size_t>(m.to)]->OnMessage(m.from, m.phase, m.bytes.data(),
                                                         m.bytes.size(), &out);
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

// Runs `algo` on each node's rows (coalesced first), with `starts` as the agreed id ranges
// (Context::range_starts; empty: one range).
inline std::vector<Rows> RunReplicated(SparseAlgo algo, const std::vector<Rows>& node_rows,
                                       const Table& t, Net* net,
                                       const std::vector<uint64_t>& starts = {}) {
  int n = static_cast<int>(node_rows.size());
  std::vector<std::unique_ptr<Exchange>> ex;
  std::vector<Rows> mine;
  for (int i = 0; i < n; ++i) {
    Context c{n, i, RankLayout::Even(n, 1), t, 4, starts};
    ex.push_back(MakeReplicated(algo, c));
    mine.push_back(Coalesce(node_rows[static_cast<size_t>(i)], t));
  }
  return RunAll(ex, std::move(mine), net);
}

inline void ExpectBitwiseEqual(const Rows& a, const Rows& b) {
  ASSERT_EQ(a.ids, b.ids);
  ASSERT_EQ(a.vals.size(), b.vals.size());
  if (!a.vals.empty()) {
    ASSERT_EQ(0, std::memcmp(a.vals.data(), b.vals.data(), a.vals.size() * sizeof(float)));
  }
}

// The id ranges nodes with these (coalesced) rows agree from their quantiles, as the agents do.
inline std::vector<uint64_t> AgreedStarts(const std::vector<Rows>& mine) {
  std::vector<std::vector<uint64_t>> quantiles;
  for (const Rows& m : mine) quantiles.push_back(IdQuantiles(m.ids, kAllgatherRanges));
  return MergeQuantiles(quantiles);
}

}  // namespace outrider::agent::sparse::harness
