// A job that loses ranks goes on (docs/elastic.md): agents on loopback, one per emulated node,
// trainers as processes. The survivors re-form into the next generation (ranks renumbered, the
// sum of every rank's rank + 1 checks the numbering), a joiner brings the job back to its size,
// and every failure during the change itself ends in a working generation or a clear error,
// never a hang: a survivor dying while the job re-forms, node 0's agent or rank dying, a joiner
// with the wrong token, two ranks dying at once. Joiners held while the job changes are in
// elastic_joiner_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "tests/fault/elastic_fixture.h"
#include "tests/support/rank_runner.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Rank 2 of 4 is killed mid-training: ranks 0, 1, 3 go on as ranks 0, 1, 2 of generation 1 within
// seconds; a job beside it on the same agents never sees an error. A joiner then connects at
// rank 2's node: the ranks learn of it (the MAX of what their agents hold), re-form, and the job
// is back to 4 ranks in generation 2, the joiner last.
TEST_F(MultiNodeTest, SurvivorsReformAfterARankDiesAndAJoinerBringsTheJobBack) {
  StartAgents(4);
  SharedValue<Elastic> out;
  SharedValue<Results> res;
  SharedValue<int> stop_other;
  SharedValue<uint64_t> killed_ns;
  Pipe started, grown;
  Ranks ranks(4, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("elastic", "tok", r, 4);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; rc == 0 && step < 100000; ++step) {
      rc = Step(c, x);
      if (step == 3 && r == 0) started.Send('s');
    }
    if (r == 2) return 0;  // killed before it gets here
    outrider_membership_t m;
    rc = outrider_reconfigure(c, 10000, &m);
    if (rc == 0) rc = Step(c, x);
    out->reformed_ns[r] = ipc::MonotonicNs();
    out->generation[r] = m.generation;
    out->rank[r] = m.rank;
    out->world[r] = m.world_size;
    // Generation 1 trains until a joiner waits.
    if (rc == 0) rc = TrainUntilAJoinerWaits(c, x);
    if (rc == 0) rc = outrider_reconfigure(c, 20000, &m);
    if (rc == 0) rc = Step(c, x);
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    out->generation[4 + r] = m.generation;
    out->rank[4 + r] = m.rank;
    out->world[4 + r] = m.world_size;
    outrider_disconnect(c);
    return 0;
  });
  // The second job, on nodes 0 and 3, runs across everything.
  Ranks others(2, [&](int r) {
    outrider_client_t* c = ConnectAt(r == 0 ? 0 : 3, 0, "bystander", "b", r, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; step < 1000000 && rc == 0; ++step) {
      rc = Step(c, x);
      x[0] = r == 0 && *stop_other ? 1 : 0;
      outrider_op_t h;
      if (rc == 0)
        rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_MAX, nullptr, &h), &h);
      if (x[0] != 0) break;
    }
    res->rc[5 + r] = rc;
    CopyText(res->error[5 + r], 256, outrider_last_error(c));
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(started.Receive(&ch, 60000));
  *killed_ns = ipc::MonotonicNs();
  ASSERT_EQ(ranks.Kill(2, SIGKILL), 0);
  ranks.Reap(2);
  ASSERT_TRUE(WaitUntil(
      [&] { return out->world[0] != 0 && out->world[1] != 0 && out->world[3] != 0; }, 30000));
  for (int r : {0, 1, 3}) {
    EXPECT_EQ(out->generation[r], 1u) << "rank " << r;
    EXPECT_EQ(out->world[r], 3) << "rank " << r;
    EXPECT_EQ(out->rank[r], r == 3 ? 2 : r);
    std::printf("old rank %d: first op of generation 1 done %.3f s after the kill\n", r,
                static_cast<double>(out->reformed_ns[r] - *killed_ns) / 1e9);
    EXPECT_LT(out->reformed_ns[r] - *killed_ns, 10 * kSecond);
  }
  // The joiner, at the dead rank's node.
  uint64_t join_start = ipc::MonotonicNs();
  SharedValue<uint64_t> joined_ns;
  pid_t joiner = Spawn([&] {
    ::setenv("OUTRIDER_JOB_TOKEN", "tok", 1);
    ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(ports_[0])).c_str(), 1);
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    std::string socket = agents_[2]->socket_path();
    o.socket_path = socket.c_str();
    o.job_id = "elastic";
    o.flags = OUTRIDER_CONNECT_JOINER;
    outrider_client_t* c = ConnectOrExitWith(&o);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    outrider_membership_t m;
    int rc = outrider_reconfigure(c, 30000, &m);
    if (rc == 0) rc = Step(c, x);
    *joined_ns = ipc::MonotonicNs();
    res->rc[2] = rc;
    CopyText(res->error[2], 256, outrider_last_error(c));
    out->generation[6] = m.generation;
    out->rank[6] = m.rank;
    out->world[6] = m.world_size;
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(joiner), 0);
  EXPECT_EQ(res->rc[2], 0) << res->error[2];
  EXPECT_EQ(out->generation[6], 2u);
  EXPECT_EQ(out->rank[6], 3);
  EXPECT_EQ(out->world[6], 4);
  std::printf("joiner: first op of generation 2 done %.3f s after it started\n",
              static_cast<double>(*joined_ns - join_start) / 1e9);
  for (int r : {0, 1, 3}) {
    EXPECT_EQ(ranks.Reap(r), 0);
    EXPECT_EQ(res->rc[r], 0) << "rank " << r << ": " << res->error[r];
    EXPECT_EQ(out->generation[4 + r], 2u);
    EXPECT_EQ(out->world[4 + r], 4);
    EXPECT_EQ(out->rank[4 + r], r == 3 ? 2 : r);
  }
  *stop_other = 1;
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(others.Reap(r), 0);
    EXPECT_EQ(res->rc[5 + r], 0) << "the other job, rank " << r << ": " << res->error[5 + r];
  }
}

// Ranks 1 and 2 of 4 die at once: ranks 0 and 3 go on as a job of 2. Both generations are one job
// to the metrics, and /status names the generation.
TEST_F(MultiNodeTest, TwoRanksDyingAtOnceLeaveAJobOfTheOthers) {
  StartAgents(4, /*http=*/true);
  SharedValue<Elastic> out;
  Pipe started;
  Ranks ranks(4, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("twice", "tok", r, 4);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    for (int step = 0; step < 3; ++step) {
      if (Step(c, x) != 0) return 90;
    }
    started.Send('s');  // each rank: an op still finishing at one would fail with the kills
    int rc = Survive(c, r, out, 1, 5);
    outrider_disconnect(c);
    return rc;
  });
  char ch;
  for (int r = 0; r < 4; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(1, SIGKILL), 0);
  ASSERT_EQ(ranks.Kill(2, SIGKILL), 0);
  ranks.Reap(1);
  ranks.Reap(2);
  EXPECT_EQ(ranks.Reap(0), 0);
  EXPECT_EQ(ranks.Reap(3), 0);
  for (int r : {0, 3}) {
    EXPECT_EQ(out->generation[r], 1u);
    EXPECT_EQ(out->world[r], 2);
    EXPECT_EQ(out->rank[r], r == 0 ? 0 : 1);
    EXPECT_EQ(out->steps[r], 5);
  }
  std::string metrics = HttpGet(http_ports_[0], "/metrics");
  EXPECT_THAT(metrics, HasSubstr("training_job=\"twice\""));
  EXPECT_EQ(metrics.find("twice~g"), std::string::npos)
      << metrics.substr(metrics.find("twice~g") > 200 ? metrics.find("twice~g") - 200 : 0, 300);
  EXPECT_THAT(metrics, HasSubstr("outrider_reconfigurations_total{result=\"ok\"} 1"));
}

// Node 0's agent dies (its rank with it): the lowest node left decides, and hosts generation 1.
TEST_F(MultiNodeTest, NodeZerosAgentDyingLeavesTheLowestNodeLeftToDecide) {
  StartAgents(3);
  SharedValue<Elastic> out;
  Pipe started;
  Ranks ranks(3, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("headless", "tok", r, 3);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    for (int step = 0; step < 3; ++step) {
      if (Step(c, x) != 0) return 90;
    }
    started.Send('s');  // each rank: an op still finishing at one would fail with the kill
    if (r == 0) {
      int rc = 0;
      while (rc == 0) rc = Step(c, x);  // until its agent is gone
      return rc == OUTRIDER_ERR_UNAVAILABLE || rc == OUTRIDER_ERR_PEER_LOST ? 0 : rc;
    }
    int rc = Survive(c, r, out, 1, 5);
    outrider_disconnect(c);
    return rc;
  });
  char ch;
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  agents_[0]->Stop(SIGKILL);
  EXPECT_EQ(ranks.Reap(0), 0);
  for (int r : {1, 2}) {
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r;
    EXPECT_EQ(out->generation[r], 1u);
    EXPECT_EQ(out->world[r], 2);
    EXPECT_EQ(out->rank[r], r - 1);
    EXPECT_EQ(out->steps[r], 5);
  }
  std::string log = agents_[1]->ReadLog();
  EXPECT_THAT(log, HasSubstr("decided here"));
}

// A survivor dies after its node reported it for generation 1 and before the agents decided: the
// generation cannot form, every other rank's first op in it fails at once, and they re-form again
// into generation 2 without it, not waiting for its node.
TEST_F(MultiNodeTest, ASurvivorDyingWhileTheJobReformsEndsInTheNextGeneration) {
  StartAgents(4, /*http=*/true);
  SharedValue<Elastic> out;
  Pipe started, release;
  SharedValue<int> asking;
  Ranks ranks(4, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("midway", "tok", r, 4);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    for (int step = 0; step < 3; ++step) {
      if (Step(c, x) != 0) return 90;
    }
    started.Send('s');  // each rank: an op still finishing at one would fail with the kill
    int rc = 0;
    while (rc == 0) rc = Step(c, x);
    if (r == 2) {  // asks only once rank 3 is gone
      char ch;
      if (!release.Receive(&ch, 60000)) return 91;
    }
    if (r == 3) ++*asking;
    rc = Survive(c, r, out, 3, 3);
    outrider_disconnect(c);
    return rc;
  });
  char ch;
  for (int r = 0; r < 4; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(1, SIGKILL), 0);
  ranks.Reap(1);
  // Rank 3's node has reported it (it asked, and its agent sent its collection).
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::string s = HttpGet(http_ports_[3], "/status");
        return s.find("\"sent\": true") != std::string::npos;
      },
      30000));
  ASSERT_EQ(ranks.Kill(3, SIGKILL), 0);
  ranks.Reap(3);
  release.Send('r');
  for (int r : {0, 2}) {
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r;
    EXPECT_EQ(out->generation[r], 2u) << "rank " << r;
    EXPECT_EQ(out->world[r], 2);
    EXPECT_EQ(out->rank[r], r == 0 ? 0 : 1);
    EXPECT_EQ(out->steps[r], 3);
  }
  // Rank 3's node told generation 1's root that it has no rank in it: node 0 decided generation 2
  // without waiting out the deadline for that node.
  std::string log = agents_[0]->ReadLog();
  EXPECT_THAT(log, HasSubstr("generation 1 -> 2 decided here"));
  EXPECT_THAT(log, Not(HasSubstr("at the deadline")));
}

// Rank 2 dies, the other nodes report to node 0's agent, and node 0's own rank dies before it
// asks: node 0's agent can no longer decide, so it sends the reports on at once, and node 1
// decides. The survivors' first reconfigure succeeds (before, it waited out its whole deadline).
TEST_F(MultiNodeTest, NodeZerosRankDyingAfterTheOthersReportedLeavesTheNextNodeToDecide) {
  StartAgents(4, /*http=*/true);
  SharedValue<Elastic> out;
  Pipe started;
  Ranks ranks(4, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("stagger", "tok", r, 4);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    for (int step = 0; step < 3; ++step) {
      if (Step(c, x) != 0) return 90;
    }
    started.Send('s');
    if (r == 0) {
      while (Step(c, x) == 0) {
      }
      ::pause();  // never asks: killed while the others' reports wait at its agent
    }
    int rc = Survive(c, r, out, 1, 3);
    outrider_disconnect(c);
    return rc;
  });
  char ch;
  for (int r = 0; r < 4; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(2, SIGKILL), 0);
  ranks.Reap(2);
  // Both other nodes' reports are held at node 0's agent.
  ASSERT_TRUE(WaitUntil(
      [&] {
        nlohmann::json s =
            nlohmann::json::parse(HttpGet(http_ports_[0], "/status"), nullptr, false);
        if (!s.is_object() || !s.contains("generations")) return false;
        for (const auto& d : s["generations"]["deciding"]) {
          if (d.value("job", "") == "stagger" && d.value("reports", 0) == 2) return true;
        }
        return false;
      },
      30000));
  ASSERT_EQ(ranks.Kill(0, SIGKILL), 0);
  ranks.Reap(0);
  for (int r : {1, 3}) {
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r;
    EXPECT_EQ(out->generation[r], 1u) << "rank " << r;
    EXPECT_EQ(out->world[r], 2);
    EXPECT_EQ(out->rank[r], r == 1 ? 0 : 1);
    EXPECT_EQ(out->steps[r], 3);
  }
  EXPECT_THAT(agents_[1]->ReadLog(), HasSubstr("decided here"));
}

// A joiner with the wrong token is refused (PERMISSION_DENIED, named), and the job never hears of
// it: no joiner waits, every step goes on.
TEST_F(MultiNodeTest, AJoinerWithTheWrongTokenIsRefusedAndTheJobGoesOn) {
  StartAgents(2);
  SharedValue<Results> res;
  SharedValue<int> stop;
  SharedValue<uint32_t> joiners_seen;
  Ranks ranks(2, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("guarded", "right", r, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; step < 1000000 && rc == 0; ++step) {
      rc = Step(c, x);
      outrider_membership_t m;
      if (rc == 0) rc = outrider_membership(c, &m);
      if (m.joiners_waiting > *joiners_seen) *joiners_seen = m.joiners_waiting;
      x[0] = r == 0 && *stop ? 1 : 0;
      outrider_op_t h;
      if (rc == 0)
        rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_MAX, nullptr, &h), &h);
      if (x[0] != 0) break;
    }
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    outrider_disconnect(c);
    return 0;
  });
  pid_t joiner = Spawn([&] {
    ::setenv("OUTRIDER_JOB_TOKEN", "wrong", 1);
    ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(ports_[0])).c_str(), 1);
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    std::string socket = agents_[1]->socket_path();
    o.socket_path = socket.c_str();
    o.job_id = "guarded";
    o.flags = OUTRIDER_CONNECT_JOINER;
    outrider_client_t* c = ConnectOrExitWith(&o);
    outrider_membership_t m;
    res->rc[2] = outrider_reconfigure(c, 5000, &m);
    CopyText(res->error[2], 256, outrider_last_error(c));
    // Not admitted: ops are refused.
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 64));
    outrider_op_t h;
    res->rc[3] =
        Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h), &h);
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(joiner), 0);
  EXPECT_EQ(res->rc[2], OUTRIDER_ERR_PERMISSION_DENIED) << res->error[2];
  EXPECT_THAT(res->error[2], HasSubstr("wrong job token"));
  EXPECT_EQ(res->rc[3], OUTRIDER_ERR_FAILED_PRECONDITION);
  *stop = 1;
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks.Reap(r), 0);
    EXPECT_EQ(res->rc[r], 0) << res->error[r];
  }
  EXPECT_EQ(*joiners_seen, 0u);
}

}  // namespace
}  // namespace outrider::testing
