// The agent killed or stopped: every pending and new shim call returns an error (never a hang,
// never SIGBUS); SIGTERM fails what waits with a clear reason and removes the socket.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>

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
// goes away. Then it checks that a new submit fails too and that its memory is still readable.
int PendingClient(const std::string& socket, Pipe* submitted, Report* report) {
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

}  // namespace
}  // namespace outrider::testing
