// liboutrider_nccl.so in an unmodified NCCL program (tests/nccl_preload/nccl_app.cc, linked against
// the tests' fake libnccl.so.2, which exports weak nccl* and strong pnccl* as NCCL does), run with
// LD_PRELOAD against a real agent: the program's results are right, and the agent's /metrics
// counts every call once (ncclBcast, which NCCL runs through its own ncclBroadcast, once), with
// GPU time for the calls not made under CUDA graph capture, all ranks under one communicator; the
// program runs as well without an agent; a program with NCCL linked in is told its calls cannot
// be interposed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

struct Ran {
  int status = -1;
  std::string err;
};

// Runs `argv` with `env` added to this process's environment; its stderr is returned.
Ran RunProgram(const std::vector<std::string>& argv,
               const std::vector<std::pair<std::string, std::string>>& env) {
  char path[] = "/tmp/outrider-nccl-preload-XXXXXX";
  int fd = ::mkstemp(path);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::_Exit(127);
  }
  Ran r;
  int st = 0;
  ::waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  r.err = s.str();
  ::close(fd);
  ::unlink(path);
  return r;
}

// The sum of `series` over the lines of a /metrics body that carry every label in `labels`
// (`name="value"`), and the distinct values of label `collect` among them.
double Sum(const std::string& body, const std::string& series,
           const std::vector<std::string>& labels, std::set<std::string>* collect_values = nullptr,
           const std::string& collect = "comm") {
  double total = 0;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + "{", 0) != 0) continue;
    bool all = true;
    for (const std::string& l : labels) all = all && line.find(l) != std::string::npos;
    if (!all) continue;
    total += std::stod(line.substr(line.rfind(' ') + 1));
    if (collect_values != nullptr) {
      size_t at = line.find(collect + "=\"");
      if (at != std::string::npos) {
        at += collect.size() + 2;
        collect_values->insert(line.substr(at, line.find('"', at) - at));
      }
    }
  }
  return total;
}

// In sanitizer builds the preloaded library comes before the program's ASan runtime in the
// list of libraries, which ASan refuses unless told that it is loaded anyway.
std::string AsanOptions() {
  const char* have = std::getenv("ASAN_OPTIONS");
  return std::string(have != nullptr ? have : "") + ":verify_asan_link_order=0";
}

std::vector<std::pair<std::string, std::string>> AppEnv(const std::string& socket,
                                                        const std::string& job) {
  return {{"LD_PRELOAD", INTERPOSER_LIBRARY},
          {"OUTRIDER_SOCKET", socket},
          {"OUTRIDER_JOB_ID", job},
          {"OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER},
          {"OUTRIDER_FAKE_CUDA_DEVICES", "2"},
          {"ASAN_OPTIONS", AsanOptions()}};
}

TEST(NcclPreloadTest, PassthroughRunsTheRealNcclAndTheAgentCountsEveryCallOnce) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  Ran app = RunProgram({NCCL_APP, "2", "--capture"}, AppEnv(agent->socket_path(), "nccl-preload"));
  ASSERT_EQ(app.status, 0) << app.err;
  const std::vector<std::string> job = {"training_job=\"nccl-preload\"", "source=\"interposer\""};
  auto with = [&](const char* op) {
    std::vector<std::string> l = job;
    l.push_back(std::string("op=\"") + op + "\"");
    return l;
  };
  // The ranks sent their counts as they exited; the agent reads them on its loop.
  std::string body;
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
  do {
    body = HttpGet(http, "/metrics");
    if (Sum(body, "outrider_nccl_calls_total", with("recv")) >= 2 &&
        Sum(body, "outrider_nccl_calls_total", with("allreduce")) >= 10)
      break;
    ipc::WaitReadable(-1, -1, 20);
  } while (ipc::MonotonicNs() < deadline);
  std::set<std::string> comms;
  EXPECT_EQ(Sum(body, "outrider_nccl_calls_total", with("allreduce"), &comms), 10)
      << body;  // 5 per rank
  EXPECT_EQ(comms.size(), 1u) << "both ranks name their communicator alike";
  EXPECT_EQ(Sum(body, "outrider_nccl_bytes_total", with("allreduce")), 8 * 4096 + 2 * 1024) << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_timed_calls_total", with("allreduce")), 8)
      << "the captured ones have no time\n"
      << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_calls_total", with("broadcast")), 2)
      << "ncclBcast's own ncclBroadcast is not counted\n"
      << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_timed_calls_total", with("broadcast")), 2) << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_calls_total", with("send")), 2) << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_calls_total", with("recv")), 2) << body;
  EXPECT_EQ(Sum(body, "outrider_nccl_timed_calls_total", with("send")) +
                Sum(body, "outrider_nccl_timed_calls_total", with("recv")),
            2)
      << "a group is timed once per rank\n"
      << body;
  EXPECT_GT(Sum(body, "outrider_nccl_gpu_seconds_total", with("allreduce")), 0) << body;
}

// The offload tests' environment: torchrun's (the app gives each rank RANK and LOCAL_RANK), the
// shim's GPU mode, and the offload asked for.
std::vector<std::pair<std::string, std::string>> OffloadEnv(const std::string& socket,
                                                            const std::string& job,
                                                            const std::string& spec) {
  auto env = AppEnv(socket, job);
  env.insert(env.end(), {{"WORLD_SIZE", "2"},
                         {"LOCAL_WORLD_SIZE", "2"},
                         {"OUTRIDER_GPU_MODE", "staging"},
                         {"OUTRIDER_NCCL_OFFLOAD", spec}});
  return env;
}

// Allreduces the agent ran for jobs whose id contains `job`.
double AgentAllreduces(uint16_t http, const std::string& job) {
  return Sum(HttpGet(http, "/metrics"), "outrider_ops_total",
             {job, "op=\"allreduce\"", "result=\"OK\""});
}

TEST(NcclPreloadTest, OffloadedAllreducesRunThroughTheAgentOnTheStreamWithTheSameResults) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  Ran app = RunProgram({NCCL_APP, "2", "--capture"},
                       OffloadEnv(agent->socket_path(), "nccl-offload", "allreduce>=1K"));
  ASSERT_EQ(app.status, 0) << app.err;
  EXPECT_NE(app.err.find("offloading allreduce>=1K of communicator"), std::string::npos) << app.err;
  EXPECT_NE(app.err.find("offload: calls under CUDA graph capture go to NCCL"), std::string::npos)
      << app.err;
  EXPECT_NE(
      app.err.find("offload: a call of an NCCL dtype or reduce op the agent lacks goes to NCCL"),
      std::string::npos)
      << app.err;
  // Later calls reap the offloaded ones by their handles: each one is known and done.
  EXPECT_EQ(app.err.find("offload: an op failed"), std::string::npos) << app.err;
  // Per rank: the plan's agreement and the 3 f32 allreduces; the u32 one, the captured one, the
  // broadcast and the send/receive went to NCCL (the program checked every result).
  EXPECT_EQ(AgentAllreduces(http, "nccl-offload-nccl-"), 8) << HttpGet(http, "/metrics");
}

TEST(NcclPreloadTest, RanksWhosePlansDifferAllKeepToNccl) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  auto env = OffloadEnv(agent->socket_path(), "nccl-differ", "allreduce");
  env.push_back({"NCCL_APP_OFFLOAD_1", "allreduce>=1M"});
  Ran app = RunProgram({NCCL_APP, "2"}, env);
  ASSERT_EQ(app.status, 0) << app.err;
  size_t first = app.err.find("offload: the ranks' OUTRIDER_NCCL_OFFLOAD differ");
  ASSERT_NE(first, std::string::npos) << app.err;
  EXPECT_NE(app.err.find("offload: the ranks' OUTRIDER_NCCL_OFFLOAD differ", first + 1),
            std::string::npos)
      << "both ranks say so\n"
      << app.err;
  EXPECT_EQ(AgentAllreduces(http, "nccl-differ-nccl-"), 2) << "the agreement only\n"
                                                           << HttpGet(http, "/metrics");
}

TEST(NcclPreloadTest, ABadOffloadSpecIsNamedAndEveryCallGoesToNccl) {
  Ran app = RunProgram({NCCL_APP, "2"},
                       OffloadEnv("/nonexistent/agent.sock", "nccl-bad", "allreduce>=lots"));
  EXPECT_EQ(app.status, 0) << app.err;
  EXPECT_NE(app.err.find("OUTRIDER_NCCL_OFFLOAD='allreduce>=lots': 'lots' is not a size"),
            std::string::npos)
      << app.err;
}

TEST(NcclPreloadTest, OffloadWithoutAnAgentSaysSoAndEveryCallGoesToNccl) {
  Ran app = RunProgram({NCCL_APP, "2"},
                       OffloadEnv("/nonexistent/agent.sock", "nccl-unreachable", "allreduce"));
  EXPECT_EQ(app.status, 0) << app.err;
  EXPECT_NE(app.err.find("offload: cannot reach the agent"), std::string::npos) << app.err;
}

TEST(NcclPreloadTest, WithoutAnAgentTheProgramRunsAsItWould) {
  Ran app = RunProgram({NCCL_APP, "2"}, AppEnv("/nonexistent/agent.sock", "nccl-no-agent"));
  EXPECT_EQ(app.status, 0) << app.err;
  EXPECT_EQ(app.err.find("outrider-nccl"), std::string::npos) << app.err;
}

TEST(NcclPreloadTest, AProgramWithNcclLinkedInIsToldItsCallsCannotBeInterposed) {
  Ran app = RunProgram({STATIC_NCCL_APP},
                       {{"LD_PRELOAD", INTERPOSER_LIBRARY}, {"ASAN_OPTIONS", AsanOptions()}});
  EXPECT_EQ(app.status, 0) << app.err;
  EXPECT_NE(app.err.find("NCCL is linked statically into " STATIC_NCCL_APP
                         ": its calls cannot be interposed"),
            std::string::npos)
      << app.err;
}

}  // namespace
}  // namespace outrider::testing
