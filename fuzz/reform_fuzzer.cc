// Fuzz target: the JSON bodies agents exchange about a job's next generation (a node's report or a
// joiner's ask, and the deciding agent's answer), which come over the agent port from any machine
// that reaches it. The first byte picks the parser; the rest is the body. Parsing never throws or
// crashes, and whatever it accepts encodes to a body that parses to the same values.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/engine/rank_layout.h"
#include "agent/engine/reform_messages.h"
#include "base/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace outrider;
  using namespace outrider::agent;
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    Result<ReformDecision> d = ParseReformDecision(body);
    if (!d.ok()) return 0;
    Result<ReformDecision> again = ParseReformDecision(EncodeReformDecision(*d));
    OUTRIDER_CHECK(again.ok());
    OUTRIDER_CHECK(again->absent == d->absent && again->code == d->code);
    if (!d->absent && d->code == 0) {
      OUTRIDER_CHECK(again->world_size == d->world_size && again->node_ranks == d->node_ranks &&
                     again->assign.size() == d->assign.size());
      // A decision that parses places every rank on a node of its layout.
      RankLayout layout = RankLayout::FromCounts(d->node_ranks);
      OUTRIDER_CHECK(layout.valid() && layout.world() == d->world_size &&
                     d->node_ranks.size() == d->agents.size());
      for (size_t i = 0; i < d->assign.size(); ++i) {
        const ReformSlot& s = d->assign[i];
        OUTRIDER_CHECK(again->assign[i].rank == s.rank && again->assign[i].why == s.why);
        if (s.why.empty()) {
          OUTRIDER_CHECK(s.rank >= 0 && s.rank < d->world_size && s.local_rank >= 0);
          int node = layout.node_of(s.rank);
          OUTRIDER_CHECK(s.local_rank == s.rank - layout.first_rank(node) &&
                         s.local_rank < layout.ranks_on(node));
        }
      }
    }
    return 0;
  }
  Result<ReformRequest> r = ParseReformRequest(body);
  if (!r.ok()) return 0;
  OUTRIDER_CHECK(r->timeout_ms >= 1 && r->timeout_ms <= ReformRequest::kMaxTimeoutMs);
  Result<ReformRequest> again = ParseReformRequest(EncodeReformRequest(*r));
  OUTRIDER_CHECK(again.ok());
  OUTRIDER_CHECK(again->joiner == r->joiner && again->generation == r->generation &&
                 again->port == r->port && again->node == r->node &&
                 again->timeout_ms == r->timeout_ms);
  if (!r->joiner) OUTRIDER_CHECK(again->ranks == r->ranks);
  return 0;
}
