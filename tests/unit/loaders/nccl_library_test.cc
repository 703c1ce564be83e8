// NCCL loaded at run time (loaders/nccl/library.h). RealNccl.*: the toolkit's libnccl.so.2 on a
// machine without a GPU (or with one). FakeNccl.*: the fake NCCL the agent's tests run on, ranks as
// threads of this process on the fake driver's GPUs (OUTRIDER_FAKE_CUDA_DEVICES=4).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "loaders/cuda/driver.h"
#include "loaders/nccl/library.h"

namespace outrider::nccl {
namespace {

using namespace std::chrono_literals;

// Polls ncclCommGetAsyncError until it is no longer ncclInProgress (or `limit` passes).
ncclResult_t Settle(const Nccl& n, ncclComm_t comm, std::chrono::milliseconds limit = 10s) {
  auto until = std::chrono::steady_clock::now() + limit;
  ncclResult_t st = ncclInProgress;
  while (std::chrono::steady_clock::now() < until) {
    if (n.ncclCommGetAsyncError(comm, &st) != ncclSuccess) return ncclInternalError;
    if (st != ncclInProgress) return st;
    std::this_thread::sleep_for(1ms);
  }
  return st;
}

TEST(RealNccl, LoadsReadsItsVersionMakesAnIdAndSaysWhyACommunicatorCannotStart) {
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Nccl& n = **loaded;
  EXPECT_GE(n.version, kMinVersion);
  EXPECT_EQ(VersionString(22809), "2.28.9");
  ncclUniqueId id{};
  ASSERT_TRUE(Check(n, n.ncclGetUniqueId(&id), "ncclGetUniqueId").ok());
  ncclUniqueId zero{};
  EXPECT_NE(std::memcmp(&id, &zero, sizeof(id)), 0);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t rc = n.ncclCommInitRankConfig(&comm, 1, id, 0, &config);
  if (rc == ncclInProgress || rc == ncclSuccess) {
    // A machine with a GPU: a communicator of one starts.
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(Settle(n, comm, 60s), ncclSuccess);
    EXPECT_EQ(n.ncclCommDestroy(comm), ncclSuccess);
    GTEST_SKIP() << "this machine has a GPU: the communicator started";
  }
  Status s = Check(n, rc, "ncclCommInitRankConfig", comm);
  EXPECT_FALSE(s.ok());
  // NCCL names the CUDA failure: no driver, or no device.
  EXPECT_NE(s.message().find("ncclCommInitRankConfig: unhandled cuda error"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("Cuda failure"), std::string::npos) << s.message();
}

// A rank: a thread with the fake driver's GPU `gpu` current and a stream of its own.
struct Rank {
  const cuda::Driver& d;
  int gpu;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  Rank(const cuda::Driver& driver, int g) : d(driver), gpu(g) {
    CUdevice dev = 0;
    EXPECT_EQ(d.cuDeviceGet(&dev, gpu), CUDA_SUCCESS);
    EXPECT_EQ(d.cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    Current();
    EXPECT_EQ(d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void Current() const { EXPECT_EQ(d.cuCtxSetCurrent(ctx), CUDA_SUCCESS); }
  CUdeviceptr Upload(const std::vector<float>& v) const {
    CUdeviceptr p = 0;
    EXPECT_EQ(d.cuMemAlloc(&p, v.size() * sizeof(float) + 4), CUDA_SUCCESS);
    EXPECT_EQ(d.cuMemcpyHtoDAsync(p, v.data(), v.size() * sizeof(float), stream), CUDA_SUCCESS);
    EXPECT_EQ(d.cuStreamSynchronize(stream), CUDA_SUCCESS);  // `v` may be a temporary
    return p;
  }
  std::vector<float> Download(CUdeviceptr p, size_t n) const {
    std::vector<float> v(n);
    EXPECT_EQ(d.cuMemcpyDtoHAsync(v.data(), p, n * sizeof(float), stream), CUDA_SUCCESS);
    EXPECT_EQ(d.cuStreamSynchronize(stream), CUDA_SUCCESS);
    return v;
  }
};

class FakeNccl : public ::testing::Test {
 protected:
  void SetUp() override {
    // The fake NCCL over the fake driver with four GPUs (a process loads one of each: the first).
    ::setenv("OUTRIDER_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
    ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
    ::setenv("OUTRIDER_FAKE_CUDA_DEVICES", "4", 1);
    auto d = cuda::Load();
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    driver_ = *d;
    auto n = Load();
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if ((*n)->library != FAKE_NCCL_LIBRARY) GTEST_SKIP() << "this process loaded " << (*n)->library;
    nccl_ = *n;
  }
  // Runs `body(rank, comm)` on `gpus.size()` threads, each with a non-blocking communicator of
  // them all on its GPU, once init settled (`init` receives what it settled to).
  void Ranks(const std::vector<int>& gpus, const std::function<void(int, Rank&, ncclComm_t)>& body,
             std::vector<ncclResult_t>* init = nullptr) {
    ncclUniqueId id{};
    ASSERT_EQ(nccl_->ncclGetUniqueId(&id), ncclSuccess);
    int size = static_cast<int>(gpus.size());
    std::vector<ncclResult_t> settled(gpus.size(), ncclInProgress);
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r) {
      threads.emplace_back([&, r] {
        Rank rank(*driver_, gpus[r]);
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        ncclComm_t comm = nullptr;
        ncclResult_t rc = nccl_->ncclCommInitRankConfig(&comm, size, id, r, &config);
        EXPECT_EQ(rc, ncclInProgress);
        settled[r] = Settle(*nccl_, comm);
        if (settled[r] == ncclSuccess) body(r, rank, comm);
        if (settled[r] == ncclSuccess && aborted_ == r) {
          // The body aborted it: the handle is gone.
        } else if (settled[r] == ncclSuccess) {
          EXPECT_EQ(nccl_->ncclCommFinalize(comm), ncclSuccess);
          EXPECT_EQ(nccl_->ncclCommDestroy(comm), ncclSuccess);
        } else {
          EXPECT_EQ(nccl_->ncclCommAbort(comm), ncclSuccess);
        }
      });
    }
    for (auto& t : threads) t.join();
    if (init != nullptr) *init = settled;
  }
  const cuda::Driver* driver_ = nullptr;
  const Nccl* nccl_ = nullptr;
  std::atomic<int> aborted_{-1};  // the rank whose body aborted its communicator
};

TEST_F(FakeNccl, EveryCollectiveMatchesItsDefinitionAcrossChunks) {
  constexpr int kRanks = 3;
  constexpr size_t kCount = 300000;  // 1.2 MB of floats: more than one chunk of the segment
  std::vector<std::vector<float>> gathered(kRanks), reduced(kRanks), scattered(kRanks),
      broadcast(kRanks);
  Ranks({0, 1, 2}, [&](int r, Rank& rank, ncclComm_t comm) {
    std::vector<float> mine(kCount * kRanks);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<float>((i % 1000) * (r + 1));
    CUdeviceptr in = rank.Upload(mine);
    CUdeviceptr out = rank.Upload(std::vector<float>(kCount * kRanks, -1.0f));
    // One group: every launch of this thread goes at ncclGroupEnd.
    ASSERT_EQ(nccl_->ncclGroupStart(), ncclSuccess);
    ASSERT_EQ(nccl_->ncclAllReduce(reinterpret_cast<void*>(in), reinterpret_cast<void*>(out),
                                   kCount, ncclFloat32, ncclSum, comm,
                                   reinterpret_cast<cudaStream_t>(rank.stream)),
              ncclSuccess);
    ASSERT_EQ(nccl_->ncclGroupEnd(), ncclSuccess);
    reduced[r] = rank.Download(out, kCount);
    ASSERT_EQ(
        nccl_->ncclBroadcast(reinterpret_cast<void*>(in), reinterpret_cast<void*>(out), kCount,
                             ncclFloat32, 1, comm, reinterpret_cast<cudaStream_t>(rank.stream)),
        ncclSuccess);
    broadcast[r] = rank.Download(out, kCount);
    ASSERT_EQ(
        nccl_->ncclAllGather(reinterpret_cast<void*>(in), reinterpret_cast<void*>(out), kCount,
                             ncclFloat32, comm, reinterpret_cast<cudaStream_t>(rank.stream)),
        ncclSuccess);
    gathered[r] = rank.Download(out, kCount * kRanks);
    ASSERT_EQ(nccl_->ncclReduceScatter(reinterpret_cast<void*>(in), reinterpret_cast<void*>(out),
                                       kCount, ncclFloat32, ncclMax, comm,
                                       reinterpret_cast<cudaStream_t>(rank.stream)),
              ncclSuccess);
    scattered[r] = rank.Download(out, kCount);
    ncclResult_t async = ncclInternalError;
    EXPECT_EQ(nccl_->ncclCommGetAsyncError(comm, &async), ncclSuccess);
    EXPECT_EQ(async, ncclSuccess) << nccl_->ncclGetLastError(comm);
  });
  for (int r = 0; r < kRanks; ++r) {
    for (size_t i = 0; i < kCount; i += 997) {
      float v = static_cast<float>(i % 1000);
      ASSERT_EQ(reduced[r][i], v * 6) << r << " " << i;
      ASSERT_EQ(broadcast[r][i], v * 2) << r << " " << i;
      for (int q = 0; q < kRanks; ++q)
        ASSERT_EQ(gathered[r][q * kCount + i], v * (q + 1)) << r << " " << i;
      ASSERT_EQ(scattered[r][i], static_cast<float>(((r * kCount + i) % 1000) * kRanks))
          << r << " " << i;
    }
  }
}

TEST_F(FakeNccl, RanksThatLaunchInDifferentOrdersAllFailNamingBothInsteadOfHanging) {
  std::vector<std::string> errors(2);
  Ranks({0, 1}, [&](int r, Rank& rank, ncclComm_t comm) {
    CUdeviceptr buf = rank.Upload(std::vector<float>(64, 1.0f));
    auto s = reinterpret_cast<cudaStream_t>(rank.stream);
    void* p = reinterpret_cast<void*>(buf);
    // Rank 0: allreduce then broadcast; rank 1 the other way round. The second launch may
    // already see the communicator failed by the first.
    auto second = [](ncclResult_t rc) {
      EXPECT_TRUE(rc == ncclSuccess || rc == ncclInvalidUsage) << rc;
    };
    if (r == 0) {
      ASSERT_EQ(nccl_->ncclAllReduce(p, p, 64, ncclFloat32, ncclSum, comm, s), ncclSuccess);
      second(nccl_->ncclBroadcast(p, p, 64, ncclFloat32, 0, comm, s));
    } else {
      ASSERT_EQ(nccl_->ncclBroadcast(p, p, 64, ncclFloat32, 0, comm, s), ncclSuccess);
      second(nccl_->ncclAllReduce(p, p, 64, ncclFloat32, ncclSum, comm, s));
    }
    ASSERT_EQ(rank.d.cuStreamSynchronize(rank.stream), CUDA_SUCCESS);
    ncclResult_t async = ncclSuccess;
    EXPECT_EQ(nccl_->ncclCommGetAsyncError(comm, &async), ncclSuccess);
    EXPECT_EQ(async, ncclInvalidUsage);
    errors[r] = nccl_->ncclGetLastError(comm);
    // A dead communicator launches nothing more.
    EXPECT_EQ(nccl_->ncclAllReduce(p, p, 64, ncclFloat32, ncclSum, comm, s), ncclInvalidUsage);
  });
  for (const std::string& e : errors) {
    EXPECT_NE(e.find("different collectives"), std::string::npos) << e;
    EXPECT_NE(e.find("allreduce of 64"), std::string::npos) << e;
    EXPECT_NE(e.find("broadcast of 64"), std::string::npos) << e;
  }
}

TEST_F(FakeNccl, TwoRanksOnOneGpuFailInit) {
  std::vector<ncclResult_t> init;
  Ranks(
      {2, 2}, [](int, Rank&, ncclComm_t) { ADD_FAILURE() << "init succeeded"; }, &init);
  EXPECT_EQ(init, (std::vector<ncclResult_t>{ncclInvalidUsage, ncclInvalidUsage}));
}

TEST_F(FakeNccl, AbortReleasesACollectiveWaitingForAPeerThatNeverLaunches) {
  Ranks({0, 1}, [&](int r, Rank& rank, ncclComm_t comm) {
    if (r == 1) return;  // never launches
    CUdeviceptr buf = rank.Upload(std::vector<float>(16, 1.0f));
    void* p = reinterpret_cast<void*>(buf);
    ASSERT_EQ(nccl_->ncclAllReduce(p, p, 16, ncclFloat32, ncclSum, comm,
                                   reinterpret_cast<cudaStream_t>(rank.stream)),
              ncclSuccess);
    EXPECT_EQ(rank.d.cuStreamQuery(rank.stream), CUDA_ERROR_NOT_READY);
    // The aborting thread does not own the stream: NCCL's abort may come from anywhere.
    std::thread([&] { EXPECT_EQ(nccl_->ncclCommAbort(comm), ncclSuccess); }).join();
    aborted_ = 0;
    EXPECT_EQ(rank.d.cuStreamSynchronize(rank.stream), CUDA_SUCCESS);
  });
}

TEST_F(FakeNccl, AnInitFailureIsAnAsyncError) {
  ::setenv("OUTRIDER_FAKE_NCCL_INIT_FAIL", "1", 1);
  std::vector<ncclResult_t> init;
  Ranks(
      {0}, [](int, Rank&, ncclComm_t) {}, &init);
  ::unsetenv("OUTRIDER_FAKE_NCCL_INIT_FAIL");
  EXPECT_EQ(init, std::vector<ncclResult_t>{ncclSystemError});
}

}  // namespace
}  // namespace outrider::nccl
