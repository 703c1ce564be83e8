// The agent's NCCL path (see nccl_path.h).
#include "agent/engine/gpu/nccl_path.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "agent/engine/collective.h"
#include "agent/engine/gpu/nccl_types.h"
#include "agent/log.h"
#include "agent/memory/cuda_memory.h"
#include "agent/sched/urgency.h"
#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "loaders/nccl/library.h"

namespace outrider::agent {

void NcclPath::CountBusy() {
  if (busy() != counted_busy_) {
    counted_busy_ = busy();
    if (options_.busy_paths != nullptr) *options_.busy_paths += counted_busy_ ? 1 : -1;
  }
}

NcclPath::NcclPath(std::string job_id, int node, int world, Options options, Links links)
    : job_id_(std::move(job_id)),
      node_(node),
      world_(world),
      options_(options),
      links_(std::move(links)) {}

#if OUTRIDER_HAVE_NCCL

using nccl_types::Comm;
using nccl_types::DtypeOf;

bool NcclEligible(const ValidatedOp& op) {
  if (op.kind == ipc::OpKind::kAlltoallv) {  // moves bytes: any dtype
    return (op.recv.on_device() || op.send.on_device()) &&
           (op.recv.empty() || op.recv.on_device()) && (op.send.empty() || op.send.on_device());
  }
  ncclDataType_t t;
  if (!DtypeOf(op.dtype, &t)) return false;
  switch (op.kind) {
    case ipc::OpKind::kAllreduce:
    case ipc::OpKind::kAllgather:
    case ipc::OpKind::kReduceScatter:
      return op.recv.on_device() && (op.send.empty() || op.send.on_device());
    case ipc::OpKind::kBroadcast:
      return op.recv.on_device() || op.send.on_device();
    default:
      return false;
  }
}

NcclPath::~NcclPath() {
  if (counted_busy_ && options_.busy_paths != nullptr) --*options_.busy_paths;
  if (auto n = nccl::Load(); n.ok()) {
    for (void* c : comms_) {
      if (c != nullptr) (void)(*n)->ncclCommAbort(Comm(c));
    }
  }
  if (auto cuda = CudaMemory::Get(); cuda.ok()) {
    for (int s : streams_) (*cuda)->ReleaseStream(s);
  }
}

void NcclPath::Add(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops,
                   int32_t priority, Done done) {
  if (state_ == State::kFailed) return done(failed_);
  Item item;
  if (ops[0]->kind == ipc::OpKind::kAlltoallv) {  // one launch of send/receive pairs
    item.count = 1;
    item.unit_bytes = std::max<uint64_t>(1, std::max(ops[0]->send.length, ops[0]->recv.length));
  } else {
    item.count = ops[0]->count;
    item.unit_bytes = ipc::DTypeSize(ops[0]->dtype);
  }
  item.ops = std::move(ops);
  item.done = std::move(done);
  item.priority = priority;
  items_[{key, seq}] = std::move(item);
  CountBusy();
}

void NcclPath::Agreed(uint64_t key, uint64_t seq) {
  if (!root()) return;
  auto it = items_.find({key, seq});
  if (it == items_.end()) return;
  it->second.ready = ++ready_count_;
  it->second.ready_ns = Now();
  ready_.emplace(it->second.priority, it->second.ready, it->first);
}

uint64_t NcclPath::Now() const { return options_.clock ? options_.clock() : ipc::MonotonicNs(); }

std::set<std::tuple<int32_t, uint64_t, NcclPath::InstanceId>>::iterator NcclPath::MostUrgent() {
  if (options_.aging_ns == 0) return ready_.begin();
  uint64_t now = Now();
  auto best = ready_.end();
  int64_t best_urgency = 0;
  for (auto it = ready_.begin(); it != ready_.end(); ++it) {
    const Item& item = items_.at(std::get<2>(*it));
    int64_t urgency = Urgency(item.priority, item.ready_ns, now, options_.aging_ns);
    if (best == ready_.end() || urgency < best_urgency ||
        (urgency == best_urgency && item.ready < items_.at(std::get<2>(*best)).ready)) {
      best = it;
      best_urgency = urgency;
    }
  }
  return best;
}

void NcclPath::Drop(uint64_t key, uint64_t seq, const Status& why) {
  auto it = items_.find({key, seq});
  if (it == items_.end()) return;
  bool in_order = it->second.in_order;
  for (auto& [number, t] : tickets_) in_order = in_order || t.first == it->first;
  ready_.erase({it->second.priority, it->second.ready, it->first});
  items_.erase(it);
  if (in_order) {
    FailAll(why.Annotate("job '" + job_id_ + "': " + InstanceName(key, seq) +
                         " failed after its NCCL launch was ordered, so the order cannot be kept"));
  }
  CountBusy();
}

void NcclPath::OnId(const uint8_t* data, size_t len) {
  if (root() || !id_.empty()) return;
  if (len != sizeof(ncclUniqueId)) {
    return FailAll(Internal("job '" + job_id_ + "': node 0's agent sent an NCCL unique id of " +
                            std::to_string(len) + " bytes, not " +
                            std::to_string(sizeof(ncclUniqueId))));
  }
  id_.assign(reinterpret_cast<const char*>(data), len);
}

void NcclPath::OnTicket(uint64_t key, uint64_t seq, const NcclTicket& t) {
  if (root() || state_ == State::kFailed) return;
  if (t.number < next_launch_ || t.count == 0) {
    return FailAll(Internal("job '" + job_id_ + "': node 0's agent sent NCCL launch ticket " +
                            std::to_string(t.number) + " out of order (next is " +
                            std::to_string(next_launch_) + ")"));
  }
  tickets_[t.number] = {{key, seq}, t};
  CountBusy();
}

void NcclPath::Abandon() {
  items_.clear();
  ready_.clear();
  tickets_.clear();
  FailAll(Cancelled("job '" + job_id_ + "' ended"));
}

void NcclPath::FailAll(const Status& why) {
  if (state_ != State::kFailed) {
    failed_ = why;
    state_ = State::kFailed;
    if (!comms_.empty())
      Logger("engine")->warn("job '{}': its NCCL communicators failed: {}", job_id_,
                             why.ToString());
    if (auto n = nccl::Load(); n.ok()) {
      for (void*& c : comms_) {
        if (c != nullptr) (void)(*n)->ncclCommAbort(Comm(c));
        c = nullptr;
      }
    }
    // The aborted collectives return: once the streams passed them, the memory they named is free.
    if (auto cuda = CudaMemory::Get(); cuda.ok()) {
      for (int s : streams_) (*cuda)->ReleaseStream(s);
    }
    streams_.clear();
  }
  auto items = std::move(items_);
  items_.clear();
  ready_.clear();
  tickets_.clear();
  flight_.clear();
  unfinished_bytes_ = 0;
  for (auto& [id, item] : items) item.done(failed_);
}

bool NcclPath::Pump() {
  bool worked = PumpOnce();
  CountBusy();
  return worked;
}

bool NcclPath::PumpOnce() {
  if (state_ == State::kFailed) {
    if (!busy()) return false;
    FailAll(failed_);
    return true;
  }
  bool worked = false;
  if (state_ == State::kNone) {
    if (items_.empty()) return false;
    Status st = StartInit(items_.begin()->second.ops);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    worked = true;
  }
  if (state_ == State::kInit && comms_.empty()) {
    if (id_.empty()) {  // waits for node 0's id
      if (ipc::MonotonicNs() < init_deadline_ns_) return worked;
      FailAll(DeadlineExceeded("job '" + job_id_ +
                               "': node 0's agent sent no NCCL unique id within " +
                               std::to_string(options_.init_timeout_ns / 1'000'000) + " ms"));
      return true;
    }
    Status st = CreateComms();
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    worked = true;
  }
  if (state_ == State::kInit) {
    bool starting = false;
    Status st = AsyncError(&starting);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    if (starting) {
      if (ipc::MonotonicNs() < init_deadline_ns_) return worked;
      FailAll(DeadlineExceeded("job '" + job_id_ +
                               "': its NCCL communicators did not start within " +
                               std::to_string(options_.init_timeout_ns / 1'000'000) + " ms"));
      return true;
    }
    state_ = State::kReady;
    std::string gpus, ranks;
    for (size_t r = 0; r < devices_.size(); ++r) {
      gpus += (r == 0 ? "" : ",") + std::to_string(devices_[r]);
      ranks += (r == 0 ? "" : ",") + std::to_string(ranks_[r]);
    }
    Logger("engine")->info("job '{}': NCCL communicators ready, ranks {} of {} on GPUs {}", job_id_,
                           ranks, world_, gpus);
    worked = true;
  }
  if (root()) HandOutTickets();
  // Launches in ticket order, then completions in the same order.
  while (!tickets_.empty() && tickets_.begin()->first == next_launch_) {
    auto [id, t] = tickets_.begin()->second;
    auto it = items_.find(id);
    if (it == items_.end()) break;  // not submitted here yet
    InFlight f;
    f.id = id;
    Status st = Launch(it->second, t, &f);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    it->second.in_order = true;
    tickets_.erase(tickets_.begin());
    ++next_launch_;
    flight_.push_back(std::move(f));
    worked = true;
  }
  if (!flight_.empty()) {
    Status st = AsyncError();
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    auto cuda = CudaMemory::Get();
    while (!flight_.empty()) {
      bool done = true;
      for (auto [stream, ticket] : flight_.front().tickets)
        done = done && (*cuda)->Done(stream, ticket);
      if (!done) break;
      InFlight f = std::move(flight_.front());
      flight_.pop_front();
      if (root()) unfinished_bytes_ -= std::min(unfinished_bytes_, f.bytes);
      worked = true;
      auto it = items_.find(f.id);
      if (it == items_.end()) continue;
      it->second.completed += f.count;
      if (it->second.completed < it->second.count) continue;
      Done d = std::move(it->second.done);
      items_.erase(it);
      ++completed_;
      d(Status::Ok());
      if (state_ == State::kFailed) return true;  // `d` failed the job
    }
    if (root()) HandOutTickets();
  }
  return worked;
}

nlohmann::json NcclPath::StatusJson() const {
  const char* state = state_ == State::kNone    ? "none"
                      : state_ == State::kInit  ? "starting"
                      : state_ == State::kReady ? "ready"
                                                : "failed";
  nlohmann::json j = {{"state", state},
                      {"devices", devices_},
                      {"ranks", ranks_},
                      {"launched", launched_},
                      {"completed", completed_},
                      {"waiting", items_.size()},
                      {"in_flight", flight_.size()},
                      {"next_launch", next_launch_}};
  if (!failed_.ok()) j["error"] = failed_.ToString();
  return j;
}

#else

bool NcclEligible(const ValidatedOp&) { return false; }
NcclPath::~NcclPath() {
  if (counted_busy_ && options_.busy_paths != nullptr) --*options_.busy_paths;
}
void NcclPath::Add(uint64_t, uint64_t, std::vector<const ValidatedOp*>, int32_t, Done done) {
  done(FailedPrecondition("this build of Outrider has no NCCL support"));
}
void NcclPath::Agreed(uint64_t, uint64_t) {}
void NcclPath::Drop(uint64_t, uint64_t, const Status&) {}
void NcclPath::OnId(const uint8_t*, size_t) {}
void NcclPath::OnTicket(uint64_t, uint64_t, const NcclTicket&) {}
bool NcclPath::Pump() { return false; }
bool NcclPath::PumpOnce() { return false; }
nlohmann::json NcclPath::StatusJson() const { return {{"state", "unavailable"}}; }
Status NcclPath::StartInit(const std::vector<const ValidatedOp*>&) { return Status::Ok(); }
Status NcclPath::CreateComms() { return Status::Ok(); }
void NcclPath::HandOutTickets() {}
Status NcclPath::Launch(const Item&, const NcclTicket&, InFlight*) { return Status::Ok(); }
void NcclPath::FailAll(const Status&) {}
Status NcclPath::AsyncError(bool*) const { return Status::Ok(); }
void NcclPath::Abandon() {}

#endif

}  // namespace outrider::agent
