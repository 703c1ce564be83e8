// The agent's NCCL path (agent/engine/gpu/nccl_path.h) against a real agent, with the fake CUDA
// driver (tests/fakes/cuda/) in trainers and agent and the fake NCCL (tests/fakes/nccl/) in the
// agent: dense collectives of a single-node gpu_mode ipc job on two GPUs run on the agent's
// communicators in stream order; alltoallv runs as sends and receives once its counts agree; two
// ranks on one GPU run on the host engine, saying why; without MPS, `auto` keeps to the host engine
// and says why.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uint64_t kCount = 70000;  // more than one chunk of the fake NCCL's segment per rank

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// An agent on a machine with two (fake) GPUs, its NCCL the fake one.
std::unique_ptr<harness::AgentProcess> StartNcclAgent(const std::string& mode,
                                                      std::vector<std::string> more = {}) {
  ::setenv("OUTRIDER_FAKE_CUDA_DEVICES", "2", 1);
  ::setenv("OUTRIDER_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
  ::setenv("CUDA_MPS_PIPE_DIRECTORY", "/nonexistent-outrider-mps", 1);
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  more.insert(more.begin(), {"--gpu-nccl", mode});
  return StartAgent(more);
}

// In a child: GPU `gpu`'s primary context made current, then connected as `rank` of 2 in `job`.
outrider_client_t* ConnectOnGpu(const cuda::Driver& d, const std::string& socket,
                                const std::string& job, int rank, int gpu) {
  CUcontext ctx = nullptr;
  if (d.cuDevicePrimaryCtxRetain(&ctx, gpu) != CUDA_SUCCESS ||
      d.cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
    std::_Exit(50);
  return ConnectOrExit(socket, job, rank, 2);
}

// A trainer of job `job` on GPU `gpu`: every dense op kind on device buffers, checked; 0 if all
// are right, else which failed (and outrider_last_error on stderr).
int Trainer(const std::string& socket, const std::string& job, int rank, int gpu) {
  const cuda::Driver& d = ChildCuda();
  outrider_client_t* c = ConnectOnGpu(d, socket, job, rank, gpu);
  CUstream s = nullptr;
  if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 71;
  CUdeviceptr base = 0, gathered = 0;
  if (d.cuMemAlloc(&base, 2 * kCount * 4) != CUDA_SUCCESS ||
      d.cuMemAlloc(&gathered, 2 * kCount * 4) != CUDA_SUCCESS)
    return 72;
  CUdeviceptr buf = base + 4096;  // at an offset into the allocation
  std::vector<float> in(kCount), reduced(kCount), bcast(kCount), all(2 * kCount),
      scattered(kCount / 2);
  for (uint64_t i = 0; i < kCount; ++i) in[i] = static_cast<float>((rank + 1) * (i % 977));
  if (d.cuMemcpyHtoDAsync(buf, in.data(), kCount * 4, s) != CUDA_SUCCESS) return 73;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = s;
  void* p = reinterpret_cast<void*>(buf);
  void* g = reinterpret_cast<void*>(gathered);
  outrider_op_t h[4] = {};
  auto fail = [&](int code) {
    std::fprintf(stderr, "rank %d: %s\n", rank, outrider_last_error(c));
    return code;
  };
  // All on the stream, the host never waiting between them.
  if (outrider_allgather(c, p, g, kCount, OUTRIDER_F32, &o, &h[0]) != OUTRIDER_OK) return fail(74);
  if (d.cuMemcpyDtoHAsync(all.data(), gathered, 2 * kCount * 4, s) != CUDA_SUCCESS) return 75;
  if (outrider_allreduce(c, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[1]) != OUTRIDER_OK)
    return fail(76);
  if (d.cuMemcpyDtoHAsync(reduced.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 77;
  if (outrider_reduce_scatter(c, p, g, kCount / 2, OUTRIDER_F32, OUTRIDER_MAX, &o, &h[2]) !=
      OUTRIDER_OK)
    return fail(78);
  if (d.cuMemcpyDtoHAsync(scattered.data(), gathered, kCount / 2 * 4, s) != CUDA_SUCCESS) return 79;
  if (outrider_broadcast(c, p, kCount, OUTRIDER_F32, 1, &o, &h[3]) != OUTRIDER_OK) return fail(80);
  if (d.cuMemcpyDtoHAsync(bcast.data(), buf, kCount * 4, s) != CUDA_SUCCESS) return 81;
  if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) return 82;
  for (outrider_op_t op : h) {
    if (outrider_wait(c, op, 10000) != OUTRIDER_OK) return fail(83);
  }
  for (uint64_t i = 0; i < kCount; ++i) {
    float v = static_cast<float>(i % 977);
    if (all[i] != v || all[kCount + i] != 2 * v) return 90;
    if (reduced[i] != 3 * v) return 91;
    if (bcast[i] != 3 * v) return 92;  // rank 1's buffer after the allreduce
  }
  for (uint64_t i = 0; i < kCount / 2; ++i) {
    if (scattered[i] != 3 * static_cast<float>((rank * kCount / 2 + i) % 977)) return 93;
  }
  outrider_disconnect(c);
  return 0;
}

TEST(GpuNcclTest, DenseOpsOfTwoRanksOnTwoGpusRunOnTheAgentsNcclCommunicatorsInStreamOrder) {
  auto agent = StartNcclAgent("force");
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) { return Trainer(agent->socket_path(), "nccl-two", r, r); });
  ranks.ExpectAllExitZero();
  std::string log = ReadFile(agent->log_path());
  EXPECT_NE(log.find("gpu_nccl = force: dense GPU collectives"), std::string::npos) << log;
  EXPECT_NE(log.find("job 'nccl-two': NCCL communicators ready, ranks 0,1 of 2 on GPUs 0,1"),
            std::string::npos)
      << log;
}

// One launch of sends and receives per rank: blocks of every size (none, within one of the fake
// NCCL's chunks, across several), and counts that disagree fail both ranks before any launch, so
// the next alltoallv runs.
TEST(GpuNcclTest,
     AlltoallvOfUnevenBlocksRunsOnTheCommunicatorsAndDisagreeingCountsFailBeforeLaunch) {
  auto agent = StartNcclAgent("force");
  ASSERT_NE(agent, nullptr);
  BlockCounts counts = [](int i, int j) -> int64_t {
    return i == 0 && j == 0 ? 0 : 1000 + 150000 * (i + 2 * j);
  };
  BlockCounts wrong = [&](int i, int j) -> int64_t {
    return i == 0 && j == 1 ? counts(i, j) - 1 : counts(i, j);
  };
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOnGpu(d, agent->socket_path(), "nccl-a2a", r, r);
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 51;
    std::string why;
    int rc = DeviceAlltoallv(c, d, s, r, 2, counts, counts, &why);
    if (rc != 0) {
      std::fprintf(stderr, "rank %d: first alltoallv: %d %s\n", r, rc, why.c_str());
      return 52;
    }
    rc = DeviceAlltoallv(c, d, s, r, 2, counts, wrong, &why);
    if (rc != OUTRIDER_ERR_MISMATCH ||
        why.find("local rank 0 sends 301000 elements to local rank 1, which expects 300999") ==
            std::string::npos) {
      std::fprintf(stderr, "rank %d: disagreeing alltoallv: %d %s\n", r, rc, why.c_str());
      return 53;
    }
    rc = DeviceAlltoallv(c, d, s, r, 2, counts, counts, &why);
    if (rc != 0) {
      std::fprintf(stderr, "rank %d: alltoallv after the disagreement: %d %s\n", r, rc,
                   why.c_str());
      return 54;
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
  std::string log = ReadFile(agent->log_path());
  EXPECT_NE(log.find("job 'nccl-a2a': NCCL communicators ready, ranks 0,1 of 2 on GPUs 0,1"),
            std::string::npos)
      << log;
}

// NCCL runs one rank per GPU: a job whose trainers share one runs its GPU collectives on the host
// engine, through the agent's pinned buffers, and the log says why. Until every local rank's first
// GPU op came it is not known, and a rank that never submits one fails the others' held op in
// time, named.
TEST(GpuNcclTest, RanksSharingAGpuRunOnTheHostEngineAndARankThatNeverSubmitsIsNamed) {
  auto agent = StartNcclAgent("force", {"--op-timeout-ms", "1500"});
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) { return Trainer(agent->socket_path(), "nccl-shared", r, 0); });
  ranks.ExpectAllExitZero();
  std::string log = ReadFile(agent->log_path());
  EXPECT_NE(log.find("job 'nccl-shared': local ranks 0 and 1 keep their buffers on GPU 0: its GPU "
                     "collectives run on the "
                     "host engine"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("job 'nccl-shared': NCCL communicators ready"), std::string::npos) << log;
  Pipe leave;
  pid_t silent = Spawn([&] {  // joins, submits nothing, leaves when told
    (void)ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "nccl-unseen", 1, 2);
    char ch;
    if (!leave.Receive(&ch, 20000)) return 95;
    outrider_disconnect(c);
    return 0;
  });
  pid_t held = Spawn([&] {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "nccl-unseen", 0, 2);
    CUdeviceptr buf = 0;
    if (d.cuMemAlloc(&buf, 4096) != CUDA_SUCCESS) return 70;
    outrider_op_t h = 0;
    void* p = reinterpret_cast<void*>(buf);
    if (outrider_allreduce(c, p, p, 1024, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 71;
    int rc = outrider_wait(c, h, 20000);
    std::string why = outrider_last_error(c);
    if (rc != OUTRIDER_ERR_DEADLINE_EXCEEDED ||
        why.find("local rank 1 submitted no op on GPU memory") == std::string::npos) {
      std::fprintf(stderr, "rc %d: %s\n", rc, why.c_str());
      return 72;
    }
    outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(held), 0);
  leave.Send('l');
  EXPECT_EQ(Reap(silent), 0);
}

// Where a rank keeps its buffers counts from when its GPU op comes, not when it reaches the front
// of the session's queue: rank 0 submits on a split group first and rank 1 on the world first
// (streams of their own, so neither waits for the other), and neither op waits for the other to be
// known. (The split itself is a host op: it tells neither job anything.)
TEST(GpuNcclTest, RanksSubmittingOnTwoCommunicatorsInOppositeOrdersBothRunOnNccl) {
  auto agent = StartNcclAgent("force", {"--op-timeout-ms", "5000"});
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda();
    outrider_client_t* c = ConnectOnGpu(d, agent->socket_path(), "nccl-orders", r, r);
    outrider_comm_t g = 0;
    if (outrider_comm_split(c, OUTRIDER_COMM_WORLD, 0, r, &g) != OUTRIDER_OK) return 51;
    CUstream on_group = nullptr, on_world = nullptr;
    CUdeviceptr a = 0, b = 0;
    if (d.cuStreamCreate(&on_group, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        d.cuStreamCreate(&on_world, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        d.cuMemAlloc(&a, 4096) != CUDA_SUCCESS || d.cuMemAlloc(&b, 4096) != CUDA_SUCCESS) {
      return 52;
    }
    std::vector<float> ones(1024, static_cast<float>(r + 1)), got(1024), world(1024);
    if (d.cuMemcpyHtoDAsync(a, ones.data(), 4096, on_group) != CUDA_SUCCESS ||
        d.cuMemcpyHtoDAsync(b, ones.data(), 4096, on_world) != CUDA_SUCCESS) {
      return 53;
    }
    outrider_op_t h[2] = {};
    auto submit = [&](bool group) {
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.cuda_stream = group ? on_group : on_world;
      o.comm = group ? g : OUTRIDER_COMM_WORLD;
      void* p = reinterpret_cast<void*>(group ? a : b);
      return outrider_allreduce(c, p, p, 1024, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[group ? 0 : 1]);
    };
    if (submit(r == 0) != OUTRIDER_OK || submit(r != 0) != OUTRIDER_OK) return 54;
    for (outrider_op_t op : h) {
      if (outrider_wait(c, op, 20000) != OUTRIDER_OK) {
        std::fprintf(stderr, "rank %d: %s\n", r, outrider_last_error(c));
        return 55;
      }
    }
    if (d.cuMemcpyDtoHAsync(got.data(), a, 4096, on_group) != CUDA_SUCCESS ||
        d.cuMemcpyDtoHAsync(world.data(), b, 4096, on_world) != CUDA_SUCCESS ||
        d.cuStreamSynchronize(on_group) != CUDA_SUCCESS ||
        d.cuStreamSynchronize(on_world) != CUDA_SUCCESS) {
      return 56;
    }
    if (got[0] != 3.0f || got[1023] != 3.0f || world[0] != 3.0f || world[1023] != 3.0f) return 57;
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
  std::string log = ReadFile(agent->log_path());
  EXPECT_NE(log.find("job 'nccl-orders': NCCL communicators ready, ranks 0,1 of 2 on GPUs 0,1"),
            std::string::npos)
      << log;
}

TEST(GpuNcclTest, WithoutMpsAutoKeepsToTheHostEngineAndSaysWhy) {
  auto agent = StartNcclAgent("auto");
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) { return Trainer(agent->socket_path(), "nccl-auto", r, r); });
  ranks.ExpectAllExitZero();
  std::string log = ReadFile(agent->log_path());
  EXPECT_NE(
      log.find("gpu_nccl = auto: GPU collectives of gpu_mode ipc clients run on the host engine"),
      std::string::npos)
      << log;
  EXPECT_NE(log.find("MPS is not running"), std::string::npos) << log;
  EXPECT_EQ(log.find("NCCL communicators ready"), std::string::npos) << log;
}

}  // namespace
}  // namespace outrider::testing
