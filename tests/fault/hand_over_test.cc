// A job across nodes while one node's agent is replaced under it (docs/operations.md, "Upgrading
// the agent"), against agents on loopback: a rolling restart of every agent under two jobs fails
// no op and every result is right; a next agent that never comes fails the other nodes' ops after
// hand_over_wait_ms, naming the node; a node lost while another hands over fails the job as a lost
// node does, with no rank hung.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ipc/event_fd.h"
#include "ipc/protocol.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tools/harness/agent_process.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kJobs = 2;
constexpr int kNodes = 4;

// What the ranks of both jobs share with the test: steps done, the longest step, and the step
// to stop at (0: not yet; every rank of a job stops at the same step, so none leaves while the
// others still need it).
struct Progress {
  std::atomic<int> steps[kJobs][kNodes];
  std::atomic<uint64_t> longest_ns[kJobs][kNodes];
  std::atomic<int> stop;
  int rc[kJobs][kNodes];
  int wrong_step[kJobs][kNodes];  // the first step whose sum was wrong, or -1
  char error[kJobs][kNodes][256];
};

// One step of job `job`: every rank brings (rank + 1) * (step + 1) + i at element i, so a sum
// that took a contribution of another step, or of another job, is wrong. Job 1's ops are large
// enough to go round the ring in chunks, so that a hand-over finds bytes on the wire.
int TrainUntilStopped(outrider_client_t* c, int job, int r, Progress* p) {
  const uint64_t count = job == 0 ? 1000 : (1u << 20) / 4;
  auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * count));
  int world = outrider_world_size(c);
  p->wrong_step[job][r] = -1;
  for (int step = 0;; ++step) {
    int stop = p->stop.load();
    if (stop != 0 && step >= stop) break;
    for (uint64_t i = 0; i < count; ++i)
      x[i] = (r + 1) * (step + 1) + static_cast<int32_t>(i % 1000);
    uint64_t began = ipc::MonotonicNs();
    outrider_op_t h;
    int rc =
        Wait(c, outrider_allreduce(c, x, x, count, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h), &h);
    if (rc != 0) {
      CopyText(p->error[job][r], 256, outrider_last_error(c));
      return rc;
    }
    uint64_t took = ipc::MonotonicNs() - began;
    if (took > p->longest_ns[job][r].load()) p->longest_ns[job][r].store(took);
    for (uint64_t i = 0; i < count; ++i) {
      int32_t want = (step + 1) * world * (world + 1) / 2 + world * static_cast<int32_t>(i % 1000);
      if (x[i] != want) {
        p->wrong_step[job][r] = step;
        return 99;
      }
    }
    p->steps[job][r].fetch_add(1);
  }
  outrider_disconnect(c);
  return 0;
}

class HandOverTest : public MultiNodeTest {
 protected:
  // Starts both jobs, one rank of each per node; each trains until p->stop.
  void StartJobs(SharedValue<Progress>& p) {
    for (int job = 0; job < kJobs; ++job) {
      std::string id = "hand-over-" + std::to_string(job);
      jobs_[job] = std::make_unique<Ranks>(kNodes, [this, job, id, &p](int r) {
        outrider_client_t* c = ConnectOnePerNode(id.c_str(), "tok", r, kNodes);
        p->rc[job][r] = TrainUntilStopped(c, job, r, &*p);
        return p->rc[job][r];
      });
    }
  }
  // Every rank of both jobs did `more` steps past `from` (by rank), within `timeout_ms`.
  bool AllStepped(SharedValue<Progress>& p, const std::vector<int>& from, int more,
                  int timeout_ms) {
    return WaitUntil(
        [&] {
          for (int i = 0; i < kJobs * kNodes; ++i) {
            if (p->steps[i / kNodes][i % kNodes].load() < from[static_cast<size_t>(i)] + more)
              return false;
            if (p->rc[i / kNodes][i % kNodes] != 0) return true;  // failed: reaped below
          }
          return true;
        },
        timeout_ms);
  }
  std::vector<int> Steps(SharedValue<Progress>& p) {
    std::vector<int> s;
    for (int i = 0; i < kJobs * kNodes; ++i) s.push_back(p->steps[i / kNodes][i % kNodes].load());
    return s;
  }
  // Stops both jobs; every rank of both must have trained without an error or a wrong sum.
  void StopJobs(SharedValue<Progress>& p) {
    std::vector<int> now = Steps(p);
    p->stop.store(*std::max_element(now.begin(), now.end()) + 3);
    for (int job = 0; job < kJobs; ++job) {
      for (int r = 0; r < kNodes; ++r) {
        EXPECT_EQ(jobs_[job]->Reap(r), 0)
            << "job " << job << " rank " << r << ": " << p->error[job][r] << " (wrong sum at step "
            << p->wrong_step[job][r] << ")";
      }
    }
  }
  // Stops every agent in turn with SIGTERM and starts `binary` (or the same build) in its place,
  // `rounds` times, while both jobs train; then stops the jobs. Returns the longest step of each
  // hand-over, in ms.
  std::vector<double> RollingRestarts(int rounds, const std::string& binary = "") {
    SharedValue<Progress> p;
    StartJobs(p);
    std::vector<double> pauses;
    EXPECT_TRUE(AllStepped(p, std::vector<int>(kJobs * kNodes, 0), 5, 60000));
    for (int round = 0; round < rounds && !HasFailure(); ++round) {
      for (int n = 0; n < kNodes && !HasFailure(); ++n) {
        std::vector<int> before = Steps(p);
        for (auto& job : p->longest_ns)
          for (auto& l : job) l.store(0);
        int status = agents_[static_cast<size_t>(n)]->Stop(SIGTERM);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
            << "agent " << n << ": " << status;
        std::string log = agents_[static_cast<size_t>(n)]->ReadLog();
        EXPECT_THAT(log, HasSubstr("2 jobs across nodes handed over")) << log;
        RestartAgent(static_cast<size_t>(n), binary);
        EXPECT_TRUE(AllStepped(p, before, 3, 60000))
            << "round " << round << ", agent " << n << ": " << p->error[0][n] << p->error[1][n];
        uint64_t longest = 0;
        for (auto& job : p->longest_ns)
          for (auto& l : job) longest = std::max(longest, l.load());
        pauses.push_back(static_cast<double>(longest) / 1e6);
        std::printf("round %d, agent %d restarted: longest step %.1f ms\n", round, n,
                    pauses.back());
      }
    }
    StopJobs(p);
    std::sort(pauses.begin(), pauses.end());
    if (!pauses.empty()) {
      std::printf("longest step per restart: median %.1f ms of %zu (min %.1f, max %.1f)\n",
                  pauses[pauses.size() / 2], pauses.size(), pauses.front(), pauses.back());
    }
    return pauses;
  }
  // A job of `world` ranks, one per node, stepping (every sum checked) until an op fails; each
  // rank says when it has done 4 steps (`started`) and records how its last op ended in `res`
  // (rc 99: a wrong sum).
  std::unique_ptr<Ranks> StepUntilFailure(const char* job, int world, Pipe& started,
                                          SharedValue<Results>& res) {
    return std::make_unique<Ranks>(world, [this, job, world, &started, &res](int r) {
      outrider_client_t* c = ConnectOnePerNode(job, "tok", r, world);
      auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * 1000));
      int rc = 0;
      for (int step = 0; rc == 0; ++step) {
        for (int i = 0; i < 1000; ++i) x[i] = (r + 1) * (step + 1);
        outrider_op_t h;
        rc =
            Wait(c, outrider_allreduce(c, x, x, 1000, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h), &h);
        if (rc == 0 && x[0] != world * (world + 1) / 2 * (step + 1)) rc = 99;
        if (step == 3) started.Send('s');
      }
      res->rc[r] = rc;
      CopyText(res->error[r], 256, outrider_last_error(c));
      return 0;
    });
  }
  std::unique_ptr<Ranks> jobs_[kJobs];
};

// Every agent, one after the other, is stopped (SIGTERM, as systemd's restart and a DaemonSet's
// rolling update stop it) and started again on its socket and port. The nodes agree where the
// leaving node stops, its trainers come back to the next agent as themselves, and the other nodes'
// ops wait for it: no op of either job fails and every sum is right. Printed: the longest step.
// OUTRIDER_HAND_OVER_ROUNDS rounds of four restarts (default 1).
TEST_F(HandOverTest, TwoJobsAcrossNodesTrainThroughARollingRestartOfEveryAgentAndNoOpFails) {
  StartAgents(kNodes);
  const char* env = std::getenv("OUTRIDER_HAND_OVER_ROUNDS");
  RollingRestarts(env != nullptr ? std::max(1, std::atoi(env)) : 1);
}

// The same, each agent replaced by the next release's build (outrider-agent-next: one shim
// protocol version higher, serving this one): an upgrade of every node under running jobs.
TEST_F(HandOverTest, TwoJobsAcrossNodesTrainThroughARollingUpgradeToTheNextBuildAndNoOpFails) {
  StartAgents(kNodes, /*http=*/true);
  std::string next = harness::DefaultAgentBinary() + "-next";
  RollingRestarts(1, next);
  for (int n = 0; n < kNodes; ++n) {
    nlohmann::json s = nlohmann::json::parse(
        HttpGet(http_ports_[static_cast<size_t>(n)], "/status"), nullptr, false);
    ASSERT_TRUE(s.is_object()) << "agent " << n;
    EXPECT_EQ(s["agent"].value("protocol", 0), ipc::kProtocolVersion + 1) << "agent " << n;
    // It served the trainers in their own version.
    EXPECT_THAT(agents_[static_cast<size_t>(n)]->ReadLog(),
                HasSubstr("protocol " + std::to_string(ipc::kProtocolVersion) + ")"))
        << "agent " << n;
  }
}

// The next agent never comes: the other nodes' ops wait hand_over_wait_ms for it, then fail with
// PEER_LOST naming the node that handed over; its own trainer fails once its reconnect window
// ends, saying no agent answered.
TEST_F(HandOverTest, ANextAgentThatNeverComesFailsTheOtherNodesOpsAfterTheWaitNamingTheNode) {
  StartAgents(2, false, {"--hand-over-wait-ms", "1500"});
  ::setenv("OUTRIDER_RECONNECT_MS", "1000", 1);
  SharedValue<Results> res;
  Pipe started;
  std::unique_ptr<Ranks> ranks = StepUntilFailure("left", 2, started, res);
  char ch;
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(started.Receive(&ch, 30000));
  int status = agents_[1]->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  for (int r = 0; r < 2; ++r) EXPECT_EQ(ranks->Reap(r), 0);
  EXPECT_EQ(res->rc[0], OUTRIDER_ERR_PEER_LOST) << res->error[0];
  EXPECT_THAT(res->error[0], HasSubstr("handed over, and no next agent took its ranks back"));
  EXPECT_EQ(res->rc[1], OUTRIDER_ERR_UNAVAILABLE) << res->error[1];
  EXPECT_THAT(res->error[1], HasSubstr("no agent answered"));
}

// While node 1's agent is away, node 2's agent is killed: the job fails on node 0 as a lost node
// fails it (PEER_LOST naming node 2), and node 1's trainer, back at its next agent, fails too
// instead of waiting: no rank hangs.
TEST_F(HandOverTest, ANodeLostWhileAnotherHandsOverFailsTheJobWithNoRankHung) {
  StartAgents(3);
  SharedValue<Results> res;
  Pipe started;
  std::unique_ptr<Ranks> ranks = StepUntilFailure("lost", 3, started, res);
  char ch;
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(started.Receive(&ch, 30000));
  int status = agents_[1]->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  agents_[2]->Stop(SIGKILL);
  ASSERT_NO_FATAL_FAILURE(RestartAgent(1));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(ranks->Reap(r), 0);
  EXPECT_EQ(res->rc[0], OUTRIDER_ERR_PEER_LOST) << res->error[0];
  EXPECT_THAT(res->error[0], HasSubstr("node 2"));
  EXPECT_NE(res->rc[1], 0) << res->error[1];
}

// A node's agent is killed as it hands over (SIGTERM, then SIGKILL at once) and started again:
// wherever the kill finds the hand-over, no sum is wrong and no rank hangs. The other nodes fail
// the job as for a lost node, or, if it had already said it finished its part, after
// hand_over_wait_ms; the killed node's trainer fails (its agent left no hand-over).
TEST_F(HandOverTest, AnAgentKilledAsItHandsOverLeavesNoSumWrongAndNoRankHung) {
  StartAgents(3, false, {"--hand-over-wait-ms", "2000"});
  ::setenv("OUTRIDER_RECONNECT_MS", "2000", 1);
  SharedValue<Results> res;
  Pipe started;
  std::unique_ptr<Ranks> ranks = StepUntilFailure("killed", 3, started, res);
  char ch;
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(started.Receive(&ch, 30000));
  ::kill(agents_[1]->pid(), SIGTERM);
  agents_[1]->Stop(SIGKILL);
  ASSERT_NO_FATAL_FAILURE(RestartAgent(1));
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ranks->Reap(r), 0);
    EXPECT_NE(res->rc[r], 0) << "rank " << r;
    EXPECT_NE(res->rc[r], 99) << "rank " << r << " saw a wrong sum";
  }
  EXPECT_EQ(res->rc[0], OUTRIDER_ERR_PEER_LOST) << res->error[0];
  EXPECT_THAT(res->error[0], HasSubstr("node 1")) << res->error[0];
}

}  // namespace
}  // namespace outrider::testing
