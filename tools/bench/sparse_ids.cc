// Zipf id streams.
#include "tools/bench/sparse_ids.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

ZipfTable::ZipfTable(uint64_t rows, double s) : cdf_(rows) {
  double sum = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    sum += 1.0 / std::pow(static_cast<double>(i + 1), s);
    cdf_[i] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

std::vector<int64_t> ZipfTable::Draw(uint64_t count, uint64_t seed, int rank) const {
  uint64_t rows = cdf_.size();
  count = std::min(count, rows);
  std::mt19937_64 rng(seed * 1000003u + static_cast<uint64_t>(rank) * 7919u + 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<uint8_t> seen(rows, 0);
  std::vector<int64_t> ids;
  ids.reserve(count);
  // Draw until `count` distinct rows; past 64 draws per row, fill from the least popular end so
  // dense configurations finish (they then cover the head and a contiguous tail).
  uint64_t budget = 64 * count + 1024;
  for (uint64_t d = 0; ids.size() < count && d < budget; ++d) {
    auto id =
        static_cast<uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u(rng)) - cdf_.begin());
    if (id >= rows) id = rows - 1;
    if (!seen[id]) {
      seen[id] = 1;
      ids.push_back(static_cast<int64_t>(id));
    }
  }
  for (uint64_t id = rows; ids.size() < count && id-- > 0;) {
    if (!seen[id]) {
      seen[id] = 1;
      ids.push_back(static_cast<int64_t>(id));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

SparseGradient MakeSparseGradient(outrider_client_t* c, std::vector<int64_t> ids, uint64_t rows,
                                  uint64_t dim, int world) {
  SparseGradient g;
  g.rows = rows;
  g.dim = dim;
  g.capacity = std::min<uint64_t>(rows, ids.size() * static_cast<uint64_t>(world));
  void *in_ids, *values, *out_values;
  Must(c, outrider_region_create(c, std::max<size_t>(8, ids.size() * 8), &in_ids), "region_create");
  Must(c, outrider_region_create(c, std::max<size_t>(4, ids.size() * dim * 4), &values),
       "region_create");
  Must(c, outrider_region_create(c, std::max<uint64_t>(8, g.capacity * 8), &g.out_ids),
       "region_create");
  Must(c, outrider_region_create(c, std::max<uint64_t>(4, g.capacity * dim * 4), &out_values),
       "region_create");
  g.in_ids = static_cast<int64_t*>(in_ids);
  g.values = static_cast<float*>(values);
  g.out_values = static_cast<float*>(out_values);
  std::memcpy(g.in_ids, ids.data(), ids.size() * 8);
  g.ids = std::move(ids);
  return g;
}

outrider_sparse_t SparseGradient::Args(uint32_t algo) const {
  outrider_sparse_t s;
  outrider_sparse_init(&s);
  s.rows = rows;
  s.dim = dim;
  s.ids = in_ids;
  s.values = values;
  s.nnz = ids.size();
  s.out_ids = out_ids;
  s.out_values = out_values;
  s.capacity = capacity;
  s.algo = algo;
  return s;
}

}  // namespace outrider::bench
