// The last ops of one job, kept in memory for post-mortems of hangs and mismatches: key, seq,
// shape, state, timings and what the op was waiting for. Served in /status and written to the log
// when the job fails for good.
// Thread-safety: loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "agent/engine/op_trace.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

class FlightRecorder {
 public:
  static constexpr size_t kCapacity = 64;
  // A collective instance appeared (its first local rank submitted).
  void Begin(uint64_t key, uint64_t seq, ipc::OpKind kind, ipc::DType dtype, uint64_t count,
             int local_size);
  void Arrived(uint64_t key, uint64_t seq, int arrived);
  // Every local rank is in; it now waits on `waiting_for` (e.g. "peer nodes"), or runs locally.
  void Started(uint64_t key, uint64_t seq, const std::string& waiting_for);
  // `trace` (may be null): where the op's time went, kept with its record.
  void Ended(uint64_t key, uint64_t seq, const Status& result, const OpTrace* trace = nullptr);
  // `waiting` (may be empty) names what a running op still waits for, e.g. the nodes whose
  // contribution has not arrived.
  nlohmann::json Json(
      const std::function<std::string(uint64_t key, uint64_t seq)>& waiting = {}) const;
  // One line per op, oldest first.
  std::string Dump() const;

 private:
  struct Record {
    uint64_t key = 0, seq = 0;
    ipc::OpKind kind = ipc::OpKind::kBarrier;
    ipc::DType dtype = ipc::DType::kF32;
    uint64_t count = 0;
    int local_size = 0, arrived = 0;
    std::string state, waiting_for, result;
    uint64_t first_ns = 0, start_ns = 0, end_ns = 0;
    nlohmann::json trace;  // null: none
  };
  Record* Find(uint64_t key, uint64_t seq);
  std::deque<Record> records_;
};

}  // namespace outrider::agent
