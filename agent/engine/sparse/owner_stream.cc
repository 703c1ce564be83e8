// The owner scheme streamed by id ranges (balanced, block): see exchange.h, MakeOwnerStream.
#include <algorithm>
#include <optional>

#include "agent/engine/sparse/exchange.h"
#include "base/check.h"

namespace outrider::agent::sparse {
namespace {

class OwnerStreamExchange : public Exchange {
 public:
  OwnerStreamExchange(const Context& c, Encoding enc, std::function<int(uint64_t)> owner,
                      std::vector<IdRange> ranges)
      : c_(c),
        enc_(enc),
        owner_(std::move(owner)),
        ranges_(std::move(ranges)),
        shares_(ranges_.size(), Parts(static_cast<size_t>(c.nodes))),
        returns_(ranges_.size(), Parts(static_cast<size_t>(c.nodes))),
        got_shares_(ranges_.size(), 0),
        got_returns_(ranges_.size(), 0),
        sums_(ranges_.size()) {}

  void Start(Rows mine, std::vector<Outgoing>*) override {
    mine_ = std::move(mine);
    ends_ = RangeEnds(mine_.ids, ranges_);
    ReserveResult(c_, mine_.size(), &result_);
    // A node alone has nobody to pull its messages: every range is its own at once.
    if (c_.nodes == 1) {
      while (next_ < ranges_.size()) Split(next_++, nullptr);
    }
  }

  // Range by range, as the sender is ready: this node's rows of the range, one message per owner.
  void Pull(std::vector<Outgoing>* out) override {
    if (next_ == ranges_.size()) return;
    Split(next_++, out);
  }

  size_t ready_rows() const override { return result_.size(); }  // whole ranges, in order

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                   std::vector<Outgoing>* out) override {
    if (phase > 1) return ProtocolError("sparse owners: unexpected phase " + std::to_string(phase));
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t k, ReadTrailer(data, len, 0, "sparse owners"));
    if (k >= ranges_.size()) return ProtocolError("sparse owners: a range this op does not have");
    auto f = static_cast<size_t>(from);
    std::optional<Rows>& slot = (phase == 0 ? shares_ : returns_)[k][f];
    // (A range's parts are freed once all are in and consumed: its count tells it apart then.)
    if (slot.has_value() || (phase == 0 ? got_shares_ : got_returns_)[k] == c_.nodes)
      return ProtocolError("sparse owners: a node sent a range twice");
    OUTRIDER_ASSIGN_OR_RETURN(
        Rows rows, Decode(data, len - kTrailerBytes, ranges_[k], c_.table, c_.block_rows));
    int must_own = phase == 0 ? c_.me : from;
    for (uint64_t id : rows.ids) {
      if (owner_(id) != must_own)
        return ProtocolError(phase == 0 ? "sparse owners: a node sent rows this node does not own"
                                        : "sparse owners: an owner returned rows it does not own");
    }
    slot = std::move(rows);
    if (phase == 0) {
      ShareArrived(k, out);
    } else {
      ReturnArrived(k);
    }
    return Status::Ok();
  }

 private:
  using Parts = std::vector<std::optional<Rows>>;
  size_t Me() const { return static_cast<size_t>(c_.me); }

  // Splits this node's rows of range k by owner: its own share stays, the others are encoded.
  void Split(size_t k, std::vector<Outgoing>* out) {
    size_t begin = k == 0 ? 0 : ends_[k - 1], end = ends_[k];
    std::vector<Rows> split(static_cast<size_t>(c_.nodes));
    uint64_t dim = c_.table.dim;
    for (size_t i = begin; i < end; ++i) {
      Rows& s = split[static_cast<size_t>(owner_(mine_.ids[i]))];
      s.ids.push_back(mine_.ids[i]);
      size_t at = s.vals.size();
      s.vals.resize(at + dim);
      std::copy_n(mine_.row(i, dim), dim, s.vals.data() + at);
    }
    for (int n = 0; n < c_.nodes; ++n) {
      if (n == c_.me) continue;
      const Rows& s = split[static_cast<size_t>(n)];
      out->push_back(
          {n, 0,
           Share(EncodeTrailed(enc_, s, 0, s.size(), ranges_[k], c_.table, c_.block_rows, k))});
    }
    if (next_ == ranges_.size()) mine_ = Rows{};  // every range is split
    shares_[k][Me()] = std::move(split[Me()]);
    ShareArrived(k, out);
  }

  // One more share of range k is here; with every node's (this node's split too), this node sums
  // the rows of the range it owns and returns them to every other node.
  void ShareArrived(size_t k, std::vector<Outgoing>* out) {
    if (++got_shares_[k] < c_.nodes) return;
    Rows sum;
    SumParts(&shares_[k], c_.table, &sum);
    if (c_.nodes > 1) {
      auto bytes =
          Share(EncodeTrailed(enc_, sum, 0, sum.size(), ranges_[k], c_.table, c_.block_rows, k));
      for (int n = 0; n < c_.nodes; ++n) {
        if (n != c_.me) out->push_back({n, 1, bytes});
      }
    }
    returns_[k][Me()] = std::move(sum);
    ReturnArrived(k);
  }

  // One more owner's rows of range k are here; with every owner's, the range joins the result
  // (owners hold disjoint ids: the sum is a merge and changes no value).
  void ReturnArrived(size_t k) {
    if (++got_returns_[k] < c_.nodes) return;
    sums_.Complete(k, &returns_[k], c_.table, &result_);
    done_ = sums_.done();
  }

  Context c_;
  Encoding enc_;
  std::function<int(uint64_t)> owner_;
  std::vector<IdRange> ranges_;
  Rows mine_;
  std::vector<size_t> ends_;                   // by range: where its rows of mine_ end
  std::vector<Parts> shares_;                  // range -> node -> its rows this node owns (phase 0)
  std::vector<Parts> returns_;                 // range -> owner -> its summed rows (phase 1)
  std::vector<int> got_shares_, got_returns_;  // by range: parts here (consumed at N)
  RangeResult sums_;                           // the ranges' merged rows, into result_ in order
  size_t next_ = 0;                            // the next range to split and send
};

}  // namespace

std::vector<IdRange> AlignedRanges(const std::vector<uint64_t>& starts, uint64_t rows,
                                   uint64_t align) {
  std::vector<uint64_t> aligned;
  for (uint64_t s : starts) {
    uint64_t a = align > 0 ? s / align * align : s;
    if (a > 0 && (aligned.empty() || a > aligned.back())) aligned.push_back(a);
  }
  return RangesFrom(aligned, rows);
}

std::unique_ptr<Exchange> MakeOwnerStream(const Context& c, Encoding enc,
                                          std::function<int(uint64_t id)> owner,
                                          std::vector<IdRange> ranges) {
  return std::make_unique<OwnerStreamExchange>(c, enc, std::move(owner), std::move(ranges));
}

}  // namespace outrider::agent::sparse
