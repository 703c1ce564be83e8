// Flight recorder of recent ops per job.
#include "agent/engine/flight_recorder.h"

#include <cstdio>

#include "agent/engine/json_text.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

FlightRecorder::Record* FlightRecorder::Find(uint64_t key, uint64_t seq) {
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->key == key && it->seq == seq) return &*it;
  }
  return nullptr;
}

void FlightRecorder::Begin(uint64_t key, uint64_t seq, ipc::OpKind kind, ipc::DType dtype,
                           uint64_t count, int local_size) {
  if (records_.size() == kCapacity) records_.pop_front();
  Record r;
  r.key = key;
  r.seq = seq;
  r.kind = kind;
  r.dtype = dtype;
  r.count = count;
  r.local_size = local_size;
  r.state = "waiting for local ranks";
  r.first_ns = ipc::MonotonicNs();
  records_.push_back(r);
}

void FlightRecorder::Arrived(uint64_t key, uint64_t seq, int arrived) {
  if (Record* r = Find(key, seq)) r->arrived = arrived;
}

void FlightRecorder::Started(uint64_t key, uint64_t seq, const std::string& waiting_for) {
  if (Record* r = Find(key, seq)) {
    r->state = "running";
    r->waiting_for = waiting_for;
    r->start_ns = ipc::MonotonicNs();
  }
}

void FlightRecorder::Ended(uint64_t key, uint64_t seq, const Status& result, const OpTrace* trace) {
  if (Record* r = Find(key, seq)) {
    if (r->end_ns != 0) return;
    if (trace != nullptr && trace->started()) r->trace = trace->Json();
    r->state = result.ok() ? "done" : "failed";
    r->waiting_for.clear();
    r->result = result.ok() ? "OK" : result.ToString();
    r->end_ns = ipc::MonotonicNs();
  }
}

nlohmann::json FlightRecorder::Json(
    const std::function<std::string(uint64_t, uint64_t)>& waiting) const {
  nlohmann::json out = nlohmann::json::array();
  uint64_t now = ipc::MonotonicNs();
  for (const Record& r : records_) {
    char key[24];
    std::snprintf(key, sizeof(key), "0x%016llx", static_cast<unsigned long long>(r.key));
    nlohmann::json j = {{"key", key},
                        {"seq", r.seq},
                        {"op", std::string(ipc::OpKindName(r.kind))},
                        {"dtype", std::string(ipc::DTypeName(r.dtype))},
                        {"count", r.count},
                        {"state", r.state},
                        {"local_ranks_arrived", r.arrived},
                        {"local_size", r.local_size},
                        {"age_ms", (now - r.first_ns) / 1000000.0}};
    if (r.start_ns) j["queue_ms"] = (r.start_ns - r.first_ns) / 1e6;
    if (r.end_ns) j["duration_ms"] = (r.end_ns - r.first_ns) / 1e6;
    std::string w = r.state == "running" && waiting ? waiting(r.key, r.seq) : "";
    if (!w.empty()) {
      j["waiting_for"] = w;
    } else if (!r.waiting_for.empty()) {
      j["waiting_for"] = r.waiting_for;
    }
    if (!r.result.empty()) j["result"] = r.result;
    if (!r.trace.is_null()) j["trace"] = r.trace;
    out.push_back(j);
  }
  return out;
}

std::string FlightRecorder::Dump() const {
  std::string s;
  for (const auto& j : Json()) s += JsonText(j) + "\n";
  return s;
}

}  // namespace outrider::agent
