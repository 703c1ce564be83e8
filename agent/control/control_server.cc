// Listening socket, credential checks, hello handshake and session lifetime.
#include "agent/control/control_server.h"

#include <grp.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agent/log.h"
#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/nccl_stats_wire.h"

namespace outrider::agent {
namespace {

// Creates `dir` and its missing parents; the leaf gets `mode`.
Status MakeSocketDir(const std::string& dir, mode_t mode, gid_t gid) {
  if (dir.empty()) return Status::Ok();
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return Status::Ok();  // an existing directory is the admin's
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    OUTRIDER_RETURN_IF_ERROR(MakeSocketDir(dir.substr(0, slash), 0755, static_cast<gid_t>(-1)));
  }
  if (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    return ErrnoStatus("creating socket directory " + dir, errno);
  }
  ::chmod(dir.c_str(), mode);  // mkdir applies the umask
  if (gid != static_cast<gid_t>(-1) && ::chown(dir.c_str(), static_cast<uid_t>(-1), gid) != 0) {
    return ErrnoStatus("giving socket directory " + dir + " to its group", errno);
  }
  return Status::Ok();
}

}  // namespace

ControlServer::ControlServer(ControlServerOptions options, EventLoop* loop, JobTable* jobs,
                             membership::Reformer* generations, AgentMetrics* metrics)
    : options_(std::move(options)),
      loop_(loop),
      jobs_(jobs),
      generations_(generations),
      metrics_(metrics) {}

ControlServer::~ControlServer() {
  StopListening();
  CloseAll(Unavailable("agent shutting down"));
}

Status ControlServer::Start() {
  mode_t dir_mode = 0700, sock_mode = 0600;
  if (!options_.socket_group.empty()) {
    struct group* g = ::getgrnam(options_.socket_group.c_str());
    if (g == nullptr)
      return InvalidArgument("socket_group '" + options_.socket_group + "' does not exist");
    group_gid_ = g->gr_gid;
    dir_mode = 0750;
    sock_mode = 0660;
  }
  const std::string& path = options_.socket_path;
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    OUTRIDER_RETURN_IF_ERROR(MakeSocketDir(dir, dir_mode, group_gid_));
    // A directory that was there before is left as it is; say so if the group cannot pass it.
    struct stat st {};
    if (group_gid_ != static_cast<gid_t>(-1) && ::stat(dir.c_str(), &st) == 0 &&
        (st.st_mode & (st.st_gid == group_gid_ ? S_IXGRP : S_IXOTH)) == 0) {
      Logger("control")->warn(
          "socket directory {} does not let group {} pass: trainers admitted by socket_group "
          "cannot reach the socket (chgrp {} {} and chmod g+x, or the unit's Group=)",
          dir, options_.socket_group, options_.socket_group, dir);
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(listen_fd_, ipc::ListenUnix(path, 128));
  ::chmod(path.c_str(), sock_mode);
  if (group_gid_ != static_cast<gid_t>(-1)) {
    if (::chown(path.c_str(), static_cast<uid_t>(-1), group_gid_) != 0) {
      return ErrnoStatus("giving socket " + path + " to its group", errno);
    }
  }
  OUTRIDER_RETURN_IF_ERROR(loop_->Add(listen_fd_.get(), EPOLLIN, [this](uint32_t) { OnAccept(); }));
  listening_ = true;
  Logger("control")->info("listening on {}", path);
  // Trainers' NCCL telemetry, from the senders the control socket accepts.
  nccl_telemetry_ = std::make_unique<NcclStatsReceiver>(loop_, metrics_, [this](const ucred& cred) {
    ipc::PeerCredentials peer{cred.pid, cred.uid, cred.gid, {}};
    if (CheckPeer(peer).ok()) return true;
    // Supplementary groups matter only to the socket group's check: read from /proc only then.
    if (group_gid_ == static_cast<gid_t>(-1)) return false;
    peer.groups = ipc::ProcessGroups(cred.pid);
    return CheckPeer(peer).ok();
  });
  if (Status st = nccl_telemetry_->Open(ipc::NcclTelemetryPath(path), sock_mode, group_gid_);
      !st.ok()) {
    Logger("control")->warn(
        "no NCCL telemetry from trainers (liboutrider_nccl.so, the profiler plugin): {}",
        st.message());
  }
  return Status::Ok();
}

void ControlServer::StopListening() {
  if (!listening_) return;
  listening_ = false;
  loop_->Remove(listen_fd_.get());
  listen_fd_.reset();
  ::unlink(options_.socket_path.c_str());
  if (nccl_telemetry_ != nullptr) nccl_telemetry_->Close();
}

Status ControlServer::CheckPeer(const ipc::PeerCredentials& peer) const {
  if (peer.uid == 0 || peer.uid == ::geteuid()) return Status::Ok();
  if (std::find(options_.allowed_uids.begin(), options_.allowed_uids.end(), peer.uid) !=
      options_.allowed_uids.end()) {
    return Status::Ok();
  }
  if (group_gid_ != static_cast<gid_t>(-1) && peer.InGroup(group_gid_)) return Status::Ok();
  return PermissionDenied(
      "uid " + std::to_string(peer.uid) + " (pid " + std::to_string(peer.pid) +
      ") may not use this agent: allow it with --allowed-uids or --socket-group");
}

void ControlServer::OnAccept() {
  for (;;) {
    auto fd = ipc::AcceptUnix(listen_fd_.get());
    if (!fd.ok()) {
      if (fd.status().code() == Code::kUnavailable) return;  // EAGAIN: accepted everything queued
      // Out of file descriptors (or kernel memory): the connection stays queued, and the
      // listening socket stays readable, so it is set aside for a while instead of spinning.
      if (fd.status().code() == Code::kResourceExhausted) return PauseAccepting(fd.status());
      continue;  // that connection was aborted before it was accepted
    }
    ipc::UnixChannel channel(std::move(*fd));
    auto peer = channel.Peer();
    if (!peer.ok()) continue;
    Status refusal = CheckPeer(*peer);
    if (refusal.ok() && sessions_.size() >= options_.max_clients) {
      refusal = ResourceExhausted(
          "agent already serves max_clients=" + std::to_string(options_.max_clients) + " clients");
    }
    if (!refusal.ok()) Logger("control")->warn("refusing connection: {}", refusal.message());
    // Connections that stay silent must not lock trainers out: past the bound, the oldest goes.
    while (handshakes_.size() >= kMaxHandshakes && !handshake_order_.empty()) {
      auto [serial, oldest] = handshake_order_.front();
      handshake_order_.pop_front();
      auto it = handshakes_.find(oldest);
      if (it != handshakes_.end() && it->second.serial == serial)
        DropHandshake(oldest, "to make room for a new one");
    }
    int sfd = channel.fd();
    uint64_t serial = next_serial_++;
    uint64_t deadline = ipc::MonotonicNs() + uint64_t{options_.handshake_timeout_ms} * 1'000'000;
    handshakes_.emplace(sfd,
                        PendingHandshake{std::move(channel), *peer, refusal, serial, deadline});
    Status added = loop_->Add(sfd, EPOLLIN, [this, sfd](uint32_t) { OnHandshakeReadable(sfd); });
    if (!added.ok()) {
      handshakes_.erase(sfd);
      continue;
    }
    handshake_order_.emplace_back(serial, sfd);
  }
}

void ControlServer::DropHandshake(int fd, const char* why) {
  auto it = handshakes_.find(fd);
  if (it == handshakes_.end()) return;
  Logger("control")->warn("closing connection of pid {} uid {}: no hello {}", it->second.peer.pid,
                          it->second.peer.uid, why);
  loop_->Remove(fd);
  handshakes_.erase(it);  // closes the socket
}

void ControlServer::PauseAccepting(const Status& why) {
  if (accept_paused_until_ns_ != 0) return;
  Logger("control")->warn(
      "cannot accept connections ({}); trying again in {} ms (raise the file descriptor limit, "
      "LimitNOFILE= under systemd, or lower max_clients)",
      why.message(), kAcceptPauseNs / 1'000'000);
  loop_->Remove(listen_fd_.get());
  accept_paused_until_ns_ = ipc::MonotonicNs() + kAcceptPauseNs;
}

void ControlServer::Tick(uint64_t now_ns) {
  while (!handshake_order_.empty()) {
    auto [serial, fd] = handshake_order_.front();
    auto it = handshakes_.find(fd);
    bool pending = it != handshakes_.end() && it->second.serial == serial;
    if (pending && it->second.deadline_ns > now_ns) break;
    handshake_order_.pop_front();
    if (pending) {
      DropHandshake(
          fd,
          ("within handshake_timeout_ms=" + std::to_string(options_.handshake_timeout_ms)).c_str());
    }
  }
  if (accept_paused_until_ns_ != 0 && now_ns >= accept_paused_until_ns_ && listening_) {
    accept_paused_until_ns_ = 0;
    Status st = loop_->Add(listen_fd_.get(), EPOLLIN, [this](uint32_t) { OnAccept(); });
    if (!st.ok()) {
      Logger("control")->error("cannot watch the control socket again: {}", st.message());
      return;
    }
    OnAccept();  // what queued meanwhile
  }
}

uint64_t ControlServer::NextDeadlineNs() const {
  uint64_t next = accept_paused_until_ns_ != 0 ? accept_paused_until_ns_ : UINT64_MAX;
  for (const auto& [serial, fd] : handshake_order_) {
    auto it = handshakes_.find(fd);
    if (it != handshakes_.end() && it->second.serial == serial)
      return std::min(next, it->second.deadline_ns);
  }
  return next;
}

void ControlServer::RejectHello(ipc::UnixChannel& channel, uint16_t version, uint32_t request_id,
                                const Status& st) {
  // In the client's version where the agent serves it; otherwise in the agent's own, which the
  // client's check of the reply names beside its own.
  if (!options_.protocol.Serves(version)) version = options_.protocol.newest;
  ipc::HelloReply reply{};
  ipc::InitMsgHeader(&reply.header, ipc::MsgType::kHelloReply, sizeof(reply) - sizeof(reply.header),
                     request_id, version);
  reply.code = static_cast<int32_t>(st.code());
  ipc::CopyText(reply.message, sizeof(reply.message), st.message());
  (void)channel.Send(&reply, sizeof(reply));
}

void ControlServer::OnHandshakeReadable(int fd) {
  auto it = handshakes_.find(fd);
  if (it == handshakes_.end()) return;
  PendingHandshake hs = std::move(it->second);
  handshakes_.erase(it);  // its entry in handshake_order_ is skipped when it reaches the front
  loop_->Remove(fd);
  alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
  std::vector<UniqueFd> fds;  // a hello with kHelloFences carries one
  auto n = hs.channel.Recv(buf, sizeof(buf), &fds, -1);
  if (!n.ok() || *n == 0) return;  // gone before saying hello
  if (*n < sizeof(ipc::MsgHeader)) {
    return RejectHello(hs.channel, 0, 0, ProtocolError("hello shorter than a message header"));
  }
  ipc::MsgHeader h;
  std::memcpy(&h, buf, sizeof(h));
  if (!hs.refusal.ok()) return RejectHello(hs.channel, h.version, h.request_id, hs.refusal);
  Result<Hello> hello = ParseHello(buf, *n, options_);
  Status st = hello.status();
  if (hello.ok() && fds.size() != (hello->fences ? 1u : 0u)) {
    st = ProtocolError("a hello carries one fd with flag kHelloFences, none without it; this one " +
                       std::to_string(fds.size()));
  } else if (hello.ok()) {
    st = Handshake(hs, *hello, h.request_id, hello->fences ? std::move(fds[0]) : UniqueFd());
    if (st.ok()) return;
  }
  Logger("control")->warn("rejected client pid {} uid {}: {}", hs.peer.pid, hs.peer.uid,
                          st.ToString());
  RejectHello(hs.channel, h.version, h.request_id, st);
}

Status ControlServer::Handshake(PendingHandshake& hs, const Hello& hello, uint32_t request_id,
                                UniqueFd fences) {
  ClientIdentity id = hello.identity;
  id.peer = hs.peer;
  // Lower values are higher classes.
  ipc::JobClass ceiling = options_.job_class_ceiling.For(id.peer.uid);
  if (id.job_class < ceiling) {
    return PermissionDenied("job class " + std::string(ipc::JobClassName(id.job_class)) +
                            " is above what uid " + std::to_string(id.peer.uid) +
                            " may declare here (" + std::string(ipc::JobClassName(ceiling)) +
                            ", the agent's job_class_ceiling)");
  }
  // The fences of an earlier agent's control segment, where the client's streams wait.
  std::optional<FenceSegment> adopted;
  if (fences.valid()) {
    Result<FenceSegment> segment = FenceSegment::Open(std::move(fences));
    OUTRIDER_RETURN_IF_ERROR(segment.status().Annotate("the fences that came with the hello"));
    adopted = std::move(*segment);
  }
  uint32_t sq_entries = hello.sq_entries;
  ipc::ControlLayout layout = ipc::ComputeControlLayout(sq_entries, sq_entries);
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd control_fd,
                            ipc::CreateSealedMemfd("outrider-control", layout.total_bytes));
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping control,
                            ipc::MapShared(control_fd.get(), layout.total_bytes));
  ipc::InitControlHeader(reinterpret_cast<ipc::ControlHeader*>(control.data()), sq_entries,
                         sq_entries, layout, hello.version);
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd sq_efd, ipc::CreateEventFd());
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd cq_efd, ipc::CreateEventFd());
  id.client_id = next_client_id_++;

  int fds[3] = {control_fd.get(), sq_efd.get(), cq_efd.get()};
  int sfd = hs.channel.fd();
  auto session = std::make_unique<Session>(id, std::move(hs.channel), std::move(control_fd),
                                           std::move(control), std::move(sq_efd), std::move(cq_efd),
                                           options_.limits);
  if (adopted) session->AdoptFences(std::move(*adopted));
  ipc::HelloReply reply{};
  ipc::InitMsgHeader(&reply.header, ipc::MsgType::kHelloReply, sizeof(reply) - sizeof(reply.header),
                     request_id, hello.version);
  // A joiner is in no job until it re-forms into the job's next generation.
  Status joined = id.joiner ? Status::Ok() : jobs_->Join(session.get());
  if (!joined.ok()) {
    Logger("control")->warn("rejected client pid {} uid {}: {}", id.peer.pid, id.peer.uid,
                            joined.ToString());
    reply.code = static_cast<int32_t>(joined.code());
    ipc::CopyText(reply.message, sizeof(reply.message), joined.message());
    (void)session->Send(&reply, sizeof(reply), nullptr, 0);
    return Status::Ok();  // answered; the session (and the connection) is dropped here
  }
  reply.code = 0;
  reply.client_id = id.client_id;
  reply.control_bytes = layout.total_bytes;
  Session* s = session.get();
  s->EnableComms(jobs_, generations_, &options_, &comms_in_use_);
  s->set_device_path(devices_);
  Status sent = s->Send(&reply, sizeof(reply), fds, 3);
  if (sent.ok()) {
    // Ops the client queued before a message are taken first: a region released right after an
    // op that names it is released after the op resolved (and holds) it.
    sent = loop_->Add(sfd, EPOLLIN, [this, s](uint32_t) {
      s->DrainSubmissions(Sink());
      s->OnSocketReadable();
    });
  }
  if (sent.ok()) {
    sent = loop_->Add(s->sq_efd(), EPOLLIN, [s](uint32_t) { ipc::DrainEventFd(s->sq_efd()); });
  }
  if (!sent.ok()) {
    loop_->Remove(sfd);
    jobs_->Leave(s, sent);
    return Status::Ok();  // the client is gone; nothing to reply to
  }
  Logger("control")->info(
      "client {} joined job '{}' as rank {}/{} local rank {}/{} (pid {} uid {}, protocol {})",
      id.client_id, id.job_id, id.rank, id.world_size, id.local_rank, id.local_world_size,
      id.peer.pid, id.peer.uid, hello.version);
  if (hello.reconnect) {
    const char* after = hello.reconnect->after_goodbye ? "stop" : "crash";
    Logger("control")->info("client {} came back {} ms after its previous agent's {}", id.client_id,
                            hello.reconnect->away_ms, after);
    if (AgentMetrics* m = Counting(metrics_)) {
      m->reconnects->Get({after})->Inc();
      m->reconnect_pause->Observe(hello.reconnect->away_ms / 1e3);
    }
  }
  sessions_.emplace(sfd, std::move(session));
  return Status::Ok();
}

Session::OpSink ControlServer::Sink() {
  return [this](Member* m, const ValidatedOp& op) {
    Job* job = jobs_->Find(m->identity().job_id);
    if (job == nullptr) {
      m->Complete(op.op_id, Internal("client has no job"), 0, 0);
      return;
    }
    job->Submit(m, op);
  };
}

bool ControlServer::PollSessions() {
  bool any = false;
  Session::OpSink sink = Sink();
  uint64_t now = ipc::MonotonicNs();
  for (auto& [fd, s] : sessions_) {
    any |= s->DrainSubmissions(sink);
    if (s->has_fenced_waits()) any |= s->ReleaseFenced(sink, now, fence_timeout_ns_);
  }
  ReapClosed();
  return any;
}

bool ControlServer::HasFencedWaits() const {
  for (const auto& [fd, s] : sessions_) {
    if (s->has_fenced_waits()) return true;
  }
  return false;
}

bool ControlServer::PrepareSleep() {
  ReapClosed();
  for (auto& [fd, s] : sessions_) {
    if (!s->PrepareSleep()) return false;
  }
  return true;
}

void ControlServer::FinishSleep() {
  for (auto& [fd, s] : sessions_) s->FinishSleep();
  ReapClosed();
}

void ControlServer::ReapClosed() {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    Session* s = it->second.get();
    if (!s->closed()) {
      ++it;
      continue;
    }
    const ClientIdentity& id = s->identity();
    Logger("control")->info("client {} (job '{}' local rank {}, pid {}) left: {}", id.client_id,
                            id.job_id, id.local_rank, id.peer.pid, s->close_reason().ToString());
    for (CommMember* c : s->comms()) jobs_->Leave(c, s->close_reason(), s->left_in_order());
    if (CommMember* g = s->generation_member(); g != nullptr)
      jobs_->Leave(g, s->close_reason(), s->left_in_order());
    if (s->in_first_generation() && !s->identity().joiner)
      jobs_->Leave(s, s->close_reason(), s->left_in_order());
    loop_->Remove(s->socket_fd());
    loop_->Remove(s->sq_efd());
    if (JobsBusy(*s)) graveyard_.push_back(std::move(it->second));
    it = sessions_.erase(it);
  }
  for (auto g = graveyard_.begin(); g != graveyard_.end();) {
    g = JobsBusy(**g) ? std::next(g) : graveyard_.erase(g);
  }
}

bool ControlServer::JobsBusy(const Session& s) const {
  auto busy = [this](const std::string& id) {
    Job* job = jobs_->Find(id);
    return job != nullptr && job->busy();
  };
  for (const std::string& id : s.job_ids()) {
    if (busy(id)) return true;
  }
  return false;
}

void ControlServer::CloseAll(const Status& why) {
  for (auto& [fd, s] : sessions_) s->SayGoodbye(why);
  jobs_->FailAll(why);
  for (auto& [fd, s] : sessions_) s->Close(why);
  ReapClosed();
  for (auto& [fd, hs] : handshakes_) loop_->Remove(fd);
  handshakes_.clear();
}

}  // namespace outrider::agent

namespace outrider::agent {

uint64_t ControlServer::RegisteredBytes() const {
  uint64_t n = 0;
  for (const auto& [fd, s] : sessions_) n += s->region_bytes();
  return n;
}

nlohmann::json ControlServer::ClientsJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [fd, s] : sessions_) {
    const ClientIdentity& id = s->world_identity();
    out.push_back({{"client", id.client_id},
                   {"job", id.job_base.empty() ? id.job_id : id.job_base},
                   {"generation", id.generation},
                   {"joiner", s->world() == nullptr},
                   {"rank", id.rank},
                   {"world_size", id.world_size},
                   {"local_rank", id.local_rank},
                   {"pid", id.peer.pid},
                   {"uid", id.peer.uid},
                   {"protocol", s->protocol()},
                   {"regions", s->region_count()},
                   {"region_bytes", s->region_bytes()},
                   {"communicators", s->comm_count()},
                   {"in_flight", s->in_flight()}});
  }
  return out;
}

}  // namespace outrider::agent
