// The connection to the agent: the hello and its checks of the control segment, the agent's
// departure (EOF, failure or goodbye), requests with replies, and waiting on the completion ring.
#include "shim/connection.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace outrider::shim {

Status FromReply(int32_t code, const char* message) {
  if (code == 0) return Status::Ok();
  if (code < 0 || code > kMaxCode)
    return ProtocolError("agent replied with unknown code " + std::to_string(code));
  return Status(static_cast<Code>(code),
                std::string(message, strnlen(message, ipc::kMessageBytes)));
}

Connection::Connection(const ConnectConfig& config) : config_(config), spin_(config_.spin_us) {}

Result<std::unique_ptr<Connection>> Connection::Open(const ConnectConfig& config,
                                                     std::optional<Comeback> comeback) {
  auto c = std::unique_ptr<Connection>(new Connection(config));
  OUTRIDER_ASSIGN_OR_RETURN(c->channel_, ipc::UnixChannel::Connect(config.socket_path));
  OUTRIDER_RETURN_IF_ERROR(c->Handshake(comeback));
  return c;
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  if (gone_.ok() && channel_.fd() >= 0) {
    ipc::Goodbye bye{};
    ipc::InitMsgHeader(&bye.header, ipc::MsgType::kGoodbye, sizeof(bye) - sizeof(bye.header), 0);
    (void)channel_.Send(&bye, sizeof(bye));
  }
}

Status Connection::Reopen(const ConnectConfig& config, int fences_fd) {
  if (gone_.ok()) return FailedPrecondition("the agent is still there");
  // Made aside: until the new agent took it, this connection stays as it was (gone, its rings
  // still readable for what the old agent posted).
  uint64_t away_ns = ipc::MonotonicNs() - gone_ns_;
  Comeback comeback{
      .away_ms = static_cast<uint32_t>(std::min<uint64_t>(away_ns / 1'000'000, UINT32_MAX)),
      .after_goodbye = gone_goodbye_,
      .handed_over = gone_goodbye_ && gone_handed_over_,
      .fences_fd = fences_fd};
  OUTRIDER_ASSIGN_OR_RETURN(std::unique_ptr<Connection> fresh, Open(config, comeback));
  config_ = config;
  channel_ = std::move(fresh->channel_);
  control_ = std::move(fresh->control_);
  sq_efd_ = std::move(fresh->sq_efd_);
  cq_efd_ = std::move(fresh->cq_efd_);
  sq_ = fresh->sq_;
  cq_ = fresh->cq_;
  next_request_id_ = fresh->next_request_id_;
  gone_ = Status::Ok();
  gone_goodbye_ = false;
  gone_handed_over_ = false;
  closed_ = false;
  return Status::Ok();
}

Status Connection::Handshake(std::optional<Comeback> comeback) {
  ipc::HelloRequest hello{};
  ipc::InitMsgHeader(&hello.header, ipc::MsgType::kHello, sizeof(hello) - sizeof(hello.header),
                     next_request_id_++);
  std::memcpy(hello.job_id, config_.job_id.data(), config_.job_id.size());
  hello.rank = config_.rank;
  hello.world_size = config_.world_size;
  hello.local_rank = config_.local_rank;
  hello.local_world_size = config_.local_world_size;
  hello.pid = ::getpid();
  std::memcpy(hello.root_addr, config_.root_addr.data(), config_.root_addr.size());
  std::memcpy(hello.token, config_.token.data(), config_.token.size());
  hello.gpu_mode = static_cast<uint32_t>(config_.gpu_mode);
  hello.flags = config_.joiner ? ipc::kHelloJoiner : 0;
  if (comeback) {
    hello.flags |= ipc::kHelloReconnect | (comeback->after_goodbye ? ipc::kHelloAfterGoodbye : 0) |
                   (comeback->handed_over ? ipc::kHelloHandedOver : 0);
    hello.away_ms = comeback->away_ms;
    if (comeback->fences_fd >= 0) hello.flags |= ipc::kHelloFences;
  }
  hello.job_class = static_cast<uint32_t>(config_.job_class);
  hello.job_weight = config_.job_weight;
  // An agent that refuses us (credentials, capacity) replies and hangs up before reading the
  // hello; its reply is still worth reading when the send fails.
  int fences_fd = comeback ? comeback->fences_fd : -1;
  Status sent = channel_.Send(&hello, sizeof(hello), fences_fd >= 0 ? &fences_fd : nullptr,
                              fences_fd >= 0 ? 1 : 0);
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
    return ProtocolError("the agent speaks protocol version " +
                         std::to_string(reply.header.version) + ", this shim " +
                         std::to_string(ipc::kProtocolVersion));
  }
  if (*n != sizeof(reply) ||
      reply.header.type != static_cast<uint16_t>(ipc::MsgType::kHelloReply)) {
    return ProtocolError("unexpected reply to hello");
  }
  Status refused = FromReply(reply.code, reply.message);
  if (!refused.ok() && refused.message().find("is already connected") != std::string::npos) {
    // The same place of the same job twice: most often two jobs on this node with one job id.
    refused = Status(refused.code(),
                     refused.message() + "; if the other process belongs to another job, give " +
                         "each job its own OUTRIDER_JOB_ID (this one's, '" + config_.job_id +
                         "', came from " + config_.job_id_from + ")");
  }
  OUTRIDER_RETURN_IF_ERROR(refused.Annotate("the agent refused the connection"));
  if (fds.size() != 3)
    return ProtocolError("hello reply carried " + std::to_string(fds.size()) + " fds, expected 3");
  OUTRIDER_ASSIGN_OR_RETURN(size_t control_size, ipc::CheckSealedMemfd(fds[0].get()));
  if (control_size != reply.control_bytes || control_size < sizeof(ipc::ControlHeader)) {
    return ProtocolError("control segment size does not match the hello reply");
  }
  auto segment = std::make_shared<ControlSegment>();
  OUTRIDER_ASSIGN_OR_RETURN(segment->mapping, ipc::MapShared(fds[0].get(), control_size));
  segment->fd = std::move(fds[0]);
  control_ = std::move(segment);
  ipc::ControlHeader h;
  std::memcpy(&h, control_->mapping.data(), sizeof(h));
  ipc::ControlLayout l = ipc::ComputeControlLayout(h.sq_entries, h.cq_entries);
  bool pow2 = h.sq_entries && !(h.sq_entries & (h.sq_entries - 1)) && h.cq_entries == h.sq_entries;
  if (h.magic != ipc::kMagic || h.version != ipc::kProtocolVersion || !pow2 ||
      l.total_bytes != control_size || l.sq_indices_offset != h.sq_indices_offset ||
      l.sq_slots_offset != h.sq_slots_offset || l.cq_indices_offset != h.cq_indices_offset ||
      l.cq_slots_offset != h.cq_slots_offset || l.fences_offset != h.fences_offset) {
    return ProtocolError("control segment header does not match this shim's layout");
  }
  uint8_t* base = control_->mapping.data();
  sq_ = ipc::RingProducer<ipc::SubmitEntry>(
      reinterpret_cast<ipc::RingIndices*>(base + l.sq_indices_offset),
      reinterpret_cast<ipc::SubmitEntry*>(base + l.sq_slots_offset), h.sq_entries);
  cq_ = ipc::RingConsumer<ipc::CompletionEntry>(
      reinterpret_cast<ipc::RingIndices*>(base + l.cq_indices_offset),
      reinterpret_cast<ipc::CompletionEntry*>(base + l.cq_slots_offset), h.cq_entries);
  sq_efd_ = std::move(fds[1]);
  cq_efd_ = std::move(fds[2]);
  return Status::Ok();
}

void Connection::MarkGone(Status why, bool goodbye, bool handed_over) {
  if (gone_.ok()) gone_ns_ = ipc::MonotonicNs();
  gone_ = std::move(why);
  gone_goodbye_ = goodbye;
  gone_handed_over_ = goodbye && handed_over;
  if (on_gone_) on_gone_();
}

void Connection::LeaveAndDrain(uint64_t deadline) {
  ipc::Goodbye bye{};
  ipc::InitMsgHeader(&bye.header, ipc::MsgType::kGoodbye, sizeof(bye) - sizeof(bye.header), 0);
  (void)channel_.Send(&bye, sizeof(bye));
  gone_ = Cancelled("the client disconnected");
  for (uint64_t now = ipc::MonotonicNs(); now < deadline; now = ipc::MonotonicNs()) {
    alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
    auto n =
        channel_.Recv(buf, sizeof(buf), nullptr, static_cast<int>((deadline - now) / 1000000 + 1));
    if (!n.ok() && n.status().code() == Code::kDeadlineExceeded) continue;
    if (!n.ok() || *n == 0) break;  // hung up
  }
}

std::optional<Connection::Gone> Connection::Departure(const Result<size_t>& n, const uint8_t* buf) {
  if (!n.ok()) return Gone{Unavailable("connection to the agent failed: " + n.status().message())};
  if (*n == 0)
    return Gone{Unavailable("the agent closed the connection (agent exited or was killed)")};
  ipc::Goodbye bye{};
  std::memcpy(&bye, buf, std::min(*n, sizeof(bye)));
  if (*n == sizeof(bye) && bye.header.magic == ipc::kMagic &&
      bye.header.type == static_cast<uint16_t>(ipc::MsgType::kGoodbye)) {
    bye.message[sizeof(bye.message) - 1] = '\0';
    Status why =
        FromReply(bye.code == 0 ? static_cast<int32_t>(Code::kUnavailable) : bye.code, bye.message);
    return Gone{Status(why.code(), "the agent closed the connection: " + why.message()), true,
                (bye.flags & ipc::kGoodbyeHandedOver) != 0};
  }
  return std::nullopt;
}

bool Connection::SocketReadable() const { return ipc::WaitReadable(channel_.fd(), -1, 0) != 0; }

void Connection::OnSocketReadable() {
  alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
  std::vector<UniqueFd> fds;
  auto n = channel_.Recv(buf, sizeof(buf), &fds, 0);
  if (!n.ok() && n.status().code() == Code::kDeadlineExceeded) return;  // nothing there
  std::optional<Gone> gone = Departure(n, buf);
  if (gone) {
    MarkGone(gone->why, gone->goodbye, gone->handed_over);
  } else {
    MarkGone(ProtocolError("unexpected message from the agent"));
  }
}

bool Connection::Push(const ipc::SubmitEntry& e) {
  if (sq_.Push(e) != ipc::RingResult::kOk) return false;
  if (sq_.ConsumerNeedsWake()) ipc::SignalEventFd(sq_efd_.get());
  return true;
}

Status Connection::AwaitReply(uint32_t request_id, void* out, size_t bytes, uint64_t deadline,
                              const char* what) {
  for (;;) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline)
      return DeadlineExceeded(std::string("the agent did not answer ") + what + " in time");
    alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
    auto n =
        channel_.Recv(buf, sizeof(buf), nullptr, static_cast<int>((deadline - now) / 1000000 + 1));
    if (!n.ok() && n.status().code() == Code::kDeadlineExceeded) continue;
    if (std::optional<Gone> gone = Departure(n, buf)) {
      MarkGone(gone->why, gone->goodbye, gone->handed_over);
      return gone_;
    }
    ipc::MsgHeader hdr;
    std::memcpy(&hdr, buf, std::min(*n, sizeof(hdr)));
    if (*n != bytes || hdr.magic != ipc::kMagic || hdr.request_id != request_id) {
      return ProtocolError(std::string("unexpected reply to ") + what);
    }
    std::memcpy(out, buf, bytes);
    return Status::Ok();
  }
}

Result<ipc::RegionReply> Connection::Request(const void* msg, size_t bytes, const int* fds,
                                             size_t nfds, uint32_t request_id) {
  OUTRIDER_RETURN_IF_ERROR(gone());
  OUTRIDER_RETURN_IF_ERROR(channel_.Send(msg, bytes, fds, nfds));
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(config_.timeout_ms) * 1000000;
  ipc::RegionReply reply;
  OUTRIDER_RETURN_IF_ERROR(
      AwaitReply(request_id, &reply, sizeof(reply), deadline, "a region request"));
  return reply;
}

Result<ipc::ReformReply> Connection::Reform(ipc::ReformMode mode, uint32_t timeout_ms) {
  OUTRIDER_RETURN_IF_ERROR(gone());
  ipc::Reform msg{};
  uint32_t rid = NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kReform, sizeof(msg) - sizeof(msg.header), rid);
  msg.mode = static_cast<uint32_t>(mode);
  msg.timeout_ms = timeout_ms;
  OUTRIDER_RETURN_IF_ERROR(channel_.Send(&msg, sizeof(msg)));
  // The agents answer within the re-form's own deadline (0: theirs, 30 s); a margin on top.
  uint64_t agree_ms = mode == ipc::ReformMode::kQuery ? 0 : (timeout_ms != 0 ? timeout_ms : 30000);
  uint64_t deadline = ipc::MonotonicNs() + (agree_ms + uint64_t(config_.timeout_ms)) * 1000000;
  ipc::ReformReply reply;
  OUTRIDER_RETURN_IF_ERROR(AwaitReply(rid, &reply, sizeof(reply), deadline, "a re-form request"));
  if (reply.header.type != static_cast<uint16_t>(ipc::MsgType::kReformReply))
    return ProtocolError("unexpected reply to a re-form request");
  reply.message[sizeof(reply.message) - 1] = '\0';
  reply.root_addr[sizeof(reply.root_addr) - 1] = '\0';
  return reply;
}

bool Connection::Await(uint64_t deadline, int wake_fd) {
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

ipc::FenceSlot* ControlSegment::fence_slots() const {
  return reinterpret_cast<ipc::FenceSlot*>(
      mapping.data() + reinterpret_cast<const ipc::ControlHeader*>(mapping.data())->fences_offset);
}

const uint16_t* ControlSegment::departure_word() const {
  return &reinterpret_cast<const ipc::ControlHeader*>(mapping.data())->departure;
}

void Connection::LeakControl() {
  if (control_ != nullptr) (void)new std::shared_ptr<const ControlSegment>(control_);
}

}  // namespace outrider::shim
