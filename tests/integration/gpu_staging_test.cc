// Allreduce of device buffers through the shim's staging path, against a real agent, with the
// fake CUDA driver (tests/fakes/cuda/) in each trainer process: the op is ordered on the caller's
// stream (work queued after it sees the result, with no host wait in between), results are those
// of host buffers. (Agent death and disconnect with ops in flight: gpu_stream_release_test.cc.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 4096;

TEST(GpuStagingTest, AnAllreduceOfDeviceBuffersIsOrderedOnTheStreamAndSumsLikeHostBuffers) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
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
  });
  ranks.ExpectAllExitZero();
}

// PyTorch's backend submits from a worker thread of its own, where no CUDA context was ever made
// current, on the default stream; with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True its
// tensors are cuMem memory, which belongs to no context. The op's stream work goes to the
// primary context of the buffers' GPU, in both modes, for a buffer in one cuMem allocation and
// for one across two (an expandable segment's pages).
class GpuNoContextTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuNoContextTest, ADefaultStreamOpOnCuMemBuffersFromAThreadWithoutAContextRunsOnTheirGpu) {
  const std::string mode = GetParam();
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda(mode.c_str());
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-no-context-" + mode, r, 2);
    constexpr uint64_t n = kVmmBytes / 4;  // one allocation's worth, then a span across two
    CUdeviceptr one = VmmAlloc(d), span = VmmSpan(d);
    std::vector<float> in(2 * n), out(2 * n, -1.0f);
    for (uint64_t i = 0; i < 2 * n; ++i) in[i] = static_cast<float>((r + 1) * (i % 1000));
    if (d.cuMemcpyHtoDAsync(one, in.data(), n * 4, nullptr) != CUDA_SUCCESS) return 82;
    if (d.cuMemcpyHtoDAsync(span, in.data(), 2 * n * 4, nullptr) != CUDA_SUCCESS) return 83;
    if (d.cuStreamSynchronize(nullptr) != CUDA_SUCCESS) return 84;
    int rc = OUTRIDER_OK;
    std::string why;
    std::thread worker([&] {  // no context current here
      CUcontext none = nullptr;
      if (d.cuCtxGetCurrent(&none) != CUDA_SUCCESS || none != nullptr) {
        rc = 85;
        return;
      }
      struct Buffer {
        CUdeviceptr p;
        uint64_t count;
      };
      for (Buffer b : {Buffer{one, n}, Buffer{span + 4096, 2 * n - 2048}}) {
        void* p = reinterpret_cast<void*>(b.p);
        outrider_op_t h = 0;
        rc = outrider_allreduce(c, p, p, b.count, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
        if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
        if (rc != OUTRIDER_OK) {
          why = outrider_last_error(c);
          return;
        }
      }
    });
    worker.join();
    if (rc != OUTRIDER_OK) {
      std::fprintf(stderr, "rank %d (%s): %s\n", r, mode.c_str(), why.c_str());
      return rc;
    }
    if (d.cuMemcpyDtoHAsync(out.data(), one, n * 4, nullptr) != CUDA_SUCCESS) return 86;
    if (d.cuStreamSynchronize(nullptr) != CUDA_SUCCESS) return 86;
    for (uint64_t i = 0; i < n; ++i) {
      if (out[i] != 3 * static_cast<float>(i % 1000)) return 87;
    }
    if (d.cuMemcpyDtoHAsync(out.data(), span, 2 * n * 4, nullptr) != CUDA_SUCCESS) return 88;
    if (d.cuStreamSynchronize(nullptr) != CUDA_SUCCESS) return 88;
    for (uint64_t i = 0; i < 2 * n; ++i) {
      bool in_op =
          i >= 1024 &&
          i < 2 * n - 1024;  // the span's op starts 4096 bytes in and ends as far before its end
      float want = static_cast<float>((in_op ? 3 : r + 1) * (i % 1000));
      if (out[i] != want) return 89;
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuNoContextTest, ::testing::Values("staging", "ipc"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace outrider::testing
