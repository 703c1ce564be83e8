// Shared pieces of the outrider-bench modes: an agent to talk to, rank processes forked from
// the bench, results shared between them, statistics and the JSON output convention
// ({"rows": [...], "env": {...}}).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "outrider/outrider.h"
#include "tools/harness/agent_process.h"

namespace outrider::bench {

struct CommonOptions {
  std::string socket;     // "" = start a private agent
  std::string json_path;  // "" = no JSON file
  bool verbose = false;
  bool trace = false;    // print where the agent spent each size's ops (its /status traces)
  std::string http_url;  // the agent's HTTP listener for --trace ("": from the environment)
};

// The agent the ranks connect to: a private child agent, or an existing one at --socket.
class BenchAgent {
 public:
  // `agent_args`: flags for a private agent.
  static Result<std::unique_ptr<BenchAgent>> Start(const CommonOptions& options,
                                                   std::vector<std::string> agent_args = {});
  const std::string& socket_path() const { return socket_; }
  // Stops a private agent with SIGTERM and describes how it ended ("" for an external agent).
  std::string Stop();
  std::string LogTail() const;
  // A private agent's whole log ("" for an external agent).
  std::string Log() const;

 private:
  std::unique_ptr<harness::AgentProcess> agent_;
  std::string socket_;
};

// Runs fn(rank) in `ranks` forked processes and waits for all. A rank that fails (non-zero
// exit or signal) makes the others get SIGKILLed. Returns the first failure.
Status RunRanks(int ranks, const std::function<int(int rank)>& fn);

// Anonymous shared memory that forked ranks write into and the parent reads.
template <typename T>
class Shared {
 public:
  explicit Shared(size_t count);
  ~Shared();
  T* get() const { return p_; }
  T& operator[](size_t i) const { return p_[i]; }

 private:
  T* p_;
  size_t bytes_;
};
void* MapSharedAnon(size_t bytes);
void UnmapShared(void* p, size_t bytes);
template <typename T>
Shared<T>::Shared(size_t count)
    : p_(static_cast<T*>(MapSharedAnon(sizeof(T) * count))), bytes_(sizeof(T) * count) {}
template <typename T>
Shared<T>::~Shared() {
  UnmapShared(p_, bytes_);
}

// Connects rank `rank` of `ranks` on this node to the agent, exiting the process on failure.
outrider_client_t* ConnectRank(const std::string& socket, const std::string& job, int rank,
                               int ranks);
// Checks an outrider call inside a rank process; prints the client's last error and exits on
// failure.
void Must(outrider_client_t* c, int rc, const char* what);

double Median(std::vector<double> v);
double Percentile(std::vector<double> v, double p);  // p in [0, 100]
double NowUs();
std::string FormatBytes(uint64_t bytes);
// Parses "8", "64K", "256M", "1G" (binary units).
Result<uint64_t> ParseBytes(const std::string& text);

nlohmann::json EnvJson();
Status WriteJson(const std::string& path, const nlohmann::json& rows);
// Writes common.json_path if set; on failure prints why and returns false.
bool WriteJsonOrSay(const CommonOptions& common, const nlohmann::json& rows);
// A rank started by a launcher (torchrun environment) connects to its node's agent, or to
// --socket; prints why and returns nullptr on failure.
outrider_client_t* ConnectLaunched(const CommonOptions& common);

}  // namespace outrider::bench
