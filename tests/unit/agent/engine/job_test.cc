// Single-node jobs (no agent network): how submissions of local ranks are matched into collective
// instances, what fails them (disagreement, timeouts, a rank leaving), membership rules, the data
// the local collectives produce, and the /status entry. Members are fakes that record completions.
#include "agent/engine/job.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/observability.h"
#include "ipc/event_fd.h"
#include "tests/unit/agent/engine/job_fixture.h"

namespace outrider::agent {
namespace {

TEST_F(JobTest, MatchesSubmissionsByKeyAndSequenceWhateverOrderRanksSubmitIn) {
  Make(2);
  // Rank 0 submits key 1 twice then key 2; rank 1 submits key 2 first, then key 1 twice.
  Buffers a0 = Allreduce(1, 1, {1, 2}), a1 = Allreduce(2, 1, {10, 20}),
          a2 = Allreduce(3, 2, {100, 200});
  Buffers b0 = Allreduce(4, 2, {1000, 2000}), b1 = Allreduce(5, 1, {3, 4}),
          b2 = Allreduce(6, 1, {30, 40});
  Submit(0, a0.op);
  Submit(0, a1.op);
  Submit(0, a2.op);
  EXPECT_EQ(job_->pending_count(), 3u);
  Submit(1, b0.op);
  Submit(1, b1.op);
  Submit(1, b2.op);
  EXPECT_EQ(job_->pending_count(), 0u);
  ExpectOk(0, 1, 0);
  ExpectOk(0, 2, 1);
  ExpectOk(0, 3, 0);
  ExpectOk(1, 4, 0);
  ExpectOk(1, 5, 0);
  ExpectOk(1, 6, 1);
  EXPECT_EQ(a0.recv, (std::vector<float>{4, 6}));  // key 1 seq 0: rank 0's first + rank 1's first
  EXPECT_EQ(b1.recv, (std::vector<float>{4, 6}));
  EXPECT_EQ(a1.recv, (std::vector<float>{40, 60}));  // key 1 seq 1
  EXPECT_EQ(b2.recv, (std::vector<float>{40, 60}));
  EXPECT_EQ(a2.recv, (std::vector<float>{1100, 2200}));  // key 2 seq 0
  EXPECT_EQ(b0.recv, (std::vector<float>{1100, 2200}));
}

// ---- Disagreement among local ranks ----

struct DisagreementCase {
  std::string name;
  OpKind kind;
  std::function<void(ValidatedOp&)> change;  // applied to local rank 1's op
  std::string says;                          // what the error must contain
};

class JobDisagreementTest : public JobTest,
                            public ::testing::WithParamInterface<DisagreementCase> {};

TEST_P(JobDisagreementTest, FailsEveryRankNamingBothLocalRanksAndTheFieldAndLaterArrivalsAtOnce) {
  Make(3);
  std::vector<Buffers> ops;
  for (uint64_t r = 0; r < 3; ++r) {
    ops.push_back(Allreduce(r + 1, 9, {1, 2, 3, 4}));
    ops.back().op.kind = GetParam().kind;
  }
  GetParam().change(ops[1].op);
  Submit(0, ops[0].op);
  Submit(1, ops[1].op);
  for (int r = 0; r < 2; ++r) {
    const FakeMember::Completion* c = m(r).Of(static_cast<uint64_t>(r + 1));
    ASSERT_NE(c, nullptr) << "rank " << r << " still waits";
    EXPECT_EQ(c->status.code(), Code::kMismatch) << c->status.ToString();
    EXPECT_NE(c->status.message().find(GetParam().says), std::string::npos) << c->status.message();
  }
  Submit(2, ops[2].op);
  const FakeMember::Completion* late = m(2).Of(3);
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->status.code(), Code::kMismatch);
  EXPECT_NE(late->status.message().find(GetParam().says), std::string::npos)
      << late->status.message();
  EXPECT_EQ(job_->pending_count(), 0u);
  EXPECT_EQ(ops[0].recv, (std::vector<float>(4, -1.0f)));  // nothing ran
}

INSTANTIATE_TEST_SUITE_P(
    Fields, JobDisagreementTest,
    ::testing::Values(
        DisagreementCase{"Count", OpKind::kAllreduce, [](ValidatedOp& o) { o.count = 3; },
                         "disagree on count: local rank 0 has 4, local rank 1 has 3"},
        DisagreementCase{"Dtype", OpKind::kAllreduce, [](ValidatedOp& o) { o.dtype = DType::kI32; },
                         "disagree on dtype: local rank 0 has "},
        DisagreementCase{"ReduceOp", OpKind::kAllreduce,
                         [](ValidatedOp& o) { o.reduce_op = ReduceOp::kMax; },
                         "disagree on reduce op: local rank 0 has "},
        DisagreementCase{"Root", OpKind::kBroadcast, [](ValidatedOp& o) { o.root = 2; },
                         "disagree on root: local rank 0 has 0, local rank 1 has 2"}),
    [](const ::testing::TestParamInfo<DisagreementCase>& info) { return info.param.name; });

// ---- Timeouts, departures, membership ----

TEST_F(JobTest, ExpireOpsFailsAnInstanceWaitingPastTheTimeoutNamingTheMissingRanks) {
  Make(3);
  Buffers b0 = Allreduce(1, 5, {1}), b1 = Allreduce(2, 5, {1}), b2 = Allreduce(3, 5, {1});
  Submit(0, b0.op);
  Submit(2, b2.op);
  constexpr uint64_t kTimeout = 1'000'000'000;
  job_->ExpireOps(ipc::MonotonicNs(), kTimeout);  // not yet
  EXPECT_TRUE(m(0).completions.empty());
  job_->ExpireOps(ipc::MonotonicNs() + kTimeout, kTimeout);
  for (int r : {0, 2}) {
    const FakeMember::Completion* c = m(r).Of(static_cast<uint64_t>(r + 1));
    ASSERT_NE(c, nullptr) << "rank " << r;
    EXPECT_EQ(c->status.code(), Code::kDeadlineExceeded) << c->status.ToString();
    EXPECT_NE(c->status.message().find("for local rank 1 to submit"), std::string::npos)
        << c->status.message();
  }
  // The late rank fails at once instead of waiting again.
  Submit(1, b1.op);
  const FakeMember::Completion* late = m(1).Of(2);
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->status.code(), Code::kDeadlineExceeded) << late->status.ToString();
  EXPECT_EQ(job_->pending_count(), 0u);
}

TEST_F(JobTest, RemovedMemberFailsPendingOpsWithPeerLostAndLaterSubmissionsAtOnce) {
  Make(2);
  Buffers b0 = Allreduce(1, 5, {1}), later = Allreduce(2, 6, {1});
  Submit(0, b0.op);
  job_->RemoveMember(&m(1), Cancelled("connection closed"));
  const FakeMember::Completion* c = m(0).Of(1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status.code(), Code::kPeerLost) << c->status.ToString();
  EXPECT_NE(c->status.message().find("local rank 1"), std::string::npos) << c->status.message();
  EXPECT_NE(c->status.message().find("connection closed"), std::string::npos)
      << c->status.message();
  Submit(0, later.op);
  const FakeMember::Completion* d = m(0).Of(2);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->status.code(), Code::kPeerLost) << d->status.ToString();
  EXPECT_EQ(job_->pending_count(), 0u);
}

TEST_F(JobTest, AddMemberRefusesALocalRankAlreadyTaken) {
  Make(2);
  FakeMember again(1, 2);
  Status st = job_->AddMember(&again);
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st.ToString();
  EXPECT_NE(st.message().find("local rank 1"), std::string::npos) << st.message();
  EXPECT_EQ(job_->member_count(), 2u);
}

TEST_F(JobTest, AddMemberRefusesAWorldSizeDisagreement) {
  job_ = std::make_unique<Job>("job", 2, 2, nullptr);
  FakeMember other(0, 2, 4);
  Status st = job_->AddMember(&other);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("world_size 2"), std::string::npos) << st.message();
  EXPECT_EQ(job_->member_count(), 0u);
}

TEST_F(JobTest, MultiNodeJobWithoutANetworkIsRefused) {
  job_ = std::make_unique<Job>("job", 4, 2, nullptr);
  FakeMember first(0, 2, 4);
  Status st = job_->AddMember(&first);
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st.ToString();
  EXPECT_NE(st.message().find("spans 2 nodes, but this agent runs without an agent port"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(job_->member_count(), 0u);
}

// ---- Data ----

TEST_F(JobTest, AllreduceSumsEveryRanksBuffer) {
  Make(3);
  std::vector<Buffers> b;  // moved in: the ops' spans stay valid
  for (uint64_t r = 0; r < 3; ++r) {
    float x = r == 0 ? 1.0f : r == 1 ? 10.0f : 100.0f;
    b.push_back(Allreduce(r + 1, 1, {x, 2 * x, 3 * x}));
  }
  for (int r = 0; r < 3; ++r) Submit(r, b[static_cast<size_t>(r)].op);
  for (int r = 0; r < 3; ++r) {
    ExpectOk(r, static_cast<uint64_t>(r + 1), 0);
    EXPECT_EQ(b[static_cast<size_t>(r)].recv, (std::vector<float>{111, 222, 333})) << "rank " << r;
  }
}

TEST_F(JobTest, AllgatherPlacesEveryRanksBlockInRankOrder) {
  Make(3);
  std::vector<Buffers> b;
  for (uint64_t r = 0; r < 3; ++r) {
    b.push_back(Allreduce(r + 1, 1, {static_cast<float>(r), static_cast<float>(10 * r)}));
    b.back().op.kind = OpKind::kAllgather;
    b.back().recv.assign(6, -1.0f);
    b.back().op.recv = BufferSpan::Host(b.back().recv.data(), 6 * 4);
  }
  for (int r = 0; r < 3; ++r) Submit(r, b[static_cast<size_t>(r)].op);
  for (int r = 0; r < 3; ++r) {
    ExpectOk(r, static_cast<uint64_t>(r + 1), 0);
    EXPECT_EQ(b[static_cast<size_t>(r)].recv, (std::vector<float>{0, 0, 1, 10, 2, 20}))
        << "rank " << r;
  }
}

TEST_F(JobTest, BroadcastCopiesTheRootsBufferToEveryRank) {
  Make(3);
  std::vector<Buffers> b;
  for (uint64_t r = 0; r < 3; ++r) {
    b.push_back(
        Allreduce(r + 1, 1, r == 2 ? std::vector<float>{7, 8, 9} : std::vector<float>{-1, -1, -1}));
    ValidatedOp& o = b.back().op;
    o.kind = OpKind::kBroadcast;
    o.root = 2;
    o.recv = o.send;  // in place
  }
  for (int r = 0; r < 3; ++r) Submit(r, b[static_cast<size_t>(r)].op);
  for (int r = 0; r < 3; ++r) {
    ExpectOk(r, static_cast<uint64_t>(r + 1), 0);
    EXPECT_EQ(b[static_cast<size_t>(r)].send, (std::vector<float>{7, 8, 9})) << "rank " << r;
  }
}

TEST_F(JobTest, AlltoallvDeliversUnevenBlocksInSenderOrder) {
  Make(3);
  // Rank i sends (i + j) % 3 elements to rank j, valued 10i + j.
  auto count = [](size_t i, size_t j) { return static_cast<int64_t>((i + j) % 3); };
  std::vector<Buffers> b(3);
  for (size_t i = 0; i < 3; ++i) {
    ValidatedOp& o = b[i].op;
    o.op_id = i + 1;
    o.key = 1;
    o.kind = OpKind::kAlltoallv;
    size_t in = 0;
    for (size_t j = 0; j < 3; ++j) {
      o.send_counts.push_back(count(i, j));
      o.recv_counts.push_back(count(j, i));
      b[i].send.insert(b[i].send.end(), static_cast<size_t>(count(i, j)),
                       static_cast<float>(10 * i + j));
      in += static_cast<size_t>(count(j, i));
    }
    b[i].recv.assign(in, -1.0f);
    o.send = BufferSpan::Host(b[i].send.data(), b[i].send.size() * 4);
    o.recv = BufferSpan::Host(b[i].recv.data(), b[i].recv.size() * 4);
  }
  for (int r = 0; r < 3; ++r) Submit(r, b[static_cast<size_t>(r)].op);
  for (size_t j = 0; j < 3; ++j) {
    ExpectOk(static_cast<int>(j), j + 1, 0);
    std::vector<float> want;
    for (size_t i = 0; i < 3; ++i)
      want.insert(want.end(), static_cast<size_t>(count(i, j)), static_cast<float>(10 * i + j));
    EXPECT_EQ(b[j].recv, want) << "rank " << j;
  }
}

// ---- Status ----

TEST_F(JobTest, TheFirstMemberSetsTheJobsGpuModeAndAMemberInAnotherModeIsRefused) {
  AgentMetrics metrics;
  job_ = std::make_unique<Job>("gpu-job", 2, 2, nullptr, EngineOptions{}, std::vector<int32_t>{},
                               nullptr, &metrics);
  FakeMember m0(0, 2), m1(1, 2);
  m0.mutable_identity().gpu_mode = ipc::GpuMode::kIpc;
  ASSERT_TRUE(job_->AddMember(&m0).ok());
  Status st = job_->AddMember(&m1);
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("gpu_mode ipc, this client says staging"), std::string::npos)
      << st.message();
  EXPECT_EQ(job_->StatusJson()["gpu_mode"], "ipc");
  std::string text = metrics.registry().Serialize();
  EXPECT_NE(text.find("outrider_job_gpu_mode{training_job=\"gpu-job\",mode=\"ipc\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("outrider_job_gpu_mode{training_job=\"gpu-job\",mode=\"staging\"} 0"),
            std::string::npos);
  m1.mutable_identity().gpu_mode = ipc::GpuMode::kIpc;
  EXPECT_TRUE(job_->AddMember(&m1).ok());
  job_.reset();  // before the metrics it holds a label of
}

TEST_F(JobTest, StatusJsonListsMembersAndPendingOps) {
  job_ = std::make_unique<Job>("job", 3, 3, nullptr);
  FakeMember m0(0, 3), m2(2, 3);
  ASSERT_TRUE(job_->AddMember(&m0).ok());
  ASSERT_TRUE(job_->AddMember(&m2).ok());
  Buffers b = Allreduce(1, 0x42, {1, 2});
  job_->Submit(&m0, b.op);
  nlohmann::json j = job_->StatusJson();
  EXPECT_EQ(j["id"], "job");
  EXPECT_EQ(j["members"], 2);
  EXPECT_EQ(j["local_size"], 3);
  EXPECT_EQ(j["nodes"], 1);
  EXPECT_EQ(j["pending"], 1);
  EXPECT_EQ(j["state"], "ok");
  ASSERT_EQ(j["recent_ops"].size(), 1u);
  const nlohmann::json& op = j["recent_ops"][0];
  EXPECT_EQ(op["key"], "0x0000000000000042");
  EXPECT_EQ(op["op"], "allreduce");
  EXPECT_EQ(op["local_ranks_arrived"], 1);
  EXPECT_EQ(op["state"], "waiting for local ranks");
}

}  // namespace
}  // namespace outrider::agent
