// What trainers' NCCL telemetry tells the node's agent (the LD_PRELOAD interposer
// liboutrider_nccl.so and the NCCL profiler plugin libnccl-profiler-outrider.so): datagrams on a
// unix socket beside the agent's control socket, each the counts of one communicator since the
// last one. Datagrams so that a trainer never waits for, or fails because of, the agent: a send
// that finds no agent or a full queue is dropped (and counted).
#pragma once

#include <cstdint>
#include <string>

namespace outrider::ipc {

// The agent's telemetry socket for a control socket path.
inline std::string NcclTelemetryPath(const std::string& agent_socket) {
  return agent_socket + ".nccl";
}

inline constexpr uint32_t kNcclTelemetryMagic = 0x54434e4f;  // "ONCT"
inline constexpr uint16_t kNcclTelemetryVersion = 1;

enum class NcclSource : uint8_t { kInterposer = 0, kProfiler = 1 };
inline constexpr int kNumNcclSources = 2;
inline const char* NcclSourceName(NcclSource s) {
  return s == NcclSource::kProfiler ? "profiler" : "interposer";
}

// NCCL calls by kind (ncclBcast counts as broadcast).
enum class NcclOp : uint32_t {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kRecv
};
inline constexpr int kNumNcclOps = 10;
inline const char* NcclOpName(NcclOp op) {
  static const char* const kNames[kNumNcclOps] = {
      "allreduce", "broadcast", "reduce",  "allgather", "reducescatter",
      "alltoall",  "gather",    "scatter", "send",      "recv"};
  auto i = static_cast<uint32_t>(op);
  return i < kNumNcclOps ? kNames[i] : "other";
}

struct NcclStatsRecord {
  uint32_t op;  // NcclOp
  uint32_t reserved;
  uint64_t calls;        // calls made
  uint64_t bytes;        // bytes of the calls' send buffers (the receive buffer for ncclRecv)
  uint64_t timed_calls;  // calls whose GPU time is in gpu_ns (not all are: CUDA graph capture)
  uint64_t gpu_ns;       // summed GPU time of the timed calls
};

struct NcclStatsHeader {
  uint32_t magic;
  uint16_t version;
  uint8_t source;   // NcclSource
  uint8_t records;  // NcclStatsRecord that follow: 1..kNumNcclOps
  uint32_t pid;
  int32_t rank;  // in the communicator
  uint32_t nranks;
  uint32_t reserved;
  uint64_t comm_id;  // the same on every rank of the communicator
  uint64_t dropped;  // datagrams this process could not send before this one
  char job[64];      // NUL-padded: $OUTRIDER_JOB_ID, else $TORCHELASTIC_RUN_ID, else ""
};

inline constexpr size_t kMaxNcclTelemetryBytes =
    sizeof(NcclStatsHeader) + kNumNcclOps * sizeof(NcclStatsRecord);

}  // namespace outrider::ipc
