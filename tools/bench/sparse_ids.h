// Embedding-row id streams for the sparse benchmarks: each rank of a step touches `count`
// distinct rows drawn from a Zipf(s) law over the table (row 0 most popular, as in a vocabulary
// sorted by frequency). The same (rows, count, s, seed, rank) always gives the same ids, so the
// simulator replays exactly what the measured run sent.
// Thread-safety: ZipfTable is immutable once built.
#pragma once

#include <cstdint>
#include <vector>

namespace outrider::bench {

class ZipfTable {
 public:
  ZipfTable(uint64_t rows, double s);
  uint64_t rows() const { return static_cast<uint64_t>(cdf_.size()); }
  // `count` distinct ids (sorted) for `rank`; count > rows is clamped.
  std::vector<int64_t> Draw(uint64_t count, uint64_t seed, int rank) const;

 private:
  std::vector<double> cdf_;
};

}  // namespace outrider::bench
