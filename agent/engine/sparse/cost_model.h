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
  Context ctx;                      // me is irrelevant
  std::vector<NodeAnnounce> nodes;  // by node
  double union_ratio = -1;          // observed union rows / sum of nnz on earlier steps; < 0: none
  double block_union_ratio = -1;    // the same for non-zero blocks
  double link_bytes_per_s = 250e6;  // per node link
  uint64_t chunk_bytes = 1 << 20;   // messages travel in chunks of this size...
  uint64_t chunk_overhead = 88;     // ...each with this many header bytes
  double phase_latency_s = 200e-6;  // one message round
};

struct Prediction {
  ipc::SparseAlgo algo = ipc::SparseAlgo::kAllgather;
  std::vector<uint64_t> sent, recv;  // by node
  double seconds = 0;
};

// Bytes a message of `payload` bytes costs on the wire (chunk headers included).
uint64_t WireBytes(uint64_t payload, uint64_t chunk_bytes, uint64_t chunk_overhead);
// Bytes on the wire of an owner range under `dense`: one message per block (DenseBlocks), each cut
// in chunks.
uint64_t DenseRangeWireBytes(IdRange range, const Table& t, uint64_t chunk_bytes,
                             uint64_t chunk_overhead);
Prediction Predict(ipc::SparseAlgo algo, const CostInputs& in);
// The algorithm with the lowest predicted time (ties: the earlier in allgather, balanced,
// block, dense).
Prediction Choose(const CostInputs& in);
// Time per byte of the algorithms that move whole messages in two phases (balanced, block)
// against those that stream (allgather, dense); see Predict.
inline constexpr double kWholeMessageCost = 1.15;

// The dense algorithm holds the whole table's values (f32 sums) at every node: it is only chosen,
// and only allowed when asked for, up to this size. A protocol constant, not a parameter: every
// agent of a job must decide alike.
inline constexpr uint64_t kMaxDenseTableBytes = uint64_t{4} << 30;
// Whether a table of `rows` x `dim` fits kMaxDenseTableBytes (f32 sums).
bool DenseFits(uint64_t rows, uint64_t dim);

// Whether a rank's sparse rows in GPU memory are coalesced on its GPU (ids sorted, equal ids'
// rows summed: liboutrider_gpu_sparse.so) before they are copied to host memory, or copied as
// they are and combined by the host engine. Coalescing pays when the rows arrive unsorted (the
// host's sort costs n log n on a CPU core, the GPU's a fraction of that) or with repeated ids
// (fewer bytes cross PCIe and fewer rows are summed on the host); it costs a few kernel launches
// and one more round trip on the stream. What the rows look like is learnt from the rank's
// earlier op of the same key: until one was seen, rows are staged as they are.
struct CoalesceInputs {
  uint64_t nnz = 0;
  uint64_t dim = 0;  // f32 values per row
  uint64_t id_bytes = 8;
  bool seen = false;                // an earlier op of the key was observed, and:
  bool strictly_increasing = true;  // its ids were sorted without repeats (nothing to gain)
  double unique_ratio = 1;          // its unique rows / nnz
};
// The rates it assumes. The GPU's are conservative for a data-centre GPU (sorting 64-bit keys
// with 32-bit values goes at several G keys/s on an A100 or H100); the host's are this project's
// machines' (sorting (id, index) pairs: 3-11 ns per n log2 n).
struct CoalesceRates {
  double pcie_bytes_per_s = 20e9;     // pinned copies, one direction
  double gpu_launch_s = 100e-6;       // the library's launches plus one extra stream round trip
  double gpu_keys_per_s = 1e9;        // stable sort, scans
  double gpu_bytes_per_s = 1e12;      // reading and writing the rows
  double host_sort_ns = 8;            // per n log2 n
  double host_sum_bytes_per_s = 4e9;  // summing rows
};
struct CoalescePrediction {
  bool on_gpu = false;
  double staged_s = 0;     // copy as they are, combine on the host
  double coalesced_s = 0;  // coalesce on the GPU, copy the unique rows, merge on the host
};
CoalescePrediction ChooseCoalesce(const CoalesceInputs& in, const CoalesceRates& rates = {});

}  // namespace outrider::agent::sparse
