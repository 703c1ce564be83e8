// Allreduce of device buffers through the shim's staging path, against a real agent, with the
// fake CUDA driver (tests/fake_cuda/) in each trainer process: the op is ordered on the caller's
// stream (work queued after it sees the result, with no host wait in between), results are those
// of host buffers, and an agent killed while a staged op waits lets the stream go on (its done
// fence is written by the shim) with the op failing UNAVAILABLE.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "ipc/cuda/driver.h"
#include "ipc/event_fd.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 4096;

// The child's CUDA: the fake driver, its primary context current. Exits 80+ on failure.
const cuda::Driver& ChildCuda() {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  auto d = cuda::Load();
  if (!d.ok()) std::_Exit(80);
  CUcontext ctx = nullptr;
  if ((*d)->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || (*d)->cuCtxSetCurrent(ctx) != CUDA_SUCCESS) std::_Exit(81);
  return **d;
}

TEST(GpuStagingTest, AnAllreduceOfDeviceBuffersIsOrderedOnTheStreamAndSumsLikeHostBuffers) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    pids.push_back(Spawn([&, r] {
      const cuda::Driver& d = ChildCuda();
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

// Submits a staged allreduce as rank 0 of a job of two whose rank 1 never comes, so the op waits
// in the agent; the stream then runs a host function that sends 'r' on `released`.
int SubmitOrphan(const cuda::Driver& d, outrider_client_t* c, Pipe* released, CUstream* s, outrider_op_t* h) {
  CUdeviceptr buf = 0;
  if (d.cuMemAlloc(&buf, 64) != CUDA_SUCCESS) return 82;
  if (d.cuStreamCreate(s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 83;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = *s;
  void* p = reinterpret_cast<void*>(buf);
  int rc = outrider_allreduce(c, p, p, 16, OUTRIDER_F32, OUTRIDER_SUM, &o, h);
  if (rc != OUTRIDER_OK) return rc;
  auto note = [](void* pipe) { static_cast<Pipe*>(pipe)->Send('r'); };
  if (d.cuLaunchHostFunc(*s, note, released) != CUDA_SUCCESS) return 84;
  if (d.cuStreamQuery(*s) != CUDA_ERROR_NOT_READY) return 85;  // waiting for the agent
  return 0;
}

TEST(GpuStagingTest, AnAgentKilledWhileAStagedOpWaitsLetsTheStreamGoOnWithoutAnyCallOfTheCaller) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  Pipe submitted, released, go;
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-orphan", 0, 2);
    CUstream s = nullptr;
    outrider_op_t h = 0;
    if (int rc = SubmitOrphan(d, c, &released, &s, &h); rc != 0) return rc;
    submitted.Send('s');
    // The caller's thread makes no call into the shim until the parent saw the stream go on.
    char ch;
    if (!go.Receive(&ch, 30000)) return 86;
    int rc = outrider_wait(c, h, 20000);
    if (rc != OUTRIDER_ERR_UNAVAILABLE) return 90;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 91;
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(submitted.Receive(&ch, 20000));
  uint64_t killed = ipc::MonotonicNs();
  ::kill(agent->pid(), SIGKILL);
  // The shim's watchdog writes the done fence as soon as the socket hangs up.
  EXPECT_TRUE(released.Receive(&ch, 10000)) << "the stream still waits for the dead agent";
  std::printf("stream released %.1f ms after the agent's SIGKILL\n", (ipc::MonotonicNs() - killed) / 1e6);
  go.Send('g');
  EXPECT_EQ(Reap(child), 0);
}

TEST(GpuStagingTest, DisconnectingWithAStagedOpInFlightLetsItsStreamGoOn) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  Pipe released;
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-leave", 0, 2);
    CUstream s = nullptr;
    outrider_op_t h = 0;
    if (int rc = SubmitOrphan(d, c, &released, &s, &h); rc != 0) return rc;
    outrider_disconnect(c);  // the op never finishes: its fence is let go, its memory waited for
    char ch;
    if (!released.Receive(&ch, 10000)) return 92;  // the stream went past the op
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 93;
    return 0;
  });
  EXPECT_EQ(Reap(child), 0);
  // The agent is unharmed: another job runs.
  pid_t other = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "after-leave", 0, 1);
    float* x = static_cast<float*>(outrider_alloc(c, 4));
    *x = 3;
    outrider_op_t h = 0;
    int rc = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    bool ok = rc == OUTRIDER_OK && *x == 3;
    outrider_disconnect(c);
    return ok ? 0 : 94;
  });
  EXPECT_EQ(Reap(other), 0);
}

}  // namespace
}  // namespace outrider::testing
