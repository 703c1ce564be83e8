// The second process of the CUDA driver tests (tests/unit/loaders/cuda_driver_test.cc), through
// loaders/cuda/driver.h with whatever $OUTRIDER_CUDA_DRIVER names (the fake driver there):
//   fake_cuda_peer load                        prints "ok LIBRARY VERSION" or the load error
//   fake_cuda_peer devices                     prints "ORDINAL UUID" per visible GPU
//   fake_cuda_peer probe                       ProbeDevices(): prints "ORDINAL UUID" per GPU, then
//                                              checks that this process has no driver loaded and
//                                              that a child forked now can use CUDA
//   fake_cuda_peer legacy HEX OFFSET BYTES     opens a legacy IPC handle (64 bytes in hex), checks
//                                              that opening it again is refused, then checks and
//                                              rewrites [OFFSET, OFFSET + BYTES) of it
//   fake_cuda_peer vmm FD BYTES                imports a VMM allocation of BYTES from the inherited
//                                              FD, maps it, then checks and rewrites all of it
// "Checks": each byte i (from the start of the checked range) is Pattern(i); "rewrites": each
// becomes ~Pattern(i). Prints "ok" and exits 0, or says what failed and exits 1.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"

namespace {

using outrider::cuda::Driver;

uint8_t Pattern(size_t i) { return static_cast<uint8_t>(i * 7 + 1); }

[[noreturn]] void Fail(const std::string& what) {
  std::printf("FAIL %s\n", what.c_str());
  std::exit(1);
}

void Ok(const Driver& d, CUresult rc, const char* what) {
  outrider::Status s = outrider::cuda::Check(d, rc, what);
  if (!s.ok()) Fail(s.ToString());
}

// Checks [p, p + bytes) against the pattern and rewrites it, through a stream as a kernel would.
void CheckAndRewrite(const Driver& d, CUdeviceptr p, size_t bytes) {
  std::vector<uint8_t> host(bytes);
  Ok(d, d.cuMemcpyDtoHAsync(host.data(), p, bytes, nullptr), "cuMemcpyDtoHAsync");
  Ok(d, d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  for (size_t i = 0; i < bytes; ++i) {
    if (host[i] != Pattern(i)) Fail("byte " + std::to_string(i) + " is " + std::to_string(host[i]));
    host[i] = static_cast<uint8_t>(~Pattern(i));
  }
  Ok(d, d.cuMemcpyHtoDAsync(p, host.data(), bytes, nullptr), "cuMemcpyHtoDAsync");
  Ok(d, d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2)
    Fail("usage: fake_cuda_peer load|devices|probe|legacy HEX OFFSET BYTES|vmm FD BYTES");
  std::string cmd = argv[1];
  if (cmd == "probe") {
    auto devices = outrider::cuda::ProbeDevices();
    if (!devices.ok()) Fail(devices.status().ToString());
    for (const auto& dev : *devices) std::printf("%d %s\n", dev.ordinal, dev.uuid.c_str());
    if (outrider::cuda::LoadIfPresent().ok()) Fail("the probe loaded the driver into this process");
    std::fflush(stdout);
    pid_t pid = ::fork();
    if (pid == 0) {
      auto d = outrider::cuda::Load();
      int n = 0;
      ::_exit(d.ok() && (*d)->cuDeviceGetCount(&n) == CUDA_SUCCESS &&
                      n == static_cast<int>(devices->size())
                  ? 0
                  : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      Fail("a child forked after the probe could not use CUDA");
    std::printf("ok\n");
    return 0;
  }
  auto loaded = outrider::cuda::Load();
  if (cmd == "load") {
    if (!loaded.ok()) {
      std::printf("%s\n", loaded.status().ToString().c_str());
      return 1;
    }
    std::printf("ok %s %d\n", (*loaded)->library.c_str(), (*loaded)->version);
    return 0;
  }
  if (!loaded.ok()) Fail(loaded.status().ToString());
  const Driver& d = **loaded;
  if (cmd == "devices") {
    auto devices = outrider::cuda::Devices(d);
    if (!devices.ok()) Fail(devices.status().ToString());
    for (const auto& dev : *devices) std::printf("%d %s\n", dev.ordinal, dev.uuid.c_str());
    return 0;
  }
  CUcontext ctx = nullptr;
  Ok(d, d.cuDevicePrimaryCtxRetain(&ctx, 0), "cuDevicePrimaryCtxRetain");
  Ok(d, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  if (cmd == "legacy" && argc == 5) {
    std::string hex = argv[2];
    CUipcMemHandle h{};
    if (hex.size() != 2 * sizeof(h.reserved))
      Fail("the handle needs " + std::to_string(2 * sizeof(h.reserved)) + " hex digits");
    for (size_t i = 0; i < sizeof(h.reserved); ++i)
      h.reserved[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    CUdeviceptr base = 0;
    Ok(d, d.cuIpcOpenMemHandle(&base, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
    CUdeviceptr again = 0;
    CUresult rc = d.cuIpcOpenMemHandle(&again, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (rc != CUDA_ERROR_ALREADY_MAPPED)
      Fail("a second open of one handle gave " + std::to_string(rc));
    CheckAndRewrite(d, base + std::strtoull(argv[3], nullptr, 10),
                    std::strtoull(argv[4], nullptr, 10));
    Ok(d, d.cuIpcCloseMemHandle(base), "cuIpcCloseMemHandle");
  } else if (cmd == "vmm" && argc == 4) {
    int fd = std::atoi(argv[2]);
    size_t bytes = std::strtoull(argv[3], nullptr, 10);
    CUmemGenericAllocationHandle h = 0;
    Ok(d,
       d.cuMemImportFromShareableHandle(&h, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
       "cuMemImportFromShareableHandle");
    CUdeviceptr p = 0;
    Ok(d, d.cuMemAddressReserve(&p, bytes, 0, 0, 0), "cuMemAddressReserve");
    Ok(d, d.cuMemMap(p, bytes, 0, h, 0), "cuMemMap");
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    Ok(d, d.cuMemSetAccess(p, bytes, &access, 1), "cuMemSetAccess");
    CheckAndRewrite(d, p, bytes);
    Ok(d, d.cuMemUnmap(p, bytes), "cuMemUnmap");
    Ok(d, d.cuMemAddressFree(p, bytes), "cuMemAddressFree");
    Ok(d, d.cuMemRelease(h), "cuMemRelease");
  } else {
    Fail("unknown command or arguments: " + cmd);
  }
  std::printf("ok\n");
  return 0;
}
