// The agent in states a client or a peer can force on it: /healthz answers 200 throughout, and
// SIGTERM ends the agent (exit status 0) within a second in each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"

namespace outrider::testing {
namespace {

constexpr int kStopBoundMs = 1000;

class ShutdownTest : public MultiNodeTest {
 protected:
  // /healthz of node n's agent answers 200.
  void ExpectHealthy(int n) {
    EXPECT_EQ(HttpStatus(http_ports_[static_cast<size_t>(n)], "/healthz"), 200) << "node " << n;
  }
  // SIGTERM to node n's agent: it exits with status 0 within kStopBoundMs.
  void ExpectPromptStop(int n) {
    auto start = std::chrono::steady_clock::now();
    int status = agents_[static_cast<size_t>(n)]->Stop(SIGTERM, 10000);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "node " << n << "'s agent: wait status " << status;
    EXPECT_LT(ms, kStopBoundMs) << "node " << n << "'s agent took " << ms << " ms to stop";
  }
};

TEST_F(ShutdownTest, Idle) {
  StartAgents(1, /*http=*/true);
  ExpectHealthy(0);
  ExpectPromptStop(0);
}

TEST_F(ShutdownTest, WhileAnOpWaitsForALocalRank) {
  StartAgents(1, /*http=*/true);
  Pipe ready, submitted;
  std::string socket = agents_[0]->socket_path();
  pid_t idle = Spawn([&] {
    ConnectOrExit(socket, "waiting", 1, 2);
    ready.Send('r');
    for (;;) ::pause();
    return 0;
  });
  char ch;
  ASSERT_TRUE(ready.Receive(&ch, 10000));
  pid_t waiter = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, "waiting", 0, 2);
    auto* x = static_cast<float*>(outrider_alloc(c, 64));
    outrider_op_t h;
    if (outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 1;
    submitted.Send('s');
    int rc = outrider_wait(c, h, 20000);
    outrider_disconnect(c);
    return rc == OUTRIDER_ERR_UNAVAILABLE ? 0 : 2;
  });
  ASSERT_TRUE(submitted.Receive(&ch, 10000));
  ExpectHealthy(0);
  ExpectPromptStop(0);
  EXPECT_EQ(Reap(waiter), 0);
  ::kill(idle, SIGKILL);
  Reap(idle);
}

TEST_F(ShutdownTest, WhileAClientFloodsItsSubmissionRing) {
  // A client submits as fast as it can ops that never complete (its job's other rank never
  // comes): past the in-flight cap each is refused, and the client retries at once.
  StartAgents(1, /*http=*/true);
  Pipe flooding;
  std::string socket = agents_[0]->socket_path();
  pid_t flooder = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, "flood", 0, 2);
    auto* x = static_cast<float*>(outrider_alloc(c, 64));
    bool told = false;
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
         std::chrono::steady_clock::now() < end;) {
      outrider_op_t h;
      int rc = outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_ERR_UNAVAILABLE) break;  // the agent is gone
      if (rc == OUTRIDER_ERR_RESOURCE_EXHAUSTED && !told) {
        flooding.Send('f');
        told = true;
      }
    }
    return 0;
  });
  char ch;
  ASSERT_TRUE(flooding.Receive(&ch, 20000));
  ExpectHealthy(0);
  ExpectPromptStop(0);
  EXPECT_EQ(Reap(flooder), 0);
}

TEST_F(ShutdownTest, WhileARendezvousWaitsForANodeThatNeverComes) {
  StartAgents(2, /*http=*/true);
  // Rank 1 (node 1) joins a two-node job whose rank 0 never connects: node 1's agent waits at
  // the root (node 0) for the job's other node.
  Pipe connecting;
  pid_t lonely = Spawn([&] {
    connecting.Send('c');
    outrider_client_t* c = ConnectOnePerNode("lonely", "t", 1, 2);
    auto* x = static_cast<float*>(outrider_alloc(c, 64));
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, 16, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 20000);
    outrider_disconnect(c);
    return rc == OUTRIDER_OK ? 1 : 0;
  });
  char ch;
  ASSERT_TRUE(connecting.Receive(&ch, 10000));
  ASSERT_TRUE(WaitUntil(
      [&] { return HttpGet(http_ports_[1], "/status").find("lonely") != std::string::npos; },
      10000));
  ExpectHealthy(0);
  ExpectHealthy(1);
  ExpectPromptStop(1);
  ExpectPromptStop(0);
  EXPECT_EQ(Reap(lonely), 0);
}

TEST_F(ShutdownTest, WhileBulkDataIsInFlightToAStoppedPeerAgent) {
  // Node 1's agent is stopped (SIGSTOP) while both nodes run large allreduces: node 0's agent
  // has chunks queued to a peer that reads nothing.
  StartAgents(2, /*http=*/true);
  Pipe running;
  Ranks ranks(2, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("bulk", "b", r, 2);
    constexpr uint64_t kCount = 4 << 20;
    auto* x = static_cast<float*>(outrider_alloc(c, kCount * sizeof(float)));
    int rc = OUTRIDER_OK;
    for (int i = 0; i < 1000 && rc == OUTRIDER_OK; ++i) {
      outrider_op_t h;
      rc = outrider_allreduce(c, x, x, kCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK && r == 0 && i == 1) running.Send('r');
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 20000);
    }
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(running.Receive(&ch, 30000));
  pid_t stopped = agents_[1]->pid();
  ::kill(stopped, SIGSTOP);
  ExpectHealthy(0);
  ExpectPromptStop(0);
  ::kill(stopped, SIGCONT);
  ExpectPromptStop(1);
  ranks.ExpectAllExitZero();
}

}  // namespace
}  // namespace outrider::testing
