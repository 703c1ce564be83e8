// Predicts the inter-node bytes and time of each replicated sparse algorithm from what every node
// announced for one op (rows it contributes, non-zero blocks), the union growth seen on earlier
// steps of the same key, and the link bandwidth, and picks the cheapest. Every node runs it on the
// same agreed inputs, so every node picks the same algorithm.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

struct NodeAnnounce {
  uint64_t nnz = 0;     // rows in the node's coalesced contribution
  uint64_t blocks = 0;  // its non-zero blocks of block_rows rows
};

struct CostInputs {
  Context ctx;                       // me is irrelevant
  std::vector<NodeAnnounce> nodes;   // by node
  double union_ratio = -1;           // observed union rows / sum of nnz on earlier steps; < 0: none
  double block_union_ratio = -1;     // the same for non-zero blocks
  double link_bytes_per_s = 250e6;   // per node link
  uint64_t chunk_bytes = 1 << 20;    // messages travel in chunks of this size...
  uint64_t chunk_overhead = 88;      // ...each with this many header bytes
  double phase_latency_s = 200e-6;   // one message round
};

struct Prediction {
  ipc::SparseAlgo algo = ipc::SparseAlgo::kAllgather;
  std::vector<uint64_t> sent, recv;  // by node
  double seconds = 0;
};

// Bytes a message of `payload` bytes costs on the wire (chunk headers included).
uint64_t WireBytes(uint64_t payload, uint64_t chunk_bytes, uint64_t chunk_overhead);
Prediction Predict(ipc::SparseAlgo algo, const CostInputs& in);
// The algorithm with the lowest predicted time (ties: the earlier in allgather, balanced,
// block, dense).
Prediction Choose(const CostInputs& in);

// The dense algorithm holds the whole table's values (f32 sums) at every node: it is only chosen,
// and only allowed when asked for, up to this size. A protocol constant, not a parameter: every
// agent of a job must decide alike.
inline constexpr uint64_t kMaxDenseTableBytes = uint64_t{4} << 30;
// Whether a table of `rows` x `dim` fits kMaxDenseTableBytes (f32 sums).
bool DenseFits(uint64_t rows, uint64_t dim);

}  // namespace outrider::agent::sparse
