// The C interface of liboutrider_gpu_sparse.so: coalescing a rank's sparse rows on the GPU before
// they are staged to host memory (docs/design.md#gpu-path). The agent dlopen()s the library
// (library.h), so it runs with or without it; the library is built with nvcc (CUDA runtime and
// Thrust linked in statically) where the toolkit has one, and on the host for tests against the
// fake CUDA driver. Thread-safety: calls on one stream from one thread at a time.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped when a function or its meaning changes; the agent refuses another.
#define OUTRIDER_GPU_SPARSE_ABI 1

int outrider_gpu_sparse_abi(void);
// Queues on `stream` (a CUstream of the current context): a stable sort of the nnz ids (id_bytes
// 4 or 8, signed) and the sums of the f32 rows (dim each; dim 0: ids only) of equal ids, in the
// order they appear, into memory the library allocates on the stream; then the unique count and
// the number of rows that moved (0 iff the ids were strictly increasing) as two uint64_t into
// `counts_host` (pinned host memory). *handle names the result until outrider_gpu_coalesce_free.
// 0, or an error code (outrider_gpu_sparse_error); nothing is queued after an error.
int outrider_gpu_coalesce(const void* ids, int id_bytes, const float* values, uint64_t nnz,
                          uint64_t dim, void* stream, uint64_t* counts_host, void** handle);
// The device addresses of the coalesced ids and rows (room for nnz of each).
uint64_t outrider_gpu_coalesce_ids(void* handle);
uint64_t outrider_gpu_coalesce_values(void* handle);
// Frees the result; call once nothing queued reads it any more (the GPU build frees in the
// stream's order too).
void outrider_gpu_coalesce_free(void* handle, void* stream);
const char* outrider_gpu_sparse_error(int code);

#ifdef __cplusplus
}
#endif
