// The job table: idle jobs cost the loop nothing (only jobs marked active are pumped, expired and
// counted), jobs are found by hash in constant time, and a rank that joins a communicator which
// ended before it joined is told so instead of waiting for ranks that left.
#include "agent/engine/job_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/unit/agent/engine/job_fixture.h"

namespace outrider::agent {
namespace {

std::unique_ptr<FakeMember> CommMember(const std::string& id, int local_rank, int local_size) {
  auto m = std::make_unique<FakeMember>(local_rank, local_size);
  m->mutable_identity().job_id = id;
  m->mutable_identity().comm = true;
  return m;
}

TEST(JobTableTest, IdleJobsStayOutOfTheActiveSetAndAJobLeavesItOnceIdle) {
  JobTable table;
  std::vector<std::unique_ptr<FakeMember>> members;
  for (int j = 0; j < 500; ++j) {
    members.push_back(CommMember("job/" + std::to_string(j), 0, 1));
    ASSERT_TRUE(table.Join(members.back().get()).ok());
  }
  EXPECT_EQ(table.size(), 500u);
  EXPECT_EQ(table.active_count(), 0u);
  Buffers b = Allreduce(1, 9, {2, 3});
  table.Find("job/17")->Submit(members[17].get(), b.op);
  EXPECT_LE(table.active_count(), 1u);
  for (int i = 0; i < 1000 && members[17]->Of(1) == nullptr; ++i) table.Pump();
  ASSERT_NE(members[17]->Of(1), nullptr);
  EXPECT_TRUE(members[17]->Of(1)->status.ok());
  EXPECT_EQ(b.recv, (std::vector<float>{2, 3}));
  table.Pump();
  EXPECT_EQ(table.active_count(), 0u);
  EXPECT_EQ(table.PendingCount(), 0u);
  for (auto& m : members) table.Leave(m.get(), Cancelled("test over"), /*orderly=*/true);
  EXPECT_EQ(table.size(), 0u);
}

TEST(JobTableTest, FindsJobsByHashUntilTheyEnd) {
  JobTable table;
  auto a = CommMember("job/a", 0, 1), b = CommMember("job/b", 0, 1);
  ASSERT_TRUE(table.Join(a.get()).ok());
  ASSERT_TRUE(table.Join(b.get()).ok());
  Job* ja = table.Find("job/a");
  ASSERT_NE(ja, nullptr);
  EXPECT_EQ(table.FindByHash(ja->hash()), ja);
  uint64_t hash = ja->hash();
  table.Leave(a.get(), Cancelled("gone"), /*orderly=*/true);
  EXPECT_EQ(table.FindByHash(hash), nullptr);
  EXPECT_NE(table.FindByHash(table.Find("job/b")->hash()), nullptr);
  table.Leave(b.get(), Cancelled("gone"), /*orderly=*/true);
}

TEST(JobTableTest, ARankJoiningACommunicatorThatEndedBeforeItJoinedIsToldAtOnce) {
  JobTable table;
  auto first = CommMember("job/0000000000000007", 0, 2);
  ASSERT_TRUE(table.Join(first.get()).ok());
  table.Leave(first.get(), PeerLost("rank 0 destroyed communicator 'job/0000000000000007'"),
              /*orderly=*/true);
  EXPECT_EQ(table.Find("job/0000000000000007"), nullptr);
  auto late = CommMember("job/0000000000000007", 1, 2);
  Status st = table.Join(late.get());
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st.ToString();
  EXPECT_NE(st.message().find("ended before local rank 1 joined it"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("destroyed communicator"), std::string::npos) << st.message();
  // Its former member creating it again makes a new communicator, which the other rank joins.
  auto again = CommMember("job/0000000000000007", 0, 2);
  ASSERT_TRUE(table.Join(again.get()).ok());
  auto other = CommMember("job/0000000000000007", 1, 2);
  EXPECT_TRUE(table.Join(other.get()).ok());
  table.Leave(again.get(), Cancelled("test over"), true);
  table.Leave(other.get(), Cancelled("test over"), true);
}

TEST(JobTableTest, AJobOfItsOwnIsNotRememberedWhenItEnds) {
  // Trainers of a job may restart in any order: only communicators are remembered.
  JobTable table;
  auto first = std::make_unique<FakeMember>(0, 2);
  ASSERT_TRUE(table.Join(first.get()).ok());
  table.Leave(first.get(), PeerLost("killed"));
  auto late = std::make_unique<FakeMember>(1, 2);
  EXPECT_TRUE(table.Join(late.get()).ok());
  table.Leave(late.get(), Cancelled("test over"), true);
}

}  // namespace
}  // namespace outrider::agent
