// The engine core's seam to the GPU path (engine/device_path.h), over a fake device path: a job on
// host memory never makes a device side; instances on GPU memory go to the job's device side with
// their ranks and complete through it; without a device path they are refused, saying why. This
// binary links every object of the engine core and the control layer and not the GPU library
// (tests/CMakeLists.txt): it fails to link if either comes to call into agent/engine/gpu/.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/fakes/device/fake_device_path.h"
#include "tests/unit/agent/engine/job_fixture.h"

namespace outrider::agent {
namespace {

// An in-place f32 allreduce of `n` elements on GPU `device` (the span's address is never read).
ValidatedOp DeviceAllreduce(uint64_t op_id, uint64_t key, int device, uint64_t n = 256) {
  ValidatedOp op;
  op.op_id = op_id;
  op.key = key;
  op.kind = OpKind::kAllreduce;
  op.dtype = DType::kF32;
  op.reduce_op = ReduceOp::kSum;
  op.count = n;
  op.recv = BufferSpan{MemoryKind::kCudaFd, device, 0x10000, n * 4};
  return op;
}

class DevicePathTest : public JobTest {
 protected:
  // A single-node job of `n` local ranks, on `devices`.
  void MakeOn(DevicePath* devices, int n) {
    job_ = std::make_unique<Job>("job", n, n, nullptr, EngineOptions{}, std::vector<int32_t>{},
                                 devices);
    for (int r = 0; r < n; ++r) {
      members_.push_back(std::make_unique<FakeMember>(r, n));
      ASSERT_TRUE(job_->AddMember(members_.back().get()).ok());
    }
  }
  FakeDevicePath devices_;
};

TEST_F(DevicePathTest, AJobOnHostMemoryNeverMakesADeviceSide) {
  MakeOn(&devices_, 2);
  for (uint64_t i = 1; i <= 3; ++i) {
    Buffers a = Allreduce(i, 7, {1, 2}), b = Allreduce(100 + i, 7, {3, 4});
    Submit(0, a.op);
    Submit(1, b.op);
    while (job_->Pump()) {
    }
    ExpectOk(0, i, i - 1);
    ExpectOk(1, 100 + i, i - 1);
    EXPECT_EQ(b.recv, (std::vector<float>{4, 6}));
  }
  EXPECT_TRUE(devices_.jobs.empty());
  EXPECT_FALSE(job_->StatusJson().contains("nccl"));
}

TEST_F(DevicePathTest, AnInstanceOnGpuMemoryRunsOnTheJobsDeviceSideWithItsRanks) {
  MakeOn(&devices_, 2);
  Submit(0, DeviceAllreduce(1, 7, /*device=*/0));
  ASSERT_EQ(devices_.jobs.size(), 1u);  // made by the first op on GPU memory
  FakeJobDevice& d = *devices_.jobs[0].second;
  EXPECT_EQ(d.noted, (std::vector<std::pair<int, int>>{{0, 0}}));
  EXPECT_TRUE(d.runs.empty());  // rank 1 has not submitted
  Submit(1, DeviceAllreduce(2, 7, /*device=*/1));
  EXPECT_EQ(d.noted, (std::vector<std::pair<int, int>>{{0, 0}, {1, 1}}));
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.ranks, (std::vector<int>{0, 1}));  // the job ranks, by local rank
  ASSERT_EQ(d.runs[0].ops.size(), 2u);
  EXPECT_EQ(d.runs[0].ops[0]->op_id, 1u);
  EXPECT_EQ(d.runs[0].ops[1]->op_id, 2u);
  EXPECT_EQ(m(0).Of(1), nullptr);  // not until the device side says
  EXPECT_TRUE(job_->busy());
  d.Complete(0, Status::Ok());
  ExpectOk(0, 1, 0);
  ExpectOk(1, 2, 0);
  EXPECT_TRUE(job_->StatusJson().contains("nccl"));
}

TEST_F(DevicePathTest, TheJobFailingFailsItsInstancesOnTheDeviceSide) {
  MakeOn(&devices_, 2);
  Submit(0, DeviceAllreduce(1, 7, 0));
  Submit(1, DeviceAllreduce(2, 7, 1));
  FakeJobDevice& d = *devices_.jobs.at(0).second;
  job_->FailAll(Unavailable("agent shutting down"));
  EXPECT_EQ(d.failed.code(), Code::kUnavailable);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(m(r).completions.size(), 1u);
    EXPECT_EQ(m(r).completions[0].status.code(), Code::kUnavailable);
  }
  job_.reset();
}

TEST_F(DevicePathTest, WithoutADevicePathAnOpOnGpuMemoryIsRefusedSayingSo) {
  MakeOn(nullptr, 2);
  Submit(0, DeviceAllreduce(1, 7, 0));
  Submit(1, DeviceAllreduce(2, 7, 1));
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(m(r).completions.size(), 1u);
    const Status& st = m(r).completions[0].status;
    EXPECT_EQ(st.code(), Code::kFailedPrecondition);
    EXPECT_NE(st.message().find("this agent has no GPU path"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace outrider::agent
