// Reading trainers' NCCL telemetry (see nccl_stats_receiver.h).
#include "agent/control/nccl_stats_receiver.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/control/hello.h"
#include "agent/log.h"
#include "agent/observability.h"

namespace outrider::agent {

Status NcclStatsReceiver::Open(const std::string& path, mode_t mode, gid_t gid) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path))
    return InvalidArgument("NCCL telemetry socket path too long: " + path);
  std::memcpy(addr.sun_path, path.data(), path.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return ErrnoStatus("creating the NCCL telemetry socket", errno);
  int on = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
    return ErrnoStatus("SO_PASSCRED on the NCCL telemetry socket", errno);
  }
  ::unlink(path.c_str());  // a previous agent's (the control socket's directory is this agent's)
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return ErrnoStatus("binding the NCCL telemetry socket " + path, errno);
  }
  ::chmod(path.c_str(), mode);
  if (gid != static_cast<gid_t>(-1) && ::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) {
    return ErrnoStatus("giving " + path + " to its group", errno);
  }
  OUTRIDER_RETURN_IF_ERROR(loop_->Add(fd.get(), EPOLLIN, [this](uint32_t) { OnReadable(); }));
  fd_ = std::move(fd);
  path_ = path;
  return Status::Ok();
}

void NcclStatsReceiver::Close() {
  if (fd_.get() < 0) return;
  loop_->Remove(fd_.get());
  fd_.reset();
  ::unlink(path_.c_str());
}

void NcclStatsReceiver::OnReadable() {
  // A bounded batch per wake: a flood of datagrams cannot keep the loop from its other work.
  for (int k = 0; k < 256; ++k) {
    alignas(8) uint8_t buf[ipc::kMaxNcclTelemetryBytes + 1];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof(buf)};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_DONTWAIT);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        Logger("control")->warn("NCCL telemetry socket: {}", std::strerror(errno));
      }
      return;
    }
    bool have = false;
    ucred cred{};
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
        have = true;
      }
    }
    bool truncated = (msg.msg_flags & MSG_TRUNC) != 0;
    Status st = truncated ? InvalidArgument("datagram too long")
                          : Take(buf, static_cast<size_t>(n), have ? &cred : nullptr);
    if (AgentMetrics* m = Counting(metrics_))
      m->nccl_telemetry->Get({st.ok() ? "accepted" : "rejected"})->Inc();
    if (st.ok()) {
      ++accepted_;
    } else {
      ++rejected_;
      if (!said_rejected_) {
        said_rejected_ = true;
        Logger("control")->warn(
            "NCCL telemetry: rejected a datagram ({}); further ones are only counted",
            st.message());
      }
    }
  }
}

Result<NcclTelemetryReport> ParseNcclTelemetry(const uint8_t* data, size_t n) {
  NcclTelemetryReport out;
  ipc::NcclStatsHeader& h = out.header;
  if (n < sizeof(h)) return InvalidArgument(std::to_string(n) + " bytes, shorter than a header");
  std::memcpy(&h, data, sizeof(h));
  if (h.magic != ipc::kNcclTelemetryMagic) return InvalidArgument("bad magic");
  if (h.version != ipc::kNcclTelemetryVersion)
    return InvalidArgument("version " + std::to_string(h.version));
  if (h.source >= ipc::kNumNcclSources)
    return InvalidArgument("unknown source " + std::to_string(h.source));
  if (h.records == 0 || h.records > ipc::kNumNcclOps ||
      n != sizeof(h) + h.records * sizeof(ipc::NcclStatsRecord)) {
    return InvalidArgument(std::to_string(n) + " bytes for " + std::to_string(h.records) +
                           " records (1.." + std::to_string(ipc::kNumNcclOps) + ")");
  }
  out.job.assign(h.job, strnlen(h.job, sizeof(h.job)));
  // It becomes a label value of /metrics: one bad byte would make every scrape fail.
  if (!out.job.empty()) OUTRIDER_RETURN_IF_ERROR(CheckJobId(out.job, "job name"));
  out.records.resize(h.records);
  for (uint8_t i = 0; i < h.records; ++i) {
    ipc::NcclStatsRecord& r = out.records[i];
    std::memcpy(&r, data + sizeof(h) + i * sizeof(r), sizeof(r));
    if (r.op >= ipc::kNumNcclOps) return InvalidArgument("unknown op " + std::to_string(r.op));
  }
  return out;
}

Status NcclStatsReceiver::Take(const uint8_t* data, size_t n, const ucred* sender) {
  if (sender == nullptr) return PermissionDenied("no sender credentials");
  if (!allowed_(*sender))
    return PermissionDenied("sender uid " + std::to_string(sender->uid) + " is not allowed");
  OUTRIDER_ASSIGN_OR_RETURN(NcclTelemetryReport report, ParseNcclTelemetry(data, n));
  const ipc::NcclStatsHeader& h = report.header;
  std::string job = report.job.empty() ? "_unnamed" : report.job;
  if (Counting(metrics_) != nullptr) {
    std::string job_label = metrics_->JobLabel(job);
    std::string comm_label = CommLabel(job_label, h.comm_id);
    const char* source = ipc::NcclSourceName(static_cast<ipc::NcclSource>(h.source));
    for (const ipc::NcclStatsRecord& r : report.records) {
      AgentMetrics::NcclCounters c = metrics_->Nccl(
          job_label, comm_label, ipc::NcclOpName(static_cast<ipc::NcclOp>(r.op)), source);
      c.calls->Inc(static_cast<double>(r.calls));
      c.bytes->Inc(static_cast<double>(r.bytes));
      c.timed_calls->Inc(static_cast<double>(r.timed_calls));
      c.gpu_seconds->Inc(static_cast<double>(r.gpu_ns) / 1e9);
    }
  }
  if (h.dropped != 0) {
    if (dropped_.size() >= 4096 && dropped_.count(h.pid) == 0) dropped_.clear();
    uint64_t& seen = dropped_[h.pid];
    if (h.dropped > seen) {
      if (seen == 0) {
        Logger("control")->info(
            "NCCL telemetry of pid {} (job '{}'): {} reports could not be sent before this one "
            "(their counts came with it)",
            h.pid, job, h.dropped);
      }
      seen = h.dropped;
    }
  }
  return Status::Ok();
}

std::string NcclStatsReceiver::CommLabel(const std::string& job_label, uint64_t comm_id) {
  std::set<uint64_t>& seen = comms_[job_label];
  if (seen.count(comm_id) == 0) {
    if (seen.size() >= kMaxCommLabels) return "_other";
    seen.insert(comm_id);
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(comm_id));
  return hex;
}

}  // namespace outrider::agent
