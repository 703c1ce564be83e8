// Fuzz target: the job generations' input from other machines (agent/membership/). The first byte
// picks what is fuzzed:
//   0: a request body (a node's report or a joiner's ask) through ParseReformRequest;
//   1: a decision body through ParseReformDecision;
//   else: a Reformer, agent 0 of two fake agents running a job of one rank each
//         (tests/fakes/membership/), driven by steps: requests from the port with the fuzzed body
//         (with the job's token or not), its own rank's and the other node's rank's asks, and the
//         clock moving on.
// Parsing never throws or crashes, and whatever it accepts encodes to a body that parses to the
// same values; a decision that parses places every rank on a node of its layout. The Reformer
// answers each request at most once, with a decision that parses, and once the clock passed every
// deadline it holds no request whose deadline passed.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "agent/bootstrap/rank_layout.h"
#include "agent/log.h"
#include "agent/membership/wire.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "tests/fakes/membership/fake_agents.h"

namespace {

using namespace outrider;
using namespace outrider::agent;
using namespace outrider::agent::membership;

void Request(std::string_view body) {
  Result<ReformRequest> r = ParseReformRequest(body);
  if (!r.ok()) return;
  OUTRIDER_CHECK(r->timeout_ms >= 1 && r->timeout_ms <= ReformRequest::kMaxTimeoutMs);
  OUTRIDER_CHECK(!r->joiner || r->ranks.empty());
  Result<ReformRequest> again = ParseReformRequest(EncodeReformRequest(*r));
  OUTRIDER_CHECK(again.ok());
  OUTRIDER_CHECK(again->joiner == r->joiner && again->generation == r->generation &&
                 again->port == r->port && again->node == r->node &&
                 again->timeout_ms == r->timeout_ms && again->ranks == r->ranks);
}

void Decision(std::string_view body) {
  Result<ReformDecision> d = ParseReformDecision(body);
  if (!d.ok()) return;
  Result<ReformDecision> again = ParseReformDecision(EncodeReformDecision(*d));
  OUTRIDER_CHECK(again.ok());
  OUTRIDER_CHECK(again->absent == d->absent && again->code == d->code &&
                 again->message == d->message);
  if (d->absent || d->code != 0) return;
  OUTRIDER_CHECK(again->world_size == d->world_size && again->node_ranks == d->node_ranks &&
                 again->agents == d->agents && again->root == d->root &&
                 again->assign.size() == d->assign.size());
  RankLayout layout = RankLayout::FromCounts(d->node_ranks);
  OUTRIDER_CHECK(layout.valid() && layout.world() == d->world_size &&
                 d->node_ranks.size() == d->agents.size());
  for (size_t i = 0; i < d->assign.size(); ++i) {
    const ReformSlot& s = d->assign[i];
    OUTRIDER_CHECK(again->assign[i].rank == s.rank && again->assign[i].why == s.why);
    if (!s.why.empty()) continue;
    OUTRIDER_CHECK(s.rank >= 0 && s.rank < d->world_size && s.local_rank >= 0);
    int node = layout.node_of(s.rank);
    OUTRIDER_CHECK(s.local_rank == s.rank - layout.first_rank(node) &&
                   s.local_rank < layout.ranks_on(node));
  }
}

// A request's connection: answered at most once, with a decision that parses.
struct Answers {
  int answered = 0;
};
class CheckedResponder final : public Responder {
 public:
  explicit CheckedResponder(Answers* a) : a_(a) {}
  void Answer(const ReformDecision& d) override {
    OUTRIDER_CHECK(++a_->answered == 1);
    OUTRIDER_CHECK(ParseReformDecision(EncodeReformDecision(d)).ok());
  }
  void Redirect(const std::string& agent) override {
    OUTRIDER_CHECK(++a_->answered == 1);
    OUTRIDER_CHECK(!agent.empty());
  }
  bool Closed() const override { return false; }

 private:
  Answers* a_;
};

void Drive(fuzz::FuzzInput& in) {
  fakes::FakeAgents net(2);
  net.RunJob("job", 0, {1, 1});
  std::deque<Answers> answers;
  std::deque<std::optional<Result<ReformAssignment>>> asks;
  auto ask = [&](int agent, int32_t rank) {
    asks.emplace_back();
    auto* slot = &asks.back();
    Asker a;
    a.job_id = "job";
    a.rank = rank;
    a.token = "tok";
    net.reformer(agent).Ask(slot, a, 1 + in.Read<uint16_t>(), [slot](Result<ReformAssignment> r) {
      OUTRIDER_CHECK(!slot->has_value());
      *slot = std::move(r);
    });
  };
  for (int step = 0; step < 64 && !in.empty(); ++step) {
    switch (in.Read<uint8_t>() % 4) {
      case 0: {
        uint8_t flags = in.Read<uint8_t>();
        std::vector<uint8_t> body = in.Bytes(1 << 16);
        answers.emplace_back();
        net.reformer(0).OnRequest(
            (flags & 2) != 0 ? "other" : "job", (flags & 1) != 0 ? "guess" : "tok",
            std::string(body.begin(), body.end()),
            std::make_unique<CheckedResponder>(&answers.back()), "10.0.0.1:29400", "10.0.0.9");
        break;
      }
      case 1:
        ask(0, 0);
        break;
      case 2:
        ask(1, 1);
        break;
      default:
        net.Advance(uint64_t{in.Read<uint16_t>()} * 100);
        break;
    }
    net.Run();
  }
  // Past every deadline a request may carry (and the decisions' memory): nothing overdue is held.
  net.Advance(uint64_t{ReformRequest::kMaxTimeoutMs} * 3);
  net.Advance(1000);
  OUTRIDER_CHECK(net.reformer(0).NextDeadlineNs() > net.clock().now_ns);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool quiet = outrider::agent::InitLogging("off").ok();
  (void)quiet;
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] == 0) {
    Request(body);
  } else if (data[0] == 1) {
    Decision(body);
  } else {
    outrider::fuzz::FuzzInput in(data + 1, size - 1);
    Drive(in);
  }
  return 0;
}
