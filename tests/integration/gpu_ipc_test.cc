// Ops on device buffers in gpu_mode ipc, against a real agent, with the fake CUDA driver
// (tests/fakes/cuda/) in the trainers and in the agent: trainers register their GPU allocations
// (cuMem allocations as fds, cudaMalloc allocations as legacy handles), the agent imports them
// and copies through its own pinned buffers; ops are ordered on the caller's stream; a region
// released while an op on it runs stays imported until the op is done; freed device memory is
// released on request; a client's imports are closed when it goes, however it goes. (Agent death
// and disconnect with ops in flight, in both modes: gpu_stream_release_test.cc.)
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 4096;

TEST(GpuIpcTest,
     AllreduceAndAllgatherOfCudaMallocAndCuMemBuffersRunOnTheAgentsImportsInStreamOrder) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-ipc", r, 2);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    // Allreduce in place, at a non-zero offset into a cudaMalloc allocation (legacy handle).
    CUdeviceptr legacy = 0;
    if (d.cuMemAlloc(&legacy, 2 * kCount * 4) != CUDA_SUCCESS) return 87;
    CUdeviceptr buf = legacy + kCount * 4;
    std::vector<float> in(kCount), out(kCount, -1.0f);
    for (uint64_t i = 0; i < kCount; ++i) in[i] = static_cast<float>((r + 1) * i);
    if (d.cuMemcpyHtoDAsync(buf, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 88;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h1 = 0, h2 = 0;
    void* p = reinterpret_cast<void*>(buf);
    int rc = outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h1);
    if (rc != OUTRIDER_OK) {
      std::fprintf(stderr, "allreduce: %s\n", outrider_last_error(c));
      return rc;
    }
    if (d.cuMemcpyDtoHAsync(out.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 89;
    // Allgather from the cudaMalloc buffer into a cuMem allocation (fd), on the same stream.
    CUdeviceptr vmm = VmmAlloc(d);
    rc = outrider_allgather(c, p, reinterpret_cast<void*>(vmm), kCount, OUTRIDER_F32, &o, &h2);
    if (rc != OUTRIDER_OK) return 100 + rc;
    std::vector<float> gathered(2 * kCount, -1.0f);
    if (d.cuMemcpyDtoHAsync(gathered.data(), vmm, 2 * kCount * 4, s) != CUDA_SUCCESS) return 90;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 91;
    for (uint64_t i = 0; i < kCount; ++i) {
      if (out[i] != static_cast<float>(3 * i)) return 92;
      if (gathered[i] != static_cast<float>(3 * i) ||
          gathered[kCount + i] != static_cast<float>(3 * i))
        return 93;
    }
    if (outrider_wait(c, h1, 10000) != OUTRIDER_OK || outrider_wait(c, h2, 10000) != OUTRIDER_OK)
      return 94;
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
}

TEST(GpuIpcTest, ARegionReleasedWhileAnOpOnItRunsStaysImportedUntilTheOpIsDone) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe released, go;
  auto trainer = [&](int r) {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-release", r, 2);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    CUdeviceptr vmm = VmmAlloc(d);
    std::vector<float> in(kCount, static_cast<float>(r + 1)), out(kCount, -1.0f);
    if (d.cuMemcpyHtoDAsync(vmm, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 87;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(vmm);
    if (r == 1) {
      char ch;  // rank 1 joins once rank 0 has released its region with the op in flight
      if (!go.Receive(&ch, 20000)) return 95;
    }
    int rc = outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
    if (rc != OUTRIDER_OK) return rc;
    if (r == 0) {
      rc = outrider_region_release(c, p);
      if (rc != OUTRIDER_OK) return 96;
      released.Send('r');
    }
    if (d.cuMemcpyDtoHAsync(out.data(), vmm, kCount * 4, s) != CUDA_SUCCESS) return 88;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 89;
    for (float v : out) {
      if (v != 3.0f) {
        int w = outrider_wait(c, h, 10000);
        std::fprintf(stderr, "rank %d: %g, not 3 (op: %d %s)\n", r, v, w, outrider_last_error(c));
        return 90;
      }
    }
    if (outrider_wait(c, h, 10000) != OUTRIDER_OK) return 91;
    outrider_disconnect(c);
    return 0;
  };
  Ranks ranks(2, trainer);
  char ch;
  ASSERT_TRUE(released.Receive(&ch, 20000));
  go.Send('g');
  ranks.ExpectAllExitZero();
}

TEST(GpuIpcTest, AClientsImportsAreClosedWhenItLeavesOrIsKilled) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe registered, leave;
  for (bool killed : {false, true}) {
    pid_t child = Spawn([&] {
      const cuda::Driver& d = ChildCuda();
      outrider_client_t* c =
          ConnectOrExit(agent->socket_path(), killed ? "gpu-killed" : "gpu-leaves", 0, 1);
      CUstream s = nullptr;
      if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
      CUdeviceptr legacy = 0;
      if (d.cuMemAlloc(&legacy, kCount * 4) != CUDA_SUCCESS) return 87;
      CUdeviceptr vmm = VmmAlloc(d);
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.cuda_stream = s;
      outrider_op_t h = 0;
      int rc = outrider_allreduce(c, reinterpret_cast<void*>(legacy), reinterpret_cast<void*>(vmm),
                                  kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
      if (rc != OUTRIDER_OK) return rc;
      registered.Send('r');
      if (killed) {
        ::pause();  // the parent kills it
        return 97;
      }
      char ch;  // leaves once the parent has counted the imports
      if (!leave.Receive(&ch, 20000)) return 95;
      outrider_disconnect(c);
      return 0;
    });
    char ch;
    ASSERT_TRUE(registered.Receive(&ch, 20000));
    EXPECT_EQ(DeviceMappings(agent->pid()), 2) << "the agent imported both allocations";
    if (killed) {
      ::kill(child, SIGKILL);
    } else {
      leave.Send('l');
    }
    EXPECT_EQ(Reap(child), killed ? 128 + SIGKILL : 0);
    // The agent notices the hang-up on its next loop turn; its imports go with the session.
    EXPECT_EQ(DeviceMappingsOnceClosed(agent->pid()), 0) << (killed ? "killed" : "left in order");
  }
}

// What an allocator's free hook calls (the PyTorch backend's does): the agent closes its imports
// of the allocations in the freed range, and only those, while the client stays connected.
TEST(GpuIpcTest, ReleasingFreedDeviceMemoryClosesTheImportsOfTheAllocationsInTheRangeOnly) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe step, next;
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-free-hook", 0, 1);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    CUdeviceptr legacy = 0;
    if (d.cuMemAlloc(&legacy, kCount * 4) != CUDA_SUCCESS) return 87;
    CUdeviceptr vmm = VmmAlloc(d);
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    // Both allocations at an offset: the range names the allocation, not the buffer.
    int rc = outrider_allreduce(c, reinterpret_cast<void*>(legacy + 256),
                                reinterpret_cast<void*>(vmm + 512), 64, OUTRIDER_F32, OUTRIDER_SUM,
                                &o, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    if (rc != OUTRIDER_OK) return rc;
    char ch;
    step.Send('1');
    if (!next.Receive(&ch, 20000)) return 95;
    // Memory the client never used in an op: nothing to release.
    int host = 0;
    if (outrider_release_device_memory(c, &host, sizeof(host)) != OUTRIDER_OK) return 92;
    if (outrider_release_device_memory(c, reinterpret_cast<void*>(legacy), kCount * 4) !=
        OUTRIDER_OK)
      return 93;
    step.Send('2');
    if (!next.Receive(&ch, 20000)) return 95;
    // Used again: registered again.
    rc = outrider_allreduce(c, reinterpret_cast<void*>(legacy), reinterpret_cast<void*>(legacy), 64,
                            OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    if (rc != OUTRIDER_OK) return rc;
    step.Send('3');
    if (!next.Receive(&ch, 20000)) return 95;
    outrider_disconnect(c);
    return 0;
  });
  // The agent's import count once it is `want` (an import closes when its release is answered, so
  // this reads at once; the loop only bounds a failure).
  auto mappings = [&](int want) {
    uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
    while (DeviceMappings(agent->pid()) != want && ipc::MonotonicNs() < deadline)
      ipc::WaitReadable(-1, -1, 10);
    return DeviceMappings(agent->pid());
  };
  char ch;
  ASSERT_TRUE(step.Receive(&ch, 20000));
  EXPECT_EQ(mappings(2), 2) << "both allocations imported";
  next.Send('n');
  ASSERT_TRUE(step.Receive(&ch, 20000));
  EXPECT_EQ(DeviceMappings(agent->pid()), 1)
      << "the legacy allocation's import closed, the cuMem one kept";
  next.Send('n');
  ASSERT_TRUE(step.Receive(&ch, 20000));
  EXPECT_EQ(DeviceMappings(agent->pid()), 2) << "the legacy allocation imported again";
  next.Send('n');
  EXPECT_EQ(Reap(child), 0);
}

// A buffer across two allocations (an expandable segment's pages) cannot be one import: it is
// staged through shared memory on the stream, in ipc mode too, and the result is the same.
TEST(GpuIpcTest, ABufferSpanningTwoAllocationsIsStagedAndReducedCorrectly) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Pipe done, leave;
  auto trainer = [&](int r) {
    const cuda::Driver& d = ChildCuda("ipc");
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-span", r, 2);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 86;
    CUdeviceptr span = VmmSpan(d);
    // From the middle of the first allocation into the second.
    const uint64_t count = kVmmBytes / 4;
    CUdeviceptr buf = span + kVmmBytes / 2;
    std::vector<float> in(count), out(count, -1.0f);
    for (uint64_t i = 0; i < count; ++i) in[i] = static_cast<float>((i % 1000) * (r + 1));
    if (d.cuMemcpyHtoDAsync(buf, in.data(), count * 4, s) != CUDA_SUCCESS) return 87;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    int rc = outrider_allreduce(c, p, p, count, OUTRIDER_F32, OUTRIDER_SUM, &o, &h);
    if (rc != OUTRIDER_OK) {
      std::fprintf(stderr, "rank %d: %s\n", r, outrider_last_error(c));
      return rc;
    }
    if (d.cuMemcpyDtoHAsync(out.data(), buf, count * 4, s) != CUDA_SUCCESS) return 88;
    if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 89;
    if (outrider_wait(c, h, 10000) != OUTRIDER_OK) return 91;
    for (uint64_t i = 0; i < count; ++i) {
      if (out[i] != static_cast<float>((i % 1000) * 3)) return 90;
    }
    done.Send('d');
    char ch;
    if (!leave.Receive(&ch, 20000)) return 95;
    outrider_disconnect(c);
    return 0;
  };
  Ranks ranks(2, trainer);
  char ch;
  bool both = done.Receive(&ch, 20000) && done.Receive(&ch, 20000);
  EXPECT_TRUE(both) << "both ranks reduced correctly";
  if (both) {
    EXPECT_EQ(DeviceMappings(agent->pid()), 0) << "staged, not imported";
  }
  leave.Send('l');
  leave.Send('l');
  ranks.ExpectAllExitZero();
}

// The host memory pinned to stage an op's GPU buffers is kept for reuse while clients work, and
// given back once unused for gpu_pinned_idle_ms (what /metrics reports).
TEST(GpuIpcTest, PinnedStagingMemoryIsGivenBackOnceIdle) {
  uint16_t http = FreePort();
  auto agent = StartGpuAgent({"--gpu-pinned-idle-ms", "1500", "--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-pinned", 0, 1);
    CUdeviceptr buf = 0;
    constexpr uint64_t kFloats = uint64_t{1} << 20;
    if (d.cuMemAlloc(&buf, kFloats * 4) != CUDA_SUCCESS) return 87;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    int rc = outrider_allreduce(c, p, p, kFloats, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    outrider_disconnect(c);
    return rc;
  });
  ASSERT_EQ(Reap(child), 0);
  // A gauge of the agent's /metrics, or -1 (asked at most every 20 ms: a gauge has no event to wait
  // on).
  auto gauge = [&](const std::string& state) {
    ::poll(nullptr, 0, 20);
    std::string body = HttpFetch(http, "/metrics").body;
    std::string series = "outrider_gpu_pinned_bytes{state=\"" + state + "\"} ";
    size_t at = body.find(series);
    return at == std::string::npos ? -1.0 : std::stod(body.substr(at + series.size()));
  };
  // Idle after the op (at least the 4 MiB it staged), then given back.
  ASSERT_TRUE(WaitUntil([&] { return gauge("idle") >= 4 << 20; }, 10000))
      << "idle " << gauge("idle");
  EXPECT_EQ(gauge("in_use"), 0);
  EXPECT_TRUE(WaitUntil([&] { return gauge("idle") == 0; }, 15000)) << "idle " << gauge("idle");
}

// A legacy IPC handle the agent cannot open is the client's error, not the agent's: registered a
// second time (a handle opens once per process), or forged.
TEST(GpuIpcTest, AReplayedOrForgedLegacyHandleIsRefusedAsTheClientsError) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  SharedValue<Text> said[2];
  SharedValue<int> codes[3];
  pid_t child = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    auto devices = cuda::Devices(d);
    if (!devices.ok() || devices->empty()) return 60;
    CUdeviceptr p = 0;
    if (d.cuMemAlloc(&p, 4096) != CUDA_SUCCESS) return 61;
    CUipcMemHandle h{};
    if (d.cuIpcGetMemHandle(&h, p) != CUDA_SUCCESS) return 62;
    auto raw = RawClient::Connect(agent->socket_path());
    if (!raw.ok()) return 63;
    ipc::HelloRequest hello = (*raw)->MakeHello("legacy-replay", 0, 1);
    hello.gpu_mode = static_cast<uint32_t>(ipc::GpuMode::kIpc);
    auto reply = (*raw)->Hello(hello);
    if (!reply.ok() || reply->code != 0) return 64;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto msg = ipc::RegisterRegion{};
      ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion,
                         sizeof(msg) - sizeof(msg.header), 10 + attempt);
      msg.bytes = 4096;
      msg.kind = static_cast<uint32_t>(ipc::RegionKind::kCudaIpc);
      CopyText(msg.device, sizeof(msg.device), (*devices)[0].uuid.c_str());
      std::memcpy(msg.ipc_handle, h.reserved, sizeof(msg.ipc_handle));
      if (attempt == 2) msg.ipc_handle[3] ^= 0x5a;  // forged
      if (!(*raw)->channel().Send(&msg, sizeof(msg)).ok()) return 65;
      ipc::RegionReply r{};
      auto n = (*raw)->channel().Recv(&r, sizeof(r), nullptr, 10000);
      if (!n.ok() || *n != sizeof(r)) return 66;
      *codes[attempt] = r.code;
      if (attempt > 0) CopyText(said[attempt - 1]->s, sizeof(said[attempt - 1]->s), r.message);
    }
    return 0;
  });
  ASSERT_EQ(Reap(child), 0);
  EXPECT_EQ(*codes[0], 0) << "the first registration of the handle";
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(*codes[i], static_cast<int32_t>(Code::kInvalidArgument)) << said[i - 1]->s;
    EXPECT_NE(std::string(said[i - 1]->s).find("the client's handle cannot be opened"),
              std::string::npos)
        << said[i - 1]->s;
  }
}

TEST(GpuIpcTest, AnUnknownGpuModeIsRefusedNamingTheVariable) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  pid_t child = Spawn([&] {
    ChildCuda();
    ::setenv("OUTRIDER_GPU_MODE", "zero-copy", 1);
    outrider_connect_options_t opts;
    outrider_connect_options_init(&opts);
    std::string sock = agent->socket_path();
    opts.socket_path = sock.c_str();
    opts.job_id = "gpu-mode";
    opts.rank = 0;
    opts.world_size = 1;
    outrider_client_t* c = nullptr;
    if (outrider_connect(&opts, &c) != OUTRIDER_ERR_INVALID_ARGUMENT) return 98;
    if (std::strstr(outrider_last_error(nullptr), "OUTRIDER_GPU_MODE") == nullptr) return 99;
    return 0;
  });
  EXPECT_EQ(Reap(child), 0);
}

}  // namespace
}  // namespace outrider::testing
