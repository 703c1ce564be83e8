// Coalescing a rank's sparse rows (agent/memory/gpu_sparse/coalesce_rows.h) on Thrust's host
// backend, against the host engine's sum: the same algorithm runs on the GPU's backend.
#include <gtest/gtest.h>
#include <thrust/system/cpp/execution_policy.h>

#include <cstring>
#include <random>
#include <vector>

#include "agent/engine/sparse/rows.h"
#include "agent/memory/gpu_sparse/coalesce_rows.h"

namespace outrider::agent::sparse {
namespace {

using gpu_sparse::CoalesceCounts;

template <class Id>
struct Coalesced {
  std::vector<Id> ids;
  std::vector<float> vals;
  CoalesceCounts counts{};
};

template <class Id>
Coalesced<Id> CoalesceOnHost(const std::vector<Id>& ids, const std::vector<float>& vals,
                             uint64_t dim) {
  uint64_t n = ids.size();
  Coalesced<Id> c;
  c.ids.assign(n + 1, Id{-7});
  c.vals.assign(n * dim + 1, -7.0f);
  std::vector<uint64_t> scratch((gpu_sparse::ScratchBytes<Id>(n) + 7) / 8);
  c.counts = CoalesceCounts{99, 99};
  gpu_sparse::CoalesceRows(thrust::cpp::par, ids.data(), vals.data(), n, dim, c.ids.data(),
                           c.vals.data(), &c.counts, scratch.data());
  return c;
}

// The host engine's sum of one part (its general path: a stable sort, equal ids in order).
Rows HostSum(const std::vector<int64_t>& ids, const std::vector<float>& vals, uint64_t dim) {
  Rows in;
  for (int64_t id : ids) in.ids.push_back(static_cast<uint64_t>(id));
  in.vals.assign(vals.begin(), vals.end());
  Table t;
  t.rows = uint64_t{1} << 40;
  t.dim = dim;
  const Rows* parts[] = {&in};
  return Sum(parts, t);
}

TEST(CoalesceRowsTest, SumsRepeatedIdsInOrderBitwiseAsTheHostEngineDoes) {
  std::mt19937_64 rng(7);
  for (uint64_t dim : {0u, 1u, 7u}) {
    for (uint64_t n : {1u, 2u, 100u, 5000u}) {
      std::vector<int64_t> ids(n);
      std::vector<float> vals(n * dim);
      for (auto& id : ids) id = static_cast<int64_t>(rng() % (n / 4 + 1));  // many repeats
      // Values of very different magnitudes: any other order of addition rounds differently.
      for (auto& v : vals)
        v = std::ldexp(static_cast<float>(rng() % 1000) - 500.0f,
                       static_cast<int>(rng() % 40) - 20);
      Rows want = HostSum(ids, vals, dim);
      auto got = CoalesceOnHost(ids, vals, dim);
      ASSERT_EQ(got.counts.unique, want.ids.size()) << "n " << n << " dim " << dim;
      if (n > 2) {
        EXPECT_GT(got.counts.moved, 0u);
      }
      for (size_t u = 0; u < want.ids.size(); ++u) {
        ASSERT_EQ(static_cast<uint64_t>(got.ids[u]), want.ids[u]) << u;
        if (dim > 0) {
          ASSERT_EQ(std::memcmp(got.vals.data() + u * dim, want.vals.data() + u * dim,
                                dim * sizeof(float)),
                    0)
              << "row " << u;
        }
      }
      EXPECT_EQ(got.ids[want.ids.size()], -7) << "wrote past the unique rows";
    }
  }
}

TEST(CoalesceRowsTest, StrictlyIncreasingIdsMoveNothingAndRepeatsOrDisorderAreCounted) {
  auto sorted = CoalesceOnHost<int32_t>({1, 4, 9}, {1, 2, 3}, 1);
  EXPECT_EQ(sorted.counts.unique, 3u);
  EXPECT_EQ(sorted.counts.moved, 0u);
  auto repeated =
      CoalesceOnHost<int32_t>({1, 4, 4, 9}, {1, 2, 3, 4}, 1);  // sorted, but 4 twice: nothing moves
  EXPECT_EQ(repeated.counts.unique, 3u);
  EXPECT_EQ(repeated.counts.moved, 0u);
  EXPECT_EQ(repeated.vals[1], 5.0f);
  auto swapped = CoalesceOnHost<int32_t>({4, 1, 9}, {2, 1, 3}, 1);
  EXPECT_EQ(swapped.counts.unique, 3u);
  EXPECT_EQ(swapped.counts.moved, 2u);
  EXPECT_EQ(swapped.ids[0], 1);
  EXPECT_EQ(swapped.vals[0], 1.0f);
  auto negative =
      CoalesceOnHost<int64_t>({3, -2, 3}, {1, 5, 2}, 1);  // signed order: the host rejects -2 later
  EXPECT_EQ(negative.counts.unique, 2u);
  EXPECT_EQ(negative.ids[0], -2);
  EXPECT_EQ(negative.vals[1], 3.0f);
  auto none = CoalesceOnHost<int64_t>({}, {}, 4);
  EXPECT_EQ(none.counts.unique, 0u);
  EXPECT_EQ(none.counts.moved, 0u);
}

}  // namespace
}  // namespace outrider::agent::sparse
