// The agent's NCCL path across nodes (agent/engine/gpu/nccl_path.h): two agents on loopback, one
// per emulated node, each with two fake GPUs of one fake machine (node 0 sees GPUs 0-1, node 1 GPUs
// 2-3), trainers in gpu_mode ipc on them, the fake NCCL in the agents. The fake NCCL fails every
// rank of a collective, naming both, when ranks launch different collectives at one position of
// the order, instead of hanging as NCCL would: a launch order not agreed across agents fails these
// tests loudly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kLocal = 2;
constexpr int kWorld = 4;
constexpr uint64_t kBig = 70000;    // with 64 KiB NCCL chunks: 5 launches
constexpr uint64_t kSmall = 30000;  // 2 launches

class GpuNcclMultiNodeTest : public MultiNodeTest {
 protected:
  // Two agents whose NCCL is the fake one; `modes[n]` is agent n's gpu_nccl.
  void StartNcclAgents(const std::vector<std::string>& modes) {
    ::setenv("OUTRIDER_FAKE_CUDA_DEVICES", "4", 1);
    ::setenv("OUTRIDER_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", "/nonexistent-outrider-mps", 1);
    ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
    for (size_t n = 0; n < modes.size(); ++n) {
      ::setenv("OUTRIDER_FAKE_CUDA_VISIBLE", n == 0 ? "0,1" : "2,3", 1);
      StartAgents(1, /*http=*/false, {"--gpu-nccl", modes[n], "--nccl-chunk-bytes", "65536"});
    }
    ::unsetenv("OUTRIDER_FAKE_CUDA_VISIBLE");
  }

  // In a child: rank `rank`'s CUDA (its node's GPUs, its own current) and its connection.
  outrider_client_t* ConnectGpuRank(const char* job, int rank, const cuda::Driver** driver) {
    ::setenv("OUTRIDER_FAKE_CUDA_VISIBLE", rank / kLocal == 0 ? "0,1" : "2,3", 1);
    const cuda::Driver& d = ChildCuda();
    CUcontext ctx = nullptr;
    if (d.cuDevicePrimaryCtxRetain(&ctx, rank % kLocal) != CUDA_SUCCESS ||
        d.cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
      std::_Exit(70);
    *driver = &d;
    return ConnectAt(rank / kLocal, 0, job, "nccl-token", rank, kWorld, kLocal);
  }
};

// Device buffer of `count` floats holding `values`, on stream `s`.
CUdeviceptr Upload(const cuda::Driver& d, CUstream s, const std::vector<float>& values) {
  CUdeviceptr p = 0;
  if (d.cuMemAlloc(&p, values.size() * 4) != CUDA_SUCCESS) std::_Exit(71);
  if (d.cuMemcpyHtoDAsync(p, values.data(), values.size() * 4, s) != CUDA_SUCCESS) std::_Exit(72);
  return p;
}

TEST_F(GpuNcclMultiNodeTest, NodesSubmittingInDifferentOrdersLaunchInTheOneOrderNodeZeroHandsOut) {
  StartNcclAgents({"force", "force"});
  Ranks ranks(kWorld, [&](int rank) {
    const cuda::Driver* dp = nullptr;
    outrider_client_t* c = ConnectGpuRank("nccl-orders", rank, &dp);
    const cuda::Driver& d = *dp;
    // The big bucket on one stream, the small one and a gather of it on another: neither waits
    // for the other, so each node's agent sees them in its own ranks' order.
    CUstream s = nullptr, t = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        d.cuStreamCreate(&t, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
      return 73;
    }
    auto fail = [&](int code) {
      std::fprintf(stderr, "rank %d: %s\n", rank, outrider_last_error(c));
      return code;
    };
    for (int iteration = 0; iteration < 3; ++iteration) {
      std::vector<float> big(kBig), small(kSmall), gathered(kWorld * kSmall);
      for (uint64_t i = 0; i < kBig; ++i)
        big[i] = static_cast<float>((rank + 1) * ((i + iteration) % 977));
      for (uint64_t i = 0; i < kSmall; ++i)
        small[i] = static_cast<float>((rank + 1) * ((i + iteration) % 613));
      CUdeviceptr a = Upload(d, s, big), b = Upload(d, t, small), g = 0;
      if (d.cuMemAlloc(&g, gathered.size() * 4) != CUDA_SUCCESS) return 74;
      outrider_op_t h[3] = {};
      auto on_big = [&]() {
        outrider_op_options_t o;
        outrider_op_options_init(&o);
        o.cuda_stream = s;
        o.key = outrider_key("big");
        void* v = reinterpret_cast<void*>(a);
        return outrider_allreduce(c, v, v, kBig, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[0]);
      };
      auto on_small = [&]() {
        outrider_op_options_t o;
        outrider_op_options_init(&o);
        o.cuda_stream = t;
        o.key = outrider_key("small");
        void* v = reinterpret_cast<void*>(b);
        int rc = outrider_allreduce(c, v, v, kSmall, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[1]);
        o.key = outrider_key("gather");
        return rc != OUTRIDER_OK ? rc
                                 : outrider_allgather(c, v, reinterpret_cast<void*>(g), kSmall,
                                                      OUTRIDER_F32, &o, &h[2]);
      };
      // Node 0's ranks submit the big bucket first, node 1's last.
      if (rank / kLocal == 0) {
        if (on_big() != OUTRIDER_OK || on_small() != OUTRIDER_OK) return fail(75);
      } else {
        if (on_small() != OUTRIDER_OK || on_big() != OUTRIDER_OK) return fail(75);
      }
      if (d.cuMemcpyDtoHAsync(big.data(), a, kBig * 4, s) != CUDA_SUCCESS ||
          d.cuMemcpyDtoHAsync(gathered.data(), g, gathered.size() * 4, t) != CUDA_SUCCESS ||
          d.cuStreamSynchronize(s) != CUDA_SUCCESS || d.cuStreamSynchronize(t) != CUDA_SUCCESS) {
        return 78;
      }
      for (outrider_op_t op : h) {
        if (outrider_wait(c, op, 20000) != OUTRIDER_OK) return fail(79);
      }
      for (uint64_t i = 0; i < kBig; ++i) {
        if (big[i] != 10 * static_cast<float>((i + iteration) % 977)) return 90;  // 1 + 2 + 3 + 4
      }
      // Every rank gathered its small bucket after reducing it (its stream's order).
      for (int r = 0; r < kWorld; ++r) {
        for (uint64_t i = 0; i < kSmall; ++i) {
          if (gathered[r * kSmall + i] != 10 * static_cast<float>((i + iteration) % 613)) return 91;
        }
      }
      (void)d.cuMemFree(a);
      (void)d.cuMemFree(b);
      (void)d.cuMemFree(g);
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
  EXPECT_THAT(agents_[0]->ReadLog(),
              HasSubstr("job 'nccl-orders': NCCL communicators ready, ranks 0,1 of 4 on GPUs 0,1"));
  EXPECT_THAT(agents_[1]->ReadLog(),
              HasSubstr("job 'nccl-orders': NCCL communicators ready, ranks 2,3 of 4 on GPUs 0,1"));
}

// Alltoallv across nodes on the communicators, and counts that disagree between nodes failing
// every rank alike before any launch (NCCL would hang or write past a buffer), so the next runs.
TEST_F(GpuNcclMultiNodeTest,
       AlltoallvAcrossNodesRunsOnTheCommunicatorsAndDisagreeingCountsFailEveryRankFirst) {
  StartNcclAgents({"force", "force"});
  BlockCounts counts = [](int i, int j) -> int64_t {
    return i == j ? 0 : 1000 * (1 + i + 3 * j) + 60000 * (i == 3);
  };
  BlockCounts wrong = [&](int i, int j) -> int64_t {
    return i == 0 && j == 3 ? counts(i, j) + 5 : counts(i, j);
  };
  Ranks ranks(kWorld, [&](int rank) {
    const cuda::Driver* dp = nullptr;
    outrider_client_t* c = ConnectGpuRank("nccl-a2a", rank, &dp);
    CUstream s = nullptr;
    if (dp->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 51;
    std::string why;
    for (int round = 0; round < 3; ++round) {
      bool disagree = round == 1;
      int rc = DeviceAlltoallv(c, *dp, s, rank, kWorld, counts, disagree ? wrong : counts, &why);
      bool right = disagree ? rc == OUTRIDER_ERR_MISMATCH &&
                                  why.find(
                                      "ranks 0-1 (node 0) sends 36000 elements to ranks 2-3 (node "
                                      "1), which expects 36005") != std::string::npos
                            : rc == 0;
      if (!right) {
        std::fprintf(stderr, "rank %d, round %d: %d %s\n", rank, round, rc, why.c_str());
        return 52 + round;
      }
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
  EXPECT_THAT(agents_[0]->ReadLog(),
              HasSubstr("job 'nccl-a2a': NCCL communicators ready, ranks 0,1 of 4 on GPUs 0,1"));
}

// Split groups are jobs of their own to the agents: each gets its own communicators, on its
// members' GPUs, its NCCL ranks the group ranks, while the world's run beside them.
TEST_F(GpuNcclMultiNodeTest, EachSplitGroupRunsOnCommunicatorsOfItsOwnBesideTheWorlds) {
  StartNcclAgents({"force", "force"});
  Ranks ranks(kWorld, [&](int rank) {
    const cuda::Driver* dp = nullptr;
    outrider_client_t* c = ConnectGpuRank("nccl-split", rank, &dp);
    const cuda::Driver& d = *dp;
    CUstream s = nullptr;
    if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 71;
    outrider_comm_t g = 0;
    int rc = outrider_comm_split(c, OUTRIDER_COMM_WORLD, rank % 2, rank, &g);  // {0, 2} and {1, 3}
    if (rc != OUTRIDER_OK) return 72;
    for (int step = 0; step < 2; ++step) {
      std::vector<float> mine(kSmall, static_cast<float>(rank + 1 + step)), got(kSmall),
          world(kSmall);
      CUdeviceptr a = Upload(d, s, mine), b = Upload(d, s, mine);
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.cuda_stream = s;
      outrider_op_t h[2] = {};
      o.comm = g;
      void* va = reinterpret_cast<void*>(a);
      void* vb = reinterpret_cast<void*>(b);
      if (outrider_allreduce(c, va, va, kSmall, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[0]) !=
          OUTRIDER_OK)
        return 73;
      o.comm = OUTRIDER_COMM_WORLD;
      if (outrider_allreduce(c, vb, vb, kSmall, OUTRIDER_F32, OUTRIDER_SUM, &o, &h[1]) !=
          OUTRIDER_OK)
        return 74;
      if (d.cuMemcpyDtoHAsync(got.data(), a, kSmall * 4, s) != CUDA_SUCCESS ||
          d.cuMemcpyDtoHAsync(world.data(), b, kSmall * 4, s) != CUDA_SUCCESS ||
          d.cuStreamSynchronize(s) != CUDA_SUCCESS) {
        return 75;
      }
      for (outrider_op_t op : h) {
        if (outrider_wait(c, op, 20000) != OUTRIDER_OK) {
          std::fprintf(stderr, "rank %d: %s\n", rank, outrider_last_error(c));
          return 76;
        }
      }
      float group_sum = static_cast<float>((rank % 2 == 0 ? 1 + 3 : 2 + 4) + 2 * step);
      float world_sum = static_cast<float>(10 + 4 * step);
      if (got[0] != group_sum || got[kSmall - 1] != group_sum || world[0] != world_sum ||
          world[kSmall - 1] != world_sum) {
        std::fprintf(stderr, "rank %d: group %g (want %g), world %g (want %g)\n", rank, got[0],
                     group_sum, world[0], world_sum);
        return 77;
      }
      (void)d.cuMemFree(a);
      (void)d.cuMemFree(b);
    }
    if (outrider_comm_destroy(c, g) != OUTRIDER_OK) return 78;
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
  std::string log = agents_[1]->ReadLog();
  EXPECT_THAT(log,
              HasSubstr("job 'nccl-split': NCCL communicators ready, ranks 2,3 of 4 on GPUs 0,1"));
  // Node 1 holds world ranks 2 and 3: group rank 1 of each group, on its own GPU.
  EXPECT_THAT(log, HasSubstr("NCCL communicators ready, ranks 1 of 2 on GPUs 0"));
  EXPECT_THAT(log, HasSubstr("NCCL communicators ready, ranks 1 of 2 on GPUs 1"));
}

TEST_F(GpuNcclMultiNodeTest, AgentsWithDifferentGpuNcclSettingsFailTheOpOnEveryRankNamingWhy) {
  StartNcclAgents({"force", "off"});
  Ranks ranks(kWorld, [&](int rank) {
    const cuda::Driver* dp = nullptr;
    outrider_client_t* c = ConnectGpuRank("nccl-differ", rank, &dp);
    CUdeviceptr p = 0;
    if (dp->cuMemAlloc(&p, 4096) != CUDA_SUCCESS) return 71;
    void* v = reinterpret_cast<void*>(p);
    outrider_op_t h = 0;
    if (outrider_allreduce(c, v, v, 1024, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 72;
    int rc = outrider_wait(c, h, 20000);
    std::string why = outrider_last_error(c);
    if (rc != OUTRIDER_ERR_MISMATCH) {
      std::fprintf(stderr, "rank %d: rc %d: %s\n", rank, rc, why.c_str());
      return 73;
    }
    if (why.find("gpu_nccl") == std::string::npos ||
        why.find("has GPU (NCCL)") == std::string::npos ||
        why.find("has host") == std::string::npos) {
      std::fprintf(stderr, "rank %d: %s\n", rank, why.c_str());
      return 74;
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
}

TEST_F(GpuNcclMultiNodeTest, ARankThatDiesFailsTheOtherRanksOpsNamingIt) {
  StartNcclAgents({"force", "force"});
  Pipe first_done;  // ranks 0-2 finished the first op: rank 3 may die
  Ranks ranks(kWorld, [&](int rank) {
    const cuda::Driver* dp = nullptr;
    outrider_client_t* c = ConnectGpuRank("nccl-death", rank, &dp);
    CUdeviceptr p = 0;
    if (dp->cuMemAlloc(&p, 4096) != CUDA_SUCCESS) return 71;
    void* v = reinterpret_cast<void*>(p);
    outrider_op_t h = 0;
    // One op on the communicators, then rank 3 dies and the others submit a second.
    if (outrider_allreduce(c, v, v, 1024, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 72;
    if (outrider_wait(c, h, 20000) != OUTRIDER_OK) return 73;
    if (rank == 3) {
      char ch;
      for (int r = 0; r < 3; ++r) {
        if (!first_done.Receive(&ch, 20000)) return 76;
      }
      std::_Exit(0);
    }
    first_done.Send('d');
    if (outrider_allreduce(c, v, v, 1024, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h) != OUTRIDER_OK)
      return 74;
    int rc = outrider_wait(c, h, 20000);
    std::string why = outrider_last_error(c);
    if (rc != OUTRIDER_ERR_PEER_LOST || why.find("rank 3") == std::string::npos) {
      std::fprintf(stderr, "rank %d: rc %d: %s\n", rank, rc, why.c_str());
      return 75;
    }
    outrider_disconnect(c);
    return 0;
  });
  ranks.ExpectAllExitZero();
}

}  // namespace
}  // namespace outrider::testing
