// Send scheduler: credit window per peer, priority with aging, fairness between jobs.
#include "agent/sched/send_scheduler.h"

#include <algorithm>

#include "agent/sched/urgency.h"

namespace outrider::agent {
namespace {
constexpr size_t kRecent = 4096;
}

SendScheduler::SendScheduler(SchedulerOptions options, Clock clock)
    : options_(options), clock_(std::move(clock)) {}

const char* SendScheduler::ClassOf(int32_t priority) {
  if (priority < 0) return "urgent";
  if (priority < 1000) return "normal";
  return "bulk";
}

void SendScheduler::Enqueue(PeerId peer, int32_t priority, uint64_t job, uint64_t bytes,
                            Issue issue) {
  Link& link = links_[peer];
  link.queue.push_back(Item{priority, job, bytes, next_seq_++, clock_(), std::move(issue)});
  ++link.levels[priority];
  ++stats_[ClassOf(priority)].queued;
  Pump(peer);
}

void SendScheduler::Done(PeerId peer, uint64_t bytes) {
  auto it = links_.find(peer);
  if (it == links_.end()) return;
  Link& link = it->second;
  link.in_flight -= std::min(link.in_flight, bytes);
  while (bytes > 0 && !link.sent.empty()) {
    auto& [priority, left] = link.sent.front();
    uint64_t n = std::min(bytes, left);
    left -= n;
    bytes -= n;
    if (left > 0) break;
    Forget(link, priority);
    link.sent.pop_front();
  }
  Pump(peer);
}

void SendScheduler::Forget(Link& link, int32_t priority) {
  auto level = link.levels.find(priority);
  if (level != link.levels.end() && --level->second == 0) link.levels.erase(level);
}

size_t SendScheduler::Pick(const Link& link, uint64_t now) const {
  size_t best = 0;
  if (!options_.priority) {
    for (size_t i = 1; i < link.queue.size(); ++i) {
      if (link.queue[i].seq < link.queue[best].seq) best = i;
    }
    return best;
  }
  auto urgency = [&](const Item& x) {
    return Urgency(x.priority, x.enqueued_ns, now, options_.aging_ns);
  };
  auto served = [&](const Item& x) {
    auto s = last_served_.find(x.job);
    return s == last_served_.end() ? 0 : s->second + 1;
  };
  for (size_t i = 1; i < link.queue.size(); ++i) {
    const Item &a = link.queue[i], &b = link.queue[best];
    int64_t ua = urgency(a), ub = urgency(b);
    if (ua != ub) {
      if (ua < ub) best = i;
      continue;
    }
    uint64_t sa = served(a), sb = served(b);
    if (a.job != b.job && sa != sb) {
      if (sa < sb) best = i;
      continue;
    }
    if (a.seq < b.seq) best = i;
  }
  return best;
}

void SendScheduler::Pump(PeerId peer) {
  if (pumping_) return;  // an Issue that completed synchronously re-entered
  pumping_ = true;
  Link& link = links_[peer];
  while (!link.queue.empty()) {
    uint64_t now = clock_();
    size_t i = Pick(link, now);
    Item& item = link.queue[i];
    // A chunk larger than the window still goes, alone.
    uint64_t window = options_.window_bytes;
    if (link.levels.size() == 1) window = std::max(window, options_.solo_window_bytes);
    if (link.in_flight > 0 && link.in_flight + item.bytes > window) break;
    Item x = std::move(item);
    link.queue.erase(link.queue.begin() + static_cast<long>(i));
    link.in_flight += x.bytes;
    link.sent.emplace_back(x.priority, x.bytes);
    uint64_t order = next_order_++;
    last_served_[x.job] = order;
    ClassStats& cs = stats_[ClassOf(x.priority)];
    --cs.queued;
    ++cs.sent;
    cs.wait_s += static_cast<double>(now - x.enqueued_ns) * 1e-9;
    recent_.push_back(Sent{order, peer, x.priority, x.job, x.bytes, now - x.enqueued_ns});
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
    x.issue();
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

}  // namespace outrider::agent
