// The GPU acceptance matrix (label gpu; tools/gpu/accept.sh runs it and tabulates it): on a real
// GPU, allreduce of device buffers of every allocation kind the shim takes, in both gpu_modes,
// with 2 and 4 trainers on one GPU, bitwise against the same allreduce of host buffers (the
// agent's host path: the CPU reference); agent death mid-op, which must release the stream; and an
// agent replaced mid-op (SIGTERM, the next one on the same socket), which must run the op it gave
// back and let the stream see the result.
// Without a usable driver and GPU every test skips, saying why in one line. OUTRIDER_CUDA_DRIVER
// may name another driver library (the fake one: how the matrix itself is checked without a GPU).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"
#include "tools/harness/agent_process.h"

namespace outrider::testing {
namespace {

// Why these tests cannot run here ("" when a GPU is usable). Asked in a throwaway child: the
// trainers are forked from this process, and CUDA is unusable in a child forked after cuInit.
std::string NoGpu() {
  auto devices = cuda::ProbeDevices();
  if (!devices.ok()) return devices.status().ToString();
  if (devices->empty()) return "no GPU visible (cuDeviceGetCount)";
  return "";
}

#define SKIP_WITHOUT_GPU()                                                          \
  do {                                                                              \
    if (std::string why = NoGpu(); !why.empty()) GTEST_SKIP() << "no GPU: " << why; \
  } while (0)

// In a trainer process: the driver with GPU 0's primary context current, in gpu_mode `mode`.
const cuda::Driver& TrainerCuda(const std::string& mode) {
  ::setenv("OUTRIDER_GPU_MODE", mode.c_str(), 1);
  auto d = cuda::Load();
  if (!d.ok()) std::_Exit(80);
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if ((*d)->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      (*d)->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
      (*d)->cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
    std::_Exit(81);
  }
  return **d;
}

// How a trainer's buffer was allocated.
enum class Kind { kCudaMalloc, kCudaMallocOffset, kCuMem, kExpandable };
const char* KindName(Kind k) {
  switch (k) {
    case Kind::kCudaMalloc:
      return "cudaMalloc";
    case Kind::kCudaMallocOffset:
      return "cudaMallocAtOffset";
    case Kind::kCuMem:
      return "cuMem";
    case Kind::kExpandable:
      return "expandableSegment";
  }
  return "?";
}

// `bytes` of device memory of kind `k` (exits 82+ on failure). kExpandable: two cuMem
// allocations mapped one after another, the buffer across the seam.
CUdeviceptr DeviceBuffer(const cuda::Driver& d, Kind k, size_t bytes) {
  if (k == Kind::kCudaMalloc || k == Kind::kCudaMallocOffset) {
    CUdeviceptr p = 0;
    size_t offset = k == Kind::kCudaMallocOffset ? 4096 + 256 : 0;
    if (d.cuMemAlloc(&p, bytes + offset) != CUDA_SUCCESS) std::_Exit(82);
    return p + offset;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  if (d.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
      CUDA_SUCCESS)
    std::_Exit(83);
  size_t piece = (bytes + gran - 1) / gran * gran;
  int pieces = k == Kind::kExpandable ? 2 : 1;
  CUdeviceptr base = 0;
  if (d.cuMemAddressReserve(&base, piece * pieces, 0, 0, 0) != CUDA_SUCCESS) std::_Exit(84);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (int i = 0; i < pieces; ++i) {
    CUmemGenericAllocationHandle h = 0;
    if (d.cuMemCreate(&h, piece, &prop, 0) != CUDA_SUCCESS) std::_Exit(85);
    if (d.cuMemMap(base + i * piece, piece, 0, h, 0) != CUDA_SUCCESS) std::_Exit(86);
    if (d.cuMemSetAccess(base + i * piece, piece, &access, 1) != CUDA_SUCCESS) std::_Exit(87);
    (void)d.cuMemRelease(h);
  }
  return k == Kind::kExpandable ? base + piece - bytes / 2 : base;
}

// Rank r's input: floats of mixed magnitude and sign (sums depend on order, so only the same
// reduction is bitwise equal).
std::vector<float> Input(int rank, size_t count) {
  std::mt19937 gen(1234u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = u(gen) * static_cast<float>(1 << (gen() % 16));
  return v;
}

using Cell = std::tuple<Kind, std::string, int>;  // allocation, gpu_mode, trainers

class GpuAcceptTest : public ::testing::TestWithParam<Cell> {};

TEST_P(GpuAcceptTest, AllreduceOfDeviceBuffersIsBitwiseTheHostResult) {
  SKIP_WITHOUT_GPU();
  auto [kind, mode, trainers] = GetParam();
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  constexpr size_t kCount = (size_t{4} << 20) / 4 + 7;  // 4 MiB and a ragged tail
  std::string job =
      std::string("accept-") + KindName(kind) + "-" + mode + "-" + std::to_string(trainers);
  Ranks ranks(trainers, [&](int r) {
    const cuda::Driver& d = TrainerCuda(mode);
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), job.c_str(), r, trainers);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 88;
    std::vector<float> in = Input(r, kCount), got(kCount);
    CUdeviceptr buf = DeviceBuffer(d, kind, kCount * 4);
    if (d.cuMemcpyHtoDAsync(buf, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 89;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    int rc = outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
    if (rc != OUTRIDER_OK) {
      std::fprintf(stderr, "rank %d: allreduce: %s\n", r, outrider_last_error(c));
      return 90;
    }
    // Queued after the op on its stream: sees the result without waiting for the op here.
    if (d.cuMemcpyDtoHAsync(got.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 91;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 92;
    if (outrider_wait(c, h, 30000) != OUTRIDER_OK) return 93;
    // The CPU reference: the same allreduce of host buffers.
    void* host = outrider_alloc(c, kCount * 4);
    if (host == nullptr) return 94;
    std::memcpy(host, in.data(), kCount * 4);
    if (outrider_allreduce(c, host, host, kCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) !=
            OUTRIDER_OK ||
        outrider_wait(c, h, 30000) != OUTRIDER_OK) {
      return 95;
    }
    if (std::memcmp(host, got.data(), kCount * 4) != 0) {
      std::fprintf(stderr, "rank %d: the device result differs from the host result\n", r);
      return 96;
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
}

std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  return std::string(KindName(std::get<0>(info.param))) + "_" + std::get<1>(info.param) + "_" +
         std::to_string(std::get<2>(info.param)) + "trainers";
}

INSTANTIATE_TEST_SUITE_P(Matrix, GpuAcceptTest,
                         ::testing::Combine(::testing::Values(Kind::kCudaMalloc,
                                                              Kind::kCudaMallocOffset, Kind::kCuMem,
                                                              Kind::kExpandable),
                                            ::testing::Values("staging", "ipc"),
                                            ::testing::Values(2, 4)),
                         CellName);

class GpuAgentDeathTest : public ::testing::TestWithParam<std::string> {};

// Rank 1 never joins, so rank 0's op waits in the agent; the agent is SIGKILLed. The stream must
// go on within 1 s, with no call from the trainer, and the op report UNAVAILABLE.
TEST_P(GpuAgentDeathTest, AgentKilledMidOpReleasesTheStreamWithinASecond) {
  SKIP_WITHOUT_GPU();
  const std::string mode = GetParam();
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  Pipe submitted, released;
  struct Times {
    uint64_t killed_ns, released_ns;  // CLOCK_MONOTONIC, the same in both processes
  };
  auto* t = static_cast<Times*>(
      ::mmap(nullptr, sizeof(Times), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(t, MAP_FAILED);
  pid_t trainer = Spawn([&] {
    const cuda::Driver& d = TrainerCuda(mode);
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "accept-kill-" + mode, 0, 2);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 88;
    CUdeviceptr buf = DeviceBuffer(d, Kind::kCudaMalloc, 1 << 20);
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    if (outrider_allreduce(c, p, p, (1 << 20) / 4, OUTRIDER_F32, OUTRIDER_SUM, &o, &h) !=
        OUTRIDER_OK)
      return 89;
    submitted.Send('s');
    // No call into the shim: the stream must go on by itself. Polled (1 ms), not synchronized:
    // a stream that never goes on fails the test instead of hanging it.
    uint64_t give_up = ipc::MonotonicNs() + uint64_t{10'000'000'000};
    while (d.cuStreamQuery(s) == CUDA_ERROR_NOT_READY && ipc::MonotonicNs() < give_up)
      ipc::WaitReadable(-1, -1, 1);
    if (d.cuStreamQuery(s) != CUDA_SUCCESS) return 90;
    t->released_ns = ipc::MonotonicNs();
    released.Send('r');
    return outrider_wait(c, h, 5000) == OUTRIDER_ERR_UNAVAILABLE ? 0 : 91;
  });
  char ch;
  ASSERT_TRUE(submitted.Receive(&ch, 30000));
  t->killed_ns = ipc::MonotonicNs();
  ::kill(agent->pid(), SIGKILL);
  ASSERT_TRUE(released.Receive(&ch, 15000)) << "the stream still waits for the dead agent";
  double ms = static_cast<double>(t->released_ns - t->killed_ns) / 1e6;
  EXPECT_LT(ms, 1000.0);
  std::printf("gpu_mode %s: stream released %.1f ms after the agent's SIGKILL\n", mode.c_str(), ms);
  EXPECT_EQ(Reap(trainer), 0);
  ::munmap(t, sizeof(Times));
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuAgentDeathTest, ::testing::Values("staging", "ipc"));

// Two trainers on the GPU (gpu_mode staging); rank 1's allreduce waits in the agent for rank 0's
// when the agent is stopped (SIGTERM) and the next one started on its socket. The agent gives the
// op back, rank 1 submits it at the next agent, whose completion signals the fence its stream
// waits on; rank 0 then submits its own. Both streams see the sum.
TEST(GpuHandOverAcceptTest, AnOpGivenBackAtASigtermRunsAtTheNextAgentOnTheStream) {
  SKIP_WITHOUT_GPU();
  harness::AgentProcessOptions first;
  Result<std::unique_ptr<harness::AgentProcess>> agent = harness::AgentProcess::Start(first);
  ASSERT_TRUE(agent.ok()) << agent.status().ToString();
  std::string socket = (*agent)->socket_path();
  constexpr size_t kCount = 1 << 18;
  Pipe submitted, stopped;
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = TrainerCuda("staging");
    outrider_client_t* c = ConnectOrExit(socket, "accept-hand-over", r, 2);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 88;
    CUdeviceptr buf = DeviceBuffer(d, Kind::kCudaMalloc, kCount * 4);
    std::vector<float> in(kCount), out(kCount);
    for (size_t i = 0; i < kCount; ++i) in[i] = static_cast<float>((r + 1) * (i % 1000));
    // Pinned: queueing the copy back returns at once, and rank 1 goes on to wait in the shim, which
    // takes it to the next agent (a copy into pageable memory would hold the thread until the
    // stream ran it, after the op: until OUTRIDER_RECONNECT_MS let the stream go).
    if (d.cuMemHostRegister(out.data(), kCount * 4, 0) != CUDA_SUCCESS) return 87;
    if (r == 0) {
      char ch;
      if (!stopped.Receive(&ch, 60000)) return 89;
    }
    if (d.cuMemcpyHtoDAsync(buf, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 90;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    if (outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h) != OUTRIDER_OK)
      return 91;
    if (d.cuMemcpyDtoHAsync(out.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 92;
    if (r == 1) submitted.Send('s');
    if (int rc = outrider_wait(c, h, 60000); rc != OUTRIDER_OK) {
      std::fprintf(stderr, "rank %d: %s\n", r, outrider_last_error(c));
      return 93;
    }
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 94;
    for (size_t i = 0; i < kCount; ++i) {
      if (out[i] != static_cast<float>(3 * (i % 1000))) return 95;
    }
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(submitted.Receive(&ch, 30000));
  // Rank 1's op has reached the agent once its stream wrote the ready fence; the agent gives back
  // whatever it holds, and the shim whatever the agent had not taken yet.
  int status = (*agent)->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent wait status " << status;
  harness::AgentProcessOptions next;
  next.socket_path = socket;
  Result<std::unique_ptr<harness::AgentProcess>> restarted = harness::AgentProcess::Start(next);
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  stopped.Send('s');
  EXPECT_EQ(ranks.Reap(0), 0);
  EXPECT_EQ(ranks.Reap(1), 0);
  std::printf("gpu hand-over: the op given back ran at the next agent, both streams saw the sum\n");
}

}  // namespace
}  // namespace outrider::testing
