// ResolveConnectConfig: the connect options completed from the environment, and checked.
#include "shim/connect_config.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

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

std::string DefaultJobId(std::string* from) {
  // What the launcher already says about the job, most specific first. torchrun's run id is
  // "none" unless --rdzv-id (or --standalone) set it; its master address and port are the job's
  // own rendezvous endpoint, which no other running job shares.
  const char* run_id = Env("TORCHELASTIC_RUN_ID");
  if (const char* id = Env("OUTRIDER_JOB_ID")) {
    *from = "OUTRIDER_JOB_ID";
    return id;
  }
  if (run_id != nullptr && std::string_view(run_id) != "none") {
    *from = "TORCHELASTIC_RUN_ID (torchrun --rdzv-id)";
    return run_id;
  }
  if (const char* slurm = Env("SLURM_JOB_ID")) {
    *from = "SLURM_JOB_ID";
    std::string id = std::string("slurm-") + slurm;
    if (const char* step = Env("SLURM_STEP_ID")) id += std::string(".") + step;
    return id;
  }
  if (Env("MASTER_ADDR") != nullptr && Env("MASTER_PORT") != nullptr) {
    *from = "MASTER_ADDR and MASTER_PORT";
    return std::string("torch-") + Env("MASTER_ADDR") + "-" + Env("MASTER_PORT");
  }
  *from = "the default (no OUTRIDER_JOB_ID, torchrun run id, Slurm job or MASTER_ADDR/PORT)";
  return "default";
}

std::string DefaultSocketPath() {
  const std::string node = ipc::DefaultSocketPath(nullptr);
  const std::string session = ipc::DefaultSocketPath(std::getenv("XDG_RUNTIME_DIR"));
  struct stat st {};
  if (session != node && ::stat(session.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return session;
  return node;
}

Result<ConnectConfig> ResolveConnectConfig(const ConnectRequest& req) {
  ConnectConfig c;
  if (req.socket_path) {
    c.socket_path = req.socket_path;
  } else if (Env("OUTRIDER_SOCKET")) {
    c.socket_path = Env("OUTRIDER_SOCKET");
  } else {
    c.socket_path = DefaultSocketPath();
  }
  if (req.job_id) {
    c.job_id = req.job_id;
    c.job_id_from = "the connect options";
  } else {
    c.job_id = DefaultJobId(&c.job_id_from);
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
  OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("OUTRIDER_RECONNECT_MS", &c.reconnect_ms));
  if (c.reconnect_ms < 0)
    return InvalidArgument("OUTRIDER_RECONNECT_MS=" + std::to_string(c.reconnect_ms) +
                           " is negative (0: never reconnect)");
  if (const char* mode = Env("OUTRIDER_GPU_MODE")) {
    if (std::string_view(mode) == "staging" || *mode == '\0') {
      c.gpu_mode = ipc::GpuMode::kStaging;
    } else if (std::string_view(mode) == "ipc") {
      c.gpu_mode = ipc::GpuMode::kIpc;
    } else {
      return InvalidArgument(std::string("OUTRIDER_GPU_MODE=") + mode +
                             " is neither staging nor ipc");
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
  if (req.job_class != 0) {
    if (req.job_class > static_cast<uint32_t>(ipc::JobClass::kLow)) {
      return InvalidArgument("job class " + std::to_string(req.job_class) +
                             " is not OUTRIDER_JOB_CLASS_HIGH, _NORMAL or _LOW");
    }
    c.job_class = static_cast<ipc::JobClass>(req.job_class);
  } else if (const char* name = Env("OUTRIDER_JOB_PRIORITY")) {
    std::optional<ipc::JobClass> cls = ipc::ParseJobClass(name);
    if (!cls) {
      return InvalidArgument(std::string("OUTRIDER_JOB_PRIORITY=") + name +
                             " is not high, normal or low");
    }
    c.job_class = *cls;
  }
  if (req.job_weight != 0) {
    c.job_weight = req.job_weight;
  } else {
    OUTRIDER_RETURN_IF_ERROR(ParseEnvInt("OUTRIDER_JOB_WEIGHT", &c.job_weight));
  }
  if (c.job_weight < 1 || c.job_weight > ipc::kMaxJobWeight) {
    return InvalidArgument("job weight " + std::to_string(c.job_weight) + " is outside 1.." +
                           std::to_string(ipc::kMaxJobWeight) + " (OUTRIDER_JOB_WEIGHT)");
  }
  if (c.root_addr.size() >= ipc::kAddrBytes) {
    return InvalidArgument("root agent address '" + c.root_addr + "' is longer than " +
                           std::to_string(ipc::kAddrBytes - 1) + " characters");
  }
  if (c.token.size() >= ipc::kTokenBytes) {
    return InvalidArgument("OUTRIDER_JOB_TOKEN is longer than " +
                           std::to_string(ipc::kTokenBytes - 1) + " characters");
  }
  c.timeout_ms = req.timeout_ms > 0 ? req.timeout_ms : 5000;
  // A joiner has no place yet: the agents give it one when the job re-forms.
  c.joiner = req.joiner;
  if (c.joiner) {
    c.rank = c.local_rank = 0;
    c.world_size = c.local_world_size = 1;
  }
  if (c.job_id.size() >= ipc::kJobIdBytes) {
    return InvalidArgument("job id '" + c.job_id + "' is longer than " +
                           std::to_string(ipc::kJobIdBytes - 1) + " characters");
  }
  if (c.world_size < 1 || c.rank < 0 || c.rank >= c.world_size) {
    return InvalidArgument("rank " + std::to_string(c.rank) + " is outside world size " +
                           std::to_string(c.world_size));
  }
  if (c.local_world_size < 1 || c.local_rank < 0 || c.local_rank >= c.local_world_size) {
    return InvalidArgument("local rank " + std::to_string(c.local_rank) +
                           " is outside local world size " + std::to_string(c.local_world_size));
  }
  return c;
}

}  // namespace outrider::shim
