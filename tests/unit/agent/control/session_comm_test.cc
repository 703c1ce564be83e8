// A session's communicators against a client played by the test: membership through the job
// table, ops routed by the communicator they name, and the refusals a misbehaving client gets.
#include <gtest/gtest.h>

#include "agent/engine/job_table.h"
#include "tests/unit/agent/control/session_fixture.h"

namespace outrider::agent {
namespace {

using namespace session_testing;  // NOLINT: the fixture's helpers

class SessionCommTest : public SessionTest {
 protected:
  void SetUp() override {
    world_ = 2;
    SessionTest::SetUp();
    session_->EnableComms(&jobs_, nullptr, &options_, &comms_in_use_);
  }
  void TearDown() override {
    for (CommMember* c : session_->comms()) jobs_.Leave(c, Cancelled("test ends"));
    session_.reset();  // before the counter it counts down
  }

  std::optional<ipc::RegionReply> Create(int32_t rank, int32_t world, uint64_t key = 7) {
    auto msg = Message<ipc::CommCreate>(ipc::MsgType::kCommCreate, ++request_id_);
    msg.key = key;
    msg.rank = rank;
    msg.world_size = world;
    msg.local_rank = rank;
    msg.local_world_size = world;
    Deliver(msg);
    return Receive<ipc::RegionReply>(ipc::MsgType::kCommCreateReply);
  }
  std::optional<ipc::RegionReply> Destroy(uint32_t comm) {
    auto msg = Message<ipc::CommDestroy>(ipc::MsgType::kCommDestroy, ++request_id_);
    msg.comm = comm;
    Deliver(msg);
    return Receive<ipc::RegionReply>(ipc::MsgType::kCommDestroyReply);
  }

  JobTable jobs_;
  ControlServerOptions options_;
  size_t comms_in_use_ = 0;
};

TEST_F(SessionCommTest, RoutesOpsToTheCommunicatorTheyName) {
  uint32_t region = RegisterRegion();
  auto reply = Create(0, 1);
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->code, 0) << reply->message;
  uint32_t comm = reply->region_id;
  EXPECT_NE(comm, 0u);
  ipc::SubmitEntry e = Allreduce(1, region);
  e.comm = comm;
  Submit(e);
  std::vector<const Member*> members;
  session_->DrainSubmissions([&](Member* m, const ValidatedOp& op) {
    members.push_back(m);
    m->Complete(op.op_id, Status::Ok(), 0, 0);
  });
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0]->identity().job_id, "session-test/0000000000000007");
  ASSERT_EQ(PopCompletions().size(), 1u);
  // Completed: the communicator can go, and its job with it.
  reply = Destroy(comm);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, 0) << reply->message;
  EXPECT_EQ(jobs_.Find("session-test/0000000000000007"), nullptr);
}

TEST_F(SessionCommTest, RefusesOpsOnACommunicatorTheClientDoesNotHave) {
  uint32_t region = RegisterRegion();
  ipc::SubmitEntry e = Allreduce(1, region);
  e.comm = 5;
  Submit(e);
  EXPECT_TRUE(Drain().empty());
  auto done = PopCompletions();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_NE(std::string(done[0].message).find("communicator 5"), std::string::npos)
      << done[0].message;
}

TEST_F(SessionCommTest, RefusesDestroyingACommunicatorWithOpsInFlight) {
  uint32_t region = RegisterRegion();
  auto reply = Create(0, 1);
  ASSERT_TRUE(reply && reply->code == 0);
  ipc::SubmitEntry e = Allreduce(1, region);
  e.comm = reply->region_id;
  Submit(e);
  std::vector<std::pair<Member*, uint64_t>> held;
  session_->DrainSubmissions(
      [&](Member* m, const ValidatedOp& op) { held.emplace_back(m, op.op_id); });
  ASSERT_EQ(held.size(), 1u);
  auto refused = Destroy(reply->region_id);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, static_cast<int32_t>(Code::kFailedPrecondition));
  EXPECT_NE(std::string(refused->message).find("in flight"), std::string::npos) << refused->message;
  held[0].first->Complete(held[0].second, Status::Ok(), 0, 0);
  auto destroyed = Destroy(reply->region_id);
  ASSERT_TRUE(destroyed);
  EXPECT_EQ(destroyed->code, 0) << destroyed->message;
}

TEST_F(SessionCommTest, RefusesJoiningTheSameCommunicatorTwiceAndUnknownDestroys) {
  auto first = Create(0, 2);
  ASSERT_TRUE(first && first->code == 0);
  auto again = Create(1, 2);  // the same key: the same communicator, as another of its ranks
  ASSERT_TRUE(again);
  EXPECT_EQ(again->code, static_cast<int32_t>(Code::kFailedPrecondition));
  EXPECT_NE(std::string(again->message).find("already a member"), std::string::npos)
      << again->message;
  auto unknown = Destroy(99);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->code, static_cast<int32_t>(Code::kInvalidArgument));
}

TEST_F(SessionCommTest, TheAgentWideBoundCountsEveryMembershipAndFreesOnDestroy) {
  options_.max_communicators = 1;
  comms_in_use_ = 0;
  auto first = Create(0, 1, 7);
  ASSERT_TRUE(first && first->code == 0) << (first ? first->message : "no reply");
  EXPECT_EQ(comms_in_use_, 1u);
  auto second = Create(0, 1, 8);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->code, static_cast<int32_t>(Code::kResourceExhausted));
  EXPECT_NE(std::string(second->message).find("max_communicators=1"), std::string::npos)
      << second->message;
  auto destroyed = Destroy(first->region_id);
  ASSERT_TRUE(destroyed && destroyed->code == 0);
  EXPECT_EQ(comms_in_use_, 0u);
  auto third = Create(0, 1, 8);
  ASSERT_TRUE(third && third->code == 0) << (third ? third->message : "no reply");
  EXPECT_EQ(comms_in_use_, 1u);
}

TEST_F(SessionCommTest, RefusesCommunicatorsWhenTheAgentDoesNotServeThem) {
  session_->EnableComms(nullptr, nullptr, nullptr, nullptr);
  auto reply = Create(0, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kFailedPrecondition));
}

}  // namespace
}  // namespace outrider::agent
