// The agent's send scheduler (docs/design.md#scheduling, docs/jobs.md): every bulk chunk (ring
// steps, chains, gathers, sparse messages) of every job waits here and goes out under a credit
// window of bytes in flight per peer link. On each link it arbitrates between jobs first, then
// inside a job:
//  1. Job class: a higher class's chunk goes first. A chunk rises one class per `class_aging_ns`
//     it has waited, so a lower class is never starved.
//  2. Within a class, weighted fair sharing: each job's bytes sent on the link divided by its
//     weight (start-time fair queueing), the job furthest behind first.
//  3. Within a job, its op's priority (lower = sooner) less one level per `aging_ns` waited, then
//     first come first served.
// A link whose queued and in-flight chunks all have one class and priority gets the deeper solo
// window; a lower-class chunk on a link where a higher class is active (a job of it runs ops that
// may send there, or has chunks queued or in flight) gets the shallow yield window, so a
// higher-class chunk finds little ahead of it on the wire. Inside a job the same holds between
// priorities: while an op of the job runs here, its chunks of a lower priority get the yield
// window on every link (`op_yield`). Chunks go on each peer's bulk lane;
// what bypasses the queue goes on its express lane (control_lane()). FIFO mode ignores classes
// and priorities. Scheduling only orders sends: data arriving from a peer is always accepted, and
// results never change. Thread-safety: loop thread only. The clock is injected (tests use a fake
// one).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/sched/scheduler_options.h"
#include "agent/transport/transport.h"
#include "ipc/protocol.h"

namespace outrider::agent {

// One class (send_scheduler.cc, ~330 lines) though it has ~50 members: the three levels above,
// the windows and the per-link credit all decide one thing, which chunk a link sends next, and
// each reads the others' state on every pick.
class SendScheduler {
 public:
  // Performs the send; the caller's completion path must call Done(peer, bytes) exactly once.
  using Issue = std::function<void()>;
  using Clock = std::function<uint64_t()>;

  // Whose a chunk is: its job (a hash of the job as its trainers name it: every communicator of a
  // job is one job here, so their priorities compare and their ops make each other's bulk chunks
  // yield), the job's class, its weight in the class, and the communicator it is of (its
  // statistics; 0: the job's own).
  struct Flow {
    uint64_t job = 0;
    ipc::JobClass job_class = ipc::JobClass::kNormal;
    uint32_t weight = 1;
    uint64_t group = 0;
    uint64_t stats_key() const { return group != 0 ? group : job; }
  };

  SendScheduler(SchedulerOptions options, Clock clock);

  // Queues a chunk of `bytes` for `peer`; sends at once if the window allows and nothing that
  // goes first waits.
  void Enqueue(PeerId peer, const Flow& flow, int32_t priority, uint64_t bytes, Issue issue);
  // A job of `job_class` has ops running that may send to `peer`, from their start (agreement
  // and small ops' data, which bypass the scheduler, included) to EndRunning: lower classes yield
  // on that link meanwhile, and for class_hold_ns after. Calls nest; each Begin needs one End.
  void BeginRunning(PeerId peer, ipc::JobClass job_class);
  void EndRunning(PeerId peer, ipc::JobClass job_class);
  // An op of `job` with `priority` runs here, from its start (agreement and waits for other nodes
  // included) to EndOp: the job's chunks of a lower priority (a larger value) keep to the yield
  // window on every link meanwhile, and ring chunks queued before go in pieces (ChunkCap), so the
  // op's messages find little of its own job ahead of them on the wire or at the receivers. Calls
  // nest; each BeginOp needs one EndOp with the same arguments.
  void BeginOp(uint64_t job, int32_t priority);
  void EndOp(uint64_t job, int32_t priority);
  // Whether `job`'s chunks of `priority` yield to a more urgent op of the job that runs here.
  bool OpYields(uint64_t job, int32_t priority) const;
  // The largest chunk a job of `job_class` should cut now for `peer`: half the yield window while
  // a higher class is active on that link (so that it pipelines inside it), else UINT64_MAX.
  uint64_t ChunkCap(PeerId peer, ipc::JobClass job_class) const;
  // The same for a chunk of `flow` at `priority`, which also yields to a more urgent op of its job.
  uint64_t ChunkCap(PeerId peer, const Flow& flow, int32_t priority) const;
  // From inside the Issue of a chunk to `peer`: it goes out `bytes` shorter (its sender queues
  // the rest again), so their credit comes back now. False (and nothing changes) if the link is
  // gone (Drain issues what it held): the chunk must then go whole.
  bool Unsend(PeerId peer, uint64_t bytes);
  // A chunk to `peer` left (or failed): frees its credit and sends what fits.
  void Done(PeerId peer, uint64_t bytes);
  // `peer` is gone: every chunk still queued for it is issued now (its sender finds the peer or
  // its op failed and drops it) and the link is forgotten, so nothing waits on credit that will
  // never come back.
  void Drain(PeerId peer);
  // The communicator (Flow::stats_key()) ended here: its statistics go (its chunks are all sent or
  // drained by then).
  void ForgetJob(uint64_t group);

  struct Sent {
    uint64_t order;  // position in the global send order
    PeerId peer;
    int32_t priority;
    uint64_t group;  // Flow::stats_key()
    uint64_t bytes;
    uint64_t wait_ns;  // queued -> sent
  };
  // The last sends, oldest first (for the bench and /status).
  const std::deque<Sent>& recent() const { return recent_; }
  size_t queued() const;
  uint64_t in_flight(PeerId peer) const;
  const SchedulerOptions& options() const { return options_; }
  // The lane of the messages that bypass the queue; every chunk goes on the bulk lane.
  Lane control_lane() const { return options_.express_lane ? Lane::kExpress : Lane::kBulk; }
  // Queue depth and total wait so far per priority class ("urgent" < 0 <= "normal" < 1000 <=
  // "bulk").
  struct ClassStats {
    uint64_t queued = 0, sent = 0;
    double wait_s = 0;
  };
  std::map<std::string, ClassStats> Stats() const;
  static const char* ClassOf(int32_t priority);
  // One communicator's chunks (Flow::stats_key()) on every link, since its first here.
  struct JobStats {
    ipc::JobClass job_class = ipc::JobClass::kNormal;
    uint32_t weight = 1;
    uint64_t queued = 0, sent = 0, sent_bytes = 0;
    double wait_s = 0;  // queued -> sent, summed
  };
  // Statistics of `group` (Flow::stats_key()), or null if it never sent a chunk.
  const JobStats* job_stats(uint64_t group) const;
  // What the chunks of one job class found ahead of them on their link when they went: bytes of
  // lower classes in flight there (sent, not yet credited). The yield window bounds it, once the
  // lower classes' earlier chunks drained.
  struct AheadStats {
    uint64_t chunks = 0;
    double lower_bytes = 0;  // summed over the chunks
    uint64_t max_lower_bytes = 0;
  };
  const AheadStats& ahead(ipc::JobClass job_class) const {
    return ahead_[static_cast<uint32_t>(job_class) - 1];
  }
  // The fraction of the bytes of the last sends (recent()) that were `group`'s
  // (Flow::stats_key()); of every one's.
  double RecentShare(uint64_t group) const;
  std::map<uint64_t, double> RecentShares() const;

 private:
  struct Item {
    int32_t priority;
    Flow flow;
    uint64_t bytes, seq, enqueued_ns;
    Issue issue;
  };
  // A chunk's class and priority: what the solo and yield windows compare.
  using Level = std::pair<uint32_t, int32_t>;
  static constexpr uint64_t kNever = UINT64_MAX;
  struct LinkJob {
    uint32_t queued = 0;
    double virtual_time = 0;  // bytes sent on the link / weight, from when it became backlogged
  };
  struct Link {
    std::vector<Item> queue;
    uint64_t in_flight = 0;
    // Chunks queued or in flight, by level: one key means nothing on the link can overtake.
    std::map<Level, uint32_t> levels;
    // Chunks in flight, oldest first. Credits come back in send order (one ordered bulk lane per
    // peer); a failed send's may not, which blurs `levels` for a while, never `in_flight`.
    std::deque<std::pair<Level, uint64_t>> sent;
    std::map<uint64_t, LinkJob> jobs;  // backlogged jobs, and those ahead of virtual_now
    double virtual_now = 0;            // the virtual start of the last chunk sent
    // When a chunk of each class (index class - 1) was last queued or sent here, or its last
    // running job's ops ended; kNever: not yet.
    uint64_t class_seen_ns[3] = {kNever, kNever, kNever};
  };
  // Jobs of each class (index class - 1) with ops running that may send to a peer.
  using Running = std::array<uint32_t, 3>;
  static Level LevelOf(const Item& x) {
    return {static_cast<uint32_t>(x.flow.job_class), x.priority};
  }
  static void Forget(Link& link, const Level& level);
  void Pump(PeerId peer);
  // Index of the next item to send on `link`; queue.size() if there is none. With `held` (a
  // picked item that must yield and did not fit), only among those of a higher class than it and
  // those that need not yield.
  size_t Pick(PeerId peer, const Link& link, uint64_t now, const Item* held) const;
  // Whether `x` keeps to the yield window: a class above its own is active on its link, or a more
  // urgent op of its job runs here.
  bool Yields(PeerId peer, const Link& link, const Item& x, uint64_t now) const;
  // Whether a class above `own` runs ops that may send to `peer`, has a chunk queued or in flight
  // on its `link` (may be null: none yet), or was seen there within class_hold_ns.
  bool HigherClassActive(PeerId peer, const Link* link, uint32_t own, uint64_t now) const;
  // The most bytes in flight with which `x` may still go on `link` (to `peer`).
  uint64_t WindowFor(PeerId peer, const Link& link, const Item& x, uint64_t now) const;

  SchedulerOptions options_;
  Clock clock_;
  std::map<PeerId, Link> links_;
  std::map<PeerId, Running> running_;  // peers with some job's ops running
  // Per job, the priorities of its ops running here (BeginOp), each with its count.
  std::map<uint64_t, std::map<int32_t, uint32_t>> ops_running_;
  uint64_t YieldChunkBytes() const {
    return std::max<uint64_t>(options_.yield_window_bytes / 2, 4096);
  }
  std::map<uint64_t, JobStats> jobs_;
  std::array<AheadStats, 3> ahead_{};  // by class - 1
  uint64_t next_seq_ = 0, next_order_ = 0;
  std::deque<Sent> recent_;
  std::map<std::string, ClassStats> stats_;
  bool pumping_ = false;
};

}  // namespace outrider::agent
