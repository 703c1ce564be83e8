// Shim client: handshake, the agent's departure, submission and completion handling (regions:
// client_regions.cc; communicators: client_comm.cc; device buffers: client_gpu.cc).
#include "shim/client.h"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "ipc/defaults.h"

namespace outrider::shim {
namespace {

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

template <typename T>
Status ParseEnvInt(const char* name, T* out) {
  const char* v = Env(name);
  if (v == nullptr) return Status::Ok();
  T value{};
  auto [end, ec] = std::from_chars(v, v + std::strlen(v), value);
  if (ec != std::errc() || *end != '\0') {
    return InvalidArgument(std::string(name) + "='" + v + "' is not an integer");
  }
  *out = value;
  return Status::Ok();
}

}  // namespace

Status FromReply(int32_t code, const char* message) {
  if (code == 0) return Status::Ok();
  if (code < 0 || code > kMaxCode) return ProtocolError("agent replied with unknown code " + std::to_string(code));
  return Status(static_cast<Code>(code), std::string(message, strnlen(message, ipc::kMessageBytes)));
}

Result<ConnectConfig> ResolveConnectConfig(const ConnectRequest& req) {
  ConnectConfig c;
  if (req.socket_path) {
    c.socket_path = req.socket_path;
  } else if (Env("OUTRIDER_SOCKET")) {
    c.socket_path = Env("OUTRIDER_SOCKET");
  } else {
    c.socket_path = ipc::DefaultSocketPath(std::getenv("XDG_RUNTIME_DIR"));
  }
  if (req.job_id) {
    c.job_id = req.job_id;
  } else if (Env("OUTRIDER_JOB_ID")) {
    c.job_id = Env("OUTRIDER_JOB_ID");
  } else if (Env("TORCHELASTIC_RUN_ID")) {
    c.job_id = Env("TORCHELASTIC_RUN_ID");
  } else {
    c.job_id = "default";
  }
  int32_t rank = 0, world = 1, local_rank = -1, local_world = -1;
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("RANK", &rank));
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("WORLD_SIZE", &world));
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("LOCAL_RANK", &local_rank));
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("LOCAL_WORLD_SIZE", &local_world));
  c.rank = req.rank >= 0 ? req.rank : rank;
  c.world_size = req.world_size >= 0 ? req.world_size : world;
  c.local_rank = req.local_rank >= 0 ? req.local_rank : (local_rank >= 0 ? local_rank : c.rank);
  c.local_world_size = req.local_world_size >= 0 ? req.local_world_size
                                                  : (local_world >= 0 ? local_world : c.world_size);
  if (req.arena_bytes != 0) {
    c.arena_bytes = req.arena_bytes;
  } else {
    OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("OUTRIDER_ARENA_BYTES", &c.arena_bytes));
  }
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("OUTRIDER_SPIN_US", &c.spin_us));
  if (const char* mode = Env("OUTRIDER_GPU_MODE")) {
    if (std::string_view(mode) == "staging" || *mode == '\0') {
      c.gpu_mode = ipc::GpuMode::kStaging;
    } else if (std::string_view(mode) == "ipc") {
      c.gpu_mode = ipc::GpuMode::kIpc;
    } else {
      return InvalidArgument(std::string("OUTRIDER_GPU_MODE=") + mode + " is neither staging nor ipc");
    }
  }
  // The root agent: OUTRIDER_ROOT_ADDR (host:port), else MASTER_ADDR at the agent port.
  if (Env("OUTRIDER_ROOT_ADDR")) {
    c.root_addr = Env("OUTRIDER_ROOT_ADDR");
  } else if (Env("MASTER_ADDR")) {
    uint32_t port = ipc::kDefaultAgentPort;
    OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("OUTRIDER_AGENT_PORT", &port));
    c.root_addr = std::string(Env("MASTER_ADDR")) + ":" + std::to_string(port);
  }
  if (Env("OUTRIDER_JOB_TOKEN")) c.token = Env("OUTRIDER_JOB_TOKEN");
  if (c.root_addr.size() >= ipc::kAddrBytes) {
    return InvalidArgument("root agent address '" + c.root_addr + "' is longer than " +
                           std::to_string(ipc::kAddrBytes - 1) + " characters");
  }
  if (c.token.size() >= ipc::kTokenBytes) {
    return InvalidArgument("OUTRIDER_JOB_TOKEN is longer than " + std::to_string(ipc::kTokenBytes - 1) + " characters");
  }
  c.timeout_ms = req.timeout_ms > 0 ? req.timeout_ms : 5000;
  if (c.job_id.size() >= ipc::kJobIdBytes) {
    return InvalidArgument("job id '" + c.job_id + "' is longer than " + std::to_string(ipc::kJobIdBytes - 1) + " characters");
  }
  if (c.world_size < 1 || c.rank < 0 || c.rank >= c.world_size) {
    return InvalidArgument("rank " + std::to_string(c.rank) + " is outside world size " + std::to_string(c.world_size));
  }
  if (c.local_world_size < 1 || c.local_rank < 0 || c.local_rank >= c.local_world_size) {
    return InvalidArgument("local rank " + std::to_string(c.local_rank) + " is outside local world size " +
                           std::to_string(c.local_world_size));
  }
  return c;
}

uint64_t HashKey(const char* name) {
  uint64_t h = ipc::Fnv1a(name, name ? std::strlen(name) : 0);
  return h == 0 ? 1 : h;  // 0 means "no key"
}

Client::Client(ConnectConfig config) : config_(std::move(config)), spin_(config_.spin_us) {}

Client::~Client() {
  StopGpu();
  if (gone_.ok() && channel_.fd() >= 0) {
    ipc::Goodbye bye{};
    ipc::InitMsgHeader(&bye.header, ipc::MsgType::kGoodbye, sizeof(bye) - sizeof(bye.header), 0);
    (void)channel_.Send(&bye, sizeof(bye));
  }
}

Result<std::unique_ptr<Client>> Client::Connect(const ConnectConfig& config) {
  auto c = std::unique_ptr<Client>(new Client(config));
  OUTRIDER_ASSIGN_OR_RETURN(c->channel_, ipc::UnixChannel::Connect(config.socket_path));
  OUTRIDER_RETURN_IF_ERROR(c->Handshake());
  Comm job;
  job.rank = config.rank;
  job.size = config.world_size;
  for (int r = 0; r < job.size; ++r) {
    job.node.push_back(r / config.local_world_size);
    job.agent_rank.push_back(r);
  }
  c->comms_.emplace(kJobComm, std::move(job));
  Client* raw = c.get();
  c->arena_ = std::make_unique<Arena>(config.arena_bytes, [raw](size_t bytes) { return raw->CreateRegion(bytes); });
  return c;
}

Status Client::Handshake() {
  ipc::HelloRequest hello{};
  ipc::InitMsgHeader(&hello.header, ipc::MsgType::kHello, sizeof(hello) - sizeof(hello.header), next_request_id_++);
  std::memcpy(hello.job_id, config_.job_id.data(), config_.job_id.size());
  hello.rank = config_.rank;
  hello.world_size = config_.world_size;
  hello.local_rank = config_.local_rank;
  hello.local_world_size = config_.local_world_size;
  hello.pid = ::getpid();
  std::memcpy(hello.root_addr, config_.root_addr.data(), config_.root_addr.size());
  std::memcpy(hello.token, config_.token.data(), config_.token.size());
  hello.gpu_mode = static_cast<uint32_t>(config_.gpu_mode);
  // An agent that refuses us (credentials, capacity) replies and hangs up before reading the
  // hello; its reply is still worth reading when the send fails.
  Status sent = channel_.Send(&hello, sizeof(hello));
  ipc::HelloReply reply{};
  std::vector<UniqueFd> fds;
  auto n = channel_.Recv(&reply, sizeof(reply), &fds, sent.ok() ? config_.timeout_ms : 0);
  if (!sent.ok() && (!n.ok() || *n != sizeof(reply))) return sent;
  if (!n.ok()) return n.status().Annotate("waiting for the agent's hello reply");
  if (*n == 0) return Unavailable("the agent closed the connection during the handshake");
  if (*n < sizeof(ipc::MsgHeader) || reply.header.magic != ipc::kMagic) {
    return ProtocolError("the agent's hello reply is malformed");
  }
  if (reply.header.version != ipc::kProtocolVersion) {
    return ProtocolError("the agent speaks protocol version " + std::to_string(reply.header.version) +
                         ", this shim " + std::to_string(ipc::kProtocolVersion));
  }
  if (*n != sizeof(reply) || reply.header.type != static_cast<uint16_t>(ipc::MsgType::kHelloReply)) {
    return ProtocolError("unexpected reply to hello");
  }
  OUTRIDER_RETURN_IF_ERROR(FromReply(reply.code, reply.message).Annotate("the agent refused the connection"));
  if (fds.size() != 3) return ProtocolError("hello reply carried " + std::to_string(fds.size()) + " fds, expected 3");
  OUTRIDER_ASSIGN_OR_RETURN(size_t control_size, ipc::CheckSealedMemfd(fds[0].get()));
  if (control_size != reply.control_bytes || control_size < sizeof(ipc::ControlHeader)) {
    return ProtocolError("control segment size does not match the hello reply");
  }
  OUTRIDER_ASSIGN_OR_RETURN(control_, ipc::MapShared(fds[0].get(), control_size));
  ipc::ControlHeader h;
  std::memcpy(&h, control_.data(), sizeof(h));
  ipc::ControlLayout l = ipc::ComputeControlLayout(h.sq_entries, h.cq_entries);
  bool pow2 = h.sq_entries && !(h.sq_entries & (h.sq_entries - 1)) && h.cq_entries == h.sq_entries;
  if (h.magic != ipc::kMagic || h.version != ipc::kProtocolVersion || !pow2 ||
      l.total_bytes != control_size || l.sq_indices_offset != h.sq_indices_offset ||
      l.sq_slots_offset != h.sq_slots_offset || l.cq_indices_offset != h.cq_indices_offset ||
      l.cq_slots_offset != h.cq_slots_offset || l.fences_offset != h.fences_offset) {
    return ProtocolError("control segment header does not match this shim's layout");
  }
  uint8_t* base = control_.data();
  sq_ = ipc::RingProducer<ipc::SubmitEntry>(reinterpret_cast<ipc::RingIndices*>(base + l.sq_indices_offset),
                                            reinterpret_cast<ipc::SubmitEntry*>(base + l.sq_slots_offset),
                                            h.sq_entries);
  cq_ = ipc::RingConsumer<ipc::CompletionEntry>(
      reinterpret_cast<ipc::RingIndices*>(base + l.cq_indices_offset),
      reinterpret_cast<ipc::CompletionEntry*>(base + l.cq_slots_offset), h.cq_entries);
  sq_efd_ = std::move(fds[1]);
  cq_efd_ = std::move(fds[2]);
  return Status::Ok();
}

void Client::MarkGone(Status why) {
  gone_ = std::move(why);
  ReleaseFences();  // streams waiting on the agent's fences go on
}

Status Client::AgentGone() const {
  return gone_.ok() ? Status::Ok() : gone_;
}

std::optional<Status> Client::Departure(const Result<size_t>& n, const uint8_t* buf) {
  if (!n.ok()) return Unavailable("connection to the agent failed: " + n.status().message());
  if (*n == 0) return Unavailable("the agent closed the connection (agent exited or was killed)");
  ipc::Goodbye bye{};
  std::memcpy(&bye, buf, std::min(*n, sizeof(bye)));
  if (*n == sizeof(bye) && bye.header.magic == ipc::kMagic &&
      bye.header.type == static_cast<uint16_t>(ipc::MsgType::kGoodbye)) {
    bye.message[sizeof(bye.message) - 1] = '\0';
    Status why = FromReply(bye.code == 0 ? static_cast<int32_t>(Code::kUnavailable) : bye.code, bye.message);
    return Status(why.code(), "the agent closed the connection: " + why.message());
  }
  return std::nullopt;
}

void Client::OnSocketReadable() {
  alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
  std::vector<UniqueFd> fds;
  auto n = channel_.Recv(buf, sizeof(buf), &fds, 0);
  if (!n.ok() && n.status().code() == Code::kDeadlineExceeded) return;  // nothing there
  std::optional<Status> gone = Departure(n, buf);
  MarkGone(gone ? *gone : ProtocolError("unexpected message from the agent"));
}

Result<uint64_t> Client::Submit(const OpArgs& a, bool agent_order) {
  OUTRIDER_RETURN_IF_ERROR(AgentGone());
  OUTRIDER_ASSIGN_OR_RETURN(const Comm* comm, FindComm(a.comm));
  uint64_t pushed = entries_pushed_;
  Result<uint64_t> r = PushRefusals() ? SubmitEntry(*comm, a, agent_order)
                                      : ResourceExhausted("the submission ring is full: wait for some ops before submitting more (this collective fails on every rank)");
  // Nothing of it reached the agent (an entry pushed means it did, or an inner Submit refused it).
  if (!r.ok() && entries_pushed_ == pushed && gone_.ok()) Refuse(a, r.status());
  return r;
}

void Client::Refuse(const OpArgs& a, const Status& why) {
  ipc::SubmitEntry e{};
  e.key = a.key;
  e.kind = static_cast<uint32_t>(a.kind);
  e.dtype = static_cast<uint32_t>(a.dtype);
  e.count = a.count;
  e.comm = a.comm;
  e.flags = ipc::kSubmitRefused;
  e.root = static_cast<int32_t>(why.code());
  refusals_.push_back(e);
  (void)PushRefusals();
}

bool Client::PushRefusals() {
  while (!refusals_.empty()) {
    ipc::SubmitEntry e = refusals_.front();
    e.op_id = next_op_id_;  // ids increase in ring order
    if (sq_.Push(e) != ipc::RingResult::kOk) return false;
    ++next_op_id_;
    ++entries_pushed_;
    refusals_.pop_front();
    if (sq_.ConsumerNeedsWake()) ipc::SignalEventFd(sq_efd_.get());
  }
  return true;
}

Result<uint64_t> Client::SubmitEntry(const Comm& comm_ref, const OpArgs& a, bool agent_order) {
  const Comm* comm = &comm_ref;
  bool rank_ordered = a.kind == ipc::OpKind::kAllgather || a.kind == ipc::OpKind::kReduceScatter ||
                      a.kind == ipc::OpKind::kAlltoallv || a.kind == ipc::OpKind::kSparseShard ||
                      a.kind == ipc::OpKind::kSparseLookup;
  if (rank_ordered && !comm->node_order && !agent_order) {
    return FailedPrecondition(std::string(ipc::OpKindName(a.kind)) + " on communicator " + std::to_string(a.comm) +
                              " is not supported: its ranks are not in node order (create it with the ranks of "
                              "each node together, in node order)");
  }
  int32_t root = a.root;
  if (a.kind == ipc::OpKind::kBroadcast) {
    if (root < 0 || root >= comm->size) {
      return InvalidArgument("root " + std::to_string(root) + " is outside the communicator's " +
                             std::to_string(comm->size) + " ranks");
    }
    root = comm->agent_rank[static_cast<size_t>(root)];
  }
  // Outside a request the agent only ever sends a goodbye, so a readable socket means it is
  // leaving (or gone).
  if (ipc::WaitReadable(channel_.fd(), -1, 0) != 0) {
    OnSocketReadable();
    if (!gone_.ok()) return gone_;
  }
  if (in_flight_ >= sq_.capacity()) DrainCompletions();
  if (in_flight_ >= sq_.capacity()) {
    return ResourceExhausted(std::to_string(in_flight_) + " ops are in flight, the most this client may have; wait for "
                             "some before submitting more (this collective fails on every rank)");
  }
  ipc::SubmitEntry e{};
  // Memory outside the shim's host regions may be a device buffer (host buffers never pay the
  // check).
  if (a.fence < 0) {
    auto device = [this](const void* p, uint64_t n) { return n > 0 && p != nullptr && !InHostRegion(p) && IsDevice(p); };
    if (device(a.send, a.send_bytes) || device(a.recv, a.recv_bytes) || device(a.ids, a.ids_bytes) ||
        device(a.out_ids, a.out_ids_bytes)) {
      return SubmitOnStream(a);
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(e.send, Resolve(a.send, a.send_bytes, "send"));
  OUTRIDER_ASSIGN_OR_RETURN(e.recv, Resolve(a.recv, a.recv_bytes, "recv"));
  void* aux = nullptr;
  if (a.kind == ipc::OpKind::kAlltoallv) {
    // The counts travel in shared memory next to the data; the agent copies them once.
    size_t n = static_cast<size_t>(comm->size);
    OUTRIDER_ASSIGN_OR_RETURN(aux, arena_->Allocate(16 * n));
    std::memcpy(aux, a.send_counts, 8 * n);
    std::memcpy(static_cast<uint8_t*>(aux) + 8 * n, a.recv_counts, 8 * n);
    auto ref = Resolve(aux, 16 * n, "counts");
    if (!ref.ok()) {
      arena_->Free(aux);
      return ref.status();
    }
    e.aux = *ref;
  }
  if (ipc::IsSparse(a.kind)) {
    OUTRIDER_ASSIGN_OR_RETURN(e.aux, Resolve(a.ids, a.ids_bytes, "ids"));
    OUTRIDER_ASSIGN_OR_RETURN(e.out_ids, Resolve(a.out_ids, a.out_ids_bytes, "out_ids"));
    if (a.demand_bytes > 0) {
      OUTRIDER_ASSIGN_OR_RETURN(e.demand, Resolve(a.demand, a.demand_bytes, "demand"));
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
  e.comm = a.comm;
  if (a.fence >= 0) {
    e.flags = ipc::kSubmitFenced;
    e.fence = static_cast<uint32_t>(a.fence);
  }
  if (sq_.Push(e) != ipc::RingResult::kOk) {
    if (aux) arena_->Free(aux);
    return Internal("submission ring rejected an entry");
  }
  ++entries_pushed_;
  if (sq_.ConsumerNeedsWake()) ipc::SignalEventFd(sq_efd_.get());
  ++in_flight_;
  OpState state;
  state.comm = a.comm;
  state.aux = aux;
  ops_.emplace(e.op_id, std::move(state));
  return e.op_id;
}

void Client::DrainCompletions() {
  RetireStaged();
  ipc::CompletionEntry c;
  for (;;) {
    ipc::RingResult r = cq_.Pop(&c);
    if (r == ipc::RingResult::kEmpty) return;
    if (r == ipc::RingResult::kCorrupt) {
      MarkGone(ProtocolError("completion ring is corrupt"));
      return;
    }
    auto it = ops_.find(c.op_id);
    if (it == ops_.end() || it->second.done) continue;  // not ours: ignore
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
  if (gone_.ok() && ipc::WaitReadable(channel_.fd(), -1, 0) != 0) OnSocketReadable();
  if (!gone_.ok()) {
    DrainCompletions();  // completions posted before the goodbye still count
    if (it->second.done) return Test(op, done, result);
    *done = true;
    it->second.aux = nullptr;  // the agent is gone but may have been reading it: leak, never reuse
    Release(it);
    --in_flight_;
    return gone_;
  }
  return Status::Ok();
}

void Client::Release(std::unordered_map<uint64_t, OpState>::iterator it) {
  if (it->second.aux != nullptr) arena_->Free(it->second.aux);
  if (it->second.fence >= 0) {
    // The stream may still copy the result back from the staging buffer, or wait on the slot.
    if (Retired(it->first, it->second)) {
      FreeStaging(it->second);
    } else {
      retiring_.emplace_back(it->first, std::move(it->second));
    }
  }
  ops_.erase(it);
}

Status Client::Wait(uint64_t op, int64_t timeout_ms, OpResult* result) {
  auto it = ops_.find(op);
  if (it == ops_.end()) return InvalidArgument("unknown op handle " + std::to_string(op));
  uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    bool done = false;
    Status st = Test(op, &done, result);
    if (done) return st;
    if (!st.ok()) return st;
    if (!Await(deadline)) {
      return DeadlineExceeded("op " + std::to_string(op) + " did not complete within " + std::to_string(timeout_ms) + " ms");
    }
  }
}

Status Client::WaitEvent(int wake_fd, int64_t timeout_ms) {
  uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    if (!cq_.Empty()) {
      DrainCompletions();
      return Status::Ok();
    }
    if (!gone_.ok()) return gone_;
    if (wake_fd >= 0 && ipc::WaitReadable(wake_fd, -1, 0) != 0) return Status::Ok();
    if (!Await(deadline, wake_fd)) return DeadlineExceeded("no completion within " + std::to_string(timeout_ms) + " ms");
  }
}

Status Client::WaitDemand(uint64_t op, int64_t timeout_ms, OpResult* result) {
  if (ops_.find(op) == ops_.end()) return InvalidArgument("unknown op handle " + std::to_string(op));
  uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    DrainCompletions();
    OpState& s = ops_.find(op)->second;
    if (s.done || s.demand_ready) {
      if (result != nullptr) *result = s.info;
      return s.done ? s.result : Status::Ok();
    }
    if (gone_.ok() && ipc::WaitReadable(channel_.fd(), -1, 0) != 0) OnSocketReadable();
    if (!gone_.ok()) {
      DrainCompletions();  // completions posted before the goodbye still count
      if (s.done || s.demand_ready) continue;
      return gone_;
    }
    if (timeout_ms == 0 || !Await(deadline)) {
      return DeadlineExceeded("the demanded rows of op " + std::to_string(op) + " did not arrive within " +
                              std::to_string(timeout_ms) + " ms");
    }
  }
}

bool Client::Await(uint64_t deadline, int wake_fd) {
  // Spin on the ring for a while: the agent usually answers within microseconds.
  uint64_t spin_until = ipc::MonotonicNs() + spin_.budget_ns();
  while (ipc::MonotonicNs() < spin_until) {
    if (!cq_.Empty()) {
      spin_.Hit();
      return true;
    }
    // Yield rather than pause: with more runnable processes than cores (trainers + agent),
    // the process we wait for may need this core.
    sched_yield();
  }
  uint64_t now = ipc::MonotonicNs();
  if (now >= deadline) return false;
  if (!cq_.PrepareSleep()) return true;
  spin_.Miss();
  int wait_ms = deadline == UINT64_MAX ? -1 : static_cast<int>((deadline - now + 999999) / 1000000);
  int r = ipc::WaitReadable(cq_efd_.get(), channel_.fd(), wake_fd, wait_ms);
  cq_.FinishSleep();
  if (r == 1) ipc::DrainEventFd(cq_efd_.get());
  if (r == 2) OnSocketReadable();
  return true;
}

}  // namespace outrider::shim
