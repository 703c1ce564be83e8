// lookup on a range-sharded table: requested ids go to their owner nodes, which answer with the
// rows in the order asked.
#include <algorithm>

#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {
namespace {

class LookupExchange : public Exchange {
 public:
  LookupExchange(const Context& c, ShardReader read)
      : c_(c),
        read_(std::move(read)),
        part_(ShardPartitioning(c, ipc::ShardScheme::kRange)),
        answered_(static_cast<size_t>(c.nodes), false),
        asked_(static_cast<size_t>(c.nodes), false) {}

  void Start(Rows wanted, std::vector<Outgoing>* out) override {
    // Ids only: a value-less table encodes just the ids.
    Table ids_only = c_.table;
    ids_only.dim = 0;
    size_t begin = 0;
    result_.ids = wanted.ids;
    result_.vals.assign(wanted.size() * c_.table.dim, 0.0f);
    for (int n = 0; n < c_.nodes; ++n) {
      IdRange r = part_.range(n);
      size_t end = static_cast<size_t>(
          std::lower_bound(wanted.ids.begin(), wanted.ids.end(), r.hi) - wanted.ids.begin());
      if (n == c_.me) {
        for (size_t i = begin; i < end; ++i)
          read_(wanted.ids[i], result_.vals.data() + i * c_.table.dim);
        answered_[static_cast<size_t>(n)] = asked_[static_cast<size_t>(n)] = true;
      } else {
        out->push_back(
            {n, 0, Share(Encode(Encoding::kSparse, wanted, begin, end, r, ids_only, 1))});
      }
      pending_.push_back({begin, end});
      begin = end;
    }
    MaybeFinish();
  }

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                   std::vector<Outgoing>* out) override {
    auto f = static_cast<size_t>(from);
    if (phase == 0) {  // a node asks this node for rows
      if (asked_[f] && from != c_.me) return ProtocolError("sparse lookup: a node asked twice");
      Table ids_only = c_.table;
      ids_only.dim = 0;
      OUTRIDER_ASSIGN_OR_RETURN(Rows ask, Decode(data, len, part_.range(c_.me), ids_only, 1));
      Rows reply;
      reply.ids = ask.ids;
      reply.vals.resize(ask.size() * c_.table.dim);
      for (size_t i = 0; i < ask.size(); ++i)
        read_(ask.ids[i], reply.vals.data() + i * c_.table.dim);
      out->push_back({from, 1,
                      Share(Encode(Encoding::kSparse, reply, 0, reply.size(), part_.range(c_.me),
                                   c_.table, 1))});
      asked_[f] = true;
      MaybeFinish();
      return Status::Ok();
    }
    if (phase != 1 || answered_[f] || pending_.empty())
      return ProtocolError("sparse lookup: unexpected answer");
    OUTRIDER_ASSIGN_OR_RETURN(Rows got, Decode(data, len, part_.range(from), c_.table, 1));
    auto [begin, end] = pending_[f];
    if (got.size() != end - begin || !std::equal(got.ids.begin(), got.ids.end(),
                                                 result_.ids.begin() + static_cast<long>(begin))) {
      return ProtocolError("sparse lookup: an owner answered with other rows than asked");
    }
    std::copy(got.vals.begin(), got.vals.end(),
              result_.vals.begin() + static_cast<long>(begin * c_.table.dim));
    answered_[f] = true;
    MaybeFinish();
    return Status::Ok();
  }

 private:
  // Done once every owner answered and every node's question was answered here (its reply
  // leaves with this node's sends).
  void MaybeFinish() {
    if (pending_.empty()) return;
    for (size_t n = 0; n < answered_.size(); ++n) {
      if (!answered_[n] || !asked_[n]) return;
    }
    done_ = true;
  }

  Context c_;
  ShardReader read_;
  Partitioning part_;
  std::vector<bool> answered_, asked_;
  std::vector<std::pair<size_t, size_t>> pending_;  // by owner: range of result rows
};

}  // namespace

std::unique_ptr<Exchange> MakeLookup(const Context& c, ShardReader read) {
  return std::make_unique<LookupExchange>(c, std::move(read));
}

}  // namespace outrider::agent::sparse
