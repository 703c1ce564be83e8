// The launcher's per-rank environment (torchrun's variables plus OUTRIDER_*), read once and
// checked, shared by the baseline runners written in C++.
#pragma once

#include <optional>
#include <string>

namespace outrider::baselines {

struct RankEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr;          // MASTER_ADDR
  int master_port = 0;              // MASTER_PORT
  int nodes = 1;                    // OUTRIDER_NODES, else world_size
  std::optional<double> rate_gbit;  // OUTRIDER_RATE_GBIT; nullopt when unset, empty or not a number
  bool netns = false;   // OUTRIDER_NETNS=1: each node in its own network namespace (eth0)
  std::string job_id;   // OUTRIDER_JOB_ID, "" when unset
  std::string run_dir;  // OUTRIDER_RUN_DIR, "" when unset
};

// Reads the environment. On a missing or malformed variable returns nullopt and sets *error.
std::optional<RankEnv> ReadRankEnv(std::string* error);

// Parses "8", "64K", "256M", "1G" (binary units, optional "B"/"iB" suffix); nullopt on error.
std::optional<unsigned long long> ParseBytes(const std::string& text);

}  // namespace outrider::baselines
