// allgather: every node sends its whole contribution to every other node and sums all of them
// (what DDP/Gloo sparse allreduce and Horovod do). Bytes per node grow with the node count.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {
namespace {

class AllgatherExchange : public Exchange {
 public:
  explicit AllgatherExchange(const Context& c)
      : c_(c), parts_(static_cast<size_t>(c.nodes)), got_(static_cast<size_t>(c.nodes), false) {}

  void Start(Rows mine, std::vector<Outgoing>* out) override {
    IdRange all{0, c_.table.rows};
    auto bytes = Share(Encode(Encoding::kSparse, mine, 0, mine.size(), all, c_.table, c_.block_rows));
    for (int n = 0; n < c_.nodes; ++n) {
      if (n != c_.me) out->push_back({n, 0, bytes});
    }
    parts_[static_cast<size_t>(c_.me)] = std::move(mine);
    got_[static_cast<size_t>(c_.me)] = true;
    MaybeFinish();
  }

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len, std::vector<Outgoing>*) override {
    auto f = static_cast<size_t>(from);
    if (phase != 0 || got_[f]) return ProtocolError("sparse allgather: unexpected message");
    OUTRIDER_ASSIGN_OR_RETURN(parts_[f], Decode(data, len, IdRange{0, c_.table.rows}, c_.table, c_.block_rows));
    got_[f] = true;
    MaybeFinish();
    return Status::Ok();
  }

 private:
  void MaybeFinish() {
    for (bool g : got_) {
      if (!g) return;
    }
    std::vector<const Rows*> parts;
    for (const Rows& p : parts_) parts.push_back(&p);
    result_ = Sum(parts, c_.table);
    parts_.clear();
    done_ = true;
  }

  Context c_;
  std::vector<Rows> parts_;
  std::vector<bool> got_;
};

}  // namespace

std::unique_ptr<Exchange> MakeAllgather(const Context& c) { return std::make_unique<AllgatherExchange>(c); }

}  // namespace outrider::agent::sparse
