// The agent's send scheduler (docs/design.md#scheduling): every bulk chunk (ring steps, chains,
// gathers, sparse messages) of every job waits here and goes out under a credit window of bytes in
// flight per peer link, most urgent first. A link whose queued and in-flight chunks all have one
// priority gets the deeper solo window. A chunk's urgency is its op's priority (lower = sooner)
// minus one level per `aging_ns` it has waited, so nothing starves; equal urgency goes to the job
// served longest ago (fairness), then first come first served. FIFO mode ignores priorities.
// Scheduling only orders sends: data arriving from a peer is always accepted, and results never
// change. Thread-safety: loop thread only. The clock is injected (tests use a fake one).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/sched/scheduler_options.h"
#include "agent/transport/transport.h"

namespace outrider::agent {

class SendScheduler {
 public:
  // Performs the send; the caller's completion path must call Done(peer, bytes) exactly once.
  using Issue = std::function<void()>;
  using Clock = std::function<uint64_t()>;

  SendScheduler(SchedulerOptions options, Clock clock);

  // Queues a chunk of `bytes` for `peer`; sends at once if the window allows and nothing more
  // urgent waits.
  void Enqueue(PeerId peer, int32_t priority, uint64_t job, uint64_t bytes, Issue issue);
  // A chunk to `peer` left (or failed): frees its credit and sends what fits.
  void Done(PeerId peer, uint64_t bytes);
  // `peer` is gone: every chunk still queued for it is issued now (its sender finds the peer or
  // its op failed and drops it) and the link is forgotten, so nothing waits on credit that will
  // never come back.
  void Drain(PeerId peer);

  struct Sent {
    uint64_t order;  // position in the global send order
    PeerId peer;
    int32_t priority;
    uint64_t job;
    uint64_t bytes;
    uint64_t wait_ns;  // queued -> sent
  };
  // The last sends, oldest first (for the bench and /status).
  const std::deque<Sent>& recent() const { return recent_; }
  size_t queued() const;
  uint64_t in_flight(PeerId peer) const;
  const SchedulerOptions& options() const { return options_; }
  // Queue depth and total wait so far per priority class ("urgent" < 0 <= "normal" < 1000 <=
  // "bulk").
  struct ClassStats {
    uint64_t queued = 0, sent = 0;
    double wait_s = 0;
  };
  std::map<std::string, ClassStats> Stats() const;
  static const char* ClassOf(int32_t priority);

 private:
  struct Item {
    int32_t priority;
    uint64_t job, bytes, seq, enqueued_ns;
    Issue issue;
  };
  struct Link {
    std::vector<Item> queue;
    uint64_t in_flight = 0;
    // Chunks queued or in flight, by priority: one key means nothing on the link can overtake.
    std::map<int32_t, uint32_t> levels;
    // Chunks in flight, oldest first. Credits come back in send order (one ordered connection per
    // peer); a failed send's may not, which blurs `levels` for a while, never `in_flight`.
    std::deque<std::pair<int32_t, uint64_t>> sent;
  };
  static void Forget(Link& link, int32_t priority);
  void Pump(PeerId peer);
  // Index of the next item to send on `link`.
  size_t Pick(const Link& link, uint64_t now) const;

  SchedulerOptions options_;
  Clock clock_;
  std::map<PeerId, Link> links_;
  std::map<uint64_t, uint64_t> last_served_;  // job -> order of its last send
  uint64_t next_seq_ = 0, next_order_ = 0;
  std::deque<Sent> recent_;
  std::map<std::string, ClassStats> stats_;
  bool pumping_ = false;
};

}  // namespace outrider::agent
