// Fenced ops against a real agent, from a client that speaks the wire protocol (the shim's GPU
// path writes fences from a CUDA stream; here the test writes them): an op waits for its ready
// fence before the agent reads its inputs, the agent signals done once the outputs are written,
// and a fence that never becomes ready fails its op after the op timeout, signalled as well.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 256;
constexpr uint64_t kSend = 0, kRecv = 2048;

// A one-rank job with one 4 KiB region: an out-of-place allreduce copies send to recv.
struct OneRank {
  std::unique_ptr<harness::AgentProcess> agent;
  std::unique_ptr<RawClient> raw;
  uint32_t region = 0;

  explicit OneRank(std::vector<std::string> agent_args = {}) {
    agent = StartAgent(std::move(agent_args));
    if (agent == nullptr) return;
    auto r = JoinRawJob(agent->socket_path(), "fenced", 0, 1, &region);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) raw = std::move(*r);
  }
  float* at(uint64_t offset) { return reinterpret_cast<float*>(raw->region_base(region) + offset); }
  ipc::SubmitEntry Entry(uint64_t op_id, uint32_t slot) {
    ipc::SubmitEntry e = AllreduceEntry(op_id, region, kSend, kCount);
    e.recv.offset = kRecv;
    e.flags = ipc::kSubmitFenced;
    e.fence = slot;
    return e;
  }
};

TEST(FenceTest, TheAgentReadsNothingBeforeTheReadyFenceAndSignalsDoneWithTheResult) {
  OneRank job;
  ASSERT_NE(job.region, 0u);
  for (uint64_t i = 0; i < kCount; ++i)
    job.at(kSend)[i] = -1.0f;  // what a stream has not replaced yet
  job.raw->Push(job.Entry(1, 9));
  // Not ready: the op does not complete (bounded look for an event that must not come).
  auto early = job.raw->NextCompletion(300);
  EXPECT_EQ(early.status().code(), Code::kDeadlineExceeded)
      << (early.ok() ? "completed early" : early.status().ToString());
  EXPECT_EQ(std::atomic_ref<uint64_t>(job.raw->fence(9).done).load(), 0u);
  // The "stream" writes the inputs, then the ready fence.
  for (uint64_t i = 0; i < kCount; ++i) job.at(kSend)[i] = static_cast<float>(i);
  std::atomic_ref<uint64_t>(job.raw->fence(9).ready).store(1, std::memory_order_release);
  auto done = job.raw->NextCompletion(10000);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->code, 0) << done->message;
  EXPECT_EQ(std::atomic_ref<uint64_t>(job.raw->fence(9).done).load(std::memory_order_acquire), 1u);
  EXPECT_EQ(job.raw->fence(9).status, 0);
  for (uint64_t i = 0; i < kCount; ++i)
    ASSERT_EQ(job.at(kRecv)[i], static_cast<float>(i)) << "element " << i;
}

TEST(FenceTest, AFenceThatNeverBecomesReadyFailsItsOpAfterTheOpTimeoutAndIsSignalled) {
  OneRank job({"--op-timeout-ms", "300"});
  ASSERT_NE(job.region, 0u);
  job.raw->Push(job.Entry(1, 0));
  auto c = job.raw->NextCompletion(10000);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->code, static_cast<int32_t>(Code::kDeadlineExceeded));
  EXPECT_NE(std::string(c->message).find("was not ready within 300 ms"), std::string::npos)
      << c->message;
  EXPECT_EQ(std::atomic_ref<uint64_t>(job.raw->fence(0).done).load(std::memory_order_acquire), 1u);
  EXPECT_EQ(job.raw->fence(0).status, static_cast<int32_t>(Code::kDeadlineExceeded));
  // The client goes on: an unfenced op behind it runs.
  ipc::SubmitEntry e = AllreduceEntry(2, job.region, kSend, kCount);
  job.raw->Push(e);
  auto next = job.raw->NextCompletion(10000);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->code, 0) << next->message;
}

}  // namespace
}  // namespace outrider::testing
