// The wire encoding of a row set restricted to an id range [lo, hi). Every encoding starts with a
// 16-byte header (format, count) and carries values in the table dtype:
//   list    ids as offsets from lo (4 bytes when the range fits in 32 bits, else 8), then rows;
//   bitmap  one bit per id of the range, then rows (chosen over list when smaller);
//   blocks  ids of the non-zero blocks of `block_rows` rows (list or bitmap of block numbers),
//           then per block a row-presence mask and every row of the block, zeros included;
//   dense   a presence bitmap of the range, then every row of the range, zeros included.
// EncodedBytes gives the exact size Encode produces; the cost model and `outrider-bench
// sparse-sim` use it, so predictions and measurements share one definition.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "agent/engine/sparse/rows.h"

namespace outrider::agent::sparse {

enum class Encoding : uint32_t { kSparse = 1, kBlocks = 2, kDense = 3 };

struct IdRange {
  uint64_t lo = 0, hi = 0;
  uint64_t size() const { return hi - lo; }
};

inline constexpr uint64_t kWireHeaderBytes = 16;

// Exact encoded size of `n` rows (kBlocks: `n` non-zero blocks) in `range`.
uint64_t EncodedBytes(Encoding enc, uint64_t n, IdRange range, const Table& t, uint64_t block_rows);
// Encodes rows [begin, end) of `r`, whose ids must lie in `range`.
std::vector<uint8_t> Encode(Encoding enc, const Rows& r, size_t begin, size_t end, IdRange range,
                            const Table& t, uint64_t block_rows);
// Decodes a peer's encoding; anything inconsistent with `range` and `t` is a protocol error.
Result<Rows> Decode(const uint8_t* data, size_t len, IdRange range, const Table& t,
                    uint64_t block_rows);

// Streamed messages carry a u64 after their encoding, which says what part of the op they are (a
// range's index, a block's first row): [encoding][u64 trailer].
inline constexpr uint64_t kTrailerBytes = 8;
// Encode, with `trailer` after it (written in the same buffer, not copied again).
std::vector<uint8_t> EncodeTrailed(Encoding enc, const Rows& r, size_t begin, size_t end,
                                   IdRange range, const Table& t, uint64_t block_rows,
                                   uint64_t trailer);
// A message's trailer; its encoding is the first len - kTrailerBytes bytes. Fails (a protocol
// error naming `what`) when the message is too short to hold a trailer after `min_encoding` bytes.
Result<uint64_t> ReadTrailer(const uint8_t* data, size_t len, size_t min_encoding,
                             std::string_view what);
// Non-zero blocks among rows [begin, end) of `r` (ids sorted).
uint64_t CountBlocks(const Rows& r, size_t begin, size_t end, uint64_t block_rows);

}  // namespace outrider::agent::sparse
