// The next generation's JSON bodies (reform_messages.h): encoding, and parsing that checks each
// field's type and range before it reads it.
#include "agent/engine/reform_messages.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "agent/engine/rank_layout.h"

namespace outrider::agent {
namespace {

using nlohmann::json;

// Reads the integer field `key` of `j` into `out` when present. A field of another type, or a
// value outside [lo, hi], is an error naming it; a missing one leaves `out` as it was.
template <typename T>
Status Int(const json& j, const char* key, T* out, int64_t lo, int64_t hi) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_number_integer())
    return ProtocolError(std::string("field '") + key + "' is not an integer");
  int64_t v = it->is_number_unsigned()
                  ? static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX))
                  : it->get<int64_t>();
  if (v < lo || v > hi)
    return ProtocolError(std::string("field '") + key + "' is out of range: " + std::to_string(v));
  *out = static_cast<T>(v);
  return Status::Ok();
}

Status Str(const json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_string()) return ProtocolError(std::string("field '") + key + "' is not a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status Bool(const json& j, const char* key, bool* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_boolean()) return ProtocolError(std::string("field '") + key + "' is not a boolean");
  *out = it->get<bool>();
  return Status::Ok();
}

// The array field `key` (absent: empty), at most `max` long.
Result<const json*> Array(const json& j, const char* key, size_t max) {
  static const json kEmpty = json::array();
  auto it = j.find(key);
  if (it == j.end()) return &kEmpty;
  if (!it->is_array()) return ProtocolError(std::string("field '") + key + "' is not an array");
  if (it->size() > max) return ProtocolError(std::string("field '") + key + "' is too long");
  return &*it;
}

Result<json> Object(std::string_view body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return ProtocolError("not a JSON object");
  return j;
}

constexpr int64_t kMaxRank = (int64_t{1} << 30) - 1;

}  // namespace

Code ReformDecision::status_code() const {
  return code >= 0 && code <= kMaxCode ? static_cast<Code>(code) : Code::kInternal;
}

std::string EncodeReformRequest(const ReformRequest& r) {
  json j = {{"kind", r.joiner ? "joiner" : "node"},
            {"generation", r.generation},
            {"port", r.port},
            {"node", r.node},
            {"timeout_ms", r.timeout_ms}};
  if (!r.joiner) j["ranks"] = r.ranks;
  return j.dump();
}

Result<ReformRequest> ParseReformRequest(std::string_view body) {
  OUTRIDER_ASSIGN_OR_RETURN(json j, Object(body));
  ReformRequest r;
  std::string kind;
  if (!j.contains("kind")) return ProtocolError("field 'kind' is missing");
  OUTRIDER_RETURN_IF_ERROR(Str(j, "kind", &kind));
  if (kind != "node" && kind != "joiner")
    return ProtocolError("field 'kind' is neither 'node' nor 'joiner'");
  r.joiner = kind == "joiner";
  OUTRIDER_RETURN_IF_ERROR(Int(j, "generation", &r.generation, 0, UINT32_MAX));
  OUTRIDER_RETURN_IF_ERROR(Int(j, "port", &r.port, 0, UINT16_MAX));
  OUTRIDER_RETURN_IF_ERROR(Int(j, "node", &r.node, -1, kMaxRank));
  OUTRIDER_RETURN_IF_ERROR(Int(j, "timeout_ms", &r.timeout_ms, 1, ReformRequest::kMaxTimeoutMs));
  OUTRIDER_ASSIGN_OR_RETURN(const json* ranks, Array(j, "ranks", ReformRequest::kMaxRanks));
  for (const json& v : *ranks) {
    if (!v.is_number_integer()) return ProtocolError("field 'ranks' holds a non-integer");
    int64_t rank = v.is_number_unsigned()
                       ? static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX))
                       : v.get<int64_t>();
    if (rank < 0 || rank > kMaxRank) return ProtocolError("field 'ranks' holds an impossible rank");
    r.ranks.push_back(static_cast<int32_t>(rank));
  }
  return r;
}

std::string EncodeReformDecision(const ReformDecision& d) {
  json j = {{"code", d.code}};
  if (d.absent) j["absent"] = true;
  if (!d.message.empty()) j["message"] = d.message;
  if (d.code == 0 && !d.absent) {
    json assign = json::array();
    for (const ReformSlot& s : d.assign) {
      if (!s.why.empty()) {
        assign.push_back(s.why);
      } else if (s.rank >= 0) {
        assign.push_back({{"rank", s.rank}, {"local_rank", s.local_rank}});
      } else {
        assign.push_back(nullptr);
      }
    }
    j.update({{"generation", d.generation},
              {"world_size", d.world_size},
              {"node_ranks", d.node_ranks},
              {"root", d.root},
              {"agents", d.agents},
              {"assign", std::move(assign)}});
  }
  return j.dump();
}

Result<ReformDecision> ParseReformDecision(std::string_view body) {
  OUTRIDER_ASSIGN_OR_RETURN(json j, Object(body));
  ReformDecision d;
  OUTRIDER_RETURN_IF_ERROR(Bool(j, "absent", &d.absent));
  d.code = static_cast<int32_t>(Code::kInternal);
  OUTRIDER_RETURN_IF_ERROR(Int(j, "code", &d.code, INT32_MIN, INT32_MAX));
  OUTRIDER_RETURN_IF_ERROR(Str(j, "message", &d.message));
  if (d.absent || d.code != 0) return d;
  OUTRIDER_RETURN_IF_ERROR(Int(j, "generation", &d.generation, 0, UINT32_MAX));
  OUTRIDER_RETURN_IF_ERROR(Int(j, "world_size", &d.world_size, 1, kMaxRank));
  if (d.world_size < 1) return ProtocolError("a decision without world_size");
  OUTRIDER_RETURN_IF_ERROR(Str(j, "root", &d.root));
  OUTRIDER_ASSIGN_OR_RETURN(const json* agents, Array(j, "agents", ReformDecision::kMaxAgents));
  for (const json& a : *agents) {
    if (!a.is_string()) return ProtocolError("field 'agents' holds a non-string");
    d.agents.push_back(a.get<std::string>());
  }
  OUTRIDER_ASSIGN_OR_RETURN(const json* per_node,
                            Array(j, "node_ranks", ReformDecision::kMaxAgents));
  int64_t total = 0;
  for (const json& n : *per_node) {
    if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > kMaxRank)
      return ProtocolError("field 'node_ranks' holds an impossible count");
    d.node_ranks.push_back(n.get<int32_t>());
    total += d.node_ranks.back();
  }
  if (d.node_ranks.size() != d.agents.size() || total != d.world_size) {
    return ProtocolError(
        "a decision whose ranks per node do not add up to its world_size over "
        "its agents");
  }
  RankLayout layout = RankLayout::FromCounts(d.node_ranks);
  OUTRIDER_ASSIGN_OR_RETURN(const json* assign, Array(j, "assign", ReformRequest::kMaxRanks));
  for (const json& a : *assign) {
    ReformSlot s;
    if (a.is_string()) {
      s.why = a.get<std::string>();
      if (s.why.empty()) s.why = "no place for this rank";
    } else if (a.is_object()) {
      OUTRIDER_RETURN_IF_ERROR(Int(a, "rank", &s.rank, 0, d.world_size - 1));
      OUTRIDER_RETURN_IF_ERROR(Int(a, "local_rank", &s.local_rank, 0, d.world_size - 1));
      if (s.rank < 0 || s.local_rank < 0) return ProtocolError("an assignment without its rank");
      if (s.rank - layout.first_rank(layout.node_of(s.rank)) != s.local_rank)
        return ProtocolError("an assignment whose local rank is not its place on its node");
    } else if (a.is_null()) {
      s.why = "no place for this rank";
    } else {
      return ProtocolError("field 'assign' holds an entry of another type");
    }
    d.assign.push_back(std::move(s));
  }
  return d;
}

}  // namespace outrider::agent
