// Communicators over agents on loopback, one per emulated node: groups made by split and from
// rank lists run their own collectives, only on the nodes of their members, and leave no state
// behind when destroyed or when a member dies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

outrider_op_options_t On(outrider_comm_t comm) {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.comm = comm;
  return o;
}

// Sums `value` over the communicator; the result, or -1000 - rc on failure.
int32_t SumOver(outrider_client_t* c, outrider_comm_t comm, int32_t value) {
  auto* x = static_cast<int32_t*>(outrider_alloc(c, 4));
  *x = value;
  outrider_op_options_t o = On(comm);
  outrider_op_t h;
  int rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h), &h);
  int32_t out = rc == OUTRIDER_OK ? *x : -1000 - rc;
  outrider_free(c, x);
  return out;
}

// How many jobs an agent's /status lists whose id starts with `prefix`.
int JobsNamed(uint16_t http_port, const std::string& prefix) {
  std::string body = HttpGet(http_port, "/status");
  std::string needle = "\"id\": \"" + prefix;
  int n = 0;
  for (size_t at = body.find(needle); at != std::string::npos; at = body.find(needle, at + 1)) ++n;
  return n;
}

class CommTest : public MultiNodeTest {};

TEST_F(CommTest, SplitByParityGivesEachGroupItsOwnCollectives) {
  StartAgents(2);
  RunJob("parity", 2, 2, "tok", [](outrider_client_t* c, int r) {
    outrider_comm_t g;
    int rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, r % 2, r, &g);
    if (rc != OUTRIDER_OK) return rc;
    // {0, 2} and {1, 3}: one rank on each node.
    if (outrider_comm_size(c, g) != 2 || outrider_comm_rank(c, g) != r / 2) return 90;
    for (int step = 0; step < 3; ++step) {
      if (SumOver(c, g, r + 1 + step) != (r % 2 == 0 ? 4 : 6) + 2 * step) return 91;
      if (SumOver(c, OUTRIDER_COMM_WORLD, r + 1) != 10) return 92;
    }
    // Broadcast from group rank 1 (world rank 2 or 3).
    auto* b = static_cast<int32_t*>(outrider_alloc(c, 4));
    *b = 100 + r;
    outrider_op_options_t o = On(g);
    outrider_op_t h;
    rc = Wait(c, outrider_broadcast(c, b, 1, OUTRIDER_I32, 1, &o, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    if (*b != 100 + 2 + r % 2) return 93;
    // Allgather in group rank order.
    auto* all = static_cast<int32_t*>(outrider_alloc(c, 8));
    *b = r;
    rc = Wait(c, outrider_allgather(c, b, all, 1, OUTRIDER_I32, &o, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    if (all[0] != r % 2 || all[1] != r % 2 + 2) return 94;
    return outrider_comm_destroy(c, g);
  });
}

TEST_F(CommTest, NodeLocalGroupsLeaveTheOtherNodeOut) {
  StartAgents(2, /*http=*/true);
  uint16_t http[2] = {http_ports_[0], http_ports_[1]};
  RunJob("bynode", 2, 2, "tok", [&](outrider_client_t* c, int r) {
    outrider_comm_t g;
    int rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, r / 2, r, &g);
    if (rc != OUTRIDER_OK) return rc;
    if (SumOver(c, g, r) != (r < 2 ? 1 : 5)) return 90;
    // Every rank has made its group and summed in it: each agent holds exactly its own node's.
    if (SumOver(c, OUTRIDER_COMM_WORLD, 1) != 4) return 91;
    if (r == 0 && (JobsNamed(http[0], "bynode/") != 1 || JobsNamed(http[1], "bynode/") != 1))
      return 92;
    if (SumOver(c, OUTRIDER_COMM_WORLD, 1) != 4) return 93;
    return outrider_comm_destroy(c, g);
  });
}

TEST_F(CommTest, GroupWithoutTheRootNodeMeetsThroughTheRootAgent) {
  StartAgents(3, /*http=*/true);
  uint16_t root_http = http_ports_[0];
  RunJob("relay", 3, 1, "tok", [&](outrider_client_t* c, int r) {
    if (r > 0) {
      int members[2] = {1, 2};
      outrider_comm_t g;
      int rc = outrider_comm_create(c, OUTRIDER_COMM_WORLD, members, 2, &g);
      if (rc != OUTRIDER_OK) return rc;
      if (outrider_comm_rank(c, g) != r - 1) return 90;
      for (int step = 0; step < 3; ++step) {
        if (SumOver(c, g, r * 10 + step) != 30 + 2 * step) return 91;
      }
      if (SumOver(c, OUTRIDER_COMM_WORLD, 1) != 3) return 92;
      rc = outrider_comm_destroy(c, g);
      if (rc != OUTRIDER_OK) return rc;
    } else {
      if (SumOver(c, OUTRIDER_COMM_WORLD, 1) != 3) return 93;
      // The root agent only relayed the group's rendezvous: it never held the group.
      if (JobsNamed(root_http, "relay/") != 0) return 94;
    }
    return SumOver(c, OUTRIDER_COMM_WORLD, 1) == 3 ? 0 : 95;
  });
}

TEST_F(CommTest, RanksOutOfNodeOrderTranslateRootsAndRefuseRankOrderedOps) {
  StartAgents(2);
  RunJob("reversed", 2, 1, "tok", [](outrider_client_t* c, int r) {
    int members[2] = {1, 0};  // group rank 0 is on node 1
    outrider_comm_t g;
    int rc = outrider_comm_create(c, OUTRIDER_COMM_WORLD, members, 2, &g);
    if (rc != OUTRIDER_OK) return rc;
    if (outrider_comm_rank(c, g) != 1 - r) return 90;
    auto* b = static_cast<int32_t*>(outrider_alloc(c, 16));
    b[0] = 7 + r;
    outrider_op_options_t o = On(g);
    outrider_op_t h;
    rc = Wait(c, outrider_broadcast(c, b, 1, OUTRIDER_I32, 0, &o, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    if (b[0] != 8) return 91;  // world rank 1's value
    rc = outrider_allgather(c, b, b + 2, 1, OUTRIDER_I32, &o, &h);
    if (rc != OUTRIDER_ERR_FAILED_PRECONDITION) return 92;
    if (std::string(outrider_last_error(c)).find("not in node order") == std::string::npos)
      return 93;
    return outrider_comm_destroy(c, g);
  });
}

TEST_F(CommTest, SplitOfASplitOrdersByKey) {
  StartAgents(2);
  RunJob("nested", 2, 2, "tok", [](outrider_client_t* c, int r) {
    outrider_comm_t g, h;
    int rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, r % 2, r, &g);
    if (rc == OUTRIDER_OK)
      rc = outrider_comm_split(c, g, 0, -r, &h);  // reversed: highest rank first
    if (rc != OUTRIDER_OK) return rc;
    if (outrider_comm_size(c, h) != 2 || outrider_comm_rank(c, h) != (r < 2 ? 1 : 0)) return 90;
    if (SumOver(c, h, r) != (r % 2 == 0 ? 2 : 4)) return 91;
    // Ranks who split with a negative color join nothing.
    outrider_comm_t none;
    rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, r == 0 ? 0 : -1, 0, &none);
    if (rc != OUTRIDER_OK) return rc;
    if ((r == 0) != (none != OUTRIDER_COMM_NULL)) return 92;
    if (r == 0 && (SumOver(c, none, 5) != 5 || outrider_comm_destroy(c, none) != OUTRIDER_OK))
      return 93;
    rc = outrider_comm_destroy(c, h);
    return rc == OUTRIDER_OK ? outrider_comm_destroy(c, g) : rc;
  });
}

TEST_F(CommTest, GroupWithUnevenRanksPerNodeIsRefused) {
  StartAgents(2);
  RunJob("uneven", 2, 2, "tok", [](outrider_client_t* c, int r) {
    if (r != 3) {
      int members[3] = {0, 1, 2};
      outrider_comm_t g;
      int rc = outrider_comm_create(c, OUTRIDER_COMM_WORLD, members, 3, &g);
      if (rc != OUTRIDER_ERR_FAILED_PRECONDITION || g != OUTRIDER_COMM_NULL) return 90;
      if (std::string(outrider_last_error(c)).find("node 0: 2, node 1: 1") == std::string::npos)
        return 91;
    }
    // No rank leaves before every rank has joined (a job that lost a member refuses newcomers).
    return SumOver(c, OUTRIDER_COMM_WORLD, 1) == 4 ? 0 : 92;
  });
}

TEST_F(CommTest, BadArgumentsAreRefusedNamingThem) {
  StartAgents(1);
  RunJob("badcomm", 1, 2, "tok", [](outrider_client_t* c, int r) {
    outrider_comm_t g;
    int dup[2] = {0, 0};
    if (outrider_comm_create(c, OUTRIDER_COMM_WORLD, dup, 2, &g) != OUTRIDER_ERR_INVALID_ARGUMENT)
      return 90;
    int outside[2] = {0, 5};
    if (outrider_comm_create(c, OUTRIDER_COMM_WORLD, outside, 2, &g) !=
        OUTRIDER_ERR_INVALID_ARGUMENT)
      return 91;
    int other[1] = {1 - r};
    if (outrider_comm_create(c, OUTRIDER_COMM_WORLD, other, 1, &g) != OUTRIDER_ERR_INVALID_ARGUMENT)
      return 92;
    if (outrider_comm_create(c, 77, other, 1, &g) != OUTRIDER_ERR_INVALID_ARGUMENT) return 93;
    if (outrider_comm_destroy(c, OUTRIDER_COMM_WORLD) != OUTRIDER_ERR_INVALID_ARGUMENT) return 94;
    if (outrider_comm_destroy(c, 77) != OUTRIDER_ERR_INVALID_ARGUMENT) return 95;
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4));
    outrider_op_options_t o = On(77);
    outrider_op_t h;
    if (outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h) !=
        OUTRIDER_ERR_INVALID_ARGUMENT)
      return 96;
    if (std::string(outrider_last_error(c)).find("no communicator 77") == std::string::npos)
      return 97;
    // A pending op keeps its communicator: destroying it first is refused.
    int both[2] = {0, 1};
    if (outrider_comm_create(c, OUTRIDER_COMM_WORLD, both, 2, &g) != OUTRIDER_OK) return 98;
    o = On(g);
    if (r == 0) {
      if (outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h) != OUTRIDER_OK)
        return 99;
      if (outrider_comm_destroy(c, g) != OUTRIDER_ERR_FAILED_PRECONDITION) return 100;
    } else {
      if (outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h) != OUTRIDER_OK)
        return 101;
    }
    int rc = outrider_wait(c, h, 30000);
    return rc == OUTRIDER_OK ? outrider_comm_destroy(c, g) : rc;
  });
}

TEST_F(CommTest, DestroyedGroupsLeaveNoStateAndCanBeMadeAgain) {
  StartAgents(2, /*http=*/true);
  uint16_t http[2] = {http_ports_[0], http_ports_[1]};
  RunJob("remade", 2, 1, "tok", [&](outrider_client_t* c, int r) {
    int both[2] = {0, 1};
    for (int round = 0; round < 3; ++round) {
      outrider_comm_t g;
      int rc = outrider_comm_create(c, OUTRIDER_COMM_WORLD, both, 2, &g);
      if (rc != OUTRIDER_OK) return rc;
      if (SumOver(c, g, r + round) != 1 + 2 * round) return 90;
      rc = outrider_comm_destroy(c, g);
      if (rc != OUTRIDER_OK) return rc;
    }
    if (SumOver(c, OUTRIDER_COMM_WORLD, 1) != 2) return 91;
    // Every rank destroyed its groups before that sum: once the agents have dropped them (their
    // last messages may still be on the way), only the job remains.
    for (int i = 0; i < 2; ++i) {
      if (!WaitUntil([&] { return JobsNamed(http[i], "remade/") == 0; }, 10000)) return 92 + i;
    }
    return JobsNamed(http[r], "remade") == 1 ? 0 : 94;
  });
}

TEST_F(CommTest, MemberDeathFailsTheGroupNamingTheRank) {
  StartAgents(2);
  RunJob(
      "death", 2, 1, "tok",
      [](outrider_client_t* c, int r) {
        int both[2] = {0, 1};
        outrider_comm_t g;
        int rc = outrider_comm_create(c, OUTRIDER_COMM_WORLD, both, 2, &g);
        if (rc != OUTRIDER_OK) return rc;
        if (SumOver(c, g, 1) != 2) return 90;
        if (r == 1) _exit(0);  // dies without a goodbye
        auto* x = static_cast<int32_t*>(outrider_alloc(c, 4));
        outrider_op_options_t o = On(g);
        outrider_op_t h;
        rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_SUM, &o, &h), &h);
        if (rc != OUTRIDER_ERR_PEER_LOST) return 91;
        std::string why = outrider_last_error(c);
        return why.find("rank 1") != std::string::npos && why.find("death/") != std::string::npos
                   ? 0
                   : 92;
      },
      /*expect_ok=*/false);
  EXPECT_EQ(results_->rc[0], 0) << results_->error[0];
}

}  // namespace
}  // namespace outrider::testing
