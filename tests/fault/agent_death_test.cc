// The agent killed or stopped: every pending shim call returns an error (never a hang, never
// SIGBUS), and a new one too once no agent came back within the reconnect deadline; SIGTERM fails
// what waits with a clear reason and removes the socket. A restarted agent takes the client back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

struct Report {
  int wait_rc;
  int submit_rc;
  int alloc_ok;
  float read_back;
  char wait_message[256];
  char submit_message[256];
};

// Rank 0 of a two-rank job whose rank 1 never submits: its op stays pending until the agent
// goes away. Then it checks that a new submit fails too (no agent comes back within its 300 ms)
// and that its memory is still readable.
int PendingClient(const std::string& socket, Pipe* submitted, Report* report) {
  ::setenv("OUTRIDER_RECONNECT_MS", "300", 1);
  outrider_client_t* c = ConnectOrExit(socket, "pending", 0, 2);
  auto* x = static_cast<float*>(outrider_alloc(c, 1 << 16));
  x[0] = 3.5f;
  outrider_op_t h;
  if (outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
    return 1;
  submitted->Send('s');
  report->wait_rc = outrider_wait(c, h, 1000);
  CopyText(report->wait_message, 256, outrider_last_error(c));
  report->submit_rc = outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
  CopyText(report->submit_message, 256, outrider_last_error(c));
  report->read_back = x[0];  // the shared mapping outlives the agent: no SIGBUS
  outrider_disconnect(c);
  return 0;
}

// Starts a two-rank job whose rank 1 idles while rank 0 (PendingClient) waits on an op; returns
// once that op is submitted.
void StartPendingJob(const std::string& socket, Report* report, pid_t* idle, pid_t* client) {
  Pipe idle_ready, submitted;
  *idle = Spawn([&] {
    ConnectOrExit(socket, "pending", 1, 2);
    idle_ready.Send('r');
    for (;;) ::pause();
    return 0;
  });
  char ch;
  ASSERT_TRUE(idle_ready.Receive(&ch, 10000));
  *client = Spawn([&] { return PendingClient(socket, &submitted, report); });
  ASSERT_TRUE(submitted.Receive(&ch, 10000));
}

TEST(AgentDeathTest, KilledAgentFailsPendingAndNewCallsWithUnavailable) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  SharedValue<Report> report;
  pid_t idle = -1, client = -1;
  ASSERT_NO_FATAL_FAILURE(StartPendingJob(agent->socket_path(), &*report, &idle, &client));
  agent->Stop(SIGKILL);
  EXPECT_EQ(Reap(client), 0);  // in particular: not killed by SIGBUS
  ::kill(idle, SIGKILL);
  Reap(idle);
  EXPECT_EQ(report->wait_rc, OUTRIDER_ERR_UNAVAILABLE) << report->wait_message;
  EXPECT_THAT(report->wait_message, HasSubstr("agent"));
  EXPECT_EQ(report->submit_rc, OUTRIDER_ERR_UNAVAILABLE) << report->submit_message;
  EXPECT_THAT(report->submit_message, HasSubstr("within 300 ms (OUTRIDER_RECONNECT_MS)"));
  EXPECT_EQ(report->read_back, 3.5f);
}

TEST(AgentDeathTest, SigtermFailsWaitingOpsWithShutdownReasonAndRemovesSocket) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  SharedValue<Report> report;
  pid_t idle = -1, client = -1;
  ASSERT_NO_FATAL_FAILURE(StartPendingJob(agent->socket_path(), &*report, &idle, &client));
  int status = agent->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent wait status " << status;
  EXPECT_EQ(Reap(client), 0);
  ::kill(idle, SIGKILL);
  Reap(idle);
  EXPECT_EQ(report->wait_rc, OUTRIDER_ERR_UNAVAILABLE) << report->wait_message;
  EXPECT_THAT(report->wait_message, HasSubstr("shutting down"));
  EXPECT_NE(report->submit_rc, OUTRIDER_OK);
  struct stat st;
  EXPECT_NE(::stat(agent->socket_path().c_str(), &st), 0) << "socket file left behind";
}

TEST(AgentDeathTest, KillingTheAgentAtRandomPointsNeverHangsClients) {
  std::mt19937 gen(4242);
  for (int round = 0; round < 4; ++round) {
    auto agent = StartAgent();
    ASSERT_NE(agent, nullptr);
    std::string socket = agent->socket_path();
    int kill_after = std::uniform_int_distribution<int>(0, 60)(gen);
    Pipe progress;
    SharedValue<Report> reports[2];
    Ranks ranks(2, [&](int r) {
      ::setenv("OUTRIDER_RECONNECT_MS", "300", 1);  // no agent comes back here
      outrider_client_t* c = ConnectOrExit(socket, "loop", r, 2);
      auto* x = static_cast<float*>(outrider_alloc(c, 1 << 20));
      int rc = OUTRIDER_OK;
      for (int i = 0; i < 1000000 && rc == OUTRIDER_OK; ++i) {
        outrider_op_t h;
        rc = outrider_allreduce(c, x, x, (1 << 18) >> (i % 8), OUTRIDER_F32, OUTRIDER_SUM, nullptr,
                                &h);
        if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 1000);
        if (r == 0 && i == kill_after) progress.Send('k');
      }
      reports[r]->wait_rc = rc;
      CopyText(reports[r]->wait_message, 256, outrider_last_error(c));
      outrider_disconnect(c);
      return 0;
    });
    char ch;
    ASSERT_TRUE(progress.Receive(&ch, 30000));
    agent->Stop(SIGKILL);
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(ranks.Reap(r), 0);
      EXPECT_EQ(reports[r]->wait_rc, OUTRIDER_ERR_UNAVAILABLE)
          << "round " << round << ": " << reports[r]->wait_message;
    }
  }
}

struct RestartReport {
  int failures;  // ops that failed with the agent, and were submitted again
  int rc;
  int wrong;  // results that were not the sum
  int first_wrong_step;
  float first_wrong;
  char message[256];
};

// Not a signal: the agent is asked to drain with POST /drain on its HTTP listener (outriderctl
// drain), which hands its jobs over as SIGTERM does.
constexpr int kDrain = 0;

// A 2-rank job on one node, 30 steps of an allreduce whose every result is checked. Both ranks
// finish step 10; rank 0 then waits before step 11 while rank 1's step 11 waits in the agent for
// it, and the agent is stopped with `sigs` (one after the other, at once; kDrain: POST /drain) and
// another started on the same socket. An op that fails is submitted again once if its error says
// its inputs are intact (`retry`), else the rank gives up. (An op that completed on one rank only,
// because a killed agent died between two ranks' completions, could not be submitted again: not
// this case.)
void RestartMidJob(std::vector<int> sigs, bool retry, SharedValue<RestartReport> (&reports)[2]) {
  uint16_t first_http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(first_http)});
  ASSERT_NE(agent, nullptr);
  std::string socket = agent->socket_path();
  Pipe at_eleven[2], stopped;
  constexpr int kSteps = 30;
  constexpr uint64_t kCount = 4096;
  Ranks ranks(2, [&](int r) {
    outrider_client_t* c = ConnectOrExit(socket, "restart", r, 2);
    auto* in = static_cast<float*>(outrider_alloc(c, 2 * kCount * sizeof(float)));
    float* out = in + kCount;
    RestartReport& rep = *reports[r];
    for (int i = 0; i < kSteps; ++i) {
      if (r == 0 && i == 11) {
        at_eleven[0].Send('t');
        char ch;
        if (!stopped.Receive(&ch, 30000)) return 2;
      }
      for (uint64_t k = 0; k < kCount; ++k) in[k] = static_cast<float>((r + 1) * (i + 1));
      for (;;) {
        outrider_op_t h;
        rep.rc = outrider_allreduce(c, in, out, kCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
        if (r == 1 && i == 11 && rep.failures == 0) at_eleven[1].Send('t');
        if (rep.rc == OUTRIDER_OK) rep.rc = outrider_wait(c, h, 30000);
        if (rep.rc == OUTRIDER_OK) break;
        CopyText(rep.message, 256, outrider_last_error(c));
        if (!retry || rep.rc != OUTRIDER_ERR_UNAVAILABLE ||
            std::strstr(rep.message, "its inputs are intact") == nullptr || ++rep.failures > 1)
          return 1;
      }
      for (uint64_t k = 0; k < kCount; ++k) {
        if (out[k] != static_cast<float>(3 * (i + 1)) && rep.wrong++ == 0) {
          rep.first_wrong_step = i;
          rep.first_wrong = out[k];
        }
      }
    }
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(at_eleven[0].Receive(&ch, 30000));
  ASSERT_TRUE(at_eleven[1].Receive(&ch, 30000));
  for (int sig : sigs) {
    if (sig != kDrain) {
      ::kill(agent->pid(), sig);
      continue;
    }
    HttpReply drained = HttpFetch(first_http, "/drain", "POST");
    EXPECT_EQ(drained.status, 202) << drained.body;
    EXPECT_THAT(drained.body, HasSubstr("\"handing_over\":true"));
  }
  int status = agent->Stop(0);  // reaped once it exited (SIGKILL after 10 s)
  // One SIGTERM or drain: the agent hands the job over and exits 0; the next counts the trainers
  // back after a stop (one SIGKILL: after a crash; more signals: either, as the race went).
  bool handed_over = sigs == std::vector<int>{SIGTERM} || sigs == std::vector<int>{kDrain};
  std::string after = handed_over ? "stop" : sigs == std::vector<int>{SIGKILL} ? "crash" : "";
  if (after == "stop") {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent wait status " << status;
    EXPECT_THAT(agent->ReadLog(), HasSubstr("jobs handed over in"));
  }
  stopped.Send('s');
  harness::AgentProcessOptions next;
  next.socket_path = socket;
  uint16_t http_port = FreePort();
  next.extra_args = {"--http-port", std::to_string(http_port)};
  Result<std::unique_ptr<harness::AgentProcess>> restarted = harness::AgentProcess::Start(next);
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r << ": " << reports[r]->message;
    EXPECT_EQ(reports[r]->wrong, 0)
        << "rank " << r << ": first at step " << reports[r]->first_wrong_step << ", "
        << reports[r]->first_wrong;
  }
  // The next agent counted both trainers back, and how their agent went.
  HttpReply metrics = HttpFetch(http_port, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.body, HasSubstr("outrider_reconnect_pause_seconds_count 2"));
  if (!after.empty()) {
    EXPECT_THAT(metrics.body,
                HasSubstr("outrider_client_reconnects_total{after=\"" + after + "\"} 2"));
    EXPECT_THAT((*restarted)->ReadLog(), HasSubstr("after its previous agent's " + after));
  }
}

// Killed: the op in flight fails once, says its inputs are intact, and runs again at the next
// agent; rank 0 had none in flight and reconnects on its next.
TEST(AgentDeathTest, ARestartedAgentTakesTheJobBackAndTheOpItFailedRunsAgainRight) {
  SharedValue<RestartReport> reports[2];
  RestartMidJob({SIGKILL}, /*retry=*/true, reports);
  EXPECT_EQ(reports[0]->failures, 0) << reports[0]->message;
  EXPECT_EQ(reports[1]->failures, 1) << reports[1]->message;
  EXPECT_THAT(reports[1]->message, HasSubstr("op "));
}

// Stopped with SIGTERM: the agent gives the waiting op back and it runs at the next agent. No op
// fails (a failure would end the rank).
TEST(AgentDeathTest, ASigtermedAgentHandsItsJobToTheNextAndNoOpFails) {
  SharedValue<RestartReport> reports[2];
  RestartMidJob({SIGTERM}, /*retry=*/false, reports);
  EXPECT_EQ(reports[0]->failures + reports[1]->failures, 0);
}

// Asked to drain over HTTP (outriderctl drain): the same hand-over as SIGTERM's.
TEST(AgentDeathTest, AnAgentAskedToDrainHandsItsJobToTheNextAndNoOpFails) {
  SharedValue<RestartReport> reports[2];
  RestartMidJob({kDrain}, /*retry=*/false, reports);
  EXPECT_EQ(reports[0]->failures + reports[1]->failures, 0);
}

// Killed as it hands over (SIGTERM, then SIGKILL at once): wherever the kill finds the hand-over,
// no result is wrong and nothing hangs; an op fails at most once, saying it may go again.
TEST(AgentDeathTest, AnAgentKilledAsItHandsOverLeavesNoResultWrongAndNoRankHung) {
  SharedValue<RestartReport> reports[2];
  RestartMidJob({SIGTERM, SIGKILL}, /*retry=*/true, reports);
  EXPECT_LE(reports[0]->failures + reports[1]->failures, 1);
}

// Stopped twice (a second SIGTERM ends a hand-over at once): the same.
TEST(AgentDeathTest, ASecondSigtermDuringAHandOverLeavesNoResultWrongAndNoRankHung) {
  SharedValue<RestartReport> reports[2];
  RestartMidJob({SIGTERM, SIGTERM}, /*retry=*/true, reports);
  EXPECT_LE(reports[0]->failures + reports[1]->failures, 1);
}

}  // namespace
}  // namespace outrider::testing
