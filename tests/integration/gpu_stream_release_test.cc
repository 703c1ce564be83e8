// No stream waits forever on an op the agent will never finish, in either gpu_mode, with the fake
// CUDA driver (tests/fakes/cuda/) against a real agent: an agent SIGKILLed while an op waits lets
// the stream go on with no call of the caller's (the shim's watchdog writes the done fence) and
// the op fails UNAVAILABLE; a client that disconnects with an op in flight lets its stream go on,
// and the agent closes its imports and serves the next job. Nor does a stream wait for a host
// function the driver has yet to call.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

class GpuStreamReleaseTest : public ::testing::TestWithParam<const char*> {
 protected:
  bool ipc_mode() const { return std::strcmp(GetParam(), "ipc") == 0; }

  // Submits an allreduce of a device buffer (a cuMem allocation in ipc mode) as rank 0 of a job
  // of two whose rank 1 never comes, so the op waits in the agent; the stream then runs a host
  // function that sends 'r' on `released`.
  int SubmitOrphan(const cuda::Driver& d, outrider_client_t* c, Pipe* released, CUstream* s,
                   outrider_op_t* h) const {
    CUdeviceptr buf = 0;
    if (ipc_mode()) {
      buf = VmmAlloc(d);
    } else if (d.cuMemAlloc(&buf, 64) != CUDA_SUCCESS) {
      return 82;
    }
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
};

TEST_P(GpuStreamReleaseTest,
       AnAgentKilledWhileAnOpWaitsLetsTheStreamGoOnWithoutAnyCallOfTheCaller) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe submitted, released, go;
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda(GetParam());
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
  std::printf("%s: stream released %.1f ms after the agent's SIGKILL\n", GetParam(),
              (ipc::MonotonicNs() - killed) / 1e6);
  go.Send('g');
  EXPECT_EQ(Reap(child), 0);
}

TEST_P(GpuStreamReleaseTest, DisconnectingWithAnOpInFlightLetsItsStreamGoOn) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe released;
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda(GetParam());
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-leave", 0, 2);
    CUstream s = nullptr;
    outrider_op_t h = 0;
    if (int rc = SubmitOrphan(d, c, &released, &s, &h); rc != 0) return rc;
    // The op never finishes: its fence is let go (ipc: once the agent has left), its memory
    // waited for.
    outrider_disconnect(c);
    char ch;
    if (!released.Receive(&ch, 10000)) return 92;  // the stream went past the op
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 93;
    return 0;
  });
  EXPECT_EQ(Reap(child), 0);
  // The agent closed the client's imports (ipc) and is unharmed: another job runs.
  EXPECT_EQ(DeviceMappingsOnceClosed(agent->pid()), 0);
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

// The PyTorch backend submits from its worker thread, where no CUDA context is current: the op's
// stream says where its work goes (the fake driver, like CUDA, refuses stream work without one).
TEST_P(GpuStreamReleaseTest, AnOpSubmittedFromAThreadWithoutACurrentContextRunsOnItsStream) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda(GetParam());
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-no-context", 0, 1);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    CUdeviceptr buf = 0;
    if (d.cuMemAlloc(&buf, 4096) != CUDA_SUCCESS) return 87;
    std::vector<float> in(1024, 2.0f), out(1024, 0.0f);
    if (d.cuMemcpyHtoDAsync(buf, in.data(), 4096, s) != CUDA_SUCCESS) return 88;
    int rc = -1;
    outrider_op_t h = 0;
    std::thread worker([&] {
      CUcontext none = nullptr;
      if (d.cuCtxGetCurrent(&none) != CUDA_SUCCESS || none != nullptr)
        return;  // a fresh thread has none
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.cuda_stream = s;
      void* p = reinterpret_cast<void*>(buf);
      rc = outrider_allreduce(c, p, p, 1024, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
      if (rc != OUTRIDER_OK) std::fprintf(stderr, "%s\n", outrider_last_error(c));
    });
    worker.join();
    if (rc != OUTRIDER_OK) return 89;
    if (d.cuMemcpyDtoHAsync(out.data(), buf, 4096, s) != CUDA_SUCCESS) return 90;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 91;
    if (outrider_wait(c, h, 10000) != OUTRIDER_OK) return 92;
    if (out != in) return 93;  // one rank: the sum is its own input
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(child), 0);
}

// The driver holds a stream until its host function returned, and calls those late (its thread
// waits for a core). With a driver whose host functions never run, in the trainer and in the
// agent, ops on a stream still finish, right: neither the op's stream nor the agent's copy
// stream waits for the doorbell or wake-up host functions queued for them.
TEST_P(GpuStreamReleaseTest, OpsFinishOnTheirStreamWhileTheDriversHostFunctionsNeverRun) {
  ::setenv("OUTRIDER_FAKE_CUDA_HOST_FUNCS", "never", 1);
  auto agent = StartGpuAgent();
  ::unsetenv("OUTRIDER_FAKE_CUDA_HOST_FUNCS");
  ASSERT_NE(agent, nullptr);
  pid_t child = Spawn([&] {
    ::setenv("OUTRIDER_FAKE_CUDA_HOST_FUNCS", "never", 1);
    const cuda::Driver& d = ChildCuda(GetParam());
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-late-host-functions", 0, 1);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    CUdeviceptr buf = ipc_mode() ? VmmAlloc(d) : 0;
    if (!ipc_mode() && d.cuMemAlloc(&buf, 4096) != CUDA_SUCCESS) return 87;
    std::vector<float> in(1024), out(1024, 0.0f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    if (d.cuMemcpyHtoDAsync(buf, in.data(), 4096, s) != CUDA_SUCCESS) return 88;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    void* p = reinterpret_cast<void*>(buf);
    for (int k = 0; k < 3; ++k) {  // one rank: each op's sum is its own input
      outrider_op_t h = 0;
      if (outrider_allreduce(c, p, p, 1024, OUTRIDER_F32, OUTRIDER_SUM, &o, &h) != OUTRIDER_OK)
        return 89;
      if (outrider_wait(c, h, 20000) != OUTRIDER_OK) return 90;
    }
    // The stream went past all three ops (polled: a host function would never say so here).
    uint64_t deadline = ipc::MonotonicNs() + 20'000'000'000ull;
    CUresult q = CUDA_ERROR_NOT_READY;
    while ((q = d.cuStreamQuery(s)) == CUDA_ERROR_NOT_READY && ipc::MonotonicNs() < deadline)
      ::usleep(1000);
    if (q != CUDA_SUCCESS) return 91;
    if (d.cuMemcpyDtoHAsync(out.data(), buf, 4096, s) != CUDA_SUCCESS) return 92;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 93;
    if (out != in) return 94;
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(child), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuStreamReleaseTest, ::testing::Values("staging", "ipc"));

}  // namespace
}  // namespace outrider::testing
