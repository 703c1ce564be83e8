// The agent's handle on liboutrider_gpu_sparse.so (abi.h; its kernels are in
// agent/memory/gpu_sparse/): loaded at run time like NCCL, so the agent runs without it (its sparse
// ops on GPU memory are then staged to host memory as they are). Searched as
// $OUTRIDER_GPU_SPARSE_LIBRARY (a path), else next to the agent (<dir of the binary>/../lib), else
// by the dynamic loader's search path; not at all when $OUTRIDER_CUDA_DRIVER names another CUDA
// driver than the system's (the library's CUDA runtime would load the system's) unless the variable
// names the library. Thread-safety: Load() is; the table's functions as the ABI says.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace outrider::gpu_sparse {

struct Library {
  int (*abi)();
  int (*coalesce)(const void* ids, int id_bytes, const float* values, uint64_t nnz, uint64_t dim,
                  void* stream, uint64_t* counts_host, void** handle);
  uint64_t (*coalesce_ids)(void* handle);
  uint64_t (*coalesce_values)(void* handle);
  void (*coalesce_free)(void* handle, void* stream);
  const char* (*error)(int code);
  std::string library;  // what was loaded

  // The process's library: loaded on the first call; later calls return the same (or the same
  // error: Unavailable naming what was tried and why).
  static Result<const Library*> Load();
  // "<what>: <the library's text>".
  Status Check(int rc, const char* what) const;
};

}  // namespace outrider::gpu_sparse
