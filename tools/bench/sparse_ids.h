// Embedding-row id streams for the sparse benchmarks: each rank of a step touches `count`
// distinct rows drawn from a Zipf(s) law over the table (row 0 most popular, as in a vocabulary
// sorted by frequency). The same (rows, count, s, seed, rank) always gives the same ids, so the
// simulator replays exactly what the measured run sent.
// Thread-safety: ZipfTable is immutable once built.
#pragma once

#include <cstdint>
#include <vector>

#include "outrider/outrider.h"

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

// One rank's sparse gradient in memory shared with the agent: `ids` (i64) with `values`
// (nnz x dim f32, filled by the caller) and room for the replicated result (min(rows, world x nnz)
// rows). Exits the process (through Must) if the agent refuses the memory.
struct SparseGradient {
  std::vector<int64_t> ids;
  uint64_t rows = 0, dim = 0, capacity = 0;
  int64_t* in_ids = nullptr;
  float* values = nullptr;
  void* out_ids = nullptr;
  float* out_values = nullptr;
  // Arguments for outrider_sparse_allreduce with `algo`.
  outrider_sparse_t Args(uint32_t algo) const;
};
SparseGradient MakeSparseGradient(outrider_client_t* c, std::vector<int64_t> ids, uint64_t rows,
                                  uint64_t dim, int world);

}  // namespace outrider::bench
