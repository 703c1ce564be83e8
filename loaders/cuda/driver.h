// The CUDA driver API, resolved at run time: libcuda.so.1 is dlopen()ed and every entry point
// comes through cuGetProcAddress at the CUDA version the build targets, so one binary runs with and
// without a GPU (and links nothing of CUDA). $OUTRIDER_CUDA_DRIVER names another library to load
// instead: the tests' fake driver. GPUs are named by UUID ("GPU-xxxxxxxx-xxxx-..."), as nvidia-smi
// names them, never by ordinal (ordinals differ between processes: CUDA_VISIBLE_DEVICES, MPS).
//
// Built with CUDA (OUTRIDER_HAVE_CUDA, CMake OUTRIDER_WITH_CUDA) this holds the table; built
// without, Load() says so and nothing else is declared.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

#if OUTRIDER_HAVE_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>

#include <type_traits>
#endif

namespace outrider::cuda {

// Whether this build can use CUDA at all.
constexpr bool kBuiltWithCuda = OUTRIDER_HAVE_CUDA != 0;

#if OUTRIDER_HAVE_CUDA

// The entries Outrider calls, each with the CUDA version of the prototype it is called through.
// cuGetProcAddress returns the newest ABI of an entry up to the version asked for, and some entries
// changed their signature under the same name (cuStreamGetCtx at 12.5 gained a green-context
// argument, cuCtxGetDevice at 13.0 a context): asking for the toolkit's CUDA_VERSION would hand a
// new-signature function to an old-signature call. Each member's type is cudaTypedefs.h's
// PFN_<name>_v<version>, and the build checks that it is exactly the prototype cuda.h gives the
// name (which is what `driver.name(...)` calls read as). A name in cuda.h may be a macro for a
// versioned symbol (cuMemAlloc is cuMemAlloc_v2); cuGetProcAddress takes the unversioned name.
// clang-format off
#define OUTRIDER_CUDA_ENTRIES(X)                                                                         \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) X(cuGetErrorName, 6000) X(cuGetErrorString, 6000)          \
  X(cuDeviceGetCount, 2000) X(cuDeviceGet, 2000) X(cuDeviceGetUuid, 11040)                               \
  X(cuDeviceGetAttribute, 2000) X(cuDevicePrimaryCtxRetain, 7000) X(cuDevicePrimaryCtxRelease, 11000)    \
  X(cuCtxSetCurrent, 4000) X(cuCtxGetCurrent, 4000) X(cuCtxGetDevice, 2000)                              \
  X(cuPointerGetAttribute, 4000) X(cuMemGetAddressRange, 3020) X(cuMemAlloc, 3020) X(cuMemFree, 3020)    \
  X(cuMemcpyAsync, 4000) X(cuMemcpyDtoHAsync, 3020) X(cuMemcpyHtoDAsync, 3020)                           \
  X(cuMemHostRegister, 6050) X(cuMemHostUnregister, 4000) X(cuMemHostGetDevicePointer, 3020)             \
  X(cuStreamCreate, 2000) X(cuStreamDestroy, 4000) X(cuStreamSynchronize, 2000) X(cuStreamQuery, 2000)   \
  X(cuStreamWriteValue64, 11070) X(cuStreamWaitValue64, 11070) X(cuLaunchHostFunc, 10000)                \
  X(cuStreamWaitEvent, 3020)                                                                             \
  X(cuIpcGetMemHandle, 4010) X(cuIpcOpenMemHandle, 11000) X(cuIpcCloseMemHandle, 4010)                   \
  X(cuMemCreate, 10020) X(cuMemRelease, 10020) X(cuMemExportToShareableHandle, 10020)                    \
  X(cuMemImportFromShareableHandle, 10020) X(cuMemAddressReserve, 10020) X(cuMemAddressFree, 10020)      \
  X(cuMemMap, 10020) X(cuMemUnmap, 10020) X(cuMemSetAccess, 10020)                                       \
  X(cuMemGetAllocationGranularity, 10020) X(cuMemRetainAllocationHandle, 11000) X(cuStreamGetCtx, 9020)  \
  X(cuCtxPushCurrent, 4000) X(cuCtxPopCurrent, 4000) X(cuEventCreate, 2000) X(cuEventRecord, 2000)       \
  X(cuEventQuery, 2000) X(cuEventElapsedTime, 12080) X(cuEventDestroy, 4000)                             \
  X(cuStreamIsCapturing, 10000) X(cuStreamBeginCapture, 10010) X(cuStreamEndCapture, 10000)
// clang-format on

struct Driver {
#define OUTRIDER_CUDA_MEMBER(name, version)                                        \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##version>,        \
                #name ": cuda.h's prototype is not the ABI of version " #version); \
  PFN_##name##_v##version name = nullptr;
  OUTRIDER_CUDA_ENTRIES(OUTRIDER_CUDA_MEMBER)
#undef OUTRIDER_CUDA_MEMBER
  std::string library;  // what was loaded
  int version = 0;      // cuDriverGetVersion: 13000 for CUDA 13.0
};

// The process's driver: loaded, resolved and cuInit(0)ed on the first call (later calls return the
// same table, or the same error). Unavailable naming the library and the reason when there is no
// usable driver (no libcuda.so.1, an entry it lacks, cuInit failing: no GPU or no kernel driver).
// CUDA is unusable in a process forked after its parent's cuInit (every call fails with
// CUDA_ERROR_NOT_INITIALIZED): there Load() is FailedPrecondition saying so. A process that forks
// workers which use CUDA must not load it first: ProbeDevices() asks a throwaway child.
Result<const Driver*> Load();
// Load(), but only if the process has the driver loaded already (a process with device memory
// does): FailedPrecondition otherwise, without loading it. For code that must not pull CUDA into
// processes that never use it.
Result<const Driver*> LoadIfPresent();

// `rc` as a Status (ok for CUDA_SUCCESS): "`what`: CUDA_ERROR_NAME (description)".
Status Check(const Driver& d, CUresult rc, const char* what);

// nvidia-smi's spelling of a GPU UUID: "GPU-" and 32 hex digits grouped 8-4-4-4-12.
std::string UuidString(const CUuuid& uuid);

struct Device {
  int ordinal;       // in this process
  std::string uuid;  // UuidString
};
// The GPUs this process sees, in ordinal order.
Result<std::vector<Device>> Devices(const Driver& d);
// The GPUs a process started now would see (Devices()), found in a throwaway child, so that the
// calling process stays free to fork children that use CUDA (in this process, if it has loaded
// the driver already). The child's error if it has no usable driver.
Result<std::vector<Device>> ProbeDevices();

// The driver library Load() opens: $OUTRIDER_CUDA_DRIVER, or libcuda.so.1.
std::string LibraryName();

// The ordinal, in this process, of the GPU with `uuid`; NotFound-like FailedPrecondition if it is
// not visible here.
Result<int> OrdinalOf(const Driver& d, const std::string& uuid);

#else

struct Driver;
struct Device {
  int ordinal;
  std::string uuid;
};
// Built without CUDA: always FailedPrecondition saying so.
Result<const Driver*> Load();
Result<const Driver*> LoadIfPresent();
Result<std::vector<Device>> ProbeDevices();
std::string LibraryName();

#endif

}  // namespace outrider::cuda
