// Where one collective instance's time went on this node: how long each kind of work ran (local
// reduction, reduction of received chunks, copies, write-back to the clients, chunks queued for
// credit, chunks on the wire), when the op reached its milestones, the page faults of the engine
// thread meanwhile and the agent's private memory at its highest. Served in /status (recent ops)
// and read by `outrider-bench --trace`.
//
// A kind's time is the span during which at least one piece of that kind ran, so the kinds
// overlap each other by design: pipelining shows as kinds whose sum exceeds the op's duration,
// and a step that does not overlap the network shows as time outside `wire`.
// Thread-safety: loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace outrider::agent {

class OpTrace {
 public:
  enum Kind : uint8_t { kLocalReduce, kReduce, kCopy, kWriteBack, kQueued, kWire, kCount };
  static const char* KindName(Kind k);

  // Every local rank is in (the op starts running here).
  void Start(uint64_t now_ns);
  void Agreed(uint64_t now_ns) { agreed_ns_ = now_ns; }
  // One piece of `k` begins or ends; pieces of one kind may overlap.
  void Begin(Kind k, uint64_t now_ns);
  void End(Kind k, uint64_t now_ns);
  // A chunk of this op reached this node.
  void Received(uint64_t now_ns);
  // The agent's private memory grew: samples it (at most once per millisecond).
  void SampleMemory(uint64_t now_ns);
  // The op finished here; closes any open kind.
  void Finish(uint64_t now_ns);

  bool started() const { return start_ns_ != 0; }
  uint64_t busy_ns(Kind k) const { return busy_ns_[k]; }
  uint64_t duration_ns() const { return end_ns_ > start_ns_ ? end_ns_ - start_ns_ : 0; }
  uint64_t peak_private_bytes() const { return peak_private_bytes_; }
  // {"duration_ms", "agreed_ms", "first_send_ms", "last_send_ms" (the last send done),
  //  "first_recv_ms", "last_recv_ms", "chunks_recv",
  //  "busy_ms": {kind: ms}, "page_faults", "private_peak_bytes"}; times from Start.
  nlohmann::json Json() const;

  // The calling thread's page faults so far (minor + major).
  static uint64_t ThreadFaults();
  // This process's private resident memory (anonymous pages), bytes; 0 if unknown.
  static uint64_t PrivateBytes();

 private:
  uint64_t start_ns_ = 0, agreed_ns_ = 0, first_send_ns_ = 0, last_send_ns_ = 0, first_recv_ns_ = 0,
           last_recv_ns_ = 0;
  uint64_t end_ns_ = 0;
  uint64_t chunks_recv_ = 0;
  std::array<uint64_t, kCount> busy_ns_{}, since_ns_{};
  std::array<uint32_t, kCount> open_{};
  uint64_t faults_at_start_ = 0, faults_ = 0;
  uint64_t peak_private_bytes_ = 0, sampled_ns_ = 0;
};

}  // namespace outrider::agent
