// The messages agents exchange about a job's next generation (reformer.h), as a small binary
// contract: a header (magic, version, kind), then fixed-width fields and length-prefixed texts, in
// the host's byte order as the rendezvous frames that carry them (agent/bootstrap/). They come over
// the agents' port from any machine that reaches it: Parse* check every length, count and range
// before they read or allocate, refuse trailing bytes, and never throw; a body they refuse is
// answered or dropped, never trusted in part. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace outrider::agent::membership {

inline constexpr uint32_t kWireMagic = 0x4e47524f;  // "ORGN"
// Bumped on any change of layout: an agent refuses another version's body, naming both.
inline constexpr uint16_t kWireVersion = 1;
inline constexpr size_t kMaxText = 4096;  // a message, an agent's address, a reason

// A node's report of its ranks that go on, or a joiner's ask (`joiner`; it carries no ranks).
struct ReformRequest {
  static constexpr uint32_t kMaxTimeoutMs = 600'000;
  static constexpr size_t kMaxRanks = 1 << 16;
  bool joiner = false;
  uint32_t generation = 0;  // the generation the ranks leave (node reports)
  uint16_t port = 0;        // the reporting agent's port
  int32_t node = -1;        // its node in that generation (-1: unknown)
  uint32_t timeout_ms = 30000;
  std::vector<int32_t> ranks;  // old ranks (node reports); each in [0, 2^30)
};

// Where a rank goes: a place in the new generation, or why it has none (`why` non-empty).
struct ReformSlot {
  int32_t rank = -1, local_rank = -1;
  std::string why;
};

// The deciding agent's answer to a request.
struct ReformDecision {
  static constexpr size_t kMaxAgents = 1 << 16;
  bool absent = false;  // that agent has no rank of the job: ask the next one
  int32_t code = 0;     // a Code; non-zero: no generation, `message` says why
  std::string message;
  uint32_t generation = 0;
  int32_t world_size = 0;
  std::vector<int32_t> node_ranks;  // ranks on each node, in node order (they may differ)
  std::string root;                 // the agent of the new generation's node 0
  std::vector<std::string> agents;  // every kept node's agent, in node order
  std::vector<ReformSlot> assign;   // one per rank of the request, in its order
  // The code as a Status code (Internal for one outside the vocabulary).
  Code status_code() const;
  // A refusal: no generation, and why.
  static ReformDecision Refusal(Code code, std::string message);
  // "Not here": that agent has no rank of the job (`message` may say more).
  static ReformDecision Absent(std::string message = "");
};

std::string EncodeReformRequest(const ReformRequest& r);
Result<ReformRequest> ParseReformRequest(std::string_view body);
std::string EncodeReformDecision(const ReformDecision& d);
Result<ReformDecision> ParseReformDecision(std::string_view body);

}  // namespace outrider::agent::membership
