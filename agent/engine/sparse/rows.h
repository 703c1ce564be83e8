// Sparse embedding-gradient rows inside the agent: a table shape, a coalesced row set (sorted
// unique ids, f32 values), the deterministic sum of several row sets, and the copies between row
// sets and client memory. Values are held in f32 but always hold values of the table's dtype:
// every sum is rounded to it once, so any node can re-encode a row set without losing bits.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "agent/engine/op.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent::sparse {

struct Table {
  uint64_t rows = 0;                    // ids lie in [0, rows)
  uint64_t dim = 0;                     // values per row
  ipc::DType dtype = ipc::DType::kF32;  // f32, f16 or bf16
  uint64_t row_bytes() const { return dim * ipc::DTypeSize(dtype); }
};

// Allocates like std::allocator, but resize() leaves new elements uninitialised: row values are
// sized and then written in full (a decoded message, a client's input), and zeroing megabytes
// only to overwrite them cost about 4 % of the agents' CPU in a sparse exchange.
template <class T>
struct UninitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
};
using Values = std::vector<float, UninitAllocator<float>>;

// Invariant (after Coalesce/Sum): ids strictly increasing; vals.size() == ids.size() * dim.
struct Rows {
  std::vector<uint64_t> ids;
  Values vals;  // uninitialised when resized: always written in full after
  size_t size() const { return ids.size(); }
  const float* row(size_t i, uint64_t dim) const { return vals.data() + i * dim; }
};

// A fixed, data-independent 64-bit mixer: every agent places a row on the same owner, and
// skewed (Zipf) ids still spread evenly.
inline uint64_t RowHash(uint64_t id) {
  uint64_t z = id + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Copies one client's contribution out of shared memory (once: the client may still write
// to it) and checks every id against the table. Duplicated ids stay; Sum merges them.
Result<Rows> ReadInput(const ValidatedOp& op, const Table& t, int rank);
// Sum of row sets in the order given (and, for equal ids inside one set, in their order there),
// accumulated in f32 and rounded to the table dtype once. Same inputs -> same bits, always.
Rows Sum(std::span<const Rows* const> parts, const Table& t);
// Sum(parts) appended to `out`, whose ids must all be smaller than the parts' (a result built in id
// order takes the sum without a copy of it).
void SumAppend(std::span<const Rows* const> parts, const Table& t, Rows* out);
// SumAppend of every node's part (all present), in node order; the parts are freed and left empty.
void SumParts(std::vector<std::optional<Rows>>* parts, const Table& t, Rows* out);
// Rounds values from index `from` on to the table dtype (identity for f32).
void RoundTo(const Table& t, Values* vals, size_t from = 0);
// Writes rows [begin, end) of `r` to a client's out_ids/out values from output row `out_row` on
// (or fails with OutputTooSmall naming the rows needed, writing nothing).
Status WriteOutput(const Rows& r, size_t begin, size_t end, const Table& t, const ValidatedOp& op,
                   size_t out_row = 0);
// Splits a row set (sorted ids) into the rows whose ids are in `demand` (sorted, unique) and the
// others; both keep their order.
void SplitByDemand(Rows all, std::span<const uint64_t> demand, uint64_t dim, Rows* demanded,
                   Rows* rest);
// Converts `n` f32 values to the table dtype at `dst` / back.
void StoreValues(const Table& t, const float* src, size_t n, uint8_t* dst);
void LoadValues(const Table& t, const uint8_t* src, size_t n, float* dst);

}  // namespace outrider::agent::sparse
