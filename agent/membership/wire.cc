// The next generation's binary messages (wire.h): encoding, and parsing that checks each length,
// count and range before it reads.
#include "agent/membership/wire.h"

#include <cstring>
#include <type_traits>

#include "agent/bootstrap/rank_layout.h"

namespace outrider::agent::membership {
namespace {

enum Kind : uint16_t { kRequest = 1, kDecision = 2 };
// How a decision's slot says what became of its rank.
enum SlotTag : uint8_t { kNoPlace = 0, kPlaced = 1, kWhy = 2 };
constexpr int64_t kMaxRank = (int64_t{1} << 30) - 1;
constexpr const char* kNoPlaceWhy = "no place for this rank";

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  // Texts longer than kMaxText are cut: the parser refuses what no encoder writes.
  void Text(const std::string& s) {
    size_t n = std::min(s.size(), kMaxText);
    Put(static_cast<uint16_t>(n));
    out_.append(s.data(), n);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads fields in order; every read names its field in the error it returns.
class Reader {
 public:
  explicit Reader(std::string_view body) : body_(body) {}
  template <typename T>
  Status Get(const char* field, T* v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (body_.size() - off_ < sizeof(T)) return Truncated(field);
    std::memcpy(v, body_.data() + off_, sizeof(T));
    off_ += sizeof(T);
    return Status::Ok();
  }
  // An integer field within [lo, hi].
  template <typename Wire, typename T>
  Status Int(const char* field, T* out, int64_t lo, int64_t hi) {
    Wire v{};
    OUTRIDER_RETURN_IF_ERROR(Get(field, &v));
    if (static_cast<int64_t>(v) < lo || static_cast<int64_t>(v) > hi) {
      return ProtocolError(std::string("field '") + field +
                           "' is out of range: " + std::to_string(static_cast<int64_t>(v)));
    }
    *out = static_cast<T>(v);
    return Status::Ok();
  }
  Status Text(const char* field, std::string* s) {
    uint16_t n = 0;
    OUTRIDER_RETURN_IF_ERROR(Get(field, &n));
    if (n > kMaxText) return ProtocolError(std::string("field '") + field + "' is too long");
    if (body_.size() - off_ < n) return Truncated(field);
    s->assign(body_.data() + off_, n);
    off_ += n;
    return Status::Ok();
  }
  // A count of entries of at least `min_bytes` each, at most `max`, that the body can hold.
  Status Count(const char* field, uint32_t* n, size_t max, size_t min_bytes) {
    OUTRIDER_RETURN_IF_ERROR(Get(field, n));
    if (*n > max) return ProtocolError(std::string("field '") + field + "' is too long");
    if (size_t{*n} * min_bytes > body_.size() - off_) return Truncated(field);
    return Status::Ok();
  }
  Status Header(Kind want) {
    uint32_t magic = 0;
    uint16_t version = 0, kind = 0;
    OUTRIDER_RETURN_IF_ERROR(Get("magic", &magic));
    if (magic != kWireMagic) return ProtocolError("not a generation message (bad magic)");
    OUTRIDER_RETURN_IF_ERROR(Get("version", &version));
    if (version != kWireVersion) {
      return ProtocolError("a generation message of version " + std::to_string(version) +
                           "; this agent speaks version " + std::to_string(kWireVersion) +
                           " (run one agent version on every node of a job)");
    }
    OUTRIDER_RETURN_IF_ERROR(Get("kind", &kind));
    if (kind != want) {
      return ProtocolError(std::string("field 'kind' is ") + std::to_string(kind) + ", not a " +
                           (want == kRequest ? "request" : "decision"));
    }
    return Status::Ok();
  }
  Status End() const {
    if (off_ != body_.size())
      return ProtocolError(std::to_string(body_.size() - off_) + " bytes after the message");
    return Status::Ok();
  }

 private:
  static Status Truncated(const char* field) {
    return ProtocolError(std::string("truncated at field '") + field + "'");
  }
  std::string_view body_;
  size_t off_ = 0;
};

void PutHeader(Writer& w, Kind kind) {
  w.Put(kWireMagic);
  w.Put(kWireVersion);
  w.Put(static_cast<uint16_t>(kind));
}

}  // namespace

Code ReformDecision::status_code() const {
  return code >= 0 && code <= kMaxCode ? static_cast<Code>(code) : Code::kInternal;
}

ReformDecision ReformDecision::Refusal(Code code, std::string message) {
  ReformDecision d;
  d.code = static_cast<int32_t>(code);
  d.message = std::move(message);
  return d;
}

ReformDecision ReformDecision::Absent(std::string message) {
  ReformDecision d = Refusal(Code::kUnavailable, std::move(message));
  d.absent = true;
  return d;
}

std::string EncodeReformRequest(const ReformRequest& r) {
  Writer w;
  PutHeader(w, kRequest);
  w.Put(static_cast<uint8_t>(r.joiner));
  w.Put(r.generation);
  w.Put(r.port);
  w.Put(r.node);
  w.Put(r.timeout_ms);
  const std::vector<int32_t> none;
  const std::vector<int32_t>& ranks = r.joiner ? none : r.ranks;
  w.Put(static_cast<uint32_t>(ranks.size()));
  for (int32_t rank : ranks) w.Put(rank);
  return w.Take();
}

Result<ReformRequest> ParseReformRequest(std::string_view body) {
  Reader rd(body);
  OUTRIDER_RETURN_IF_ERROR(rd.Header(kRequest));
  ReformRequest r;
  OUTRIDER_RETURN_IF_ERROR((rd.Int<uint8_t>("joiner", &r.joiner, 0, 1)));
  OUTRIDER_RETURN_IF_ERROR(rd.Get("generation", &r.generation));
  OUTRIDER_RETURN_IF_ERROR(rd.Get("port", &r.port));
  OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("node", &r.node, -1, kMaxRank)));
  OUTRIDER_RETURN_IF_ERROR(
      (rd.Int<uint32_t>("timeout_ms", &r.timeout_ms, 1, ReformRequest::kMaxTimeoutMs)));
  uint32_t n = 0;
  OUTRIDER_RETURN_IF_ERROR(rd.Count("ranks", &n, ReformRequest::kMaxRanks, sizeof(int32_t)));
  if (r.joiner && n != 0) return ProtocolError("field 'ranks' is not empty in a joiner's ask");
  r.ranks.resize(n);
  for (int32_t& rank : r.ranks)
    OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("ranks", &rank, 0, kMaxRank)));
  OUTRIDER_RETURN_IF_ERROR(rd.End());
  return r;
}

std::string EncodeReformDecision(const ReformDecision& d) {
  Writer w;
  PutHeader(w, kDecision);
  w.Put(static_cast<uint8_t>(d.absent));
  w.Put(d.code);
  w.Text(d.message);
  if (d.absent || d.code != 0) return w.Take();
  w.Put(d.generation);
  w.Put(d.world_size);
  w.Text(d.root);
  w.Put(static_cast<uint32_t>(d.node_ranks.size()));
  for (size_t i = 0; i < d.node_ranks.size(); ++i) {
    w.Put(d.node_ranks[i]);
    w.Text(i < d.agents.size() ? d.agents[i] : std::string());
  }
  w.Put(static_cast<uint32_t>(d.assign.size()));
  for (const ReformSlot& s : d.assign) {
    if (!s.why.empty()) {
      w.Put(kWhy);
      w.Text(s.why);
    } else if (s.rank >= 0) {
      w.Put(kPlaced);
      w.Put(s.rank);
      w.Put(s.local_rank);
    } else {
      w.Put(kNoPlace);
    }
  }
  return w.Take();
}

Result<ReformDecision> ParseReformDecision(std::string_view body) {
  Reader rd(body);
  OUTRIDER_RETURN_IF_ERROR(rd.Header(kDecision));
  ReformDecision d;
  OUTRIDER_RETURN_IF_ERROR((rd.Int<uint8_t>("absent", &d.absent, 0, 1)));
  OUTRIDER_RETURN_IF_ERROR(rd.Get("code", &d.code));
  OUTRIDER_RETURN_IF_ERROR(rd.Text("message", &d.message));
  if (d.absent || d.code != 0) {
    OUTRIDER_RETURN_IF_ERROR(rd.End());
    return d;
  }
  OUTRIDER_RETURN_IF_ERROR(rd.Get("generation", &d.generation));
  OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("world_size", &d.world_size, 1, kMaxRank)));
  OUTRIDER_RETURN_IF_ERROR(rd.Text("root", &d.root));
  uint32_t nodes = 0;
  // A node is its count and its agent's address (at least 4 + 2 bytes).
  OUTRIDER_RETURN_IF_ERROR(rd.Count("node_ranks", &nodes, ReformDecision::kMaxAgents, 6));
  int64_t total = 0;
  for (uint32_t i = 0; i < nodes; ++i) {
    int32_t count = 0;
    OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("node_ranks", &count, 1, kMaxRank)));
    d.node_ranks.push_back(count);
    total += count;
    d.agents.emplace_back();
    OUTRIDER_RETURN_IF_ERROR(rd.Text("agents", &d.agents.back()));
  }
  if (total != d.world_size)
    return ProtocolError("a decision whose ranks per node do not add up to its world_size");
  RankLayout layout = RankLayout::FromCounts(d.node_ranks);
  uint32_t slots = 0;
  OUTRIDER_RETURN_IF_ERROR(rd.Count("assign", &slots, ReformRequest::kMaxRanks, 1));
  d.assign.resize(slots);
  for (ReformSlot& s : d.assign) {
    uint8_t tag = 0;
    OUTRIDER_RETURN_IF_ERROR(rd.Get("assign", &tag));
    if (tag == kNoPlace) {
      s.why = kNoPlaceWhy;
    } else if (tag == kWhy) {
      OUTRIDER_RETURN_IF_ERROR(rd.Text("assign", &s.why));
      if (s.why.empty()) s.why = kNoPlaceWhy;
    } else if (tag == kPlaced) {
      OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("assign", &s.rank, 0, d.world_size - 1)));
      OUTRIDER_RETURN_IF_ERROR((rd.Int<int32_t>("assign", &s.local_rank, 0, d.world_size - 1)));
      if (s.rank - layout.first_rank(layout.node_of(s.rank)) != s.local_rank)
        return ProtocolError("an assignment whose local rank is not its place on its node");
    } else {
      return ProtocolError("field 'assign' holds an entry of kind " + std::to_string(tag));
    }
  }
  OUTRIDER_RETURN_IF_ERROR(rd.End());
  return d;
}

}  // namespace outrider::agent::membership
