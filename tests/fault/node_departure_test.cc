// Three agents on loopback, one per emulated node: a node that loses another, or a rank that
// leaves in the middle of an instance, fails the job on every other node at once, naming who is
// gone and who said so, and jobs that do not use the departed node carry on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kSecond = 1'000'000'000;

// Agent 1 hangs (SIGSTOP: silent, its sockets still open). Agent 0's silence deadline is the
// shortest; agent 2's is a minute, so by itself it would wait that long. Agent 0 tells agent 2 at
// once: the job's rank there fails with PEER_LOST naming the lost node and who reported it, while
// node 0's rank is still connected (its node has not left the job), and a job on agents 0 and 2
// only carries on.
TEST_F(MultiNodeTest, NodeThatLosesAPeerFailsTheJobOnTheOtherNodesAtOnceWhileAnotherJobCarriesOn) {
  StartAgents(3, false, {}, {{"--peer-timeout-ms", "2000"}, {}, {"--peer-timeout-ms", "60000"}});
  Pipe started, release;
  SharedValue<Results> res;
  SharedValue<uint64_t> failed_at_ns;  // when rank 2 got its error
  SharedValue<int> stop_others;        // set once rank 2 has its error
  SharedValue<uint64_t> other_steps;   // allreduces the other job's rank 0 completed
  Ranks victims(3, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("victim", "v", r, 3);
    auto* x = static_cast<float*>(outrider_alloc(c, 4 << 20));
    int rc = 0;
    for (int step = 0; rc == 0 && step < 100000; ++step) {
      outrider_op_t h;
      rc = outrider_allreduce(c, x, x, 1 << 20, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (rc == 0) rc = outrider_wait(c, h, 20000);
      if (step == 2 && r == 0) started.Send('s');
    }
    if (r == 2) *failed_at_ns = ipc::MonotonicNs();
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    char ch;
    if (r == 0) release.Receive(&ch, 60000);  // node 0 stays in the job until rank 2 has its error
    outrider_disconnect(c);
    return 0;
  });
  Ranks others(2, [&](int r) {
    outrider_client_t* c = ConnectAt(r == 0 ? 0 : 2, 0, "bystander", "b", r, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * 1000));
    int rc = 0;
    // Both ranks stop at the same step: rank 0 decides and passes it on in the data.
    for (int step = 0; step < 1000000 && rc == 0; ++step) {
      for (int i = 0; i < 1000; ++i) x[i] = step + r;
      x[0] = r == 0 && *stop_others ? 1 << 20 : 0;
      outrider_op_t h;
      rc = Wait(c, outrider_allreduce(c, x, x, 1000, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h), &h);
      if (rc == 0 && x[999] != 2 * step + 1) rc = 99;
      if (r == 0) *other_steps = static_cast<uint64_t>(step + 1);
      if (x[0] != 0) break;
    }
    res->rc[3 + r] = rc;
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(started.Receive(&ch, 60000));
  uint64_t stopped_at_ns = ipc::MonotonicNs();
  uint64_t other_steps_at_stop = *other_steps;
  ASSERT_EQ(::kill(agents_[1]->pid(), SIGSTOP), 0);
  EXPECT_EQ(victims.Reap(2), 0);
  EXPECT_EQ(res->rc[2], OUTRIDER_ERR_PEER_LOST) << res->error[2];
  EXPECT_THAT(res->error[2],
              HasSubstr("rank 1 (node 1) of job 'victim' is lost (reported by rank 0 (node 0))"));
  std::printf("rank 2's error came %.2f s after agent 1 stopped\n",
              static_cast<double>(*failed_at_ns - stopped_at_ns) / 1e9);
  // Agent 0's deadline (2 s) and a margin; agent 2's own would be 60 s.
  EXPECT_LT(*failed_at_ns - stopped_at_ns, 10 * kSecond);
  release.Send('r');
  EXPECT_EQ(victims.Reap(0), 0);
  EXPECT_EQ(res->rc[0], OUTRIDER_ERR_PEER_LOST) << res->error[0];
  EXPECT_THAT(res->error[0], HasSubstr("rank 1 (node 1) of job 'victim' is lost"));
  *stop_others = 1;
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(others.Reap(r), 0);
    EXPECT_EQ(res->rc[3 + r], 0) << "the other job, rank " << r;
  }
  EXPECT_GT(*other_steps, other_steps_at_stop) << "the other job was not running across the loss";
  agents_[1]->Stop(SIGKILL);
  victims.Reap(1);
}

// Rank 2 says goodbye while its large allreduce is out: its contribution has reached nodes 0 and
// 1, whose ranks have not submitted yet. They must fail with PEER_LOST naming rank 2 at once, not
// start a ring that node 2 will never serve and wait until a deadline (the first to come: 3 s of
// silence, as node 2's agent stops its heartbeats once it serves no job with them).
TEST_F(MultiNodeTest, RankThatLeavesInOrderMidInstanceFailsTheOtherNodesAtOnce) {
  StartAgents(3, /*http=*/true);
  Pipe leave, go;
  SharedValue<Results> res;
  SharedValue<uint64_t> failed_at_ns[2];
  pid_t leaver = Spawn([&] {
    outrider_client_t* c = ConnectOnePerNode("mid", "m", 2, 3);
    auto* x = static_cast<float*>(outrider_alloc(c, 4 << 20));
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, 1 << 20, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    char ch;
    if (rc == 0 && !leave.Receive(&ch, 60000)) rc = 90;
    outrider_disconnect(c);  // says goodbye with the op still out
    return rc;
  });
  Ranks stayers(2, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("mid", "m", r, 3);
    auto* x = static_cast<float*>(outrider_alloc(c, 4 << 20));
    char ch;
    if (!go.Receive(&ch, 60000)) return 90;
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, 1 << 20, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == 0) rc = outrider_wait(c, h, 15000);  // the hang this test is about would end here
    *failed_at_ns[r] = ipc::MonotonicNs();
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    outrider_disconnect(c);
    return 0;
  });
  // Node 2's agent has started the instance and waits for the others' contributions (bounded
  // poll, 30 s).
  bool started = false;
  for (int i = 0; i < 300 && !started; ++i) {
    started = HttpGet(http_ports_[2], "/status")
                  .find("contributions of rank 0 (node 0), rank 1 (node 1)") != std::string::npos;
    if (!started) ::usleep(100000);
  }
  ASSERT_TRUE(started) << HttpGet(http_ports_[2], "/status");
  leave.Send('l');
  EXPECT_EQ(Reap(leaver), 0);
  uint64_t left_at_ns = ipc::MonotonicNs();
  go.Send('g');
  go.Send('g');
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(stayers.Reap(r), 0);
    EXPECT_EQ(res->rc[r], OUTRIDER_ERR_PEER_LOST) << "rank " << r << ": " << res->error[r];
    EXPECT_THAT(res->error[r], HasSubstr("rank 2 (local rank 0"));
    EXPECT_LT(*failed_at_ns[r] - left_at_ns, 2 * kSecond) << "rank " << r;
  }
}

}  // namespace
}  // namespace outrider::testing
