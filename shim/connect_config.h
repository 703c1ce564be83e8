// How a client reaches its agent and who it is in the job: the options of outrider_connect,
// completed from the environment (torchrun's variables, OUTRIDER_*).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::shim {

struct ConnectConfig {
  std::string socket_path;
  std::string job_id;
  std::string job_id_from;  // where job_id came from, for errors that name what to set
  int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  uint64_t arena_bytes = uint64_t{256} << 20;
  int timeout_ms = 5000;
  // After the agent went away: how long the next call tries to reach an agent at the socket again
  // (a restarted one) before it fails (OUTRIDER_RECONNECT_MS; 0: it fails at once).
  int reconnect_ms = 30000;
  uint32_t spin_us = 20;
  std::string root_addr;  // host:port of the job's root agent (multi-node)
  std::string token;
  ipc::GpuMode gpu_mode = ipc::GpuMode::kStaging;  // OUTRIDER_GPU_MODE: staging or ipc
  // Joins the job at its next generation (outrider_reconfigure), in no job until then; rank and
  // sizes are then the place it is given. The job's generation (0 until it re-forms).
  bool joiner = false;
  uint32_t generation = 0;
  // The job's class and its weight within the class (OUTRIDER_JOB_PRIORITY, OUTRIDER_JOB_WEIGHT).
  ipc::JobClass job_class = ipc::JobClass::kNormal;
  uint32_t job_weight = 1;
};

// The socket a trainer connects to without OUTRIDER_SOCKET: its own session's agent
// ($XDG_RUNTIME_DIR/outrider/agent.sock) where a socket is there, else the node's
// (/run/outrider/agent.sock: the systemd unit's and the container's). A trainer in a login session
// (which has XDG_RUNTIME_DIR) thus reaches the node's agent unless it runs one of its own.
std::string DefaultSocketPath();

// The job id a trainer gets without one given: OUTRIDER_JOB_ID, else torchrun's run id (unless it
// is torchrun's "none"), else slurm-<SLURM_JOB_ID>[.<SLURM_STEP_ID>], else
// torch-<MASTER_ADDR>-<MASTER_PORT>, else "default". `from` says which.
std::string DefaultJobId(std::string* from);

// Fills unset fields from the environment (OUTRIDER_SOCKET, OUTRIDER_JOB_ID, RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, OUTRIDER_ARENA_BYTES, OUTRIDER_SPIN_US, OUTRIDER_GPU_MODE,
// OUTRIDER_JOB_PRIORITY, OUTRIDER_JOB_WEIGHT);
// `explicit_*` < 0 or empty means unset. Unparsable variables are errors naming the variable.
struct ConnectRequest {
  const char* socket_path = nullptr;
  const char* job_id = nullptr;
  int32_t rank = -1, world_size = -1, local_rank = -1, local_world_size = -1;
  uint64_t arena_bytes = 0;
  int timeout_ms = 0;
  bool joiner = false;
  uint32_t job_class = 0;   // an ipc::JobClass value; 0: unset
  uint32_t job_weight = 0;  // 0: unset
};
Result<ConnectConfig> ResolveConnectConfig(const ConnectRequest& request);

}  // namespace outrider::shim
