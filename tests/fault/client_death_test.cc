// A client killed mid-collective: the other clients of its job get PEER_LOST naming the rank
// (well inside a 1 s wait), the agent releases the dead client's memory and fds, and other jobs
// carry on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <random>

#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

struct SurvivorReport {
  int rc;
  int ops_done;
  char message[256];
};

class ClientDeathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shm_before_ = DevShmEntries();
    agent_ = StartAgent();
    ASSERT_NE(agent_, nullptr);
    fds_before_ = CountOpenFds(agent_->pid());
  }
  void TearDown() override {
    if (agent_ == nullptr) return;
    // Everything the clients held is released once they are gone.
    int want = fds_before_;
    pid_t pid = agent_->pid();
    EXPECT_TRUE(WaitUntil([&] { return CountOpenFds(pid) == want; }, 5000))
        << "agent holds " << CountOpenFds(pid) << " fds, had " << want;
    EXPECT_EQ(DevShmEntries(), shm_before_);
  }

  std::unique_ptr<harness::AgentProcess> agent_;
  int fds_before_ = 0;
  std::set<std::string> shm_before_;
};

TEST_F(ClientDeathTest, PendingCollectiveFailsWithPeerLostNamingTheRank) {
  Pipe victim_ready, survivor_submitted;
  SharedValue<SurvivorReport> report;
  std::string socket = agent_->socket_path();
  pid_t victim = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, "victim-job", 1, 2);
    (void)c;
    victim_ready.Send('r');
    for (;;) ::pause();  // never submits: killed while rank 0 waits on it
    return 0;
  });
  char ch;
  ASSERT_TRUE(victim_ready.Receive(&ch, 10000));
  pid_t survivor = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, "victim-job", 0, 2);
    auto* x = static_cast<float*>(outrider_alloc(c, 64));
    outrider_op_t h;
    if (outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 1;
    survivor_submitted.Send('s');
    report->rc = outrider_wait(c, h, 1000);  // must end well before this deadline
    CopyText(report->message, sizeof(report->message), outrider_last_error(c));
    outrider_disconnect(c);
    return 0;
  });
  ASSERT_TRUE(survivor_submitted.Receive(&ch, 10000));
  ::kill(victim, SIGKILL);
  EXPECT_EQ(Reap(victim), 128 + SIGKILL);
  EXPECT_EQ(Reap(survivor), 0);
  EXPECT_EQ(report->rc, OUTRIDER_ERR_PEER_LOST) << report->message;
  EXPECT_THAT(report->message, HasSubstr("local rank 1"));
}

TEST_F(ClientDeathTest, LaterOpsOfTheJobFailAtOnceAndOtherJobsCarryOn) {
  Pipe victim_ready;
  SharedValue<SurvivorReport> report;
  std::string socket = agent_->socket_path();
  pid_t victim = Spawn([&] {
    ConnectOrExit(socket, "broken", 1, 2);
    victim_ready.Send('r');
    for (;;) ::pause();
    return 0;
  });
  char ch;
  ASSERT_TRUE(victim_ready.Receive(&ch, 10000));
  ::kill(victim, SIGKILL);
  Reap(victim);
  pid_t survivor = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, "other", 0, 1);  // a different, healthy job
    auto* x = static_cast<float*>(outrider_alloc(c, 4));
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    report->rc = rc == OUTRIDER_OK ? outrider_wait(c, h, 1000) : rc;
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(survivor), 0);
  EXPECT_EQ(report->rc, OUTRIDER_OK);
}

TEST_F(ClientDeathTest, KillingAClientAtRandomPointsNeverHangsTheOthers) {
  std::mt19937 gen(20261122);
  std::string socket = agent_->socket_path();
  for (int round = 0; round < 6; ++round) {
    int kill_after = std::uniform_int_distribution<int>(0, 40)(gen);
    int victim_rank = round % 3;
    Pipe progress;
    SharedValue<SurvivorReport> reports[3];
    std::string job = "random-" + std::to_string(round);
    Ranks ranks(3, [&](int r) {
      outrider_client_t* c = ConnectOrExit(socket, job, r, 3);
      auto* x = static_cast<float*>(outrider_alloc(c, 1 << 20));
      int rc = OUTRIDER_OK;
      int done = 0;
      for (int i = 0; i < 100000 && rc == OUTRIDER_OK; ++i) {
        outrider_op_t h;
        rc = outrider_allreduce(c, x, x, (1 << 18) >> (i % 8), OUTRIDER_F32, OUTRIDER_SUM, nullptr,
                                &h);
        if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 1000);
        if (rc == OUTRIDER_OK) ++done;
        if (r == victim_rank && done == kill_after) progress.Send('k');
      }
      reports[r]->rc = rc;
      reports[r]->ops_done = done;
      CopyText(reports[r]->message, 256, outrider_last_error(c));
      outrider_disconnect(c);
      return 0;
    });
    char ch;
    ASSERT_TRUE(progress.Receive(&ch, 30000));
    ranks.Kill(victim_rank, SIGKILL);
    for (int r = 0; r < 3; ++r) {
      int status = ranks.Reap(r);
      if (r == victim_rank) continue;
      EXPECT_EQ(status, 0);
      EXPECT_EQ(reports[r]->rc, OUTRIDER_ERR_PEER_LOST)
          << "round " << round << " rank " << r << ": " << reports[r]->message;
      EXPECT_THAT(reports[r]->message, HasSubstr("local rank " + std::to_string(victim_rank)));
    }
  }
}

}  // namespace
}  // namespace outrider::testing
