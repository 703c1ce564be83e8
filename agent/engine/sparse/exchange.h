// How one node's coalesced rows cross the network for one sparse collective: a message-driven
// state machine per algorithm, with no transport inside, so tests and the simulator drive it
// directly. Messages are whole (the node group cuts them into chunks and reassembles them).
// Every algorithm sums node contributions in node order, so results are bitwise identical on
// every node and for every algorithm.
// Thread-safety: one instance per collective instance, used from one thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "agent/bootstrap/rank_layout.h"
#include "agent/engine/sparse/codec.h"
#include "agent/engine/sparse/rows.h"

namespace outrider::agent::sparse {

struct Context {
  int nodes = 1;       // nodes of the job
  int me = 0;          // this node
  RankLayout ranks{};  // which ranks run on which node
  Table table;
  uint64_t block_rows = 8;
  // allgather: where its id ranges start after 0, agreed by every node (MergeQuantiles); empty:
  // one range, the whole table.
  std::vector<uint64_t> range_starts;
};

// One message to send. Messages with the same content share one buffer.
struct Outgoing {
  int node;
  uint32_t phase;
  std::shared_ptr<const std::vector<uint8_t>> bytes;
};
inline std::shared_ptr<const std::vector<uint8_t>> Share(std::vector<uint8_t> b) {
  return std::make_shared<const std::vector<uint8_t>>(std::move(b));
}

class Exchange {
 public:
  virtual ~Exchange() = default;
  // This node's contribution (coalesced). Appends the messages to send.
  virtual void Start(Rows mine, std::vector<Outgoing>* out) = 0;
  // One whole message from `from`; a malformed one is a protocol error.
  virtual Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                           std::vector<Outgoing>* out) = 0;
  // Appends messages this node held back (an exchange that streams makes its messages as the
  // sender is ready for them, so they never exist all at once); appends nothing once none are
  // left. The caller pulls whenever everything appended so far is on its way.
  virtual void Pull(std::vector<Outgoing>* out) {}
  bool done() const { return done_; }
  // The leading rows of result() that are final already (an exchange that builds its result in id
  // order may hand them out before it is done); all of them once done().
  virtual size_t ready_rows() const { return done_ ? result_.size() : 0; }
  // Valid once done(): the node's result (replicated: the whole union; shard: the rows this
  // node's ranks own; lookup: the requested rows).
  Rows& result() { return result_; }

 protected:
  bool done_ = false;
  Rows result_;
};

// Which node owns a row, and the id range an owner's encodings cover.
struct Partitioning {
  std::function<int(uint64_t id)> owner;
  std::function<IdRange(int node)> range;
  bool contiguous = false;  // ranges are disjoint and increasing with the node
};
// Contiguous ranges of whole blocks of `align` rows.
Partitioning RangePartitioning(const Context& c, uint64_t align);
// Rows owned by ranks (scheme), grouped by the ranks' nodes.
Partitioning ShardPartitioning(const Context& c, ipc::ShardScheme scheme);
// Owner rank of a row under a shard scheme.
int ShardOwnerRank(uint64_t id, uint64_t rows, int world_size, ipc::ShardScheme scheme);

// Replicated-table algorithms (each in its own file).
std::unique_ptr<Exchange> MakeAllgather(const Context& c);
std::unique_ptr<Exchange> MakeBalanced(const Context& c);
std::unique_ptr<Exchange> MakeBlock(const Context& c);
std::unique_ptr<Exchange> MakeDense(const Context& c);
std::unique_ptr<Exchange> MakeReplicated(ipc::SparseAlgo algo, const Context& c);
// Sharded table: gradient rows to their owners, summed there.
std::unique_ptr<Exchange> MakeShard(const Context& c, ipc::ShardScheme scheme);
// Sharded table, lookup: Start gets the requested ids (vals empty); `read(id, dst)` copies an owned
// row (table dtype) into dst as f32.
using ShardReader = std::function<void(uint64_t id, float* dst)>;
std::unique_ptr<Exchange> MakeLookup(const Context& c, ShardReader read);

// The owner scheme in whole messages (shard): each node's rows go to their owner in one message,
// and the owner's result is their sum.
std::unique_ptr<Exchange> MakePartitioned(const Context& c, Partitioning p, Encoding enc);

// allgather streams id ranges: every node cuts its rows at the same ids (Context::range_starts)
// and sends range k to every other node as a message of its own ([sparse encoding][u64 k]); a
// receiver sums range k, in node order, as soon as every node's range k is in, so the sums overlap
// the network instead of following it.
inline constexpr size_t kAllgatherRanges = 16;
// The ids at which sorted, unique `ids` split into `parts` nearly equal parts: at most parts - 1,
// strictly increasing, none 0.
std::vector<uint64_t> IdQuantiles(std::span<const uint64_t> ids, size_t parts);
// The agreed range starts from every node's quantiles (by node): every N-th of them all, sorted,
// so each range holds about 1/kAllgatherRanges of every node's rows. Same inputs, same ranges.
std::vector<uint64_t> MergeQuantiles(const std::vector<std::vector<uint64_t>>& per_node);
// The id ranges `starts` cuts [0, rows) into, in order.
std::vector<IdRange> RangesFrom(const std::vector<uint64_t>& starts, uint64_t rows);
// Where each of `ranges` (in order, covering every id) ends in sorted `ids`: range k's ids are
// [k == 0 ? 0 : ends[k - 1], ends[k]).
std::vector<size_t> RangeEnds(std::span<const uint64_t> ids, const std::vector<IdRange>& ranges);
// Reserves the address space of a streamed result: at most every node's rows, were they disjoint,
// and never more than the table (pages are touched only as ranges are appended).
void ReserveResult(const Context& c, size_t mine, Rows* result);
// The ranges' rows joining a result in id order, whatever order the ranges complete in.
class RangeResult {
 public:
  explicit RangeResult(size_t ranges) : waiting_(ranges), completed_(ranges, false) {}
  // Range k's rows are the sum of `parts` (SumParts: node order, then freed). They go straight
  // into `result` when every range before k is there, else wait until those are.
  void Complete(size_t k, std::vector<std::optional<Rows>>* parts, const Table& t, Rows* result);
  bool done() const { return appended_ == waiting_.size(); }

 private:
  std::vector<std::optional<Rows>> waiting_;  // range -> its rows, until they join the result
  std::vector<bool> completed_;
  size_t appended_ = 0;  // ranges in the result
};

// Bytes of allgather's message for `n` rows in `range`: [sparse encoding][u64 range index].
uint64_t RangeMessageBytes(uint64_t n, IdRange range, const Table& t);

// balanced and block stream the owner scheme by the same agreed id ranges (owner_stream.cc): every
// row (balanced) or block of block_rows rows (block) has an owner node by a fixed hash, so skewed
// ids still spread evenly. For range k, each node sends every owner its rows of the range that
// owner holds ([encoding][u64 k], phase 0); an owner sums range k as soon as every node's share of
// it is in (node order) and sends the sum to every other node (phase 1); a node merges range k
// once every owner's sum of it is in. Shares, sums and returns of different ranges overlap, and
// the result grows in id order while the last ranges are still on the wire.
std::unique_ptr<Exchange> MakeOwnerStream(const Context& c, Encoding enc,
                                          std::function<int(uint64_t id)> owner,
                                          std::vector<IdRange> ranges);
// balanced's owner of a row, block's owner of a row's block.
inline int RowOwner(uint64_t id, int nodes) {
  return static_cast<int>(RowHash(id) % static_cast<uint64_t>(nodes));
}
inline int BlockOwner(uint64_t id, uint64_t block_rows, int nodes) {
  return RowOwner(id / block_rows, nodes);
}
// The ranges `starts` cuts [0, rows) into, each start rounded down to a multiple of `align` (block:
// no block straddles two ranges).
std::vector<IdRange> AlignedRanges(const std::vector<uint64_t>& starts, uint64_t rows,
                                   uint64_t align);
// Bytes of one owner-stream message of `n` rows (block: `n` non-zero blocks) in `range`.
inline uint64_t OwnerMessageBytes(Encoding enc, uint64_t n, IdRange range, const Table& t,
                                  uint64_t block_rows) {
  return EncodedBytes(enc, n, range, t, block_rows) + kTrailerBytes;
}

// dense streams the owner scheme block by block (agent/engine/sparse/dense.cc): owners hold
// contiguous ranges (RangePartitioning(c, 8)), cut into blocks of about kDenseBlockBytes of
// values; each block travels as its own message [u64 first row][dense encoding of the block].
inline constexpr uint64_t kDenseBlockBytes = uint64_t{1} << 20;
// The blocks of an owner's range, in order.
std::vector<IdRange> DenseBlocks(IdRange range, const Table& t);
// Bytes of the message of one block.
uint64_t DenseBlockMessageBytes(IdRange block, const Table& t);

}  // namespace outrider::agent::sparse
