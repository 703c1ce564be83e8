// outrider-chaos --port-abuse (docs/operations.md, "The agent port is a trust boundary"): a
// 2-node job's allreduces run without a break while the agent port of its node 0 is, phase by
// phase, idle or abused: 64 connections hold a partial frame each (one that the agent drops is
// opened again), and 1,000 forged reports about the job (a wrong token) arrive, paced over the
// phase. Idle and abused phases alternate; the job's p99 in each abused phase is
// compared with the idle phase before it. Checks every result, that no op fails, the p99 ratio,
// and that the agent's fds and memory are back to their baseline within the rendezvous timeout.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "agent/bootstrap/frame_io.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "ipc/unique_fd.h"
#include "outrider/outrider.h"
#include "tests/fault/chaos_cluster.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::chaos {
namespace {

namespace rdv = agent::rendezvous;
using testing::CopyText;
using testing::Ranks;
using testing::Reap;
using testing::Spawn;

constexpr int kMaxPhases = 64;
constexpr int kMaxSamples = 1 << 16;  // per phase
constexpr int kCount = 16384;         // float32 elements per op: 64 KiB
constexpr int kForged = 1000;         // forged reports per abused phase

struct Phase {
  std::atomic<int> n;
  float us[kMaxSamples];
};
struct PortBoard {
  std::atomic<int> phase;  // the phase ops are counted in (-1: warm-up)
  std::atomic<int> stop;   // rank 0 ends the job at its next op
  std::atomic<int> failed;
  std::atomic<int> wrong;
  std::atomic<int> ops;
  char message[512];
  Phase phases[kMaxPhases];
};

int JobRank(Cluster& cluster, int rank, PortBoard* board) {
  ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(cluster.port(0))).c_str(), 1);
  ::setenv("OUTRIDER_JOB_TOKEN", "busy-token", 1);
  std::string socket = cluster.agent(rank).socket_path();
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = "busy";
  o.rank = rank;
  o.world_size = 2;
  o.local_rank = 0;
  o.local_world_size = 1;
  outrider_client_t* c = nullptr;
  int rc = outrider_connect(&o, &c);
  auto* x = rc == OUTRIDER_OK ? static_cast<float*>(outrider_alloc(c, 4 * (kCount + 1))) : nullptr;
  while (rc == OUTRIDER_OK) {
    for (int i = 0; i < kCount; ++i) x[i] = static_cast<float>(rank + 1);
    x[kCount] = rank == 0 && board->stop ? 1.0f : 0.0f;
    int phase = board->phase;
    int64_t t0 = NowNs();
    outrider_op_t h;
    rc = outrider_allreduce(c, x, x, kCount + 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, kClientWaitMs);
    if (rc != OUTRIDER_OK) break;
    double us = static_cast<double>(NowNs() - t0) / 1e3;
    if (std::any_of(x, x + kCount, [](float v) { return v != 3.0f; })) ++board->wrong;
    ++board->ops;
    if (rank == 0 && phase >= 0 && phase < kMaxPhases) {
      Phase& p = board->phases[phase];
      int i = p.n.load();
      if (i < kMaxSamples) {
        p.us[i] = static_cast<float>(us);
        p.n = i + 1;
      }
    }
    if (x[kCount] != 0.0f) break;
  }
  if (rc != OUTRIDER_OK) {
    ++board->failed;
    CopyText(board->message, sizeof(board->message), outrider_last_error(c));
  }
  if (c != nullptr) outrider_disconnect(c);
  return 0;
}

// The abuse of one phase, from its own thread until `until_ns`: held partial frames and forged
// reports. Returns the forged reports the agent answered.
int Abuse(uint16_t port, int64_t until_ns, int* reopened) {
  std::string part = rdv::Encode(rdv::kJoin, agent::JobShape{"busy", "busy-token", 2, 1}, 1, {"a"});
  std::string forged = rdv::Encode(rdv::kReform, agent::JobShape{"busy", "forged", 0, 0}, 0,
                                   {R"({"kind":"joiner","port":1,"timeout_ms":1000})"});
  std::vector<UniqueFd> held(64);
  auto hold = [&](UniqueFd& fd) {
    fd = testing::ConnectLoopback(port);
    if (fd.valid()) ::send(fd.get(), part.data(), 12, MSG_NOSIGNAL);
  };
  for (UniqueFd& fd : held) hold(fd);
  int answered = 0;
  // 1,000 forged reports, paced evenly over the phase (the abuser shares the job's cores).
  const int64_t start = NowNs(), gap = (until_ns - start) / kForged;
  for (int i = 0; i < kForged; ++i) {  // all of them, even past the phase's end on a slow agent
    int64_t at = start + i * gap;
    if (int64_t wait = at - NowNs(); wait > 0) {
      timespec ts{wait / 1'000'000'000, wait % 1'000'000'000};
      ::nanosleep(&ts, nullptr);
    }
    UniqueFd fd = testing::ConnectLoopback(port);
    uint64_t deadline = static_cast<uint64_t>(NowNs()) + 2'000'000'000ull;
    if (fd.valid() && agent::frame_io::WriteAll(fd.get(), forged, -1, deadline).ok() &&
        agent::frame_io::ReadFrame(fd.get(), -1, deadline).ok())
      ++answered;
    // A held connection the agent dropped (past its 2 s) is opened again.
    for (UniqueFd& h : held) {
      pollfd p{h.get(), POLLIN, 0};
      if (!h.valid() || (::poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0)) {
        hold(h);
        ++*reopened;
      }
    }
  }
  while (NowNs() < until_ns) {
    timespec ts{0, 1'000'000};
    ::nanosleep(&ts, nullptr);
  }
  return answered;
}

}  // namespace

int RunPortAbuse(const Options& o) {
  Options two = o;
  two.nodes = 2;
  Cluster cluster(two);
  for (int n = 0; n < 2; ++n) {
    if (Status st = cluster.Start(n); !st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  auto* board = new (testing::MapSharedAnon(sizeof(PortBoard))) PortBoard();
  board->phase = -1;
  Ranks ranks(2, [&](int r) { return JobRank(cluster, r, board); });
  int failures = 0;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "FAILED: %s\n", why.c_str());
    ++failures;
  };
  // Warm-up: the job's first ops, then the agent's baseline.
  if (!testing::WaitUntil([&] { return board->ops >= 200 || board->failed; }, 30000))
    fail("the job did not start");
  pid_t agent = cluster.agent(0).pid();
  int fds0 = testing::CountOpenFds(agent);
  long rss0 = RssKiB(agent);
  int phases = std::min(2 * o.abuse_rounds, kMaxPhases);
  int reopened = 0;
  std::vector<int> answered;
  for (int p = 0; p < phases && failures == 0 && !board->failed; ++p) {
    board->phase = p;
    int64_t until = NowNs() + int64_t{o.abuse_phase_ms} * 1'000'000;
    if (p % 2 == 1) {
      answered.push_back(Abuse(cluster.port(0), until, &reopened));
    } else {
      testing::WaitUntil([&] { return NowNs() >= until || board->failed; },
                         o.abuse_phase_ms + 1000);
    }
  }
  board->phase = -1;
  board->stop = 1;
  ranks.ReapAll();
  if (board->failed) fail(std::string("an op of the job failed: ") + board->message);
  if (board->wrong) fail(std::to_string(board->wrong.load()) + " wrong results");
  // The agent gives back what the abuse took, within the rendezvous timeout (8 s).
  bool fds_back = testing::WaitUntil([&] { return testing::CountOpenFds(agent) <= fds0; }, 8000);
  int fds1 = testing::CountOpenFds(agent);
  long rss1 = RssKiB(agent);
  if (!fds_back) fail("agent fds " + std::to_string(fds0) + " -> " + std::to_string(fds1));
  if (rss1 > rss0 + long{o.rss_slack_mib} * 1024)
    fail("agent RSS " + std::to_string(rss0) + " -> " + std::to_string(rss1) + " KiB");
  std::printf("%-8s %6s %9s %9s %9s %10s\n", "phase", "ops", "p50 us", "p99 us", "max us",
              "forged");
  std::vector<double> ratios;
  double idle_p99 = 0;
  for (int p = 0; p < phases; ++p) {
    Phase& ph = board->phases[p];
    std::vector<double> v(ph.us, ph.us + std::min(ph.n.load(), kMaxSamples));
    if (v.empty()) continue;
    double p99 = Percentile(v, 0.99);
    bool abused = p % 2 == 1;
    std::printf("%-8s %6zu %9.0f %9.0f %9.0f %10s\n", abused ? "abused" : "idle", v.size(),
                Percentile(v, 0.5), p99, *std::max_element(v.begin(), v.end()),
                abused ? std::to_string(answered[static_cast<size_t>(p / 2)]).c_str() : "-");
    if (!abused) {
      idle_p99 = p99;
    } else if (idle_p99 > 0) {
      ratios.push_back(p99 / idle_p99);
    }
  }
  for (size_t i = 0; i < answered.size(); ++i) {
    if (answered[i] < kForged)
      fail("abused phase " + std::to_string(i) + ": only " + std::to_string(answered[i]) +
           " forged reports of " + std::to_string(kForged) + " answered");
  }
  if (!ratios.empty()) {
    double med = Percentile(ratios, 0.5);
    std::printf("abused p99 / idle p99: median %.2f, max %.2f over %zu pairs (bound %.1f)\n", med,
                *std::max_element(ratios.begin(), ratios.end()), ratios.size(), o.p99_ratio_bound);
    if (o.p99_ratio_bound > 0 && med > o.p99_ratio_bound)
      fail("the job's p99 under abuse is over the bound");
  }
  std::printf(
      "held connections reopened after the agent dropped them: %d; agent fds %d -> %d, RSS %ld "
      "-> %ld KiB: %s\n",
      reopened, fds0, fds1, rss0, rss1, failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace outrider::chaos
