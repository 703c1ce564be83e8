// GPU acceptance of liboutrider_gpu_sparse.so (label gpu; tools/gpu/accept.sh runs it): on a real
// GPU, the library's coalescing of sparse rows is bitwise the same algorithm on the host (which
// the unit tests hold to the host engine's sum), for unsorted, repeated and sorted ids of both
// sizes; its time beside the host engine's sort and sum of the same rows is printed; and two
// trainers' sparse allreduces in gpu_mode ipc are coalesced by the agent with right results.
// Without a usable driver and GPU, or without the library, every test skips saying why. With
// $OUTRIDER_CUDA_DRIVER and $OUTRIDER_GPU_SPARSE_LIBRARY naming the fake driver and the host
// build, the same tests run without a GPU (CI keeps them working; their times mean nothing).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <thrust/system/cpp/execution_policy.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "agent/engine/sparse/rows.h"
#include "agent/memory/gpu_sparse/coalesce_rows.h"
#include "loaders/cuda/driver.h"
#include "loaders/gpu_sparse/abi.h"
#include "tests/integration/gpu_sparse_steps.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

// The library under test: $OUTRIDER_GPU_SPARSE_LIBRARY (with $OUTRIDER_CUDA_DRIVER, how CI runs
// these tests on the fake driver with the host build), else the one built here.
std::string LibraryPath() {
  const char* env = std::getenv("OUTRIDER_GPU_SPARSE_LIBRARY");
  return env != nullptr && *env != '\0' ? env : GPU_SPARSE_LIBRARY;
}

// Why these tests cannot run here ("" when a GPU is usable).
std::string NoGpu() {
  const char* other = std::getenv("OUTRIDER_CUDA_DRIVER");
  if (other != nullptr && *other != '\0' && LibraryPath() == GPU_SPARSE_LIBRARY) {
    return std::string("OUTRIDER_CUDA_DRIVER is set (") + other +
           "): the library's CUDA runtime needs the real driver";
  }
  // Asked in a throwaway child: this process forks trainers, and CUDA is unusable in a child
  // forked after cuInit.
  auto devices = cuda::ProbeDevices();
  if (!devices.ok()) return devices.status().ToString();
  if (devices->empty()) return "no GPU visible (cuDeviceGetCount)";
  return "";
}

struct Library {
  decltype(&outrider_gpu_coalesce) coalesce = nullptr;
  decltype(&outrider_gpu_coalesce_ids) ids = nullptr;
  decltype(&outrider_gpu_coalesce_values) values = nullptr;
  decltype(&outrider_gpu_coalesce_free) free = nullptr;
  decltype(&outrider_gpu_sparse_error) error = nullptr;
};

// The built library, or why not.
std::string LoadLibrary(Library* lib) {
  void* h = ::dlopen(LibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return "cannot load " + LibraryPath() + ": " + ::dlerror();
  lib->coalesce = reinterpret_cast<decltype(lib->coalesce)>(::dlsym(h, "outrider_gpu_coalesce"));
  lib->ids = reinterpret_cast<decltype(lib->ids)>(::dlsym(h, "outrider_gpu_coalesce_ids"));
  lib->values = reinterpret_cast<decltype(lib->values)>(::dlsym(h, "outrider_gpu_coalesce_values"));
  lib->free = reinterpret_cast<decltype(lib->free)>(::dlsym(h, "outrider_gpu_coalesce_free"));
  lib->error = reinterpret_cast<decltype(lib->error)>(::dlsym(h, "outrider_gpu_sparse_error"));
  return lib->coalesce && lib->ids && lib->values && lib->free && lib->error
             ? ""
             : "the library lacks an entry";
}

#define SKIP_WITHOUT_GPU_OR_LIBRARY(lib)                                          \
  if (std::string why = NoGpu(); !why.empty()) GTEST_SKIP() << "no GPU: " << why; \
  if (std::string why = LoadLibrary(&lib); !why.empty()) GTEST_SKIP() << "no library: " << why

// Runs `body` in a forked child that reports its own failures: this process never initializes
// CUDA, so the trainers of the agent's case can still be forked from it.
void InChild(const std::function<void()>& body) {
  pid_t pid = Spawn([&] {
    body();
    std::fflush(stdout);
    return ::testing::Test::HasFailure() ? 1 : 0;
  });
  EXPECT_EQ(Reap(pid), 0) << "the checks above failed in the test's child process";
}

// GPU 0's primary context, current on this thread.
const cuda::Driver& Gpu() {
  const cuda::Driver& d = **cuda::Load();
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  EXPECT_EQ(d.cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  EXPECT_EQ(d.cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  EXPECT_EQ(d.cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  return d;
}

template <class Id>
struct Case {
  std::vector<Id> ids;
  std::vector<float> vals;
  uint64_t dim;
};

template <class Id>
Case<Id> MakeCase(uint64_t n, uint64_t dim, uint64_t distinct, bool sorted, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case<Id> c{std::vector<Id>(n), std::vector<float>(n * dim), dim};
  for (uint64_t i = 0; i < n; ++i) c.ids[i] = static_cast<Id>(sorted ? i : rng() % distinct);
  for (auto& v : c.vals)
    v = std::ldexp(static_cast<float>(rng() % 1000) - 500.0f, static_cast<int>(rng() % 40) - 20);
  return c;
}

// Runs the library on the case's rows in device memory; compares with the host backend bitwise.
// Returns the GPU's time (stream to stream, coalescing only) in seconds.
template <class Id>
double CheckOnGpu(const cuda::Driver& d, const Library& lib, const Case<Id>& c) {
  uint64_t n = c.ids.size();
  CUstream s = nullptr;
  EXPECT_EQ(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr ids = 0, vals = 0;
  EXPECT_EQ(d.cuMemAlloc(&ids, n * sizeof(Id) + 8), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemAlloc(&vals, n * c.dim * 4 + 8), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemcpyHtoDAsync(ids, c.ids.data(), n * sizeof(Id), s), CUDA_SUCCESS);
  if (c.dim > 0) {
    EXPECT_EQ(d.cuMemcpyHtoDAsync(vals, c.vals.data(), n * c.dim * 4, s), CUDA_SUCCESS);
  }
  EXPECT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
  uint64_t counts[2] = {~0ull, ~0ull};
  void* h = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  int rc = lib.coalesce(reinterpret_cast<void*>(ids), sizeof(Id),
                        reinterpret_cast<const float*>(vals), n, c.dim, s, counts, &h);
  EXPECT_EQ(rc, 0) << lib.error(rc);
  EXPECT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The same algorithm on the host.
  std::vector<Id> want_ids(n + 1);
  std::vector<float> want_vals(n * c.dim + 1);
  std::vector<uint64_t> scratch((gpu_sparse::ScratchBytes<Id>(n) + 7) / 8);
  gpu_sparse::CoalesceCounts want{};
  gpu_sparse::CoalesceRows(thrust::cpp::par, c.ids.data(), c.vals.data(), n, c.dim, want_ids.data(),
                           want_vals.data(), &want, scratch.data());
  EXPECT_EQ(counts[0], want.unique);
  EXPECT_EQ(counts[1], want.moved);
  if (rc == 0 && counts[0] == want.unique) {
    std::vector<Id> got_ids(want.unique);
    std::vector<float> got_vals(want.unique * c.dim);
    EXPECT_EQ(d.cuMemcpyDtoHAsync(got_ids.data(), lib.ids(h), got_ids.size() * sizeof(Id), s),
              CUDA_SUCCESS);
    if (c.dim > 0) {
      EXPECT_EQ(d.cuMemcpyDtoHAsync(got_vals.data(), lib.values(h), got_vals.size() * 4, s),
                CUDA_SUCCESS);
    }
    EXPECT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(std::memcmp(got_ids.data(), want_ids.data(), got_ids.size() * sizeof(Id)), 0);
    if (!got_vals.empty()) {
      EXPECT_EQ(std::memcmp(got_vals.data(), want_vals.data(), got_vals.size() * 4), 0);
    }
  }
  if (h != nullptr) lib.free(h, s);
  EXPECT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
  (void)d.cuMemFree(ids);
  (void)d.cuMemFree(vals);
  (void)d.cuStreamDestroy(s);
  return secs;
}

TEST(GpuSparseAcceptTest, CoalescingOnTheGpuIsBitwiseTheHostAlgorithm) {
  Library lib;
  SKIP_WITHOUT_GPU_OR_LIBRARY(lib);
  InChild([&] {
    const cuda::Driver& d = Gpu();
    uint64_t seed = 1;
    for (uint64_t dim : {0u, 1u, 64u}) {
      for (uint64_t n : {1u, 1000u, 100000u}) {
        CheckOnGpu(d, lib, MakeCase<int64_t>(n, dim, n / 8 + 1, false, seed++));
        CheckOnGpu(d, lib, MakeCase<int32_t>(n, dim, n / 8 + 1, false, seed++));
        CheckOnGpu(d, lib, MakeCase<int64_t>(n, dim, n, true, seed++));
      }
    }
  });
}

TEST(GpuSparseAcceptTest, TimeOfCoalescingOnTheGpuBesideTheHostEngineSum) {
  Library lib;
  SKIP_WITHOUT_GPU_OR_LIBRARY(lib);
  InChild([&] {
    const cuda::Driver& d = Gpu();
    constexpr uint64_t n = 1'000'000, dim = 64;
    auto c = MakeCase<int64_t>(n, dim, n / 4, false, 99);
    CheckOnGpu(d, lib, c);  // warm-up (the stream-ordered pool grows)
    double gpu = CheckOnGpu(d, lib, c);
    agent::sparse::Rows in;
    for (int64_t id : c.ids) in.ids.push_back(static_cast<uint64_t>(id));
    in.vals.assign(c.vals.begin(), c.vals.end());
    agent::sparse::Table t;
    t.rows = n;
    t.dim = dim;
    const agent::sparse::Rows* parts[] = {&in};
    auto t0 = std::chrono::steady_clock::now();
    agent::sparse::Rows sum = agent::sparse::Sum(parts, t);
    double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "gpu sparse coalesce: %llu rows x %llu f32 -> %zu unique: GPU %.3f ms, host engine %.3f "
        "ms\n",
        static_cast<unsigned long long>(n), static_cast<unsigned long long>(dim), sum.ids.size(),
        gpu * 1e3, host * 1e3);
  });
}

TEST(GpuSparseAcceptTest, TheAgentCoalescesTwoTrainersRowsOnTheGpuWithRightResults) {
  Library lib;
  SKIP_WITHOUT_GPU_OR_LIBRARY(lib);
  std::string path = LibraryPath();
  ::setenv("OUTRIDER_GPU_SPARSE_LIBRARY", path.c_str(), 1);
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
    ::setenv("OUTRIDER_GPU_MODE", "ipc", 1);
    auto d = cuda::Load();
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (!d.ok() || (*d)->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        (*d)->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        (*d)->cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
      return 80;
    }
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), "gpu-sparse-accept", r, 2);
    int rc = sparse_steps::SparseSteps(**d, c, r);
    outrider_disconnect(c);
    return rc;
  });
  ranks.ExpectAllExitZero();
  EXPECT_NE(AgentLog(*agent).find("are coalesced there before they are copied"), std::string::npos);
}

}  // namespace
}  // namespace outrider::testing
