// loaders/cuda/driver.h against the fake driver (tests/fakes/cuda/): loading and its errors, GPUs
// named by UUID whatever their ordinal, and what the GPU protocol relies on: a stream that waits on
// a fence in registered host memory and writes its own, pointer attributes, legacy IPC (refused in
// the exporting process, once per importing process, an offset into the allocation) and VMM
// allocations exported as file descriptors, between real processes (tests/fakes/cuda/peer.cc).
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "loaders/cuda/driver.h"

namespace outrider::cuda {
namespace {

uint8_t Pattern(size_t i) { return static_cast<uint8_t>(i * 7 + 1); }

const Driver& D() {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  auto d = Load();
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) std::abort();
  return **d;
}

void Current(const Driver& d) {
  CUcontext ctx = nullptr;
  ASSERT_EQ(d.cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

// Everything `fd` gives until end of file; closes it.
std::string ReadToEnd(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

// Runs the peer with `args` and extra environment; its exit status and output.
std::pair<int, std::string> Peer(std::vector<std::string> args, std::vector<std::string> env = {}) {
  // Everything the child needs is built before fork (this process runs threads).
  std::vector<std::string> vars = {std::string("OUTRIDER_CUDA_DRIVER=") + FAKE_CUDA_DRIVER};
  for (std::string& kv : env) {
    if (kv.rfind("OUTRIDER_CUDA_DRIVER=", 0) == 0)
      vars[0] = kv;
    else
      vars.push_back(kv);
  }
  std::vector<char*> envp;
  for (std::string& kv : vars) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>(FAKE_CUDA_PEER)};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execve(FAKE_CUDA_PEER, argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text = ReadToEnd(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

TEST(CudaDriver, LoadsTheLibraryTheEnvironmentNamesAndResolvesEveryEntry) {
  const Driver& d = D();
  EXPECT_EQ(d.library, FAKE_CUDA_DRIVER);
  EXPECT_EQ(d.version, CUDA_VERSION);
#define EXPECT_RESOLVED(name, version) EXPECT_NE(d.name, nullptr) << #name;
  OUTRIDER_CUDA_ENTRIES(EXPECT_RESOLVED)
#undef EXPECT_RESOLVED
}

// The fake driver, like the real one, returns the newest ABI of an entry up to the version asked
// for: cuStreamGetCtx at CUDA 12.5 and later takes a third argument (a green context), and
// cuCtxGetDevice at 13.0 a second (a context). The table asks for each entry at the version of the
// prototype it is called through (driver.h), so it holds the old ABIs.
TEST(CudaDriver, EntriesComeAtTheAbiOfTheVersionAskedForAndTheTableAsksForItsPrototypes) {
  const Driver& d = D();
  Current(d);
  using GetProcAddress =
      CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  void* lib = ::dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto get = reinterpret_cast<GetProcAddress>(::dlsym(lib, "cuGetProcAddress_v2"));
  ASSERT_NE(get, nullptr);
  auto at = [&](const char* name, int version) {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found{};
    return get(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS ? fn
                                                                                        : nullptr;
  };
  void* old_ctx = at("cuStreamGetCtx", 9020);
  void* new_ctx = at("cuStreamGetCtx", 13000);
  ASSERT_NE(old_ctx, nullptr);
  ASSERT_NE(new_ctx, nullptr);
  EXPECT_NE(old_ctx, new_ctx);
  EXPECT_EQ(reinterpret_cast<void*>(d.cuStreamGetCtx), old_ctx);
  CUcontext ctx = nullptr;
  CUgreenCtx green = reinterpret_cast<CUgreenCtx>(0x1);
  ASSERT_EQ(reinterpret_cast<PFN_cuStreamGetCtx_v12050>(new_ctx)(nullptr, &ctx, &green),
            CUDA_SUCCESS);
  EXPECT_NE(ctx, nullptr);
  EXPECT_EQ(green, nullptr);  // the three-argument ABI wrote its third argument
  EXPECT_EQ(reinterpret_cast<void*>(d.cuCtxGetDevice), at("cuCtxGetDevice", 2000));
  EXPECT_NE(at("cuCtxGetDevice", 2000), at("cuCtxGetDevice", 13000));
  EXPECT_EQ(at("cuMemCreate", 10010), nullptr);  // an entry asked for below its first version
}

TEST(CudaDriver, AMissingLibraryOrAnUnusableDriverIsUnavailableAndSaysWhy) {
  auto [rc, out] = Peer({"load"}, {"OUTRIDER_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("UNAVAILABLE"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot load /nonexistent/libcuda.so.1"), std::string::npos) << out;
  std::tie(rc, out) = Peer({"load"}, {"OUTRIDER_FAKE_CUDA_NO_DEVICE=1"});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("unusable: cuInit: CUDA_ERROR_NO_DEVICE"), std::string::npos) << out;
  std::tie(rc, out) = Peer({"load"});
  EXPECT_EQ(rc, 0) << out;
}

TEST(CudaDriver, NamesGpusByUuidWhateverTheirOrdinal) {
  auto [rc, all] = Peer({"devices"}, {"OUTRIDER_FAKE_CUDA_DEVICES=3"});
  ASSERT_EQ(rc, 0) << all;
  auto [rc2, some] =
      Peer({"devices"}, {"OUTRIDER_FAKE_CUDA_DEVICES=3", "OUTRIDER_FAKE_CUDA_VISIBLE=2,0"});
  ASSERT_EQ(rc2, 0) << some;
  std::regex line(R"((\d) (GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\n)");
  std::vector<std::string> uuids, visible;
  for (std::sregex_iterator it(all.begin(), all.end(), line), end; it != end; ++it)
    uuids.push_back((*it)[2]);
  for (std::sregex_iterator it(some.begin(), some.end(), line), end; it != end; ++it)
    visible.push_back((*it)[2]);
  ASSERT_EQ(uuids.size(), 3u) << all;
  EXPECT_NE(uuids[0], uuids[1]);
  EXPECT_NE(uuids[1], uuids[2]);
  // Ordinal 0 of the second process is the machine's GPU 2: the same UUID.
  EXPECT_EQ(visible, (std::vector<std::string>{uuids[2], uuids[0]})) << some;

  const Driver& d = D();
  auto devices = Devices(d);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 1u);
  auto ordinal = OrdinalOf(d, (*devices)[0].uuid);
  ASSERT_TRUE(ordinal.ok());
  EXPECT_EQ(*ordinal, 0);
  auto missing = OrdinalOf(d, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(missing.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("not visible in this process"), std::string::npos);
}

TEST(CudaDriver, AStreamWaitsOnAFenceInRegisteredHostMemoryAndWritesItsOwn) {
  const Driver& d = D();
  Current(d);
  alignas(64) static uint64_t fences[2] = {0, 0};  // ready (the host writes it), done (the stream)
  ASSERT_EQ(d.cuMemHostRegister(fences, sizeof(fences), 0), CUDA_SUCCESS);
  CUdeviceptr dfences = 0;
  ASSERT_EQ(d.cuMemHostGetDevicePointer(&dfences, fences, 0), CUDA_SUCCESS);
  CUdeviceptr dev = 0;
  ASSERT_EQ(d.cuMemAlloc(&dev, 4096), CUDA_SUCCESS);
  std::vector<uint8_t> src(4096), dst(4096, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = Pattern(i);
  // Pinned: a copy into pageable memory would return only once the stream ran it.
  ASSERT_EQ(d.cuMemHostRegister(dst.data(), dst.size(), 0), CUDA_SUCCESS);
  CUstream s = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamWaitValue64(s, dfences, 1, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemcpyHtoDAsync(dev, src.data(), src.size(), s), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemcpyDtoHAsync(dst.data(), dev, dst.size(), s), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamWriteValue64(s, dfences + 8, 7, CU_STREAM_WRITE_VALUE_DEFAULT), CUDA_SUCCESS);
  // Nothing after the wait can have run: the fence is still 0.
  EXPECT_EQ(d.cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(std::atomic_ref<uint64_t>(fences[1]).load(), 0u);
  EXPECT_EQ(dst[1], 0);
  std::atomic_ref<uint64_t>(fences[0]).store(1, std::memory_order_release);
  ASSERT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(std::atomic_ref<uint64_t>(fences[1]).load(), 7u);
  EXPECT_EQ(dst, src);
  EXPECT_EQ(d.cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemFree(dev), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemHostUnregister(dst.data()), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemHostUnregister(fences), CUDA_SUCCESS);
}

// As the real driver: a process forked after its parent's cuInit cannot use CUDA (every call,
// cuInit included, is CUDA_ERROR_NOT_INITIALIZED), and Load() there says why.
TEST(CudaDriver, AChildForkedAfterCuInitCannotUseCudaAndLoadSaysWhy) {
  const Driver& d = D();
  Current(d);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    int n = 0;
    auto again = Load();
    std::string out = std::to_string(d.cuDeviceGetCount(&n)) + " " + std::to_string(d.cuInit(0)) +
                      " " + (again.ok() ? std::string("ok") : again.status().ToString());
    (void)!::write(pipe_fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string text = ReadToEnd(pipe_fds[0]);
  ::waitpid(pid, nullptr, 0);
  std::string not_initialized = std::to_string(CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(text.rfind(not_initialized + " " + not_initialized +
                           " FAILED_PRECONDITION: CUDA was initialized before this "
                           "process was forked",
                       0),
            0u)
      << text;
  int n = 0;
  EXPECT_EQ(d.cuDeviceGetCount(&n), CUDA_SUCCESS) << "the parent still can";
}

// A process that forks CUDA workers probes for GPUs in a throwaway child, and stays free of CUDA.
TEST(CudaDriver, ProbingForGpusLeavesTheProcessFreeToForkWorkersThatUseCuda) {
  auto [rc, out] = Peer({"probe"}, {"OUTRIDER_FAKE_CUDA_DEVICES=2"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(
      std::regex_search(out, std::regex("^0 GPU-[0-9a-f-]{36}\n1 GPU-[0-9a-f-]{36}\nok\n$")))
      << out;
  auto [bad, why] = Peer({"probe"}, {"OUTRIDER_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  EXPECT_EQ(bad, 1);
  EXPECT_NE(why.find("FAIL UNAVAILABLE: no CUDA driver: cannot load /nonexistent/libcuda.so.1"),
            std::string::npos)
      << why;
}

// As the real driver: work on the default stream goes to the calling thread's context, so a
// thread without one cannot queue it; and a cuMem mapping belongs to no context (its device is
// all its pointer attributes name), unlike cuMemAlloc memory.
TEST(CudaDriver, TheDefaultStreamNeedsAContextAndACuMemMappingBelongsToNone) {
  const Driver& d = D();
  Current(d);
  CUdeviceptr old_style = 0;
  ASSERT_EQ(d.cuMemAlloc(&old_style, 1 << 16), CUDA_SUCCESS);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t bytes = 0;
  ASSERT_EQ(d.cuMemGetAllocationGranularity(&bytes, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_SUCCESS);
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr vmm = 0;
  ASSERT_EQ(d.cuMemCreate(&h, bytes, &prop, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemAddressReserve(&vmm, bytes, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemMap(vmm, bytes, 0, h, 0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  ASSERT_EQ(d.cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, old_style), CUDA_SUCCESS);
  EXPECT_NE(ctx, nullptr);
  ASSERT_EQ(d.cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, vmm), CUDA_SUCCESS);
  EXPECT_EQ(ctx, nullptr);
  int ordinal = -1;
  ASSERT_EQ(d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, vmm),
            CUDA_SUCCESS);
  EXPECT_EQ(ordinal, 0);
  std::vector<CUresult> got;
  std::thread([&] {
    uint64_t word = 0;
    got.push_back(d.cuMemcpyDtoHAsync(&word, old_style, 8, nullptr));
    got.push_back(d.cuMemcpyDtoHAsync(&word, old_style, 8, CU_STREAM_PER_THREAD));
    got.push_back(d.cuLaunchHostFunc(
        nullptr, [](void*) {}, nullptr));
    got.push_back(d.cuStreamSynchronize(nullptr));
    CUcontext primary = nullptr;
    got.push_back(d.cuDevicePrimaryCtxRetain(&primary, ordinal));
    got.push_back(d.cuCtxPushCurrent(primary));
    got.push_back(d.cuMemcpyDtoHAsync(&word, old_style, 8, nullptr));
    got.push_back(d.cuStreamSynchronize(nullptr));
    got.push_back(d.cuCtxPopCurrent(nullptr));
  }).join();
  EXPECT_EQ(got, (std::vector<CUresult>{CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT,
                                        CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT,
                                        CUDA_SUCCESS, CUDA_SUCCESS, CUDA_SUCCESS, CUDA_SUCCESS,
                                        CUDA_SUCCESS}));
  EXPECT_EQ(d.cuMemUnmap(vmm, bytes), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemAddressFree(vmm, bytes), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemFree(old_style), CUDA_SUCCESS);
}

TEST(CudaDriver, PointerAttributesNameTheAllocationAndItsKind) {
  const Driver& d = D();
  Current(d);
  CUdeviceptr dev = 0;
  ASSERT_EQ(d.cuMemAlloc(&dev, 1 << 16), CUDA_SUCCESS);
  unsigned int type = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  ASSERT_EQ(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dev + 100),
            CUDA_SUCCESS);
  EXPECT_EQ(type, CU_MEMORYTYPE_DEVICE);
  ASSERT_EQ(d.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dev + 100),
            CUDA_SUCCESS);
  ASSERT_EQ(d.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dev + 100),
            CUDA_SUCCESS);
  EXPECT_EQ(start, dev);
  EXPECT_EQ(size, size_t{1} << 16);
  std::vector<uint8_t> host(256);
  EXPECT_EQ(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    reinterpret_cast<CUdeviceptr>(host.data())),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(d.cuMemHostRegister(host.data(), host.size(), 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    reinterpret_cast<CUdeviceptr>(host.data() + 8)),
            CUDA_SUCCESS);
  EXPECT_EQ(type, CU_MEMORYTYPE_HOST);
  EXPECT_EQ(d.cuMemHostUnregister(host.data()), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemFree(dev), CUDA_SUCCESS);
  Status s = Check(d, CUDA_ERROR_INVALID_VALUE, "cuSomething");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("cuSomething: CUDA_ERROR_INVALID_VALUE"), std::string::npos)
      << s.message();
}

TEST(CudaDriver, ALegacyHandleOpensInAnotherProcessOnlyAndOnlyOnceThere) {
  const Driver& d = D();
  Current(d);
  constexpr size_t kBytes = 1 << 20, kOffset = 4096, kRange = 1 << 16;
  CUdeviceptr dev = 0;
  ASSERT_EQ(d.cuMemAlloc(&dev, kBytes), CUDA_SUCCESS);
  std::vector<uint8_t> host(kBytes, 0xee);
  for (size_t i = 0; i < kRange; ++i) host[kOffset + i] = Pattern(i);
  ASSERT_EQ(d.cuMemcpyHtoDAsync(dev, host.data(), kBytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  CUipcMemHandle h{};
  ASSERT_EQ(d.cuIpcGetMemHandle(&h, dev), CUDA_SUCCESS);
  CUdeviceptr mine = 0;
  EXPECT_EQ(d.cuIpcOpenMemHandle(&mine, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
            CUDA_ERROR_INVALID_CONTEXT);
  std::string hex;
  char byte[3];
  for (char c : h.reserved) {
    std::snprintf(byte, sizeof(byte), "%02x", static_cast<unsigned char>(c));
    hex += byte;
  }
  auto [rc, out] = Peer({"legacy", hex, std::to_string(kOffset), std::to_string(kRange)});
  ASSERT_EQ(rc, 0) << out;
  // The peer rewrote its range in this process's allocation, and nothing else.
  std::vector<uint8_t> after(kBytes);
  ASSERT_EQ(d.cuMemcpyDtoHAsync(after.data(), dev, kBytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  for (size_t i = 0; i < kBytes; ++i) {
    uint8_t want =
        i >= kOffset && i < kOffset + kRange ? static_cast<uint8_t>(~Pattern(i - kOffset)) : 0xee;
    ASSERT_EQ(after[i], want) << "byte " << i;
  }
  EXPECT_EQ(d.cuMemFree(dev), CUDA_SUCCESS);
}

TEST(CudaDriver, AVmmAllocationCrossesToAnotherProcessAsAFileDescriptor) {
  const Driver& d = D();
  Current(d);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  ASSERT_EQ(d.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_SUCCESS);
  size_t bytes = gran;
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(d.cuMemCreate(&h, bytes, &prop, 0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(d.cuMemAddressReserve(&p, bytes, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemMap(p, bytes, 0, h, 0), CUDA_SUCCESS);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  ASSERT_EQ(d.cuMemSetAccess(p, bytes, &access, 1), CUDA_SUCCESS);
  std::vector<uint8_t> host(bytes);
  for (size_t i = 0; i < bytes; ++i) host[i] = Pattern(i);
  ASSERT_EQ(d.cuMemcpyHtoDAsync(p, host.data(), bytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  int fd = -1;
  ASSERT_EQ(d.cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_SUCCESS);
  ASSERT_GE(fd, 0);
  ::fcntl(fd, F_SETFD, 0);  // the peer inherits it, as it would receive it over SCM_RIGHTS
  auto [rc, out] = Peer({"vmm", std::to_string(fd), std::to_string(bytes)});
  ::close(fd);
  ASSERT_EQ(rc, 0) << out;
  std::vector<uint8_t> after(bytes);
  ASSERT_EQ(d.cuMemcpyDtoHAsync(after.data(), p, bytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  for (size_t i = 0; i < bytes; ++i)
    ASSERT_EQ(after[i], static_cast<uint8_t>(~Pattern(i))) << "byte " << i;
  EXPECT_EQ(d.cuMemUnmap(p, bytes), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemAddressFree(p, bytes), CUDA_SUCCESS);
  // A reservation twice the size, half of it mapped: freed whole only once that half is unmapped.
  CUdeviceptr q = 0;
  ASSERT_EQ(d.cuMemAddressReserve(&q, 2 * bytes, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.cuMemMap(q + bytes, bytes, 0, h, 0), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemAddressFree(q, 2 * bytes), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(d.cuMemUnmap(q + bytes, bytes), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemAddressFree(q, 2 * bytes), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemRelease(h), CUDA_SUCCESS);
}

}  // namespace
}  // namespace outrider::cuda
