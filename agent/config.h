// The agent's configuration: AgentOptions and one parameter table (config_params.cc) that drives
// parsing, --help, the startup log (LoadedConfig::effective) and the parameter table of
// docs/operations.md. Precedence: flag > OUTRIDER_* environment variable > TOML config file >
// default. Thread-safety: every function here is reentrant; there is no global mutable state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/control/control_options.h"
#include "agent/engine/engine_options.h"
#include "agent/net/network_options.h"
#include "base/status.h"

namespace outrider::agent {

// Where an effective value came from, lowest precedence first.
enum class Source { kDefault, kConfigFile, kEnv, kFlag };
// "default", "config", "env" or "flag".
std::string_view SourceName(Source source);

// Every part's options, composed: `control` goes to the ControlServer, `network` to the Network and
// `engine` to the jobs as they are; the rest belong to the agent itself and its HTTP listener.
// Defaults are these member initialisers and the parts' (the socket path's is
// ipc::DefaultSocketPath), nowhere else: --help and the parameter table of docs/operations.md print
// them from a default-constructed AgentOptions.
struct AgentOptions {
  ControlServerOptions control;    // the clients' socket, rings and limits
  std::string log_level = "info";  // trace debug info warn error critical off
  // How long a collective may wait for all local ranks to submit before it fails with
  // DEADLINE_EXCEEDED; 0 = never.
  uint32_t op_timeout_ms = 300000;
  // On SIGTERM with jobs running: how long the agent hands them over (ops that have not started
  // go to the next agent, started ones finish here; a job across nodes first agrees with its
  // other nodes where this node stops) before it exits; 0 = it exits at once, failing what is
  // pending.
  uint32_t drain_timeout_ms = 10000;
  // How long a job's metric series stay after its last rank here left (a scrape in that time
  // still reads their last values); then they go, and a new job may take the label's place.
  uint32_t job_metrics_retire_s = 600;
  uint32_t spin_us = 50;  // progress-loop polling before sleeping in epoll
  // The same while GPU work the agent waits for is in flight: polling since the last progress.
  uint32_t gpu_spin_us = 1000;
  // Who runs dense GPU collectives of gpu_mode ipc clients: "auto" (the agent's NCCL under MPS,
  // else the host engine), "force" (NCCL even without MPS) or "off" (the host engine).
  std::string gpu_nccl = "auto";
  // Host memory pinned to stage GPU regions of gpu_mode ipc clients: at most this much (0: an
  // eighth of the host's memory, between 256 MiB and 64 GiB), and a buffer unused this long is
  // given back to the system.
  uint64_t gpu_pinned_max_bytes = 0;
  uint32_t gpu_pinned_idle_ms = 10000;
  NetworkOptions network;  // agent-to-agent service; none when network.port is 0
  EngineOptions engine;    // how collectives cross nodes
  std::string http_address = "127.0.0.1";
  uint32_t http_port = 9750;  // /metrics, /healthz, /readyz, /status; 0 = no HTTP listener
  uint32_t metrics = 1;       // 0: metric updates are skipped (the endpoints still answer)
  std::string config_file;    // --config / OUTRIDER_CONFIG only; empty = none
  // --ready-fd only: the agent writes one byte to this fd once it listens, then closes it.
  int ready_fd = -1;

  // The first bad parameter in table order, named with its value:
  // "sq_entries must be a power of two in [8, 65536], got 100". Every message starts with the
  // parameter's name (LoadConfig relies on it to say where the value came from).
  Status Validate() const;
};

// One row of the startup log.
struct EffectiveValue {
  std::string name;   // config key style: "sq_entries"
  std::string value;  // as it would be written on the command line
  Source source;
  std::string origin;  // "--sq-entries", "OUTRIDER_SQ_ENTRIES", "/etc/outrider.toml", "default"
};

struct LoadedConfig {
  AgentOptions options;
  std::vector<EffectiveValue> effective;  // every parameter, in table order
  // --help, --version or --print-config-table: the caller prints help_text to stdout and exits 0.
  // options and effective are then left at their defaults/empty and nothing else was checked.
  bool help_requested = false;
  std::string help_text;
};

// Returns the value of an environment variable, or nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
// EnvLookup over the real process environment (std::getenv).
EnvLookup ProcessEnvironment();

// Parses argv (argv[0] is the program name), the environment and the TOML file named by
// --config / OUTRIDER_CONFIG, then validates. Unknown flags, unknown keys, values of the wrong
// type, unparsable numbers, a missing or malformed config file and invalid values are
// INVALID_ARGUMENT errors naming the parameter and its source.
Result<LoadedConfig> LoadConfig(int argc, const char* const* argv, const EnvLookup& getenv);

// The --help text: every flag with its env var, config key, default and help.
std::string HelpText();

// Markdown table of every documented parameter (name, flag, env, config key, default, unit, help)
// for docs/operations.md; regenerate with `outrider-agent --print-config-table`.
std::string ParameterTableMarkdown();

}  // namespace outrider::agent
