// Allreduce of device buffers through the shim's staging path, against a real agent, with the
// fake CUDA driver (tests/fake_cuda/) in each trainer process: the op is ordered on the caller's
// stream (work queued after it sees the result, with no host wait in between), results are those
// of host buffers. (Agent death and disconnect with ops in flight: gpu_stream_release_test.cc.)
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "ipc/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 4096;

TEST(GpuStagingTest, AnAllreduceOfDeviceBuffersIsOrderedOnTheStreamAndSumsLikeHostBuffers) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    pids.push_back(Spawn([&, r] {
      const cuda::Driver& d = ChildCuda("staging");
      outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-staging", r, 2);
      CUdeviceptr buf = 0;
      if (d.cuMemAlloc(&buf, kCount * 4) != CUDA_SUCCESS) return 82;
      std::vector<float> in(kCount), out(kCount, -1.0f);
      for (uint64_t i = 0; i < kCount; ++i) in[i] = static_cast<float>((r + 1) * i);
      CUstream s = nullptr;
      if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 83;
      // Everything on the stream, queued at once: the inputs, the op, the read of the result.
      if (d.cuMemcpyHtoDAsync(buf, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 84;
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.cuda_stream = s;
      outrider_op_t h = 0;
      void* p = reinterpret_cast<void*>(buf);
      int rc = outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
      if (rc != OUTRIDER_OK) return rc;
      if (d.cuMemcpyDtoHAsync(out.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 85;
      if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 86;
      for (uint64_t i = 0; i < kCount; ++i) {
        if (out[i] != static_cast<float>(3 * i)) return 87;
      }
      rc = outrider_wait(c, h, 10000);
      if (rc != OUTRIDER_OK) return rc;
      // A host allreduce after it still works (the staging buffer went back).
      auto* x = static_cast<float*>(outrider_alloc(c, 4));
      *x = 1;
      rc = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
      if (rc != OUTRIDER_OK) return rc;
      if (*x != 2) return 88;
      outrider_disconnect(c);
      return 0;
    }));
  }
  for (pid_t p : pids) EXPECT_EQ(Reap(p), 0);
}

}  // namespace
}  // namespace outrider::testing
