// dense: the whole table as a reduce-scatter to contiguous owner ranges and an allgather back, with
// a presence bitmap so the result holds the same rows as every other algorithm. Cheapest once the
// union of rows covers most of the table.
//
// It streams: owner ranges are cut into blocks of about kDenseBlockBytes, and every block is a
// message of its own ([dense encoding of the block][u64 first row]). A node makes its block k for
// an owner only when its sender pulls it; the owner sums block k of every node, in node order, as
// soon as it has all of them and sends the sum to every node at once. Both phases overlap on the
// wire, reductions overlap with receiving, and no node ever holds the table: a block's pieces are
// kept as their present rows only.
#include <algorithm>
#include <optional>

#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {
namespace {

// Rows per block: the message (header, bitmap, rows, trailer) fits kDenseBlockBytes; a multiple of
// 8 so bitmaps are whole bytes.
uint64_t BlockRows(const Table& t) {
  uint64_t rb = std::max<uint64_t>(t.row_bytes(), 1);
  uint64_t n = (kDenseBlockBytes - kWireHeaderBytes - kTrailerBytes) * 8 / (8 * rb + 1);
  return std::max<uint64_t>(8, n / 8 * 8);
}

class DenseExchange : public Exchange {
 public:
  explicit DenseExchange(const Context& c)
      : c_(c), part_(RangePartitioning(c, 8)), block_rows_(BlockRows(c.table)) {
    auto N = static_cast<size_t>(c.nodes);
    for (int n = 0; n < c.nodes; ++n) {
      blocks_.push_back(DenseBlocks(part_.range(n), c.table));
      remaining_ += blocks_.back().size();
    }
    results_.resize(N);
    for (size_t n = 0; n < N; ++n) results_[n].resize(blocks_[n].size());
    pieces_.resize(blocks_[Me()].size(), std::vector<std::optional<Rows>>(N));
    got_.assign(blocks_[Me()].size(), 0);
    next_block_.assign(N, 0);
    cursor_.assign(N, 0);
  }

  void Start(Rows mine, std::vector<Outgoing>* out) override {
    mine_ = std::move(mine);
    for (int n = 0; n < c_.nodes; ++n) {
      cursor_[static_cast<size_t>(n)] = RowAt(part_.range(n).lo);
    }
    // This node's own piece of each of its blocks (present rows only).
    const std::vector<IdRange>& own = blocks_[Me()];
    size_t i = cursor_[Me()];
    for (size_t k = 0; k < own.size(); ++k) {
      size_t end = RowAt(own[k].hi, i);
      Rows& p = pieces_[k][Me()].emplace();
      p.ids.assign(mine_.ids.begin() + static_cast<long>(i),
                   mine_.ids.begin() + static_cast<long>(end));
      p.vals.assign(mine_.vals.begin() + static_cast<long>(i * c_.table.dim),
                    mine_.vals.begin() + static_cast<long>(end * c_.table.dim));
      i = end;
      Arrived(k, out);
    }
    MaybeFinish();
  }

  void Pull(std::vector<Outgoing>* out) override {
    // The next block for every owner that has blocks left, owners in ring order from the next node.
    for (int j = 1; j < c_.nodes; ++j) {
      auto n = static_cast<size_t>((c_.me + j) % c_.nodes);
      if (next_block_[n] == blocks_[n].size()) continue;
      IdRange b = blocks_[n][next_block_[n]++];
      size_t end = RowAt(b.hi, cursor_[n]);
      out->push_back({static_cast<int>(n), 0, Share(Message(mine_, cursor_[n], end, b))});
      cursor_[n] = end;
    }
  }

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                   std::vector<Outgoing>* out) override {
    if (phase > 1) return ProtocolError("sparse dense: unexpected phase " + std::to_string(phase));
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t first,
                              ReadTrailer(data, len, kWireHeaderBytes, "sparse dense"));
    auto owner = static_cast<size_t>(phase == 0 ? c_.me : from);
    IdRange range = part_.range(static_cast<int>(owner));
    const std::vector<IdRange>& blocks = blocks_[owner];
    uint64_t k = first >= range.lo ? (first - range.lo) / block_rows_ : blocks.size();
    if (k >= blocks.size() || blocks[k].lo != first)
      return ProtocolError("sparse dense: a block that is not one of the owner's");
    if (phase == 0 ? got_[k] == c_.nodes || pieces_[k][static_cast<size_t>(from)].has_value()
                   : results_[owner][k].has_value()) {
      return ProtocolError("sparse dense: a node sent a block twice");
    }
    OUTRIDER_ASSIGN_OR_RETURN(
        Rows rows, Decode(data, len - kTrailerBytes, blocks[k], c_.table, c_.block_rows));
    if (phase == 0) {
      pieces_[k][static_cast<size_t>(from)] = std::move(rows);
      Arrived(k, out);
    } else {
      results_[owner][k] = std::move(rows);
      --remaining_;
    }
    MaybeFinish();
    return Status::Ok();
  }

 private:
  size_t Me() const { return static_cast<size_t>(c_.me); }
  // Index of the first of this node's rows with id >= `id`, searching from `from`.
  size_t RowAt(uint64_t id, size_t from = 0) const {
    return static_cast<size_t>(
        std::lower_bound(mine_.ids.begin() + static_cast<long>(from), mine_.ids.end(), id) -
        mine_.ids.begin());
  }
  std::vector<uint8_t> Message(const Rows& r, size_t begin, size_t end, IdRange block) const {
    return EncodeTrailed(Encoding::kDense, r, begin, end, block, c_.table, c_.block_rows, block.lo);
  }
  // One more piece of owned block k is here; with all of them, the block is summed and sent.
  void Arrived(size_t k, std::vector<Outgoing>* out) {
    if (++got_[k] < c_.nodes) return;
    Rows sum;
    SumParts(&pieces_[k], c_.table, &sum);
    if (c_.nodes > 1) {
      auto bytes = Share(Message(sum, 0, sum.size(), blocks_[Me()][k]));
      for (int n = 0; n < c_.nodes; ++n) {
        if (n != c_.me) out->push_back({n, 1, bytes});
      }
    }
    results_[Me()][k] = std::move(sum);
    --remaining_;
  }
  void MaybeFinish() {
    if (done_ || remaining_ > 0) return;
    // Owners' ranges increase with the node and blocks with k: the concatenation is sorted.
    size_t rows = 0;
    for (const auto& owner : results_) {
      for (const auto& b : owner) rows += b->size();
    }
    result_.ids.reserve(rows);
    result_.vals.reserve(rows * c_.table.dim);
    for (auto& owner : results_) {
      for (auto& b : owner) {
        result_.ids.insert(result_.ids.end(), b->ids.begin(), b->ids.end());
        result_.vals.insert(result_.vals.end(), b->vals.begin(), b->vals.end());
        b.reset();
      }
    }
    mine_ = Rows{};
    done_ = true;
  }

  Context c_;
  Partitioning part_;
  uint64_t block_rows_;
  Rows mine_;
  std::vector<std::vector<IdRange>> blocks_;              // by owner
  std::vector<std::vector<std::optional<Rows>>> pieces_;  // owned block -> node -> its piece
  std::vector<int> got_;  // owned block -> pieces here (summed at N)
  std::vector<std::vector<std::optional<Rows>>> results_;  // owner -> block -> the summed rows
  std::vector<size_t> next_block_, cursor_;  // by owner: next block to send, its first row of mine_
  size_t remaining_ = 0;                     // blocks without their sum here
};

}  // namespace

std::vector<IdRange> DenseBlocks(IdRange range, const Table& t) {
  uint64_t b = BlockRows(t);
  std::vector<IdRange> out;
  for (uint64_t lo = range.lo; lo < range.hi; lo += b)
    out.push_back({lo, std::min(range.hi, lo + b)});
  return out;
}

uint64_t DenseBlockMessageBytes(IdRange block, const Table& t) {
  return EncodedBytes(Encoding::kDense, 0, block, t, 8) + kTrailerBytes;
}

std::unique_ptr<Exchange> MakeDense(const Context& c) { return std::make_unique<DenseExchange>(c); }

}  // namespace outrider::agent::sparse
