// Per-client session: control messages, the region registry, its submissions and completions
// (see session.h).
#include "agent/control/session.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "agent/bootstrap/rank_layout.h"
#include "agent/control/hello.h"
#include "agent/engine/job_table.h"
#include "agent/log.h"
#include "agent/membership/generation_id.h"
#include "agent/memory/gpu_memory.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
Session::Session(ClientIdentity id, ipc::UnixChannel channel, UniqueFd control_fd,
                 ipc::Mapping control, UniqueFd sq_efd, UniqueFd cq_efd, SessionLimits limits)
    : id_(std::move(id)),
      channel_(std::move(channel)),
      control_fd_(std::move(control_fd)),
      control_(std::move(control)),
      sq_efd_(std::move(sq_efd)),
      cq_efd_(std::move(cq_efd)),
      limits_(limits),
      regions_(limits.max_regions, limits.max_region_bytes) {
  auto* h = reinterpret_cast<ipc::ControlHeader*>(control_.data());
  sq_ = ipc::RingConsumer<ipc::SubmitEntry>(
      reinterpret_cast<ipc::RingIndices*>(control_.data() + h->sq_indices_offset),
      reinterpret_cast<ipc::SubmitEntry*>(control_.data() + h->sq_slots_offset), h->sq_entries);
  cq_ = ipc::RingProducer<ipc::CompletionEntry>(
      reinterpret_cast<ipc::RingIndices*>(control_.data() + h->cq_indices_offset),
      reinterpret_cast<ipc::CompletionEntry*>(control_.data() + h->cq_slots_offset), h->cq_entries);
  fences_ = reinterpret_cast<ipc::FenceSlot*>(control_.data() + h->fences_offset);
  protocol_ = h->version;
}

Session::~Session() {
  if (comms_in_use_ != nullptr) *comms_in_use_ -= comms_.size();
  if (generations_ != nullptr) generations_->Forget(this);
}

Member* Session::world() const {
  if (world_ != nullptr) return world_.get();
  return in_first_generation_ && !id_.joiner ? const_cast<Session*>(this) : nullptr;
}

std::vector<std::string> Session::job_ids() const {
  std::vector<std::string> ids = {id_.job_id};
  if (world_ != nullptr) ids.push_back(world_->identity().job_id);
  for (const auto& [cid, m] : comms_) ids.push_back(m->identity().job_id);
  for (const auto& m : retired_) ids.push_back(m->identity().job_id);
  return ids;
}

void Session::AdoptFences(FenceSegment segment) {
  adopted_fences_ = std::move(segment);
  fences_ = adopted_fences_->slots();
}

void Session::Close(const Status& reason) {
  if (closed_) return;
  if (generations_ != nullptr) generations_->Forget(this);
  FlushOverflow();
  SayGoodbye(reason);
  closed_ = true;
  waiting_.clear();  // never started: nothing of the client's memory is in use
  close_reason_ = reason;
  ipc::SignalEventFd(cq_efd_.get());
}

void Session::SayGoodbye(const Status& reason) {
  if (said_goodbye_) return;
  said_goodbye_ = true;
  if (handed_over_) {
    // Held here, never started (a fence not ready yet, or behind one): they go back with the rest,
    // in submission order, before the goodbye (the client reads what was given back once it sees
    // it), and their streams wait for the next agent.
    for (const Waiting& w : waiting_) {
      uint64_t op_id = w.refused.ok() ? w.op.op_id : w.refusal.op_id;
      fence_of_.erase(op_id);
      Finished(op_id, Unavailable("handed over to the next agent before it started"), 0, 0, nullptr,
               ipc::kCompletionMoved);
    }
    waiting_.clear();
    FlushOverflow();
  }
  ipc::Goodbye bye{};
  ipc::InitMsgHeader(&bye.header, ipc::MsgType::kGoodbye, sizeof(bye) - sizeof(bye.header), 0,
                     protocol_);
  bye.code = static_cast<int32_t>(reason.code());
  if (handed_over_ && protocol_ >= 13) {
    bye.flags = ipc::kGoodbyeHandedOver;
    // Before the socket hangs up: the shim's fence watchdog reads it then.
    auto* h = reinterpret_cast<ipc::ControlHeader*>(control_.data());
    std::atomic_ref<uint16_t>(h->departure)
        .store(ipc::kDepartureHandedOver, std::memory_order_release);
  }
  ipc::CopyText(bye.message, sizeof(bye.message), reason.message());
  (void)channel_.Send(&bye, sizeof(bye));
}

void Session::OnSocketReadable() {
  if (closed_) return;
  alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
  std::vector<UniqueFd> fds;
  auto n = channel_.Recv(buf, sizeof(buf), &fds, -1);
  if (!n.ok()) {
    if (n.status().code() == Code::kUnavailable) return;  // spurious wakeup (EAGAIN)
    Close(n.status());
    return;
  }
  if (*n == 0) {
    Close(PeerLost("client closed its connection"));
    return;
  }
  if (*n < sizeof(ipc::MsgHeader)) {
    Close(ProtocolError("control message shorter than its header"));
    return;
  }
  ipc::MsgHeader hdr;
  std::memcpy(&hdr, buf, sizeof(hdr));
  if (hdr.magic != ipc::kMagic || hdr.version != protocol_) {
    Close(
        ProtocolError("control message with bad magic or another protocol version than its "
                      "hello's (" +
                      std::to_string(protocol_) + ")"));
    return;
  }
  if (hdr.body_bytes != *n - sizeof(hdr)) {
    Close(ProtocolError("control message of type " + std::to_string(hdr.type) +
                        " says body_bytes=" + std::to_string(hdr.body_bytes) + " but " +
                        std::to_string(*n - sizeof(hdr)) + " followed its header"));
    return;
  }
  auto type = static_cast<ipc::MsgType>(hdr.type);
  if (type == ipc::MsgType::kRegisterRegion && *n == sizeof(ipc::RegisterRegion)) {
    ipc::RegisterRegion msg;
    std::memcpy(&msg, buf, sizeof(msg));
    HandleRegister(msg, std::move(fds));
  } else if (type == ipc::MsgType::kReleaseRegion && *n == sizeof(ipc::ReleaseRegion)) {
    ipc::ReleaseRegion msg;
    std::memcpy(&msg, buf, sizeof(msg));
    HandleRelease(msg);
  } else if (type == ipc::MsgType::kCommCreate && *n == sizeof(ipc::CommCreate)) {
    ipc::CommCreate msg;
    std::memcpy(&msg, buf, sizeof(msg));
    HandleCommCreate(msg);
  } else if (type == ipc::MsgType::kCommDestroy && *n == sizeof(ipc::CommDestroy)) {
    ipc::CommDestroy msg;
    std::memcpy(&msg, buf, sizeof(msg));
    HandleCommDestroy(msg);
  } else if (type == ipc::MsgType::kReform && *n == sizeof(ipc::Reform)) {
    ipc::Reform msg;
    std::memcpy(&msg, buf, sizeof(msg));
    HandleReform(msg);
  } else if (type == ipc::MsgType::kGoodbye) {
    client_goodbye_ = true;
    Close(PeerLost("client said goodbye"));
  } else {
    Close(ProtocolError("unexpected control message type " + std::to_string(hdr.type) + " of " +
                        std::to_string(*n) + " bytes"));
  }
}

void Session::ReplyRegion(uint32_t request_id, ipc::MsgType type, const Status& st,
                          uint32_t region_id) {
  ipc::RegionReply reply{};
  ipc::InitMsgHeader(&reply.header, type, sizeof(reply) - sizeof(reply.header), request_id,
                     protocol_);
  reply.code = static_cast<int32_t>(st.code());
  reply.region_id = region_id;
  ipc::CopyText(reply.message, sizeof(reply.message), st.message());
  Status sent = channel_.Send(&reply, sizeof(reply));
  if (!sent.ok()) Close(sent);
}

void Session::HandleRegister(const ipc::RegisterRegion& msg, std::vector<UniqueFd> fds) {
  Result<uint32_t> id = InvalidArgument("RegisterRegion.reserved must be 0");
  auto kind = static_cast<ipc::RegionKind>(msg.kind);
  if (msg.reserved != 0) {
  } else if (kind == ipc::RegionKind::kHost) {
    id = regions_.ImportHost(std::move(fds), msg.bytes);
  } else if (kind != ipc::RegionKind::kCudaFd && kind != ipc::RegionKind::kCudaIpc) {
    id = InvalidArgument("unknown region kind " + std::to_string(msg.kind));
  } else if (id_.gpu_mode != ipc::GpuMode::kIpc) {
    id = FailedPrecondition("GPU regions are for clients in gpu_mode ipc; this one said " +
                            std::string(ipc::GpuModeName(id_.gpu_mode)));
  } else if (GpuMemory* memory = devices_ != nullptr ? devices_->memory() : nullptr;
             memory == nullptr) {
    id = FailedPrecondition("this agent has no GPU path: it cannot import GPU memory");
  } else {
    bool trusted = id_.peer.uid == 0 || id_.peer.uid == ::geteuid();
    id = regions_.ImportCuda(msg, std::move(fds), trusted, *memory);
  }
  if (id.ok()) {
    Logger("control")->debug("client {} (job {} local rank {}) registered region {} of {} bytes",
                             id_.client_id, id_.job_id, id_.local_rank, *id, msg.bytes);
  }
  ReplyRegion(msg.header.request_id, ipc::MsgType::kRegisterRegionReply, id.status(),
              id.ok() ? *id : 0);
}

void Session::HandleRelease(const ipc::ReleaseRegion& msg) {
  ReplyRegion(msg.header.request_id, ipc::MsgType::kReleaseRegionReply,
              regions_.Release(msg.region_id), msg.region_id);
}

void Session::HandleCommCreate(const ipc::CommCreate& msg) {
  Status st;
  uint32_t comm = 0;
  if (jobs_ == nullptr || options_ == nullptr) {
    st = FailedPrecondition("this agent does not serve communicators");
  } else if (comms_.size() >= kMaxComms) {
    st = ResourceExhausted("client belongs to " + std::to_string(comms_.size()) +
                           " communicators, the most it may; destroy some first");
  } else if (*comms_in_use_ >= options_->max_communicators) {
    st = ResourceExhausted(
        "the agent's clients belong to " + std::to_string(*comms_in_use_) +
        " communicators, max_communicators=" + std::to_string(options_->max_communicators));
  } else {
    Result<ClientIdentity> id = world() == nullptr
                                    ? FailedPrecondition("a joiner is in no job until it re-forms")
                                    : ParseCommCreate(msg, world_identity(), *options_);
    st = id.status();
    for (const auto& [cid, m] : comms_) {
      if (st.ok() && m->identity().job_id == id->job_id) {
        st = FailedPrecondition("client is already a member of communicator '" + id->job_id + "'");
      }
    }
    if (st.ok()) {
      auto member = std::make_unique<CommMember>(this, *id);
      st = jobs_->Join(member.get());
      if (st.ok()) {
        comm = next_comm_++;
        Logger("control")->info(
            "client {} (job '{}' rank {}) joined communicator '{}' as rank {}/{} local rank {}/{}",
            id_.client_id, id_.job_id, id_.rank, id->job_id, id->rank, id->world_size,
            id->local_rank, id->local_world_size);
        comms_.emplace(comm, std::move(member));
        ++*comms_in_use_;
      }
    }
  }
  ReplyRegion(msg.header.request_id, ipc::MsgType::kCommCreateReply, st, comm);
}

void Session::HandleCommDestroy(const ipc::CommDestroy& msg) {
  Status st;
  auto it = comms_.find(msg.comm);
  if (it == comms_.end()) {
    st = InvalidArgument("no communicator " + std::to_string(msg.comm) + " on this client");
  } else if (it->second->in_flight() > 0) {
    st = FailedPrecondition(std::to_string(it->second->in_flight()) + " ops on communicator '" +
                            it->second->identity().job_id +
                            "' are still in flight; wait for them first");
  } else {
    const ClientIdentity& id = it->second->identity();
    jobs_->Leave(
        it->second.get(),
        PeerLost("rank " + std::to_string(id.rank) + " destroyed communicator '" + id.job_id + "'"),
        /*orderly=*/true);
    comms_.erase(it);
    --*comms_in_use_;
  }
  ReplyRegion(msg.header.request_id, ipc::MsgType::kCommDestroyReply, st, msg.comm);
}

void Session::ReplyReform(uint32_t request_id, const Status& st, uint32_t joiners) {
  ipc::ReformReply reply{};
  ipc::InitMsgHeader(&reply.header, ipc::MsgType::kReformReply,
                     sizeof(reply) - sizeof(reply.header), request_id, protocol_);
  const ClientIdentity& w = world_identity();
  reply.code = static_cast<int32_t>(st.code());
  reply.generation = w.generation;
  bool member = world() != nullptr;
  reply.rank = member ? w.rank : -1;
  reply.world_size = member ? w.world_size : 0;
  reply.local_rank = member ? w.local_rank : -1;
  reply.local_world_size = member ? w.local_world_size : 0;
  reply.joiners_waiting = joiners;
  if (member && !RankLayout::Of(w.world_size, w.local_world_size, w.node_ranks).even())
    reply.flags |= ipc::kReformUnevenNodes;
  if (w.generation != 0) ipc::CopyText(reply.root_addr, sizeof(reply.root_addr), w.root_addr);
  ipc::CopyText(reply.message, sizeof(reply.message), st.message());
  Status sent = channel_.Send(&reply, sizeof(reply));
  if (!sent.ok()) Close(sent);
}

void Session::HandleReform(const ipc::Reform& msg) {
  uint32_t rid = msg.header.request_id;
  const ClientIdentity& w = world_identity();
  const std::string& base = w.job_base.empty() ? w.job_id : w.job_base;
  if (msg.reserved != 0 || msg.mode >= ipc::kNumReformModes) {
    return ReplyReform(rid, InvalidArgument("reform request: unknown mode or reserved not 0"), 0);
  }
  if (jobs_ == nullptr || generations_ == nullptr) {
    return ReplyReform(rid, FailedPrecondition("this agent does not re-form jobs"), 0);
  }
  if (static_cast<ipc::ReformMode>(msg.mode) == ipc::ReformMode::kQuery) {
    Job* job = world() != nullptr ? jobs_->Find(w.job_id) : nullptr;
    // The lowest node with ranks holds the joiners: ranks elsewhere see none (their MAX tells
    // them).
    uint32_t joiners = job != nullptr ? generations_->JoinersWaiting(base) : 0;
    return ReplyReform(rid, job != nullptr && !job->lost().ok() ? job->lost() : Status::Ok(),
                       joiners);
  }
  if (reforming_) {
    return ReplyReform(rid, FailedPrecondition("this client is re-forming its job already"), 0);
  }
  reforming_ = true;
  const ClientIdentity& from = world() != nullptr ? w : id_;
  membership::Asker asking{from.job_id,    from.job_base, from.rank,    from.token,
                           from.root_addr, from.joiner,   from.peer.pid};
  generations_->Ask(this, asking, msg.timeout_ms,
                    [this, rid](Result<membership::ReformAssignment> a) {
                      reforming_ = false;
                      if (closed_) return;
                      Status st = a.ok() ? EnterGeneration(*a) : a.status();
                      ReplyReform(rid, st, 0);
                    });
}

Status Session::EnterGeneration(const membership::ReformAssignment& a) {
  ClientIdentity next = world_identity();
  next.job_base = next.job_base.empty() ? next.job_id : next.job_base;
  next.generation = a.generation;
  next.job_id = membership::GenerationJobId(next.job_base, a.generation);
  next.rank = a.rank;
  next.world_size = a.world_size;
  next.local_rank = a.local_rank;
  next.local_world_size = a.local_world_size;
  next.root_addr = a.root_addr;
  next.comm = false;
  next.joiner = false;
  next.job_node = a.node;
  next.node_ranks = a.node_ranks;
  Status left = PeerLost("rank " + std::to_string(world_identity().rank) + " of job '" +
                         next.job_base + "' went on as rank " + std::to_string(a.rank) +
                         " of generation " + std::to_string(a.generation));
  // In the new generation before out of the old: the job never has no live generation on this
  // node in between (the joiners this agent holds for it stay held).
  auto member = std::make_unique<CommMember>(this, next);
  Status joined = jobs_->Join(member.get());
  // The old generation and its communicators end for this client: nothing of them reaches it any
  // more (their jobs are other jobs in the agents).
  for (auto& [cid, m] : comms_) {
    jobs_->Leave(m.get(), left, /*orderly=*/true);
    retired_.push_back(std::move(m));
  }
  if (comms_in_use_ != nullptr) *comms_in_use_ -= comms_.size();
  comms_.clear();
  if (world_ != nullptr) {
    jobs_->Leave(world_.get(), left, /*orderly=*/true);
    retired_.push_back(std::move(world_));
  } else if (in_first_generation_ && !id_.joiner) {
    jobs_->Leave(this, left, /*orderly=*/true);
  }
  in_first_generation_ = false;
  OUTRIDER_RETURN_IF_ERROR(joined);
  world_ = std::move(member);
  Logger("control")->info(
      "client {} (pid {}) is rank {}/{} local rank {}/{} of job '{}' generation {}", id_.client_id,
      id_.peer.pid, a.rank, a.world_size, a.local_rank, a.local_world_size, next.job_base,
      a.generation);
  return Status::Ok();
}

std::vector<CommMember*> Session::comms() const {
  std::vector<CommMember*> out;
  out.reserve(comms_.size());
  for (const auto& [cid, m] : comms_) out.push_back(m.get());
  return out;
}

void CommMember::Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                          const OpReport* report) {
  if (in_flight_ > 0) --in_flight_;
  session_->Complete(op_id, status, seq, agent_ns, report);
}

void CommMember::Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) {
  session_->Partial(op_id, seq, agent_ns, report);
}

bool CommMember::ComesBackHandedOver() const { return session_->ComesBackHandedOver(); }

void CommMember::Moved(uint64_t op_id, uint64_t seq) {
  if (in_flight_ > 0) --in_flight_;
  session_->Moved(op_id, seq);
}

void Session::FlushOverflow() {
  while (!overflow_.empty()) {
    ipc::RingResult r = cq_.Push(overflow_.front());
    if (r != ipc::RingResult::kOk) break;
    overflow_.pop_front();
  }
}

void Session::Refuse(uint64_t op_id, const Status& why) {
  if (closed_) return;
  ipc::CompletionEntry c{};
  c.op_id = op_id;
  c.code = static_cast<int32_t>(why.code());
  ipc::CopyText(c.message, sizeof(c.message), why.message());
  Post(c);
}

void Session::Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                       const OpReport* report) {
  if (auto s = staged_.find(op_id); s != staged_.end()) {
    if (gate_->Finish(op_id, status, seq, agent_ns, report))
      return;  // its outputs go back to the GPU first
    staged_.erase(s);
  }
  Finished(op_id, status, seq, agent_ns, report);
}

void Session::Finished(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                       const OpReport* report, uint32_t flags) {
  if (in_flight_ > 0) --in_flight_;
  if (auto f = fence_of_.find(op_id); f != fence_of_.end()) {
    SignalFence(f->second, op_id, status.code());  // the outputs are written (or the op failed)
    fence_of_.erase(f);
  }
  if (closed_) return;
  ipc::CompletionEntry c{};
  c.op_id = op_id;
  c.code = static_cast<int32_t>(status.code());
  c.seq = seq;
  c.agent_ns = agent_ns;
  c.flags = flags;
  if (report != nullptr) {
    c.algo = report->algo;
    c.result_rows = report->result_rows;
    c.predicted_bytes = report->predicted_bytes;
    c.wire_bytes_sent = report->wire_bytes_sent;
    c.wire_bytes_recv = report->wire_bytes_recv;
    c.demand_rows = report->demand_rows;
    c.source = std::max(report->source, 0);
  }
  ipc::CopyText(c.message, sizeof(c.message), status.message());
  Post(c);
}

void Session::Moved(uint64_t op_id, uint64_t seq) {
  // An op on GPU memory this agent imported (gpu_mode ipc): the next agent would import it anew,
  // under a stream that waits here; it fails instead.
  if (staged_.count(op_id) != 0 ||
      (fence_of_.count(op_id) != 0 && id_.gpu_mode != ipc::GpuMode::kStaging)) {
    Complete(op_id,
             Unavailable("the agent stopped before this op started; ops on GPU memory in "
                         "gpu_mode ipc are not handed to the next agent"),
             seq, 0);
    return;
  }
  // Staged by the client: its stream waits on its fence until the next agent signals it.
  fence_of_.erase(op_id);
  Finished(op_id, Unavailable("handed over to the next agent before it started"), seq, 0, nullptr,
           ipc::kCompletionMoved);
}

void Session::Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) {
  if (closed_) return;
  ipc::CompletionEntry c{};
  c.op_id = op_id;
  c.flags = ipc::kCompletionPartial;
  c.seq = seq;
  c.agent_ns = agent_ns;
  c.algo = report.algo;
  c.result_rows = report.result_rows;
  c.demand_rows = report.demand_rows;
  Post(c);
}

void Session::Post(const ipc::CompletionEntry& c) {
  FlushOverflow();
  ipc::RingResult r = overflow_.empty() ? cq_.Push(c) : ipc::RingResult::kFull;
  if (r == ipc::RingResult::kCorrupt) {
    Close(ProtocolError("completion ring indices are corrupt"));
    return;
  }
  if (r == ipc::RingResult::kFull) {
    // The shim never has more ops in flight than the CQ holds; a client that does is not
    // draining its ring and is cut off before it can make the agent hoard completions.
    if (overflow_.size() >= cq_.capacity()) {
      Close(ResourceExhausted("client does not drain its completion ring"));
      return;
    }
    overflow_.push_back(c);
  }
  if (cq_.ConsumerNeedsWake()) ipc::SignalEventFd(cq_efd_.get());
}

// ---- Submissions: the ring drained into validated ops, those that wait held in order ----

bool Session::DrainSubmissions(const OpSink& sink) {
  if (closed_) return false;
  bool any = false;
  ipc::SubmitEntry e;
  RegionLookup lookup = [this](uint32_t id) { return regions_.Find(id); };
  for (;;) {
    ipc::RingResult r = sq_.Pop(&e);
    if (r == ipc::RingResult::kEmpty) break;
    if (r == ipc::RingResult::kCorrupt) {
      Close(ProtocolError("submission ring indices are corrupt"));
      break;
    }
    any = true;
    if (e.op_id <= last_op_id_) {
      Close(ProtocolError("op id " + std::to_string(e.op_id) + " does not increase (last " +
                          std::to_string(last_op_id_) + ")"));
      break;
    }
    last_op_id_ = e.op_id;
    // A refused fenced op signals its fence too: the client's stream must not wait for it.
    bool fenced = (e.flags & ipc::kSubmitFenced) != 0 && e.fence < ipc::kFenceSlots;
    auto refuse = [&](const Status& why) {
      if (fenced) SignalFence(e.fence, e.op_id, why.code());
      Refuse(e.op_id, why);
    };
    CommMember* comm = nullptr;
    if (e.comm != 0) {
      auto it = comms_.find(e.comm);
      if (it == comms_.end()) {
        refuse(InvalidArgument("op " + std::to_string(e.op_id) + " names communicator " +
                               std::to_string(e.comm) + ", which this client does not belong to"));
        if (closed_) break;
        continue;
      }
      comm = it->second.get();
    }
    Member* member = comm != nullptr ? static_cast<Member*>(comm) : world();
    if (member == nullptr) {
      refuse(FailedPrecondition("op " + std::to_string(e.op_id) +
                                ": this client joins its job at the next generation "
                                "(outrider_reconfigure); it is in no job yet"));
      if (closed_) break;
      continue;
    }
    Result<ValidatedOp> op = Internal("not validated");
    Status refused;
    if (e.flags == ipc::kSubmitRefused) {
      // The shim refused it itself: the caller there has the reason, the job must count it.
      fenced = false;
      Code code =
          e.root > 0 && e.root <= kMaxCode ? static_cast<Code>(e.root) : Code::kInvalidArgument;
      refused = Status(code, "refused by the shim of " +
                                 ("rank " + std::to_string(member->identity().rank)) +
                                 " (its caller has the reason)");
    } else {
      op = ValidateEntry(e, member->identity().rank, member->identity().world_size, lookup);
      if (!op.ok()) refused = op.status();
    }
    if (refused.ok() && in_flight_ >= cq_.capacity()) {
      refused = ResourceExhausted(std::to_string(in_flight_) +
                                  " ops of this client are in flight, the most it may have");
    }
    // Refusals behind a waiting op wait too, counted in flight: a client that keeps submitting
    // far past its ring's worth is cut off before the queue grows without bound.
    if (in_flight_ >= 2 * static_cast<size_t>(cq_.capacity())) {
      Close(
          ResourceExhausted("client submitted " + std::to_string(in_flight_) +
                            " ops that are still in flight, twice what its completion ring holds"));
      break;
    }
    ++in_flight_;
    if (comm != nullptr) comm->Submitted();
    if (fenced) fence_of_[e.op_id] = e.fence;
    if (!refused.ok()) {
      Logger("control")->warn("client {} (job {} local rank {}): rejected op {}: {}", id_.client_id,
                              member->identity().job_id, member->identity().local_rank, e.op_id,
                              refused.ToString());
      // Its job still counts it (the rank's next op of the key must not pair with the others'
      // op of this one) and fails the collective on every rank; after the ops that wait before
      // it, so that each takes its sequence number in submission order.
      Job::RefusedOp entry{.key = e.key,
                           .op_id = e.op_id,
                           .kind = static_cast<ipc::OpKind>(e.kind),
                           .dtype = static_cast<ipc::DType>(e.dtype),
                           .count = e.count};
      if (!waiting_.empty()) {
        waiting_.push_back(Waiting{.member = member,
                                   .since_ns = ipc::MonotonicNs(),
                                   .refusal = entry,
                                   .refused = refused});
        continue;
      }
      RefuseToJob(member, entry, refused);
      if (closed_) break;  // it did not drain its completions either
      continue;
    }
    // The job learns where this rank keeps its buffers as soon as the op comes, not when it
    // reaches the front of the queue: an op held there until the job knows (RouteOf) must not
    // keep a later op of another communicator from telling its job.
    if (op->NamesDevice()) {
      if (JobDevice* device = DeviceOf(*member); device != nullptr)
        device->NoteFirstMemory(member->identity().local_rank, op->Device());
    }
    if (fenced || !waiting_.empty() || op->NamesDevice()) {
      waiting_.push_back(Waiting{.member = member,
                                 .op = *op,
                                 .fenced = fenced,
                                 .fence = e.fence,
                                 .since_ns = ipc::MonotonicNs()});
      continue;
    }
    sink(member, *op);
    if (closed_) break;
  }
  return any;
}

bool Session::ReleaseFenced(const OpSink& sink, uint64_t now_ns, uint64_t timeout_ns) {
  bool any = false;
  while (!waiting_.empty() && !closed_) {
    Waiting& w = waiting_.front();
    if (!w.refused.ok()) {  // refused when it came; its job hears it in submission order
      Waiting refused = std::move(w);
      waiting_.pop_front();
      RefuseToJob(refused.member, refused.refusal, refused.refused);
      any = true;
      continue;
    }
    // The front op goes on (to the sink, or failed) unless it still waits.
    Status failed;
    const ValidatedOp* op = &w.op;
    uint64_t ready =
        w.fenced ? std::atomic_ref<uint64_t>(fences_[w.fence].ready).load(std::memory_order_acquire)
                 : 0;
    // Op ids only grow and never wrap (64 bits), so the stream has written this op's `ready` once
    // the slot holds its id or a later one. Compared as they are: a wrapping comparison would let
    // ids of 2^63 and more through unfenced (`ready` starts at 0).
    if (w.fenced && ready < w.op.op_id) {  // not written for this op yet
      if (timeout_ns == 0 || now_ns < w.since_ns + timeout_ns) break;
      failed = DeadlineExceeded("op " + std::to_string(w.op.op_id) + ": its fence (slot " +
                                std::to_string(w.fence) + ") was not ready within " +
                                std::to_string(timeout_ns / 1'000'000) +
                                " ms: the stream that should signal it is stuck or gone");
    } else if (w.op.NamesDevice()) {
      // Its gate holds it (the ops after it wait) until its route is known and, for the host
      // engine, its GPU inputs are in the agent's host buffers.
      DeviceGate::Admission a = AdmitToDevice(*w.member, w.op, now_ns, w.since_ns, timeout_ns);
      if (a.hold) break;
      failed = a.refused;
      if (a.op != nullptr) op = a.op;
      if (a.staged) staged_.insert(w.op.op_id);
    }
    Member* member = w.member;
    ValidatedOp next = *op;
    waiting_.pop_front();
    if (failed.ok()) {
      sink(member, next);
    } else {
      RefuseToJob(member, Job::RefusedOp::Of(next), failed);
    }
    any = true;
  }
  if (!staged_.empty()) {
    for (DeviceCompletion& c : gate_->TakeFinished()) {
      staged_.erase(c.op_id);
      Finished(c.op_id, c.status, c.seq, c.agent_ns, c.report ? &*c.report : nullptr);
      any = true;
    }
  }
  return any;
}

JobDevice* Session::DeviceOf(const Member& member) const {
  Job* job = jobs_ != nullptr ? jobs_->Find(member.identity().job_id) : nullptr;
  return job != nullptr ? job->device() : nullptr;
}

DeviceGate::Admission Session::AdmitToDevice(const Member& member, const ValidatedOp& op,
                                             uint64_t now_ns, uint64_t since_ns,
                                             uint64_t timeout_ns) {
  if (gate_ == nullptr && devices_ != nullptr) gate_ = devices_->MakeGate(id_.gpu_mode);
  if (gate_ == nullptr) {
    return DeviceGate::Admission::Refuse(FailedPrecondition(
        "op " + std::to_string(op.op_id) + " names GPU memory, but this agent has no GPU path"));
  }
  // The job noted the op's memory when it came. Without a job, the sink fails the op.
  return gate_->Admit(DeviceOf(member), op, now_ns, since_ns, timeout_ns);
}

void Session::SignalFence(uint32_t slot, uint64_t op_id, Code code) {
  ipc::FenceSlot& f = fences_[slot];
  std::atomic_ref<int32_t>(f.status).store(static_cast<int32_t>(code), std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(f.done).store(op_id, std::memory_order_release);
}

void Session::RefuseToJob(Member* member, const Job::RefusedOp& op, const Status& why) {
  Job* job = jobs_ != nullptr ? jobs_->Find(member->identity().job_id) : nullptr;
  if (job != nullptr) return job->Refuse(member, op, why);  // completes the op
  member->Complete(op.op_id, why, 0, 0);
}

}  // namespace outrider::agent
