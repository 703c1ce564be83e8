// The agent's end of trainers' NCCL telemetry (ipc/nccl_stats_wire.h): a datagram socket beside
// the control socket (same mode, group and allowed senders), whose counts go to
// outrider_nccl_*_total{job,comm,op,source}. Communicator labels are bounded like job labels:
// past kMaxCommLabels per job they share comm="_other". A datagram is counted whole or not at
// all; outrider_nccl_telemetry_datagrams_total{result} counts both.
// Thread-safety: loop thread only.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/event_loop.h"
#include "agent/observability.h"
#include "base/status.h"
#include "ipc/nccl_stats_wire.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// One datagram, checked whole before anything of it is counted: header, every record, and the
// job name (a job id like hello's, or empty). Thread-safety: a pure function.
struct NcclTelemetryReport {
  ipc::NcclStatsHeader header;
  std::string job;  // "" when the trainer named none
  std::vector<ipc::NcclStatsRecord> records;
};
Result<NcclTelemetryReport> ParseNcclTelemetry(const uint8_t* data, size_t n);

class NcclStatsReceiver {
 public:
  static constexpr size_t kMaxCommLabels = 32;
  // Whether a sender with these credentials (SCM_CREDENTIALS) may report (the control socket's
  // rule).
  using Allowed = std::function<bool(const ucred& sender)>;

  // `metrics` (not owned; may be null: the datagrams are checked and counted here only).
  NcclStatsReceiver(EventLoop* loop, AgentMetrics* metrics, Allowed allowed)
      : loop_(loop), metrics_(metrics), allowed_(std::move(allowed)) {}
  ~NcclStatsReceiver() { Close(); }
  // Binds `path` (mode `mode`, group `gid` unless -1) and starts reading it.
  Status Open(const std::string& path, mode_t mode, gid_t gid);
  void Close();
  uint64_t accepted() const { return accepted_; }
  uint64_t rejected() const { return rejected_; }

 private:
  void OnReadable();
  // One datagram: counted, or why not.
  // `sender`: null when the datagram came without credentials.
  Status Take(const uint8_t* data, size_t n, const ucred* sender);
  std::string CommLabel(const std::string& job_label, uint64_t comm_id);

  EventLoop* loop_;
  AgentMetrics* metrics_;
  Allowed allowed_;
  UniqueFd fd_;
  std::string path_;
  std::map<std::string, std::set<uint64_t>> comms_;  // by job label
  std::map<uint32_t, uint64_t> dropped_;             // by pid: the drops last reported
  uint64_t accepted_ = 0, rejected_ = 0;
  bool said_rejected_ = false;
};

}  // namespace outrider::agent
