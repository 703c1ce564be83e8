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

// What one sparse exchange's time is made of (docs/design.md, "The sparse time model"): message
// rounds no byte hides (the announcement, a range's share and its return), the busiest node's
// bytes at its link's rate or its decoding and summing at its CPU's rate, whichever is slower
// (streams overlap them), and what is left once its last byte is in: the last range's sum and,
// for the owner algorithms, its return.
struct TimeParams {
  double link_bytes_per_s = 250e6;  // per node link, each way
  double round_s = 200e-6;          // one message round between agents
  double sum_bytes_per_s = 2e9;     // received bytes one agent decodes and sums per second
};
// What an exchange asks of its busiest node.
struct ExchangeWork {
  double wire = 0;       // bytes through its link, the busier direction
  double summed = 0;     // bytes it receives, decodes and sums
  double tail_wire = 0;  // bytes it can send only after its last byte came in
  double tail_sum = 0;   // bytes it sums after its last byte came in
  int rounds = 1;        // message rounds no byte hides
};
double ExchangeSeconds(const ExchangeWork& w, const TimeParams& p);
// The work of `algo` from every node's bytes: sent, received and, of the sent, what an owner
// returns (balanced, block; empty otherwise), the exchange streamed in `pieces` (ranges; dense:
// an owner's blocks).
ExchangeWork WorkOf(ipc::SparseAlgo algo, const std::vector<uint64_t>& sent,
                    const std::vector<uint64_t>& recv, const std::vector<uint64_t>& returned,
                    size_t pieces);
// The pieces `algo` streams in: its id ranges (allgather, balanced, block) or an owner's blocks
// (dense).
size_t StreamPieces(ipc::SparseAlgo algo, const Context& c);

struct CostInputs {
  Context ctx;                      // me is irrelevant
  std::vector<NodeAnnounce> nodes;  // by node
  double union_ratio = -1;          // observed union rows / sum of nnz on earlier steps; < 0: none
  double block_union_ratio = -1;    // the same for non-zero blocks
  TimeParams time;                  // the link's rate: the agents' measured one when announced
  uint64_t chunk_bytes = 1 << 20;   // messages travel in chunks of this size...
  uint64_t chunk_overhead = 88;     // ...each with this many header bytes
};

struct Prediction {
  ipc::SparseAlgo algo = ipc::SparseAlgo::kAllgather;
  std::vector<uint64_t> sent, recv;  // by node
  std::vector<uint64_t> returned;    // by node, of sent: owners' returns (balanced, block)
  ExchangeWork work;
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
