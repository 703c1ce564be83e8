// libnccl-profiler-outrider.so driven through NCCL's profiler plugin interface (versions 5 and 4),
// as NCCL drives it, against a real agent: init asks for collective, point-to-point and kernel
// channel events; a collective is counted with its bytes when it starts, and timed from its first
// channel's GPU start to its last channel's GPU stop once the collective and all its channels are
// stopped (in any order); a call without channel events is counted but not timed; the agent's
// /metrics shows them under source="profiler".
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "shim/nccl/profiler_abi.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using nccl_profiler::DescrV4;
using nccl_profiler::DescrV5;
using nccl_profiler::ProfilerV4;
using nccl_profiler::ProfilerV5;
using nccl_profiler::StateArgs;
constexpr int kKernelChStop = nccl_profiler::kStateKernelChStop;

// In a child process: drives the plugin as NCCL would; 0 if every call succeeded as expected.
int DrivePlugin() {
  void* lib = ::dlopen(PROFILER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return 10;
  auto* v5 = static_cast<ProfilerV5*>(::dlsym(lib, "ncclProfiler_v5"));
  auto* v4 = static_cast<ProfilerV4*>(::dlsym(lib, "ncclProfiler_v4"));
  if (v5 == nullptr || v4 == nullptr || std::string(v5->name) != "outrider") return 11;
  // Version 5: an allreduce of 1024 f32 on two channels, GPU time 1000 -> 7000 ns.
  void* ctx = nullptr;
  int mask = 0;
  if (v5->init(&ctx, 0xabc, &mask, "world", 1, 2, 0, nullptr) != 0 || ctx == nullptr) return 12;
  if (mask != (2 | 4 | 64)) return 13;
  DescrV5 coll{};
  coll.type = 2;
  coll.u.coll.func = "AllReduce";
  coll.u.coll.count = 1024;
  coll.u.coll.datatype = "ncclFloat32";
  void* h = nullptr;
  if (v5->start(ctx, &h, &coll) != 0 || h == nullptr) return 14;
  void* ch[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    DescrV5 k{};
    k.type = 64;
    k.parent = h;
    k.u.kernel_ch.channel = static_cast<uint8_t>(i);
    k.u.kernel_ch.timer = 1000 + 500 * static_cast<uint64_t>(i);
    if (v5->start(ctx, &ch[i], &k) != 0 || ch[i] == nullptr) return 15;
  }
  if (v5->stop(h) != 0) return 16;  // NCCL stops the collective before its channels
  for (int i = 0; i < 2; ++i) {
    StateArgs a{};
    a.kernel_ch.timer = 5000 + 2000 * static_cast<uint64_t>(i);
    if (v5->record(ch[i], kKernelChStop, &a) != 0 || v5->stop(ch[i]) != 0) return 17;
  }
  // An event it does not ask for: no handle.
  DescrV5 group{};
  group.type = 1;
  void* none = reinterpret_cast<void*>(1);
  if (v5->start(ctx, &none, &group) != 0 || none != nullptr) return 18;
  if (v5->finalize(ctx) != 0) return 19;
  // Version 4: a send of 256 i32, no channel events (not timed).
  void* ctx4 = nullptr;
  if (v4->init(&ctx4, &mask, "p2p", 0xdef, 1, 2, 1, nullptr) != 0 || ctx4 == nullptr) return 20;
  DescrV4 send{};
  send.type = 4;
  send.u.p2p.func = "Send";
  send.u.p2p.count = 256;
  send.u.p2p.datatype = "ncclInt32";
  send.u.p2p.peer = 0;
  void* hs = nullptr;
  if (v4->start(ctx4, &hs, &send) != 0 || hs == nullptr || v4->stop(hs) != 0) return 21;
  if (v4->finalize(ctx4) != 0) return 22;
  return 0;
}

double Value(const std::string& body, const std::string& series, const std::string& comm,
             const std::string& op) {
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + "{", 0) == 0 &&
        line.find("comm=\"" + comm + "\"") != std::string::npos &&
        line.find("op=\"" + op + "\"") != std::string::npos &&
        line.find("source=\"profiler\"") != std::string::npos &&
        line.find("training_job=\"nccl-profiler\"") != std::string::npos) {
      return std::stod(line.substr(line.rfind(' ') + 1));
    }
  }
  return -1;
}

TEST(NcclProfilerTest, CollectivesAreCountedAtStartAndTimedFromTheirKernelChannels) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  pid_t child = Spawn([&] {
    ::setenv("OUTRIDER_SOCKET", agent->socket_path().c_str(), 1);
    ::setenv("OUTRIDER_JOB_ID", "nccl-profiler", 1);
    return DrivePlugin();
  });
  ASSERT_EQ(Reap(child), 0);
  const std::string world = "0000000000000abc", p2p = "0000000000000def";
  std::string body;
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
  do {  // the counts were sent at finalize; the agent reads them on its loop
    body = HttpGet(http, "/metrics");
    if (Value(body, "outrider_nccl_calls_total", p2p, "send") >= 1) break;
    ipc::WaitReadable(-1, -1, 20);
  } while (ipc::MonotonicNs() < deadline);
  EXPECT_EQ(Value(body, "outrider_nccl_calls_total", world, "allreduce"), 1) << body;
  EXPECT_EQ(Value(body, "outrider_nccl_bytes_total", world, "allreduce"), 4096) << body;
  EXPECT_EQ(Value(body, "outrider_nccl_timed_calls_total", world, "allreduce"), 1) << body;
  EXPECT_DOUBLE_EQ(Value(body, "outrider_nccl_gpu_seconds_total", world, "allreduce"), 6000e-9)
      << body;
  EXPECT_EQ(Value(body, "outrider_nccl_calls_total", p2p, "send"), 1) << body;
  EXPECT_EQ(Value(body, "outrider_nccl_bytes_total", p2p, "send"), 1024) << body;
  EXPECT_EQ(Value(body, "outrider_nccl_timed_calls_total", p2p, "send"), 0) << body;
}

// NCCL starts no profiler event for a one-rank communicator's collectives (they run as copies):
// the plugin says so once, naming what counts them instead, rather than staying silent.
TEST(NcclProfilerTest, AOneRankCommunicatorIsSaidToGoUncountedOnce) {
  int err[2];
  ASSERT_EQ(::pipe(err), 0);
  pid_t child = Spawn([&] {
    ::dup2(err[1], 2);
    void* lib = ::dlopen(PROFILER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    auto* v5 = lib != nullptr ? static_cast<ProfilerV5*>(::dlsym(lib, "ncclProfiler_v5")) : nullptr;
    if (v5 == nullptr) return 10;
    for (uint64_t comm : {0x1ull, 0x2ull}) {
      void* ctx = nullptr;
      int mask = 0;
      if (v5->init(&ctx, comm, &mask, "solo", 1, 1, 0, nullptr) != 0 || v5->finalize(ctx) != 0)
        return 11;
    }
    return 0;
  });
  ::close(err[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(err[0], buf, sizeof(buf))) > 0;)
    said.append(buf, static_cast<size_t>(n));
  ::close(err[0]);
  ASSERT_EQ(Reap(child), 0);
  size_t at = said.find(
      "outrider-nccl-profiler: a communicator of one rank: NCCL reports none of its collectives");
  EXPECT_NE(at, std::string::npos) << said;
  EXPECT_EQ(said.find("one rank", said.find('\n', at)), std::string::npos) << "said once\n" << said;
}

}  // namespace
}  // namespace outrider::testing
