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

#include "ipc/status.h"

#if OUTRIDER_HAVE_CUDA
#include <cuda.h>
#endif

namespace outrider::cuda {

// Whether this build can use CUDA at all.
constexpr bool kBuiltWithCuda = OUTRIDER_HAVE_CUDA != 0;

#if OUTRIDER_HAVE_CUDA

// The entries Outrider calls. A name in cuda.h may be a macro for a versioned symbol (cuMemAlloc
// is cuMemAlloc_v2): the member then carries that name too, so `driver.cuMemAlloc(...)` reads as
// the API does, and cuGetProcAddress resolves the unversioned name at CUDA_VERSION.
#define OUTRIDER_CUDA_ENTRIES(X)                                                                      \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)          \
  X(cuDeviceGet) X(cuDeviceGetUuid) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain)               \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxGetDevice)                \
  X(cuPointerGetAttribute) X(cuMemGetAddressRange) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyAsync)        \
  X(cuMemcpyDtoHAsync) X(cuMemcpyHtoDAsync) X(cuMemHostRegister) X(cuMemHostUnregister)               \
  X(cuMemHostGetDevicePointer) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)            \
  X(cuStreamQuery) X(cuStreamWriteValue64) X(cuStreamWaitValue64) X(cuLaunchHostFunc)                 \
  X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle) X(cuIpcCloseMemHandle) X(cuMemCreate) X(cuMemRelease)    \
  X(cuMemExportToShareableHandle) X(cuMemImportFromShareableHandle) X(cuMemAddressReserve)            \
  X(cuMemAddressFree) X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess) X(cuMemGetAllocationGranularity)        \
  X(cuMemRetainAllocationHandle) X(cuStreamGetCtx) X(cuCtxPushCurrent) X(cuCtxPopCurrent)              \
  X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventElapsedTime) X(cuEventDestroy)            \
  X(cuStreamIsCapturing) X(cuStreamBeginCapture) X(cuStreamEndCapture)

struct Driver {
#define OUTRIDER_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  OUTRIDER_CUDA_ENTRIES(OUTRIDER_CUDA_MEMBER)
#undef OUTRIDER_CUDA_MEMBER
  std::string library;  // what was loaded
  int version = 0;      // cuDriverGetVersion: 13000 for CUDA 13.0
};

// The process's driver: loaded, resolved and cuInit(0)ed on the first call (later calls return the
// same table, or the same error). Unavailable naming the library and the reason when there is no
// usable driver (no libcuda.so.1, an entry it lacks, cuInit failing: no GPU or no kernel driver).
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
// The ordinal, in this process, of the GPU with `uuid`; NotFound-like FailedPrecondition if it is
// not visible here.
Result<int> OrdinalOf(const Driver& d, const std::string& uuid);

#else

struct Driver;
// Built without CUDA: always FailedPrecondition saying so.
Result<const Driver*> Load();
Result<const Driver*> LoadIfPresent();

#endif

}  // namespace outrider::cuda
