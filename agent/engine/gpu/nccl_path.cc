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
  if (auto cuda = Cuda(); cuda.ok()) {
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
    if (auto cuda = Cuda(); cuda.ok()) {
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
    auto cuda = Cuda();
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

// ---- Communicators (once every node knows the unique id), tickets (node 0) and launches ----

#if OUTRIDER_HAVE_NCCL

using nccl_types::Chunkable;
using nccl_types::Comm;
using nccl_types::DtypeOf;
using nccl_types::RedOpOf;

Status NcclPath::StartInit(const std::vector<const ValidatedOp*>& ops) {
  devices_.clear();
  for (size_t r = 0; r < ops.size(); ++r) {
    const BufferSpan& s = ops[r]->recv.on_device() ? ops[r]->recv : ops[r]->send;
    for (size_t q = 0; q < r; ++q) {
      if (devices_[q] == s.device) {
        // The job routes ranks that share a GPU to the host engine by their first ops' GPUs: these
        // ranks' first ops were on different ones.
        return FailedPrecondition(
            "job '" + job_id_ + "': local ranks " + std::to_string(q) + " and " +
            std::to_string(r) +
            " have this op's buffers on one GPU, their first ops' on different ones, and NCCL "
            "runs one rank per GPU: keep each trainer's buffers on one GPU, or run the agent "
            "with gpu_nccl = off (GPU collectives then go through the host engine)");
      }
    }
    devices_.push_back(s.device);
  }
  if (ranks_.size() != ops.size())
    return Internal("job '" + job_id_ + "': no job rank for every local rank");
  init_deadline_ns_ = ipc::MonotonicNs() + options_.init_timeout_ns;
  if (root()) {
    OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
    ncclUniqueId id{};
    OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGetUniqueId(&id), "ncclGetUniqueId"));
    id_.assign(reinterpret_cast<const char*>(&id), sizeof(id));
    if (links_.send_id) links_.send_id(id_);
  }
  state_ = State::kInit;
  return Status::Ok();
}

Status NcclPath::CreateComms() {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory * cuda, Cuda());
  for (int device : devices_) {
    OUTRIDER_ASSIGN_OR_RETURN(int stream, cuda->NewStream(device));
    streams_.push_back(stream);
  }
  ncclUniqueId id{};
  std::memcpy(&id, id_.data(), sizeof(id));
  comms_.assign(devices_.size(), nullptr);
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < devices_.size() && st.ok(); ++r) {
    auto stream = cuda->UseStream(streams_[r]);  // makes the GPU's context current
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t comm = nullptr;
    st = nccl::Check(*n, n->ncclCommInitRankConfig(&comm, world_, id, ranks_[r], &config),
                     "ncclCommInitRankConfig");
    comms_[r] = comm;
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  return st.ok() ? end : st;
}

Status NcclPath::AsyncError(bool* in_progress) const {
  auto n = nccl::Load();
  if (!n.ok()) return n.status();
  if (in_progress != nullptr) *in_progress = false;
  for (size_t r = 0; r < comms_.size(); ++r) {
    ncclResult_t async = ncclSuccess;
    if (comms_[r] == nullptr)
      return Internal("no communicator for local rank " + std::to_string(r));
    Status st = nccl::Check(**n, (*n)->ncclCommGetAsyncError(Comm(comms_[r]), &async),
                            "ncclCommGetAsyncError");
    if (in_progress != nullptr && async == ncclInProgress) *in_progress = true;
    if (st.ok() && async != ncclSuccess && async != ncclInProgress) {
      st = nccl::Check(
          **n, async,
          ("job '" + job_id_ + "': the NCCL communicator of rank " + std::to_string(ranks_[r]))
              .c_str(),
          Comm(comms_[r]));
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

void NcclPath::HandOutTickets() {
  while (!ready_.empty() && unfinished_bytes_ < 2 * options_.chunk_bytes) {
    auto next = MostUrgent();
    InstanceId id = std::get<2>(*next);
    Item& item = items_.at(id);
    uint64_t elt = item.unit_bytes;
    uint64_t chunk_elems = std::max<uint64_t>(1, options_.chunk_bytes / elt);
    uint64_t count = Chunkable(item.ops[0]->kind)
                         ? std::min(chunk_elems, item.count - item.ticketed)
                         : item.count;
    NcclTicket t{next_ticket_++, item.ticketed, count};
    item.ticketed += count;
    item.in_order = true;
    if (item.ticketed >= item.count) ready_.erase(next);
    unfinished_bytes_ += count * elt;
    tickets_[t.number] = {id, t};
    if (links_.send_ticket) links_.send_ticket(id.first, id.second, t);
  }
}

Status NcclPath::Launch(const Item& item, const NcclTicket& t, InFlight* flight) {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory * cuda, Cuda());
  const ValidatedOp& first = *item.ops[0];
  if (t.first + t.count < t.first || t.first + t.count > item.count ||
      (!Chunkable(first.kind) && t.count != item.count)) {
    return Internal("job '" + job_id_ + "': NCCL launch ticket " + std::to_string(t.number) +
                    " names elements [" + std::to_string(t.first) + ", +" +
                    std::to_string(t.count) + ") of an instance of " + std::to_string(item.count));
  }
  ncclDataType_t dtype = ncclFloat32;
  DtypeOf(first.dtype, &dtype);
  uint64_t elt = ipc::DTypeSize(first.dtype);
  uint64_t offset = first.kind == ipc::OpKind::kAlltoallv ? 0 : t.first * elt;
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < item.ops.size() && st.ok(); ++r) {
    const ValidatedOp& op = *item.ops[r];
    auto stream = cuda->UseStream(streams_[r]);
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    auto s = static_cast<cudaStream_t>(*stream);
    auto* recv = reinterpret_cast<uint8_t*>(op.recv.address);
    const uint8_t* send =
        op.send.empty() ? recv : reinterpret_cast<const uint8_t*>(op.send.address);
    ncclComm_t comm = Comm(comms_[r]);
    switch (op.kind) {
      case ipc::OpKind::kAllreduce:
        st = nccl::Check(*n,
                         n->ncclAllReduce(send + offset, recv + offset, t.count, dtype,
                                          RedOpOf(op.reduce_op), comm, s),
                         "ncclAllReduce", comm);
        break;
      case ipc::OpKind::kBroadcast:
        if (op.recv.empty()) recv = const_cast<uint8_t*>(send);
        st = nccl::Check(
            *n, n->ncclBroadcast(send + offset, recv + offset, t.count, dtype, op.root, comm, s),
            "ncclBroadcast", comm);
        break;
      case ipc::OpKind::kAllgather:
        st = nccl::Check(*n, n->ncclAllGather(send, recv, op.count, dtype, comm, s),
                         "ncclAllGather", comm);
        break;
      case ipc::OpKind::kReduceScatter:
        st = nccl::Check(*n,
                         n->ncclReduceScatter(send, recv, op.recv.length / elt, dtype,
                                              RedOpOf(op.reduce_op), comm, s),
                         "ncclReduceScatter", comm);
        break;
      case ipc::OpKind::kAlltoallv: {
        // A send to and a receive from every rank, itself included, as bytes (any dtype); every
        // pair's counts agreed on every node before the launch was ordered. Zero-byte pairs too:
        // both sides of a pair always post the same.
        uint64_t at_send = 0, at_recv = 0;
        for (int p = 0; p < world_ && st.ok(); ++p) {
          uint64_t out = static_cast<uint64_t>(op.send_counts[static_cast<size_t>(p)]) * elt;
          uint64_t in = static_cast<uint64_t>(op.recv_counts[static_cast<size_t>(p)]) * elt;
          st = nccl::Check(*n, n->ncclSend(send + at_send, out, ncclUint8, p, comm, s), "ncclSend",
                           comm);
          if (st.ok())
            st = nccl::Check(*n, n->ncclRecv(recv + at_recv, in, ncclUint8, p, comm, s), "ncclRecv",
                             comm);
          at_send += out;
          at_recv += in;
        }
        break;
      }
      default:
        st = Internal("not an NCCL op");
        break;
    }
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  if (st.ok()) st = end;
  OUTRIDER_RETURN_IF_ERROR(st);
  // Each stream writes a ticket once it passed the collective, and wakes the loop.
  for (int stream : streams_) {
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t ticket, cuda->Enqueue(stream, {}));
    (void)cuda->WakeWhenDone(stream);  // else the loop's next timed look sees it
    flight->tickets.emplace_back(stream, ticket);
  }
  flight->count = t.count;
  flight->bytes = t.count * item.unit_bytes;
  ++launched_;
  return Status::Ok();
}

#endif

}  // namespace outrider::agent
