// Zipf id streams.
#include "tools/bench/sparse_ids.h"

#include <algorithm>
#include <cmath>
#include <random>

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
    auto id = static_cast<uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u(rng)) - cdf_.begin());
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

}  // namespace outrider::bench
