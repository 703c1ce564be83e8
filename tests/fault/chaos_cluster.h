// What outrider-chaos's modes share: the options, the emulated cluster (one agent per node on
// loopback, each on a fixed port so that a restarted agent is found where the old one was), and
// small helpers. The fault rounds are in chaos.cc, the elastic mode in chaos_elastic.cc, the
// port-abuse mode in chaos_port.cc, the command line in chaos_main.cc.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "tests/support/test_support.h"
#include "tools/harness/agent_process.h"

namespace outrider::chaos {

inline constexpr int kClientWaitMs = 20000;  // a rank still waiting after this has hung
inline constexpr uint64_t kBystanderCount = 1 << 14;
inline constexpr int kMaxRanks = 64;  // the rounds' victim job: --nodes x --ranks-per-node

inline int64_t NowNs() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// A process's resident memory (-1 if it is gone).
inline long RssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

inline double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

struct Options {
  int nodes = 3;
  int ranks_per_node = 2;
  int kills = 100;
  int trainer_stops = 5;
  int agent_kills = 5;
  int agent_stops = 5;
  uint32_t seed = 1;
  int same_node_bound_ms = 100;
  int remote_bound_ms = 1000;
  int op_timeout_ms = 1000;
  int peer_timeout_ms = 2000;
  int heartbeat_ms = 200;
  int rss_slack_mib = 32;
  // Largest dense allreduce of the victim job (its sizes cycle from 1 KiB up to it by doubling):
  // large ones keep sends to every peer in flight (and partly written) when an agent is killed.
  uint64_t dense_max_bytes = 1 << 20;
  std::string json;
  std::string log_dir;  // "": each agent's log goes with its temporary directory
  bool verbose = false;
  bool elastic = false;
  bool port_abuse = false;
  int abuse_rounds = 3;        // port abuse: idle and abused phases, interleaved
  int abuse_phase_ms = 3000;   // port abuse: each phase's length
  double p99_ratio_bound = 2;  // port abuse: abused p99 over idle p99, at most
  int double_kills = 0;        // elastic: rounds that kill a trainer, then rank 0 0-300 ms later
  int joiner_deaths = 0;       // elastic: rounds whose first joiner is killed 0-5 ms after asking
  int reform_bound_ms = 10000;
  int join_bound_ms = 30000;
};

// The emulated cluster: one agent per node, each on a fixed port so that a restarted agent is
// found where the old one was.
class Cluster {
 public:
  explicit Cluster(const Options& o) : o_(o) {
    ::setenv("UCX_TLS", "tcp", 0);
    ::setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
    for (int n = 0; n < o.nodes; ++n) ports_.push_back(testing::FreePort());
    agents_.resize(static_cast<size_t>(o.nodes));
  }
  Status Start(int n) {
    harness::AgentProcessOptions a;
    a.extra_args = {"--port",
                    std::to_string(ports_[static_cast<size_t>(n)]),
                    "--listen-address",
                    "127.0.0.1",
                    "--heartbeat-ms",
                    std::to_string(o_.heartbeat_ms),
                    "--peer-timeout-ms",
                    std::to_string(o_.peer_timeout_ms),
                    "--op-timeout-ms",
                    std::to_string(o_.op_timeout_ms),
                    "--rendezvous-timeout-ms",
                    "8000"};
    if (!o_.log_dir.empty())
      a.log_path =
          o_.log_dir + "/agent-" + std::to_string(n) + "-" + std::to_string(starts_++) + ".log";
    agents_[static_cast<size_t>(n)].reset();
    auto p = harness::AgentProcess::Start(a);
    if (!p.ok()) return p.status().Annotate("starting the agent of node " + std::to_string(n));
    agents_[static_cast<size_t>(n)] = std::move(*p);
    return Status::Ok();
  }
  harness::AgentProcess& agent(int n) { return *agents_[static_cast<size_t>(n)]; }
  uint16_t port(int n) const { return ports_[static_cast<size_t>(n)]; }
  int nodes() const { return o_.nodes; }
  const Options& options() const { return o_; }

 private:
  const Options& o_;
  std::vector<uint16_t> ports_;
  int starts_ = 0;
  std::vector<std::unique_ptr<harness::AgentProcess>> agents_;
};

// The fault rounds (chaos.cc): faults into a job beside a second one, errors and bounds checked.
// Exit status: 0 if every check passed.
int RunRounds(const Options& o);

// Elastic mode (chaos_elastic.cc): after every fault the victim job re-forms and a replacement
// joins. Exit status: 0 if every check passed.
int RunElastic(const Options& o);

// Port-abuse mode (chaos_port.cc): a 2-node job's op latency with the agent port idle and under
// held partial frames and forged reports. Exit status: 0 if every check passed.
int RunPortAbuse(const Options& o);

}  // namespace outrider::chaos
