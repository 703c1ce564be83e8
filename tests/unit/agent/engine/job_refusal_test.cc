// An op the agent refuses before it reaches the job (a bad entry, a fence that never came) still
// takes its place in its key's sequence: the collective fails on every rank naming the rank and
// the reason, and the rank's next op of the key pairs with the other ranks' next one. A property
// test runs random mixes of accepted and refused ops and checks that no rank ever gets OK with a
// result other than the exact sum of the matching ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "agent/engine/job.h"
#include "tests/unit/agent/engine/job_fixture.h"

namespace outrider::agent {
namespace {

Job::RefusedOp Refused(uint64_t op_id, uint64_t key) {
  return Job::RefusedOp{
      .key = key, .op_id = op_id, .kind = OpKind::kAllreduce, .dtype = DType::kF32, .count = 2};
}

const Status kOverlap =
    InvalidArgument("send and recv buffers overlap without being the op's in-place layout");

class JobRefusalTest : public JobTest {
 protected:
  void Refuse(int r, uint64_t op_id, uint64_t key) {
    job_->Refuse(&m(r), Refused(op_id, key), kOverlap);
  }
  // The refusing rank gets its own reason; the others the collective's failure naming it.
  void ExpectRefused(int r, uint64_t op_id, int refuser, uint64_t seq) {
    const FakeMember::Completion* c = m(r).Of(op_id);
    ASSERT_NE(c, nullptr) << "rank " << r << " op " << op_id << " still waits";
    EXPECT_EQ(c->status.code(), Code::kInvalidArgument) << c->status.ToString();
    EXPECT_EQ(c->seq, seq);
    EXPECT_NE(c->status.message().find("overlap"), std::string::npos) << c->status.message();
    if (r != refuser) {
      std::string who = "local rank " + std::to_string(refuser) + "'s op was refused";
      EXPECT_NE(c->status.message().find(who), std::string::npos) << c->status.message();
    }
  }
};

TEST_F(JobRefusalTest, ARefusalBeforeTheOthersFailsEveryRankAndTheNextOpOfTheKeyPairsAligned) {
  Make(3);
  Refuse(1, 1, 7);
  Buffers a0 = Allreduce(1, 7, {1, 2}), a2 = Allreduce(1, 7, {3, 4});
  Submit(0, a0.op);
  Submit(2, a2.op);
  for (int r = 0; r < 3; ++r) ExpectRefused(r, 1, 1, 0);
  EXPECT_EQ(a0.recv, (std::vector<float>{-1, -1}));  // nothing ran
  EXPECT_EQ(job_->pending_count(), 0u);
  std::vector<Buffers> next;
  for (uint64_t r = 0; r < 3; ++r)
    next.push_back(Allreduce(2, 7, {10.0f * static_cast<float>(r + 1), 1}));
  for (int r = 0; r < 3; ++r) Submit(r, next[static_cast<size_t>(r)].op);
  for (int r = 0; r < 3; ++r) {
    ExpectOk(r, 2, 1);
    EXPECT_EQ(next[static_cast<size_t>(r)].recv, (std::vector<float>{60, 3}));
  }
}

TEST_F(JobRefusalTest, ARefusalAfterTheOthersSubmittedFailsThemTooInsteadOfWaiting) {
  Make(2);
  Buffers a0 = Allreduce(1, 7, {1, 2});
  Submit(0, a0.op);
  EXPECT_EQ(m(0).Of(1), nullptr);
  Refuse(1, 1, 7);
  ExpectRefused(0, 1, 1, 0);
  ExpectRefused(1, 1, 1, 0);
  EXPECT_EQ(job_->pending_count(), 0u);
  Buffers b0 = Allreduce(2, 7, {1, 2}), b1 = Allreduce(2, 7, {3, 4});
  Submit(0, b0.op);
  Submit(1, b1.op);
  ExpectOk(0, 2, 1);
  ExpectOk(1, 2, 1);
  EXPECT_EQ(b1.recv, (std::vector<float>{4, 6}));
}

TEST_F(JobRefusalTest, ARefusalOfALeftJobCompletesWithItsOwnReason) {
  Make(2);
  job_->RemoveMember(&m(1), Cancelled("connection closed"));
  Refuse(0, 1, 7);
  const FakeMember::Completion* c = m(0).Of(1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status.code(), Code::kInvalidArgument) << c->status.ToString();
}

// ---- Property: random mixes of accepted and refused ops ----

// Every rank runs the same program (a sequence of keys); each of its ops is refused with some
// probability, on that rank alone. Ranks submit in a random interleaving. The op of rank r at
// position i of key k carries value Value(r, k, i), so a result names the ops that made it.
float Value(int rank, uint64_t key, int index) {
  return static_cast<float>((rank + 1) * 1000 + key * 100 + index);
}

TEST_F(JobRefusalTest, NoRankEverGetsOkWithAResultOtherThanTheSumOfTheMatchingOps) {
  constexpr int kRanks = 4;
  constexpr int kOpsPerRank = 24;
  constexpr uint64_t kKeys = 3;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    job_.reset();
    members_.clear();
    Make(kRanks);
    std::mt19937 rng(seed);
    std::vector<uint64_t> program(kOpsPerRank);
    for (uint64_t& k : program) k = rng() % kKeys + 1;
    std::bernoulli_distribution refuse(0.2);
    // refused[r][i]: rank r's op at position i of the program is refused.
    std::vector<std::vector<bool>> refused(kRanks, std::vector<bool>(kOpsPerRank));
    for (auto& row : refused)
      for (size_t i = 0; i < row.size(); ++i) row[i] = refuse(rng);
    // Position i's index among the program's ops of the same key (its instance).
    std::vector<int> index(kOpsPerRank);
    std::map<uint64_t, int> seen;
    for (int i = 0; i < kOpsPerRank; ++i)
      index[static_cast<size_t>(i)] = seen[program[static_cast<size_t>(i)]]++;
    // buffers[r][i], kept alive until the job is done with them.
    std::vector<std::vector<std::unique_ptr<Buffers>>> buffers(kRanks);
    std::vector<int> next(kRanks, 0);
    for (int left = kRanks * kOpsPerRank; left > 0; --left) {
      int r;
      do r = static_cast<int>(rng() % kRanks);
      while (next[static_cast<size_t>(r)] == kOpsPerRank);
      int i = next[static_cast<size_t>(r)]++;
      uint64_t key = program[static_cast<size_t>(i)];
      uint64_t op_id = static_cast<uint64_t>(i + 1);
      auto b = std::make_unique<Buffers>(
          Allreduce(op_id, key, {Value(r, key, index[static_cast<size_t>(i)]), 1}));
      if (refused[static_cast<size_t>(r)][static_cast<size_t>(i)]) {
        Refuse(r, op_id, key);
      } else {
        Submit(r, b->op);
      }
      buffers[static_cast<size_t>(r)].push_back(std::move(b));
    }
    EXPECT_EQ(job_->pending_count(), 0u) << "every instance had every rank: none may wait";
    for (int i = 0; i < kOpsPerRank; ++i) {
      bool any_refused = false;
      float sum = 0;
      for (int r = 0; r < kRanks; ++r) {
        any_refused |= refused[static_cast<size_t>(r)][static_cast<size_t>(i)];
        sum += Value(r, program[static_cast<size_t>(i)], index[static_cast<size_t>(i)]);
      }
      for (int r = 0; r < kRanks; ++r) {
        const FakeMember::Completion* c = m(r).Of(static_cast<uint64_t>(i + 1));
        ASSERT_NE(c, nullptr) << "rank " << r << " position " << i << " never completed";
        EXPECT_EQ(c->seq, static_cast<uint64_t>(index[static_cast<size_t>(i)]));
        if (any_refused) {
          EXPECT_FALSE(c->status.ok())
              << "rank " << r << " position " << i << ": OK although a rank's op was refused";
          continue;
        }
        ASSERT_TRUE(c->status.ok())
            << "rank " << r << " position " << i << ": " << c->status.ToString();
        EXPECT_EQ(buffers[static_cast<size_t>(r)][static_cast<size_t>(i)]->recv,
                  (std::vector<float>{sum, kRanks}))
            << "rank " << r << " position " << i << ": OK with the wrong data";
      }
    }
  }
}

}  // namespace
}  // namespace outrider::agent
