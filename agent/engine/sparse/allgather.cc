// allgather: every node sends its whole contribution to every other node and sums all of them
// (what DDP/Gloo sparse allreduce and Horovod do). Bytes per node grow with the node count.
//
// It streams by id ranges agreed from the nodes' quantiles (Context::range_starts): range k of
// every node travels as its own message, made when the sender pulls it, and a receiver sums range k
// as soon as it has every node's, in node order (the bits do not depend on the ranges), while the
// next ranges arrive. What is left when the last byte arrives is the last range's sum.
#include <algorithm>
#include <optional>

#include "agent/engine/sparse/exchange.h"
#include "base/check.h"

namespace outrider::agent::sparse {
namespace {

class AllgatherExchange : public Exchange {
 public:
  explicit AllgatherExchange(const Context& c)
      : c_(c),
        ranges_(RangesFrom(c.range_starts, c.table.rows)),
        parts_(ranges_.size(), std::vector<std::optional<Rows>>(static_cast<size_t>(c.nodes))),
        got_(ranges_.size(), 0),
        sums_(ranges_.size()) {}

  void Start(Rows mine, std::vector<Outgoing>*) override {
    mine_ = std::move(mine);
    ends_ = RangeEnds(mine_.ids, ranges_);
    ReserveResult(c_, mine_.size(), &result_);
    // This node's part of each range is in mine_ already (taken out when the range is summed).
    for (size_t k = 0; k < ranges_.size(); ++k) Arrived(k);
  }

  void Pull(std::vector<Outgoing>* out) override {
    if (c_.nodes == 1 || next_ == ranges_.size()) return;
    size_t k = next_++;
    size_t begin = k == 0 ? 0 : ends_[k - 1];
    auto bytes = Share(EncodeTrailed(Encoding::kSparse, mine_, begin, ends_[k], ranges_[k],
                                     c_.table, c_.block_rows, k));
    for (int n = 0; n < c_.nodes; ++n) {
      if (n != c_.me) out->push_back({n, 0, bytes});
    }
    ReleaseMine();
  }

  size_t ready_rows() const override { return result_.size(); }  // whole ranges, in order

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                   std::vector<Outgoing>*) override {
    if (phase != 0)
      return ProtocolError("sparse allgather: unexpected phase " + std::to_string(phase));
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t k, ReadTrailer(data, len, 0, "sparse allgather"));
    auto f = static_cast<size_t>(from);
    if (k >= ranges_.size())
      return ProtocolError("sparse allgather: a range this op does not have");
    if (got_[k] == c_.nodes || parts_[k][f].has_value())
      return ProtocolError("sparse allgather: a node sent a range twice");
    // (This node's own part is taken from mine_ only when the range is summed: parts_[k][me] stays
    // empty until then, and no peer is this node.)
    OUTRIDER_ASSIGN_OR_RETURN(
        Rows rows, Decode(data, len - kTrailerBytes, ranges_[k], c_.table, c_.block_rows));
    parts_[k][f] = std::move(rows);
    Arrived(static_cast<size_t>(k));
    return Status::Ok();
  }

 private:
  size_t Me() const { return static_cast<size_t>(c_.me); }
  // One more part of range k is here; with all of them the range is summed, and the sums so far
  // that follow each other from range 0 join the result.
  void Arrived(size_t k) {
    if (++got_[k] < c_.nodes) return;
    size_t begin = k == 0 ? 0 : ends_[k - 1];
    Rows& own = parts_[k][Me()].emplace();
    own.ids.assign(mine_.ids.begin() + static_cast<long>(begin),
                   mine_.ids.begin() + static_cast<long>(ends_[k]));
    own.vals.assign(mine_.vals.begin() + static_cast<long>(begin * c_.table.dim),
                    mine_.vals.begin() + static_cast<long>(ends_[k] * c_.table.dim));
    sums_.Complete(k, &parts_[k], c_.table, &result_);
    done_ = sums_.done();
    ReleaseMine();
  }
  // mine_ goes once every range is summed here and on its way to the others.
  void ReleaseMine() {
    if (done_ && next_ == ranges_.size()) mine_ = Rows{};
  }

  Context c_;
  std::vector<IdRange> ranges_;
  Rows mine_;
  std::vector<size_t> ends_;                             // by range: where its rows of mine_ end
  std::vector<std::vector<std::optional<Rows>>> parts_;  // range -> node -> its rows
  std::vector<int> got_;                                 // range -> parts here (summed at N)
  RangeResult sums_;                                     // the ranges' sums, into result_ in order
  size_t next_ = 0;                                      // the next range to send
};

}  // namespace

std::unique_ptr<Exchange> MakeAllgather(const Context& c) {
  return std::make_unique<AllgatherExchange>(c);
}

}  // namespace outrider::agent::sparse
