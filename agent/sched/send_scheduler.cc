// Send scheduler: credit window per peer; job classes, weighted fair sharing between jobs and op
// priorities, each aged.
#include "agent/sched/send_scheduler.h"

#include <algorithm>
#include <climits>

#include "agent/sched/urgency.h"

namespace outrider::agent {
namespace {
constexpr size_t kRecent = 4096;
constexpr uint32_t kTopClass = static_cast<uint32_t>(ipc::JobClass::kHigh);
constexpr uint32_t kLowClass = static_cast<uint32_t>(ipc::JobClass::kLow);
}  // namespace

SendScheduler::SendScheduler(SchedulerOptions options, Clock clock)
    : options_(options), clock_(std::move(clock)) {}

const char* SendScheduler::ClassOf(int32_t priority) {
  if (priority < 0) return "urgent";
  if (priority < 1000) return "normal";
  return "bulk";
}

void SendScheduler::Enqueue(PeerId peer, const Flow& flow, int32_t priority, uint64_t bytes,
                            Issue issue) {
  Link& link = links_[peer];
  uint64_t now = clock_();
  Item item{priority, flow, bytes, next_seq_++, now, std::move(issue)};
  ++link.levels[LevelOf(item)];
  link.class_seen_ns[static_cast<uint32_t>(flow.job_class) - 1] = now;
  LinkJob& lj = link.jobs[flow.job];
  // A job that had nothing queued starts at the link's virtual time: what it did not send while
  // idle is not credited to it.
  if (lj.queued++ == 0) lj.virtual_time = std::max(lj.virtual_time, link.virtual_now);
  JobStats& js = jobs_[flow.stats_key()];
  js.job_class = flow.job_class;
  js.weight = flow.weight;
  ++js.queued;
  ++stats_[ClassOf(priority)].queued;
  link.queue.push_back(std::move(item));
  Pump(peer);
}

void SendScheduler::BeginRunning(PeerId peer, ipc::JobClass job_class) {
  ++running_[peer][static_cast<uint32_t>(job_class) - 1];
}

void SendScheduler::EndRunning(PeerId peer, ipc::JobClass job_class) {
  auto it = running_.find(peer);
  if (it == running_.end()) return;
  uint32_t c = static_cast<uint32_t>(job_class) - 1;
  if (it->second[c] > 0) --it->second[c];
  if (it->second == Running{}) running_.erase(it);
  // The hold starts now. A link that never carried a chunk has nothing to yield (and a drained
  // one stays forgotten).
  auto link = links_.find(peer);
  if (link != links_.end()) link->second.class_seen_ns[c] = clock_();
}

void SendScheduler::BeginOp(uint64_t job, int32_t priority) { ++ops_running_[job][priority]; }

void SendScheduler::EndOp(uint64_t job, int32_t priority) {
  auto j = ops_running_.find(job);
  if (j == ops_running_.end()) return;
  auto p = j->second.find(priority);
  if (p == j->second.end()) return;
  if (--p->second == 0) j->second.erase(p);
  if (j->second.empty()) ops_running_.erase(j);
  // The job's chunks that yielded to it may have room now.
  for (auto& [peer, link] : links_) {
    if (!link.queue.empty()) Pump(peer);
  }
}

bool SendScheduler::OpYields(uint64_t job, int32_t priority) const {
  if (!options_.priority || !options_.op_yield) return false;
  auto j = ops_running_.find(job);
  return j != ops_running_.end() && j->second.begin()->first < priority;
}

void SendScheduler::Done(PeerId peer, uint64_t bytes) {
  auto it = links_.find(peer);
  if (it == links_.end()) return;
  Link& link = it->second;
  link.in_flight -= std::min(link.in_flight, bytes);
  while (bytes > 0 && !link.sent.empty()) {
    auto& [level, left] = link.sent.front();
    uint64_t n = std::min(bytes, left);
    left -= n;
    bytes -= n;
    if (left > 0) break;
    Forget(link, level);
    link.sent.pop_front();
  }
  Pump(peer);
}

bool SendScheduler::Unsend(PeerId peer, uint64_t bytes) {
  auto it = links_.find(peer);
  if (it == links_.end() || it->second.sent.empty() || recent_.empty() ||
      it->second.sent.back().second <= bytes)
    return false;
  // The chunk being issued is the newest in flight, and the newest recorded send.
  Link& link = it->second;
  link.in_flight -= std::min(link.in_flight, bytes);
  link.sent.back().second -= bytes;
  Sent& last = recent_.back();
  last.bytes -= std::min(last.bytes, bytes);
  if (auto js = jobs_.find(last.group); js != jobs_.end())
    js->second.sent_bytes -= std::min(js->second.sent_bytes, bytes);
  return true;  // Pump's loop, which issued it, goes on with the room this made
}

void SendScheduler::Forget(Link& link, const Level& level) {
  auto it = link.levels.find(level);
  if (it != link.levels.end() && --it->second == 0) link.levels.erase(it);
}

size_t SendScheduler::Pick(PeerId peer, const Link& link, uint64_t now, const Item* held) const {
  auto eligible = [&](const Item& x) {
    return held == nullptr || x.flow.job_class < held->flow.job_class ||
           !Yields(peer, link, x, now);
  };
  size_t best = 0;
  while (best < link.queue.size() && !eligible(link.queue[best])) ++best;
  if (best == link.queue.size()) return best;
  if (!options_.priority) {
    for (size_t i = best + 1; i < link.queue.size(); ++i) {
      if (link.queue[i].seq < link.queue[best].seq) best = i;
    }
    return best;
  }
  // A chunk's class, risen one step per class_aging_ns waited, up to the top class: a job that
  // waited that long shares with the top class by weight.
  auto class_rank = [&](const Item& x) {
    int64_t c = static_cast<int64_t>(x.flow.job_class);
    if (options_.class_aging_ns != 0) {
      uint64_t waited = now - std::min(now, x.enqueued_ns);
      c -= static_cast<int64_t>(waited / options_.class_aging_ns);
    }
    return std::max<int64_t>(c, kTopClass);
  };
  auto virtual_time = [&](const Item& x) { return link.jobs.at(x.flow.job).virtual_time; };
  auto urgency = [&](const Item& x) {
    return Urgency(x.priority, x.enqueued_ns, now, options_.aging_ns);
  };
  for (size_t i = best + 1; i < link.queue.size(); ++i) {
    const Item &a = link.queue[i], &b = link.queue[best];
    if (!eligible(a)) continue;
    int64_t ca = class_rank(a), cb = class_rank(b);
    if (ca != cb) {
      if (ca < cb) best = i;
      continue;
    }
    if (a.flow.job != b.flow.job) {
      double va = virtual_time(a), vb = virtual_time(b);
      if (va != vb) {
        if (va < vb) best = i;
        continue;
      }
    }
    int64_t ua = urgency(a), ub = urgency(b);
    if (ua != ub) {
      if (ua < ub) best = i;
      continue;
    }
    if (a.seq < b.seq) best = i;
  }
  return best;
}

bool SendScheduler::HigherClassActive(PeerId peer, const Link* link, uint32_t own,
                                      uint64_t now) const {
  auto running = running_.find(peer);
  for (uint32_t c = kTopClass; c < own; ++c) {
    if (running != running_.end() && running->second[c - 1] > 0) return true;
    if (link == nullptr) continue;
    auto level = link->levels.lower_bound({c, INT32_MIN});
    if (level != link->levels.end() && level->first.first == c) return true;
    uint64_t seen = link->class_seen_ns[c - 1];
    if (seen != kNever && now - std::min(now, seen) < options_.class_hold_ns) return true;
  }
  return false;
}

bool SendScheduler::Yields(PeerId peer, const Link& link, const Item& x, uint64_t now) const {
  return options_.priority &&
         (HigherClassActive(peer, &link, static_cast<uint32_t>(x.flow.job_class), now) ||
          OpYields(x.flow.job, x.priority));
}

uint64_t SendScheduler::WindowFor(PeerId peer, const Link& link, const Item& x,
                                  uint64_t now) const {
  uint64_t window = options_.window_bytes;
  if (link.levels.size() == 1) window = std::max(window, options_.solo_window_bytes);
  if (Yields(peer, link, x, now)) return std::min(window, options_.yield_window_bytes);
  return window;
}

uint64_t SendScheduler::ChunkCap(PeerId peer, ipc::JobClass job_class) const {
  auto it = links_.find(peer);
  if (!options_.priority || !HigherClassActive(peer, it == links_.end() ? nullptr : &it->second,
                                               static_cast<uint32_t>(job_class), clock_())) {
    return UINT64_MAX;
  }
  return YieldChunkBytes();
}

uint64_t SendScheduler::ChunkCap(PeerId peer, const Flow& flow, int32_t priority) const {
  return OpYields(flow.job, priority) ? YieldChunkBytes() : ChunkCap(peer, flow.job_class);
}

void SendScheduler::Pump(PeerId peer) {
  if (pumping_) return;  // an Issue that completed synchronously re-entered
  pumping_ = true;
  Link& link = links_[peer];
  while (!link.queue.empty()) {
    uint64_t now = clock_();
    size_t i = Pick(peer, link, now, nullptr);
    // A chunk larger than the window still goes, alone.
    auto fits = [&](const Item& x) {
      return link.in_flight == 0 || link.in_flight + x.bytes <= WindowFor(peer, link, x, now);
    };
    if (!fits(link.queue[i])) {
      // An aged chunk that must yield (to a higher class, or to a more urgent op of its job) does
      // not hold back a higher class's, nor one that need not yield (another job's, or its own
      // job's more urgent one).
      if (!Yields(peer, link, link.queue[i], now)) break;
      Item* held = &link.queue[i];
      i = Pick(peer, link, now, held);
      if (i == link.queue.size() || !fits(link.queue[i])) break;
    }
    Item x = std::move(link.queue[i]);
    link.queue.erase(link.queue.begin() + static_cast<long>(i));
    link.in_flight += x.bytes;
    link.sent.emplace_back(LevelOf(x), x.bytes);
    link.class_seen_ns[static_cast<uint32_t>(x.flow.job_class) - 1] = now;
    LinkJob& lj = link.jobs[x.flow.job];
    --lj.queued;
    link.virtual_now = lj.virtual_time;
    lj.virtual_time += static_cast<double>(x.bytes) / std::max<uint32_t>(x.flow.weight, 1);
    // Jobs with nothing queued that are not ahead of the link start afresh when they come back.
    std::erase_if(link.jobs, [&](const auto& kv) {
      return kv.second.queued == 0 && kv.second.virtual_time <= link.virtual_now;
    });
    uint64_t order = next_order_++;
    uint64_t wait_ns = now - std::min(now, x.enqueued_ns);
    ClassStats& cs = stats_[ClassOf(x.priority)];
    --cs.queued;
    ++cs.sent;
    cs.wait_s += static_cast<double>(wait_ns) * 1e-9;
    if (auto js = jobs_.find(x.flow.stats_key()); js != jobs_.end()) {  // else: it ended
      --js->second.queued;
      ++js->second.sent;
      js->second.sent_bytes += x.bytes;
      js->second.wait_s += static_cast<double>(wait_ns) * 1e-9;
    }
    if (uint32_t own = static_cast<uint32_t>(x.flow.job_class); own < kLowClass) {
      uint64_t lower = 0;
      for (const auto& [level, bytes] : link.sent) {
        if (level.first > own) lower += bytes;
      }
      AheadStats& a = ahead_[own - 1];
      ++a.chunks;
      a.lower_bytes += static_cast<double>(lower);
      a.max_lower_bytes = std::max(a.max_lower_bytes, lower);
    }
    recent_.push_back(Sent{order, peer, x.priority, x.flow.stats_key(), x.bytes, wait_ns});
    if (recent_.size() > kRecent) recent_.pop_front();
    x.issue();
  }
  pumping_ = false;
}

void SendScheduler::Drain(PeerId peer) {
  auto it = links_.find(peer);
  if (it == links_.end()) return;
  std::vector<Item> items = std::move(it->second.queue);
  links_.erase(it);
  for (Item& x : items) {
    --stats_[ClassOf(x.priority)].queued;
    auto js = jobs_.find(x.flow.stats_key());
    if (js != jobs_.end()) --js->second.queued;
    x.issue();
  }
}

void SendScheduler::ForgetJob(uint64_t job) {
  jobs_.erase(job);
  for (auto& [peer, link] : links_) {
    auto it = link.jobs.find(job);
    if (it != link.jobs.end() && it->second.queued == 0) link.jobs.erase(it);
  }
}

size_t SendScheduler::queued() const {
  size_t n = 0;
  for (const auto& [peer, link] : links_) n += link.queue.size();
  return n;
}

uint64_t SendScheduler::in_flight(PeerId peer) const {
  auto it = links_.find(peer);
  return it == links_.end() ? 0 : it->second.in_flight;
}

std::map<std::string, SendScheduler::ClassStats> SendScheduler::Stats() const { return stats_; }

const SendScheduler::JobStats* SendScheduler::job_stats(uint64_t job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::map<uint64_t, double> SendScheduler::RecentShares() const {
  std::map<uint64_t, double> bytes;
  double all = 0;
  for (const Sent& s : recent_) {
    bytes[s.group] += static_cast<double>(s.bytes);
    all += static_cast<double>(s.bytes);
  }
  for (auto& [job, b] : bytes) b /= all;
  return bytes;
}

double SendScheduler::RecentShare(uint64_t job) const {
  std::map<uint64_t, double> shares = RecentShares();
  auto it = shares.find(job);
  return it == shares.end() ? 0.0 : it->second;
}

}  // namespace outrider::agent
