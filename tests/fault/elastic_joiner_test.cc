// Joiners while a job changes (docs/elastic.md), against agents on loopback: a replacement for
// rank 0 that asks before the others re-form is held by the lowest node left; a job of two ranks
// per node that loses one grows back with one replacement (the lost rank's node-mate waits instead
// of being sent away), also when the agent that decided has no rank left in the job; a held joiner
// hears at once when its job ends; a rank whose agent was killed and started again rejoins through
// it, as a joiner, without restarting.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ipc/event_fd.h"
#include "tests/fault/elastic_fixture.h"
#include "tests/support/rank_runner.h"

namespace outrider::testing {
namespace {

// Rank 0 dies and its replacement asks at rank 0's node before the others re-form: it is held by
// the lowest node left (which will decide), not refused, and the job grows back to 3 in the
// generation the others then form.
TEST_F(MultiNodeTest, AReplacementForRankZeroAskingBeforeTheOthersReformIsHeldAndJoins) {
  StartAgents(3, /*http=*/true);
  SharedValue<Elastic> out;
  SharedValue<Results> res;
  Pipe started, failed, go;
  Ranks ranks(3, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("phoenix", "tok", r, 3);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; rc == 0 && step < 100000; ++step) {
      rc = Step(c, x);
      if (step == 3) started.Send('s');
    }
    failed.Send('f');
    char ch;
    if (!go.Receive(&ch, 60000)) return 91;
    outrider_membership_t m;
    rc = outrider_reconfigure(c, 20000, &m);
    for (int s = 0; rc == 0 && s < 3; ++s) rc = Step(c, x);
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    out->world[r] = m.world_size;
    out->rank[r] = m.rank;
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(0, SIGKILL), 0);
  ranks.Reap(0);
  for (int r = 1; r < 3; ++r) ASSERT_TRUE(failed.Receive(&ch, 60000));
  pid_t joiner =
      SpawnJoiner(agents_[0]->socket_path(), ports_[0], "phoenix", 30000, 3, 0, res, out);
  // Node 1, the lowest node with ranks left, holds it.
  ASSERT_TRUE(WaitUntil(
      [&] {
        nlohmann::json s =
            nlohmann::json::parse(HttpGet(http_ports_[1], "/status"), nullptr, false);
        return s.is_object() && s.contains("generations") &&
               s["generations"]["joiners_waiting"].value("phoenix", 0) == 1;
      },
      30000))
      << res->error[0];
  go.Send('g');
  go.Send('g');
  EXPECT_EQ(Reap(joiner), 0);
  EXPECT_EQ(res->rc[0], 0) << res->error[0];
  EXPECT_EQ(out->world[0], 3);
  EXPECT_EQ(out->rank[0], 2);  // joiners come last
  for (int r : {1, 2}) {
    EXPECT_EQ(ranks.Reap(r), 0);
    EXPECT_EQ(res->rc[r], 0) << "rank " << r << ": " << res->error[r];
    EXPECT_EQ(out->world[r], 3);
    EXPECT_EQ(out->rank[r], r - 1);
  }
}

// In a generation whose nodes run different numbers of ranks: each pair of consecutive ranks
// (the last alone) allreduces in a communicator of its own. Ranks 4 and 5 of a 7-rank generation
// of nodes with 2, 2, 1 and 2 ranks are on two nodes, not one: the shim must know each rank's node.
inline int PairsStep(outrider_client_t* c, int32_t* x) {
  int rank = outrider_rank(c), world = outrider_world_size(c);
  outrider_comm_t pair = OUTRIDER_COMM_NULL;
  if (int rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, rank / 2, rank, &pair); rc != 0)
    return rc;
  x[0] = rank + 1;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.comm = pair;
  outrider_op_t h;
  int rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h), &h);
  int first = rank / 2 * 2, last = std::min(first + 1, world - 1);
  if (rc == 0 && x[0] != (first + 1) + (last == first ? 0 : last + 1)) rc = 98;
  int destroyed = outrider_comm_destroy(c, pair);
  return rc != 0 ? rc : destroyed;
}

// A job of 4 nodes x 2 ranks loses rank 5. Its node-mate, rank 4, goes on with the other 6 as
// generation 1 of 7 ranks, its node running one (nodes 2, 2, 1, 2): every op works across nodes
// that differ, a communicator spanning the lone node's rank and the next node's included. One
// replacement at rank 5's node joins on that node: the job is 8 again in generation 2, every rank
// where it was before.
TEST_F(MultiNodeTest,
       AJobOfTwoRanksPerNodeKeepsTheDeadRanksNodeMateAndGrowsBackWithOneReplacement) {
  StartAgents(4);
  SharedValue<Elastic> out, fin;  // generation 1, then the last
  SharedValue<Results> res;
  Pipe started;
  Ranks ranks(8, [&](int r) {
    outrider_client_t* c = ConnectRank("fourbytwo", "tok", r, 8, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; rc == 0 && step < 100000; ++step) {
      rc = Step(c, x);
      if (step == 3) started.Send('s');
    }
    outrider_membership_t m;
    rc = outrider_reconfigure(c, 30000, &m);
    out->generation[r] = m.generation;
    out->world[r] = m.world_size;
    out->rank[r] = m.rank;
    if (rc == 0) rc = PairsStep(c, x);
    // Generation 1 trains until a joiner waits.
    if (rc == 0) rc = TrainUntilAJoinerWaits(c, x);
    if (rc == 0) rc = outrider_reconfigure(c, 30000, &m);
    for (int s = 0; rc == 0 && s < 3; ++s) rc = Step(c, x);
    res->rc[r] = rc;
    CopyText(res->error[r], 256, outrider_last_error(c));
    fin->generation[r] = m.generation;
    fin->world[r] = m.world_size;
    fin->rank[r] = m.rank;
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  for (int r = 0; r < 8; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(5, SIGKILL), 0);
  ranks.Reap(5);
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int r : {0, 1, 2, 3, 4, 6, 7}) {
          if (out->world[r] == 0) return false;
        }
        return true;
      },
      30000));
  for (int r : {0, 1, 2, 3, 4, 6, 7}) {
    EXPECT_EQ(out->generation[r], 1u) << "rank " << r;
    EXPECT_EQ(out->world[r], 7) << "rank " << r;
  }
  EXPECT_EQ(out->rank[4], 4);  // kept on its node, alone there
  EXPECT_EQ(out->rank[6], 5);
  EXPECT_EQ(out->rank[7], 6);
  pid_t joiner =
      SpawnJoiner(agents_[2]->socket_path(), ports_[0], "fourbytwo", 30000, 3, 5, res, fin);
  EXPECT_EQ(Reap(joiner), 0);
  EXPECT_EQ(res->rc[5], 0) << res->error[5];
  EXPECT_EQ(fin->world[5], 8);
  for (int r : {0, 1, 2, 3, 4, 6, 7}) {
    EXPECT_EQ(ranks.Reap(r), 0);
    EXPECT_EQ(res->rc[r], 0) << "rank " << r << ": " << res->error[r];
    EXPECT_EQ(fin->generation[r], 2u) << "rank " << r;
    EXPECT_EQ(fin->world[r], 8) << "rank " << r;
    EXPECT_EQ(fin->rank[r], r) << "rank " << r;
  }
  EXPECT_EQ(fin->rank[5], 5);  // the replacement, on the dead rank's node
}

// A job of 4 nodes x 2 ranks loses rank 7, then rank 0 while it runs as generation 1 (7 ranks).
// Generation 2 keeps every rank left, on every node: 6 ranks, nodes running 1, 2, 2 and 1. The
// replacements at nodes 0 and 3, asking node 0's agent, complete those nodes: the job is back to
// 8 ranks.
TEST_F(MultiNodeTest, AJobThatLosesRanksOnTwoNodesOneAfterTheOtherGrowsBackWithTwoReplacements) {
  StartAgents(4);
  SharedValue<Elastic> out, fin;
  SharedValue<Results> res;
  Pipe started;
  // Re-forms (after a failure, or when a joiner it can place waits) until the job is 8 again, then
  // runs 3 steps. The replacements run it too: one may enter a generation of 6 first.
  auto to_eight = [&](outrider_client_t* c, int32_t* x, int slot) {
    outrider_membership_t m{};
    int rc = 0;
    for (int reform = 0; reform < 8; ++reform) {
      rc = outrider_reconfigure(c, 30000, &m);
      if (rc != 0) break;
      out->generation[slot] = m.generation;
      out->world[slot] = m.world_size;
      if (m.world_size == 8) break;
      TrainUntilAJoinerWaits(c, x);
    }
    for (int s = 0; rc == 0 && s < 3; ++s) rc = Step(c, x);
    res->rc[slot] = rc;
    CopyText(res->error[slot], 256, outrider_last_error(c));
    fin->world[slot] = m.world_size;
    outrider_disconnect(c);
    return 0;
  };
  Ranks ranks(8, [&](int r) {
    outrider_client_t* c = ConnectRank("stagger", "tok", r, 8, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = 0;
    for (int step = 0; rc == 0 && step < 100000; ++step) {
      rc = Step(c, x);
      if (step == 3) started.Send('s');
    }
    return to_eight(c, x, r);
  });
  // A replacement at node `node`, asking node 0's agent (ports_[0]) first.
  auto replacement = [&](int node, int slot) {
    return Spawn([&, node, slot] {
      ::setenv("OUTRIDER_JOB_TOKEN", "tok", 1);
      ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(ports_[0])).c_str(), 1);
      std::string socket = agents_[static_cast<size_t>(node)]->socket_path();
      outrider_connect_options_t o;
      outrider_connect_options_init(&o);
      o.socket_path = socket.c_str();
      o.job_id = "stagger";
      o.flags = OUTRIDER_CONNECT_JOINER;
      outrider_client_t* c = ConnectOrExitWith(&o);
      return to_eight(c, static_cast<int32_t*>(outrider_alloc(c, 4 * kCount)), slot);
    });
  };
  char ch;
  for (int r = 0; r < 8; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  ASSERT_EQ(ranks.Kill(7, SIGKILL), 0);
  ranks.Reap(7);
  ASSERT_TRUE(WaitUntil([&] { return out->world[0] == 7; }, 30000));
  ASSERT_EQ(ranks.Kill(0, SIGKILL), 0);
  ranks.Reap(0);
  ASSERT_TRUE(WaitUntil([&] { return out->world[2] == 6; }, 30000));
  for (int r = 1; r < 7; ++r) {
    EXPECT_TRUE(WaitUntil([&] { return out->world[r] == 6; }, 30000)) << "rank " << r;
    EXPECT_EQ(out->generation[r], 2u) << "rank " << r;
  }
  pid_t at3 = replacement(3, 7);
  pid_t at0 = replacement(0, 0);
  EXPECT_EQ(Reap(at3), 0);
  EXPECT_EQ(Reap(at0), 0);
  for (int r : {0, 7}) {
    EXPECT_EQ(res->rc[r], 0) << "the replacement for rank " << r << ": " << res->error[r];
    EXPECT_EQ(fin->world[r], 8);
  }
  for (int r = 1; r < 7; ++r) {
    EXPECT_EQ(ranks.Reap(r), 0);
    EXPECT_EQ(res->rc[r], 0) << "rank " << r << ": " << res->error[r];
    EXPECT_EQ(fin->world[r], 8) << "rank " << r;
  }
}

// A joiner waits at node 0's agent (a spare beside node 1's one rank: the ranks see it waiting,
// and do not re-form for it); then every rank of the job leaves. The joiner hears at once that no
// agent of the job can take it, instead of waiting out its deadline.
TEST_F(MultiNodeTest, AHeldJoinerIsToldAtOnceWhenItsJobEnds) {
  StartAgents(2, /*http=*/true);
  SharedValue<Elastic> out;
  SharedValue<Results> res;
  Pipe started, query, queried, finish;
  Ranks ranks(2, [&](int r) {
    outrider_client_t* c = ConnectOnePerNode("ending", "tok", r, 2);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    int rc = Step(c, x);
    started.Send('s');
    char ch;
    if (rc == 0 && !query.Receive(&ch, 60000)) rc = 91;
    // A spare beside a node that runs its one rank: the next generation would place it there.
    outrider_membership_t now;
    if (rc == 0) rc = outrider_membership(c, &now);
    res->rc[4 + r] = rc == 0 ? static_cast<int>(now.joiners_waiting) : -1;
    queried.Send('q');
    if (rc == 0 && !finish.Receive(&ch, 60000)) rc = 92;
    outrider_disconnect(c);
    return rc;
  });
  char ch;
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
  uint64_t asked = ipc::MonotonicNs();
  pid_t joiner = SpawnJoiner(agents_[1]->socket_path(), ports_[0], "ending", 60000, 0, 2, res, out);
  ASSERT_TRUE(WaitUntil(
      [&] {
        nlohmann::json s =
            nlohmann::json::parse(HttpGet(http_ports_[0], "/status"), nullptr, false);
        return s.is_object() && s.contains("generations") &&
               s["generations"]["joiners_waiting"].value("ending", 0) == 1;
      },
      30000));
  for (int r = 0; r < 2; ++r) query.Send('q');
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(queried.Receive(&ch, 60000));
  finish.Send('f');
  finish.Send('f');
  ranks.ExpectAllExitZero();
  EXPECT_EQ(res->rc[4], 1) << "joiners_waiting at rank 0";
  EXPECT_EQ(Reap(joiner), 0);
  EXPECT_NE(res->rc[2], 0);
  EXPECT_NE(res->rc[2], OUTRIDER_ERR_DEADLINE_EXCEEDED) << res->error[2];
  std::printf("joiner told after %.3f s: %s\n",
              static_cast<double>(ipc::MonotonicNs() - asked) / 1e9, res->error[2]);
}

// An agent killed under an elastic job and started again a second later, as systemd's Restart= or
// a DaemonSet brings it back: no trainer restarts. The killed node's rank fails its op once
// (UNAVAILABLE), asks to go on, and reaches the new agent at its socket as a joiner of its job; the
// other ranks went on without its node and take it back when they see it waiting. The job is at
// full size again and every step's sum is right. Printed: the time from the kill to the first step
// at full size, per round (OUTRIDER_REJOIN_ROUNDS rounds, default 1).
TEST_F(MultiNodeTest, ARankWhoseAgentWasKilledAndRestartedRejoinsItsJobWithoutRestarting) {
  StartAgents(4);
  const char* env = std::getenv("OUTRIDER_REJOIN_ROUNDS");
  int rounds = env != nullptr ? std::max(1, std::atoi(env)) : 1;
  std::vector<double> took;
  for (int round = 0; round < rounds; ++round) {
    std::string job = "rejoin-" + std::to_string(round);
    SharedValue<Elastic> out;
    SharedValue<Results> res;
    Pipe started;
    Ranks ranks(4, [&](int r) {
      outrider_client_t* c = ConnectOnePerNode(job.c_str(), "tok", r, 4);
      auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
      int rc = 0;
      for (int step = 0; step < 3 && rc == 0; ++step) rc = Step(c, x);
      if (rc != 0) return 90;
      started.Send('s');
      while (rc == 0) rc = Step(c, x);  // until the kill reaches this rank
      res->rc[r] = rc;
      CopyText(res->error[r], 256, outrider_last_error(c));
      outrider_membership_t m{};
      for (int attempt = 0; attempt < 4; ++attempt) {
        rc = outrider_reconfigure(c, 30000, &m);
        if (rc != 0) {
          std::fprintf(stderr, "rank %d: reconfigure: %s\n", r, outrider_last_error(c));
          return 91;
        }
        rc = Step(c, x);
        if (rc != 0) continue;  // that generation failed already: on to the next
        if (m.world_size == 4) break;
        rc = TrainUntilAJoinerWaits(c, x);  // the killed node's rank, back as a joiner
      }
      if (rc != 0 || m.world_size != 4) return 92;
      out->reformed_ns[r] = ipc::MonotonicNs();
      out->generation[r] = m.generation;
      out->rank[r] = m.rank;
      out->world[r] = m.world_size;
      int s = 0;
      for (; s < 5 && rc == 0; ++s) rc = Step(c, x);
      out->steps[r] = s;
      outrider_disconnect(c);
      return rc;
    });
    char ch;
    for (int r = 0; r < 4; ++r) ASSERT_TRUE(started.Receive(&ch, 60000));
    uint64_t killed = ipc::MonotonicNs();
    agents_[2]->Stop(SIGKILL);
    // The restart delay itself (a unit's RestartSec=1): what the rank rides out.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_NO_FATAL_FAILURE(RestartAgent(2));
    uint64_t back = 0;
    std::vector<int32_t> places;
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r << ": first failure " << res->error[r];
      EXPECT_EQ(out->world[r], 4) << "rank " << r;
      EXPECT_EQ(out->steps[r], 5) << "rank " << r;
      places.push_back(out->rank[r]);
      back = std::max(back, out->reformed_ns[r]);
    }
    // The killed node's rank failed its op with its agent, saying the agent went.
    EXPECT_EQ(res->rc[2], OUTRIDER_ERR_UNAVAILABLE) << res->error[2];
    std::sort(places.begin(), places.end());
    EXPECT_EQ(places, (std::vector<int32_t>{0, 1, 2, 3}));
    if (HasFailure()) return;
    took.push_back(static_cast<double>(back - killed) / 1e9);
    std::printf("round %d: back at full size %.3f s after the kill (generation %u)\n", round,
                took.back(), out->generation[0]);
  }
  std::sort(took.begin(), took.end());
  std::printf(
      "back at full size after a kill and a restart 1 s later: median %.3f s of %zu "
      "rounds (min %.3f, max %.3f)\n",
      took[took.size() / 2], took.size(), took.front(), took.back());
}

}  // namespace
}  // namespace outrider::testing
