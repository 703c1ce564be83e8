// Implementation of the shared bench helpers.
#include "tools/bench/bench_common.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace outrider::bench {

Result<std::unique_ptr<BenchAgent>> BenchAgent::Start(const CommonOptions& options,
                                                      std::vector<std::string> agent_args) {
  auto a = std::make_unique<BenchAgent>();
  if (!options.socket.empty()) {
    a->socket_ = options.socket;
    return a;
  }
  harness::AgentProcessOptions ao;
  ao.extra_args = std::move(agent_args);
  if (options.verbose) ao.extra_args.insert(ao.extra_args.end(), {"--log-level", "debug"});
  OUTRIDER_ASSIGN_OR_RETURN(a->agent_, harness::AgentProcess::Start(ao));
  a->socket_ = a->agent_->socket_path();
  return a;
}

std::string BenchAgent::Stop() {
  if (!agent_) return "";
  int status = agent_->Stop(SIGTERM);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "agent stopped cleanly (SIGTERM, exit 0)";
  return "agent ended badly (wait status " + std::to_string(status) + "):\n" + LogTail();
}

std::string BenchAgent::Log() const { return agent_ ? agent_->ReadLog() : ""; }

std::string BenchAgent::LogTail() const {
  if (!agent_) return "";
  std::string log = agent_->ReadLog();
  return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
}

Status RunRanks(int ranks, const std::function<int(int)>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) return ErrnoStatus("fork", errno);
    if (pid == 0) {
      int rc = fn(r);
      std::fflush(stdout);
      _exit(rc);
    }
    pids.push_back(pid);
  }
  Status first;
  size_t left = pids.size();
  while (left > 0) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto it = std::find(pids.begin(), pids.end(), pid);
    if (it == pids.end()) continue;
    int rank = static_cast<int>(it - pids.begin());
    *it = -1;
    --left;
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && first.ok()) {
      first =
          Internal("rank " + std::to_string(rank) +
                   (WIFSIGNALED(status) ? " died of signal " + std::to_string(WTERMSIG(status))
                                        : " exited with " + std::to_string(WEXITSTATUS(status))));
      for (pid_t p : pids) {
        if (p > 0) ::kill(p, SIGKILL);
      }
    }
  }
  return first;
}

void* MapSharedAnon(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  return p;
}

void UnmapShared(void* p, size_t bytes) { ::munmap(p, bytes); }

outrider_client_t* ConnectRank(const std::string& socket, const std::string& job, int rank,
                               int ranks) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = job.c_str();
  o.rank = rank;
  o.world_size = ranks;
  o.local_rank = rank;
  o.local_world_size = ranks;
  outrider_client_t* c = nullptr;
  if (outrider_connect(&o, &c) != OUTRIDER_OK) {
    std::fprintf(stderr, "rank %d: connect failed: %s\n", rank, outrider_last_error(nullptr));
    std::exit(3);
  }
  return c;
}

void Must(outrider_client_t* c, int rc, const char* what) {
  if (rc == OUTRIDER_OK) return;
  std::fprintf(stderr, "rank %d: %s failed: %s\n", outrider_rank(c), what, outrider_last_error(c));
  std::exit(4);
}

double Median(std::vector<double> v) { return Percentile(std::move(v), 50); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double idx = p / 100.0 * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(idx));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

double NowUs() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

std::string FormatBytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), v == std::floor(v) ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

Result<uint64_t> ParseBytes(const std::string& text) {
  if (text.empty()) return InvalidArgument("empty size");
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (...) {
    return InvalidArgument("bad size '" + text + "'");
  }
  std::string suffix = text.substr(pos);
  uint64_t mult = 1;
  if (suffix == "K" || suffix == "KiB" || suffix == "k")
    mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB")
    mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB")
    mult = 1ull << 30;
  else if (!suffix.empty() && suffix != "B")
    return InvalidArgument("bad size suffix in '" + text + "' (use K, M or G)");
  return uint64_t{v} * mult;
}

nlohmann::json EnvJson() {
  utsname u{};
  ::uname(&u);
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  time_t now = ::time(nullptr);
  char when[64];
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"host", host},
          {"kernel", std::string(u.release)},
          {"cpus", ::sysconf(_SC_NPROCESSORS_ONLN)},
          {"date", when},
          {"outrider_version", "0.1.0"}};
}

Status WriteJson(const std::string& path, const nlohmann::json& rows) {
  nlohmann::json doc = {{"rows", rows}, {"env", EnvJson()}};
  std::ofstream out(path);
  if (!out) return ErrnoStatus("opening " + path, errno);
  out << doc.dump(2) << "\n";
  if (!out) return ErrnoStatus("writing " + path, errno);
  return Status::Ok();
}

bool WriteJsonOrSay(const CommonOptions& common, const nlohmann::json& rows) {
  if (common.json_path.empty()) return true;
  Status st = WriteJson(common.json_path, rows);
  if (!st.ok()) std::fprintf(stderr, "outrider-bench: %s\n", st.ToString().c_str());
  return st.ok();
}

outrider_client_t* ConnectLaunched(const CommonOptions& common) {
  outrider_connect_options_t co;
  outrider_connect_options_init(&co);
  if (!common.socket.empty()) co.socket_path = common.socket.c_str();
  outrider_client_t* c = nullptr;
  if (outrider_connect(&co, &c) != OUTRIDER_OK) {
    std::fprintf(stderr, "outrider-bench: connect failed: %s\n", outrider_last_error(nullptr));
    return nullptr;
  }
  return c;
}

}  // namespace outrider::bench
