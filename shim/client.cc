// Client: wiring its parts together, and the ops in flight: submission (with refusals the agent
// still counts), completions, and the waits on them.
#include "shim/client.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>

namespace outrider::shim {

uint64_t HashKey(const char* name) {
  uint64_t h = ipc::Fnv1a(name, name ? std::strlen(name) : 0);
  return h == 0 ? 1 : h;  // 0 means "no key"
}

Client::Client(const ConnectConfig& config, std::unique_ptr<Connection> conn)
    : config_(config),
      conn_(std::move(conn)),
      regions_(conn_.get(), config_.arena_bytes),
      comms_(conn_.get(), config_),
      device_(&config_, conn_.get(), &regions_, &ops_) {
  // Streams waiting on the agent's fences go on, unless they wait for the next agent.
  conn_->set_on_gone([this] {
    if (!device_.StreamsWaitForNextAgent()) device_.ReleaseFences();
  });
}

Client::~Client() {
  device_.Stop(&last_error_);
  conn_->Close();
}

Result<std::unique_ptr<Client>> Client::Connect(const ConnectConfig& config) {
  OUTRIDER_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Connection::Open(config));
  return std::unique_ptr<Client>(new Client(config, std::move(conn)));
}

namespace {

Client::Membership MembershipOf(const ipc::ReformReply& r) {
  Client::Membership m;
  m.generation = r.generation;
  m.rank = r.rank;
  m.world_size = r.world_size;
  m.local_rank = r.local_rank;
  m.local_world_size = r.local_world_size;
  m.joiners_waiting = r.joiners_waiting;
  m.root_addr.assign(r.root_addr, strnlen(r.root_addr, sizeof(r.root_addr)));
  return m;
}

}  // namespace

Status Client::GetMembership(Membership* out) {
  OUTRIDER_ASSIGN_OR_RETURN(ipc::ReformReply r, conn_->Reform(ipc::ReformMode::kQuery, 0));
  if (out != nullptr) *out = MembershipOf(r);
  return FromReply(r.code, r.message);
}

Status Client::Reconfigure(uint32_t timeout_ms, Membership* out) {
  DrainCompletions();
  if (in_flight_ != 0 || !ops_.empty()) {
    return FailedPrecondition(std::to_string(ops_.size()) +
                              " ops of this client are not waited for yet; wait for (or test) "
                              "every op before re-forming the job");
  }
  // Its agent gone (killed, restarted): a rank of a job across nodes asks to rejoin it as a
  // joiner through the agent that comes back at its socket, and the job's next generation takes
  // it in (the job's other nodes went on); a one-node job's rank reconnects as itself.
  if (conn_->gone().ok() && conn_->SocketReadable()) conn_->OnSocketReadable();
  if (!conn_->gone().ok()) {
    OUTRIDER_RETURN_IF_ERROR(Reconnect(config_.world_size != config_.local_world_size));
  }
  OUTRIDER_ASSIGN_OR_RETURN(ipc::ReformReply r,
                            conn_->Reform(ipc::ReformMode::kReform, timeout_ms));
  Membership m = MembershipOf(r);
  if (out != nullptr) *out = m;
  OUTRIDER_RETURN_IF_ERROR(FromReply(r.code, r.message));
  config_.rank = m.rank;
  config_.world_size = m.world_size;
  config_.local_rank = m.local_rank;
  config_.local_world_size = m.local_world_size;
  config_.generation = m.generation;
  config_.joiner = false;
  comms_.Reset(config_);
  if ((r.flags & ipc::kReformUnevenNodes) != 0) {
    // The client is in the new generation whatever this gives: a loss here ends that generation,
    // its ops fail with it and the job re-forms again. Communicators made in it fail too.
    Status learned = LearnJobNodes();
    if (!learned.ok())
      comms_.ForgetJobNodes(learned.Annotate("this generation's nodes are not known"));
  }
  return Status::Ok();
}

Result<std::vector<int32_t>> Client::AllgatherInts(uint32_t comm, size_t size,
                                                   const std::vector<int32_t>& mine,
                                                   const char* key) {
  size_t k = mine.size();
  OUTRIDER_ASSIGN_OR_RETURN(void* mem, Alloc(4 * k * (size + 1)));
  auto* send = static_cast<int32_t*>(mem);
  int32_t* all = send + k;
  std::copy(mine.begin(), mine.end(), send);
  OpArgs a{ipc::OpKind::kAllgather};
  a.comm = comm;
  a.dtype = ipc::DType::kI32;
  a.count = k;
  a.send = send;
  a.send_bytes = 4 * k;
  a.recv = all;
  a.recv_bytes = 4 * k * size;
  a.key = HashKey(key);
  Result<uint64_t> op = Submit(a, /*agent_order=*/true);
  Status st = op.ok() ? Wait(*op, -1) : op.status();
  std::vector<int32_t> out;
  if (st.ok()) out.assign(all, all + k * size);
  (void)Free(mem);
  if (!st.ok()) return st;
  return out;
}

Status Client::LearnJobNodes() {
  // Every rank of the generation is here, right after its re-form: one allgather of each rank's
  // node's first rank (its rank less its local rank) tells each rank's node.
  OUTRIDER_ASSIGN_OR_RETURN(
      std::vector<int32_t> firsts,
      AllgatherInts(Communicators::kJob, static_cast<size_t>(config_.world_size),
                    {config_.rank - config_.local_rank}, "outrider.job_nodes"));
  comms_.SetJobNodes(firsts);
  return Status::Ok();
}

namespace {

// Op `id` failed because the agent is gone (`gone`): whether it may simply be submitted again.
Status Departed(uint64_t id, const OpState& s, const Status& gone) {
  // The agent may also have died between two ranks' completions of it: where it completed, it
  // must not run again.
  const char* again =
      s.in_place ? "it ran in place (its output is its input), which the agent may have written "
                   "part of: restore the input before submitting it again, and only where every "
                   "rank failed it"
                 : "its inputs are intact: it may be submitted again, where every rank failed it "
                   "(the agent may have completed it on some before it went)";
  return Status(gone.code(),
                gone.message() + "; op " + std::to_string(id) + " was in flight: " + again);
}

}  // namespace

Status Client::Reconnect() { return Reconnect(/*as_joiner=*/false); }

Status Client::Reconnect(bool as_joiner) {
  Status gone = conn_->gone();
  if (gone.ok() || gone.code() == Code::kCancelled) return gone;  // there, or this client left
  if (config_.reconnect_ms <= 0) return gone;
  const char* stays =
      device_.started() && !device_.StreamsWaitForNextAgent()
          ? (config_.gpu_mode == ipc::GpuMode::kIpc
                 ? "it ran ops on GPU memory the agent imported (gpu_mode ipc)"
             : !conn_->handed_over()
                 ? "it ran ops on GPU memory, and its agent went without handing them over"
                 : "its streams were let go after OUTRIDER_RECONNECT_MS without an agent")
      : as_joiner ? nullptr
      // Across nodes, only where the agent handed the job over: it comes back as itself.
      : config_.world_size != config_.local_world_size && !conn_->handed_over()
          ? "its job spans nodes and its agent did not hand it over (an elastic job's rank "
            "rejoins it through a restarted agent with outrider_reconfigure)"
      : config_.generation != 0 || config_.joiner ? "its job re-formed"
                                                  : nullptr;
  if (stays != nullptr) {
    return Status(gone.code(),
                  gone.message() + "; this client does not reconnect: " + std::string(stays));
  }
  // A joiner is in no job at the next agent until the job's next generation takes it in
  // (Reconfigure); it is one from the moment that agent took its hello.
  ConnectConfig hello = config_;
  if (as_joiner) {
    hello.joiner = true;
    hello.generation = 0;
  }
  DrainCompletions();  // what the agent finished (or gave back) before it went still counts
  MoveUntaken();
  std::vector<uint64_t> moved;
  for (auto& [id, s] : ops_) {
    if (s.done) continue;
    if (s.moved) {
      moved.push_back(id);
      continue;
    }
    s.done = true;
    s.result = Departed(id, s, gone);
    s.aux = nullptr;  // the agent may have been reading it: leaked, never reused
    device_.ReleaseFence(id, s.fence, Code::kUnavailable);  // its stream waits no longer
  }
  std::sort(moved.begin(), moved.end());  // submitted again in their order
  in_flight_ = 0;
  refusals_.clear();
  // Ops given back that cannot reach another agent fail with why.
  auto fail_moved = [&](const Status& why) {
    for (uint64_t id : moved) {
      OpState& s = ops_.at(id);
      s.moved = false;
      s.done = true;
      s.result = why;
      device_.ReleaseFence(id, s.fence, why.code());
    }
  };
  // The streams of staged ops wait for the next agent: no watchdog lets them go meanwhile (this
  // thread does, if no agent comes), and the hello hands it their fences.
  device_.Unwatch();
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(config_.reconnect_ms) * 1'000'000;
  uint64_t pause_us = 10'000;
  for (;;) {
    Status opened = conn_->Reopen(hello, device_.fence_segment_fd());
    if (opened.ok()) break;
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline) {
      Status none = Unavailable(gone.message() + "; no agent answered at " + config_.socket_path +
                                " within " + std::to_string(config_.reconnect_ms) +
                                " ms (OUTRIDER_RECONNECT_MS): " + opened.message());
      fail_moved(none);
      return none;
    }
    // An agent that restarts is back within a second or two: asked again soon, then less often.
    ::usleep(static_cast<useconds_t>(std::min<uint64_t>(pause_us, (deadline - now) / 1000 + 1)));
    pause_us = std::min<uint64_t>(pause_us * 2, 200'000);
  }
  config_ = hello;
  Result<std::map<uint32_t, uint32_t>> ids = regions_.Reregister();
  Status again = ids.status();
  if (again.ok()) again = device_.Rewatch();
  if (again.ok() && as_joiner) {
    comms_.Reset(config_);  // a joiner belongs to no communicator until it is placed
  } else if (again.ok()) {
    again = comms_.Rejoin();
  }
  if (!again.ok()) {
    fail_moved(again);
    conn_->MarkGone(again);
    return again;
  }
  for (uint64_t id : moved) {
    OpState& s = ops_.at(id);
    ipc::SubmitEntry e = s.entry;
    for (ipc::BufferRef* ref : {&e.send, &e.recv, &e.aux, &e.out_ids, &e.demand}) {
      if (ref->length == 0) continue;
      auto it = ids->find(ref->region_id);
      ref->region_id = it != ids->end() ? it->second : 0;  // 0: no region, refused there
    }
    e.comm = comms_.AgentId(s.comm);
    s.moved = false;
    s.sq_pos = conn_->sq_position();
    if (!conn_->Push(e)) {  // a fresh ring holds every op a client may have in flight
      s.done = true;
      s.result = Internal("the submission ring of the new agent rejected a handed-over op");
      continue;
    }
    ++entries_pushed_;
    ++in_flight_;
  }
  return Status::Ok();
}

Status Client::ReachAgent() {
  // Outside a request the agent only ever sends a goodbye: a readable socket means it is leaving.
  if (conn_->gone().ok() && conn_->SocketReadable()) conn_->OnSocketReadable();
  return Reconnect();
}

Result<uint64_t> Client::Submit(const OpArgs& args) {
  OUTRIDER_RETURN_IF_ERROR(Reconnect());
  Result<uint64_t> r = Submit(args, false);
  if (r.ok() || conn_->gone().ok()) return r;
  // The agent went away just now, before the op reached it: once more at the next agent.
  OUTRIDER_RETURN_IF_ERROR(Reconnect());
  return Submit(args, false);
}

Result<std::optional<uint32_t>> Client::CommSplit(uint32_t parent, int32_t color, int32_t key) {
  OUTRIDER_RETURN_IF_ERROR(ReachAgent());
  auto exchange = [&](const Communicators::Comm& p, int32_t my_color,
                      int32_t my_key) -> Result<Communicators::SplitExchange> {
    Result<std::vector<int32_t>> pairs = AllgatherInts(parent, static_cast<size_t>(p.size),
                                                       {my_color, my_key}, "outrider.comm_split");
    Communicators::SplitExchange x;
    x.status = pairs.status();
    if (pairs.ok()) x.pairs = std::move(*pairs);
    return x;
  };
  return comms_.Split(parent, color, key, exchange);
}

Status Client::CommDestroy(uint32_t comm) {
  size_t pending = 0;
  for (const auto& [id, s] : ops_) pending += s.comm == comm;
  return comms_.Destroy(comm, pending);
}

Result<uint64_t> Client::Submit(const OpArgs& a, bool agent_order) {
  OUTRIDER_RETURN_IF_ERROR(conn_->gone());
  OUTRIDER_ASSIGN_OR_RETURN(const Communicators::Comm* comm, comms_.Find(a.comm));
  uint64_t pushed = entries_pushed_;
  Result<uint64_t> r = PushRefusals()
                           ? SubmitEntry(*comm, a, agent_order)
                           : ResourceExhausted(
                                 "the submission ring is full: wait for some ops before submitting "
                                 "more (this collective fails on every rank)");
  // Nothing of it reached the agent (an entry pushed means it did, or an inner Submit refused it).
  if (!r.ok() && entries_pushed_ == pushed && conn_->gone().ok()) Refuse(a, r.status());
  return r;
}

void Client::Refuse(const OpArgs& a, const Status& why) {
  ipc::SubmitEntry e{};
  e.key = a.key;
  e.kind = static_cast<uint32_t>(a.kind);
  e.dtype = static_cast<uint32_t>(a.dtype);
  e.count = a.count;
  e.comm = comms_.AgentId(a.comm);
  e.flags = ipc::kSubmitRefused;
  e.root = static_cast<int32_t>(why.code());
  refusals_.push_back(e);
  (void)PushRefusals();
}

bool Client::PushRefusals() {
  while (!refusals_.empty()) {
    ipc::SubmitEntry e = refusals_.front();
    e.op_id = next_op_id_;  // ids increase in ring order
    if (!conn_->Push(e)) return false;
    ++next_op_id_;
    ++entries_pushed_;
    refusals_.pop_front();
  }
  return true;
}

Result<uint64_t> Client::SubmitEntry(const Communicators::Comm& comm_ref, const OpArgs& a,
                                     bool agent_order) {
  const Communicators::Comm* comm = &comm_ref;
  bool rank_ordered = a.kind == ipc::OpKind::kAllgather || a.kind == ipc::OpKind::kReduceScatter ||
                      a.kind == ipc::OpKind::kAlltoallv || a.kind == ipc::OpKind::kSparseShard ||
                      a.kind == ipc::OpKind::kSparseLookup;
  if (rank_ordered && !comm->node_order && !agent_order) {
    return FailedPrecondition(
        std::string(ipc::OpKindName(a.kind)) + " on communicator " + std::to_string(a.comm) +
        " is not supported: its ranks are not in node order (create it with the ranks of "
        "each node together, in node order)");
  }
  int32_t root = a.root;
  bool any_source = a.kind == ipc::OpKind::kRecv && root == ipc::kAnySource;
  if (a.kind == ipc::OpKind::kBroadcast || (ipc::IsPointToPoint(a.kind) && !any_source)) {
    const char* what = a.kind == ipc::OpKind::kBroadcast ? "root " : "peer ";
    if (root < 0 || root >= comm->size) {
      return InvalidArgument(what + std::to_string(root) + " is outside the communicator's " +
                             std::to_string(comm->size) + " ranks");
    }
    if (ipc::IsPointToPoint(a.kind) && root == comm->rank) {
      return InvalidArgument(std::string(ipc::OpKindName(a.kind)) +
                             " names this rank itself as its peer (" + std::to_string(root) + ")");
    }
    root = comm->agent_rank[static_cast<size_t>(root)];
  }
  // Outside a request the agent only ever sends a goodbye, so a readable socket means it is
  // leaving (or gone).
  if (conn_->SocketReadable()) {
    conn_->OnSocketReadable();
    OUTRIDER_RETURN_IF_ERROR(conn_->gone());
  }
  if (in_flight_ >= conn_->sq_capacity()) DrainCompletions();
  if (in_flight_ >= conn_->sq_capacity()) {
    return ResourceExhausted(std::to_string(in_flight_) +
                             " ops are in flight, the most this client may have; wait for "
                             "some before submitting more (this collective fails on every rank)");
  }
  ipc::SubmitEntry e{};
  // Memory outside the shim's host regions may be a device buffer (host buffers never pay the
  // check).
  if (a.fence < 0) {
    auto device = [this](const void* p, uint64_t n) {
      return n > 0 && p != nullptr && !regions_.InHostRegion(p) && DeviceOps::IsDevice(p);
    };
    if (device(a.send, a.send_bytes) || device(a.recv, a.recv_bytes) ||
        device(a.ids, a.ids_bytes) || device(a.out_ids, a.out_ids_bytes)) {
      return device_.SubmitOnStream(a, next_op_id_,
                                    [this](const OpArgs& b) { return Submit(b, false); });
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(e.send, regions_.Resolve(a.send, a.send_bytes, "send"));
  OUTRIDER_ASSIGN_OR_RETURN(e.recv, regions_.Resolve(a.recv, a.recv_bytes, "recv"));
  void* aux = nullptr;
  if (a.kind == ipc::OpKind::kAlltoallv) {
    // The counts travel in shared memory next to the data; the agent copies them once.
    size_t n = static_cast<size_t>(comm->size);
    OUTRIDER_ASSIGN_OR_RETURN(aux, regions_.arena().Allocate(16 * n));
    std::memcpy(aux, a.send_counts, 8 * n);
    std::memcpy(static_cast<uint8_t*>(aux) + 8 * n, a.recv_counts, 8 * n);
    auto ref = regions_.Resolve(aux, 16 * n, "counts");
    if (!ref.ok()) {
      regions_.arena().Free(aux);
      return ref.status();
    }
    e.aux = *ref;
  }
  if (ipc::IsSparse(a.kind)) {
    OUTRIDER_ASSIGN_OR_RETURN(e.aux, regions_.Resolve(a.ids, a.ids_bytes, "ids"));
    OUTRIDER_ASSIGN_OR_RETURN(e.out_ids, regions_.Resolve(a.out_ids, a.out_ids_bytes, "out_ids"));
    if (a.demand_bytes > 0) {
      OUTRIDER_ASSIGN_OR_RETURN(e.demand, regions_.Resolve(a.demand, a.demand_bytes, "demand"));
    }
    e.rows = a.rows;
    e.id_dtype = static_cast<uint32_t>(a.id_dtype);
    e.algo = a.algo;
  }
  e.op_id = next_op_id_++;
  e.key = a.key;
  e.kind = static_cast<uint32_t>(a.kind);
  e.dtype = static_cast<uint32_t>(a.dtype);
  e.reduce_op = static_cast<uint32_t>(a.reduce_op);
  e.root = root;
  e.priority = a.priority;
  e.count = a.count;
  e.comm = comm->agent_id;
  if (a.fence >= 0) {
    e.flags = ipc::kSubmitFenced;
    e.fence = static_cast<uint32_t>(a.fence);
  }
  uint64_t sq_pos = conn_->sq_position();
  if (!conn_->Push(e)) {
    if (aux) regions_.arena().Free(aux);
    return Internal("submission ring rejected an entry");
  }
  ++entries_pushed_;
  ++in_flight_;
  OpState state;
  state.comm = a.comm;
  state.aux = aux;
  state.entry = e;
  state.sq_pos = sq_pos;
  auto send = reinterpret_cast<uintptr_t>(a.send), recv = reinterpret_cast<uintptr_t>(a.recv);
  state.in_place = a.send_bytes > 0 && a.recv_bytes > 0 && send < recv + a.recv_bytes &&
                   recv < send + a.send_bytes;
  ops_.emplace(e.op_id, std::move(state));
  return e.op_id;
}

void Client::MoveUntaken() {
  // Only after a hand-over: the agent gave back every op it took and had not started, so one it
  // never took is as unstarted. (After a crash or a plain stop, ops it took failed on other ranks
  // and were not given back: submitting this one again would pair it with their next op.)
  if (!conn_->handed_over()) return;
  uint64_t taken = conn_->sq_taken();
  for (auto& [id, s] : ops_) {
    if (s.done || s.moved || s.sq_pos == UINT64_MAX || s.sq_pos < taken) continue;
    s.moved = true;
    --in_flight_;
  }
}

void Client::DrainCompletions() {
  device_.RetireStaged();
  ipc::CompletionEntry c;
  for (;;) {
    ipc::RingResult r = conn_->PopCompletion(&c);
    if (r == ipc::RingResult::kEmpty) return;
    if (r == ipc::RingResult::kCorrupt) {
      conn_->MarkGone(ProtocolError("completion ring is corrupt"));
      return;
    }
    auto it = ops_.find(c.op_id);
    if (it == ops_.end() || it->second.done) continue;  // not ours: ignore
    if (c.flags & ipc::kCompletionMoved) {
      // Given back before it started: it waits for the next agent (Reconnect).
      --in_flight_;
      it->second.moved = true;
      continue;
    }
    if (c.flags & ipc::kCompletionPartial) {
      it->second.demand_ready = true;
      it->second.info.result_rows = c.result_rows;
      it->second.info.demand_rows = c.demand_rows;
      it->second.info.algo = c.algo;
      continue;
    }
    --in_flight_;
    it->second.done = true;
    c.message[sizeof(c.message) - 1] = '\0';
    it->second.result = FromReply(c.code, c.message);
    it->second.info = OpResult{c.result_rows,     c.algo,     c.predicted_bytes, c.wire_bytes_sent,
                               c.wire_bytes_recv, c.agent_ns, c.demand_rows};
    // A receive's sender, in the agents' numbering of its communicator: the caller's is its place.
    if (static_cast<ipc::OpKind>(it->second.entry.kind) == ipc::OpKind::kRecv && c.code == 0) {
      it->second.info.source = c.source;
      if (auto comm = comms_.Find(it->second.comm); comm.ok()) {
        const auto& order = (*comm)->agent_rank;
        auto at = std::find(order.begin(), order.end(), c.source);
        if (at != order.end()) it->second.info.source = static_cast<int32_t>(at - order.begin());
      }
    }
  }
}

Status Client::Test(uint64_t op, bool* done, OpResult* result) {
  *done = false;
  auto it = ops_.find(op);
  if (it == ops_.end()) return InvalidArgument("unknown op handle " + std::to_string(op));
  DrainCompletions();
  if (it->second.done) {
    *done = true;
    Status st = it->second.result;
    if (result != nullptr) *result = it->second.info;
    Release(it);
    return st;
  }
  if (conn_->gone().ok() && conn_->SocketReadable()) conn_->OnSocketReadable();
  if (Status gone = conn_->gone(); !gone.ok()) {
    DrainCompletions();  // completions posted before the goodbye still count
    MoveUntaken();
    if (it->second.done) return Test(op, done, result);
    if (it->second.moved) {
      // Handed over: it goes on at the next agent (or fails, saying why it could not).
      Status reached = Reconnect();
      if (reached.ok() || it->second.done)
        return reached.ok() ? Status::Ok() : Test(op, done, result);
      *done = true;
      Release(it);
      return Status(reached.code(), reached.message() + "; op " + std::to_string(op) +
                                        " had not started (the agent gave it back): its inputs "
                                        "are intact and it may be submitted again");
    }
    *done = true;
    it->second.aux = nullptr;  // the agent is gone but may have been reading it: leak, never reuse
    Status departed = Departed(op, it->second, gone);
    if (!it->second.moved) --in_flight_;  // a moved op left the count when it was given back
    Release(it);
    return departed;
  }
  return Status::Ok();
}

void Client::Release(OpMap::iterator it) {
  if (it->second.aux != nullptr) regions_.arena().Free(it->second.aux);
  if (it->second.fence >= 0) device_.Retire(it->first, std::move(it->second));
  ops_.erase(it);
}

Status Client::Wait(uint64_t op, int64_t timeout_ms, OpResult* result) {
  auto it = ops_.find(op);
  if (it == ops_.end()) return InvalidArgument("unknown op handle " + std::to_string(op));
  uint64_t deadline =
      timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    bool done = false;
    Status st = Test(op, &done, result);
    if (done) return st;
    if (!st.ok()) return st;
    if (!conn_->Await(deadline)) {
      return DeadlineExceeded("op " + std::to_string(op) + " did not complete within " +
                              std::to_string(timeout_ms) + " ms");
    }
  }
}

Status Client::WaitEvent(int wake_fd, int64_t timeout_ms) {
  uint64_t deadline =
      timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    if (!conn_->CompletionsEmpty()) {
      DrainCompletions();
      return Status::Ok();
    }
    OUTRIDER_RETURN_IF_ERROR(conn_->gone());
    if (wake_fd >= 0 && ipc::WaitReadable(wake_fd, -1, 0) != 0) return Status::Ok();
    if (!conn_->Await(deadline, wake_fd))
      return DeadlineExceeded("no completion within " + std::to_string(timeout_ms) + " ms");
  }
}

Status Client::WaitDemand(uint64_t op, int64_t timeout_ms, OpResult* result) {
  if (ops_.find(op) == ops_.end())
    return InvalidArgument("unknown op handle " + std::to_string(op));
  uint64_t deadline =
      timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    DrainCompletions();
    OpState& s = ops_.find(op)->second;
    if (s.done || s.demand_ready) {
      if (result != nullptr) *result = s.info;
      return s.done ? s.result : Status::Ok();
    }
    if (conn_->gone().ok() && conn_->SocketReadable()) conn_->OnSocketReadable();
    if (Status gone = conn_->gone(); !gone.ok()) {
      DrainCompletions();  // completions posted before the goodbye still count
      if (s.done || s.demand_ready) continue;
      return gone;
    }
    if (timeout_ms == 0 || !conn_->Await(deadline)) {
      return DeadlineExceeded("the demanded rows of op " + std::to_string(op) +
                              " did not arrive within " + std::to_string(timeout_ms) + " ms");
    }
  }
}

}  // namespace outrider::shim
