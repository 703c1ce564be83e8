// NCCL telemetry in a trainer process (ipc/nccl_stats_wire.h): per-communicator counts of calls,
// bytes and GPU time, sent to the node's agent as datagrams at most once a second per
// communicator, and when a communicator goes or the process exits. Used by the interposer
// (liboutrider_nccl.so) and the profiler plugin (libnccl-profiler-outrider.so).
// The agent's socket: $OUTRIDER_SOCKET, else the default (ipc/defaults.h), plus ".nccl"; the job:
// $OUTRIDER_JOB_ID, else $TORCHELASTIC_RUN_ID, else none.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstdint>
#include <list>
#include <string>

#include "base/mutex.h"
#include "ipc/nccl_stats_wire.h"
#include "ipc/unique_fd.h"

namespace outrider::shim {

class NcclStatsSender {
 public:
  struct Comm;  // one communicator's counts

  explicit NcclStatsSender(ipc::NcclSource source);
  ~NcclStatsSender();  // sends what is left
  NcclStatsSender(const NcclStatsSender&) = delete;
  NcclStatsSender& operator=(const NcclStatsSender&) = delete;

  // A communicator to count calls of (id: the same on every rank of it); Forget sends its last
  // counts and frees it.
  Comm* Track(uint64_t comm_id, int rank, int nranks);
  void Forget(Comm* c);
  static uint64_t Id(const Comm* c);
  void Count(Comm* c, ipc::NcclOp op, uint64_t bytes);
  void Time(Comm* c, ipc::NcclOp op, uint64_t gpu_ns);
  // Sends the counts of communicators not sent for a second.
  void MaybeFlush();
  void FlushAll();

  const std::string& socket_path() const { return path_; }
  const std::string& job() const { return job_; }

 private:
  void SendLocked(Comm* c) OUTRIDER_REQUIRES(mu_);

  ipc::NcclSource source_;
  std::string path_, job_;
  Mutex mu_;
  std::list<Comm> comms_ OUTRIDER_GUARDED_BY(mu_);
  UniqueFd fd_ OUTRIDER_GUARDED_BY(mu_);
  uint64_t next_connect_ns_ OUTRIDER_GUARDED_BY(mu_) = 0;
  uint64_t dropped_ OUTRIDER_GUARDED_BY(mu_) = 0;
};

// FNV-1a over `n` bytes, from `seed` (communicator ids).
uint64_t HashBytes(const void* p, size_t n, uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace outrider::shim
