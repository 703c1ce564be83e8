// liboutrider_gpu_sparse.so on the GPU: coalesce_rows.h on Thrust's CUDA backend, every
// allocation stream-ordered (cudaMallocAsync), so nothing here waits for the stream.
#include <cuda_runtime.h>
#include <thrust/system/cuda/execution_policy.h>

#include <new>

#include "agent/memory/gpu_sparse/coalesce_rows.h"
#include "loaders/gpu_sparse/abi.h"

namespace {

using outrider::gpu_sparse::CoalesceCounts;

// Thrust's temporary storage, allocated and freed in the stream's order.
struct StreamAllocator {
  using value_type = char;
  cudaStream_t stream;
  char* allocate(std::ptrdiff_t n) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, static_cast<size_t>(n), stream) != cudaSuccess) throw std::bad_alloc();
    return static_cast<char*>(p);
  }
  void deallocate(char* p, size_t) { (void)cudaFreeAsync(p, stream); }
};

struct Result {
  char* block = nullptr;  // [ids | values | counts | scratch]
  uint64_t ids = 0, values = 0;
};

constexpr uint64_t Align(uint64_t n) { return (n + 255) / 256 * 256; }

template <class Id>
int Run(const Id* ids, const float* values, uint64_t nnz, uint64_t dim, cudaStream_t stream,
        uint64_t* counts_host, Result* r) {
  uint64_t ids_bytes = Align(nnz * sizeof(Id)), values_bytes = Align(nnz * dim * sizeof(float));
  uint64_t counts_at = ids_bytes + values_bytes,
           scratch_at = counts_at + Align(sizeof(CoalesceCounts));
  uint64_t total = scratch_at + outrider::gpu_sparse::ScratchBytes<Id>(nnz);
  void* block = nullptr;
  cudaError_t rc = cudaMallocAsync(&block, total, stream);
  if (rc != cudaSuccess) return static_cast<int>(rc);
  r->block = static_cast<char*>(block);
  r->ids = reinterpret_cast<uint64_t>(r->block);
  r->values = r->ids + ids_bytes;
  auto* counts = reinterpret_cast<CoalesceCounts*>(r->block + counts_at);
  try {
    StreamAllocator alloc{stream};
    outrider::gpu_sparse::CoalesceRows(thrust::cuda::par_nosync(alloc).on(stream), ids, values, nnz,
                                       dim, reinterpret_cast<Id*>(r->ids),
                                       reinterpret_cast<float*>(r->values), counts,
                                       r->block + scratch_at);
  } catch (const std::bad_alloc&) {
    (void)cudaFreeAsync(block, stream);
    return static_cast<int>(cudaErrorMemoryAllocation);
  } catch (...) {
    (void)cudaFreeAsync(block, stream);
    rc = cudaGetLastError();
    return rc != cudaSuccess ? static_cast<int>(rc) : static_cast<int>(cudaErrorUnknown);
  }
  rc = cudaMemcpyAsync(counts_host, counts, sizeof(CoalesceCounts), cudaMemcpyDeviceToHost, stream);
  if (rc != cudaSuccess) {
    (void)cudaFreeAsync(block, stream);
    return static_cast<int>(rc);
  }
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int outrider_gpu_sparse_abi(void) {
  return OUTRIDER_GPU_SPARSE_ABI;
}

__attribute__((visibility("default"))) int outrider_gpu_coalesce(const void* ids, int id_bytes,
                                                                 const float* values, uint64_t nnz,
                                                                 uint64_t dim, void* stream,
                                                                 uint64_t* counts_host,
                                                                 void** handle) {
  if (handle == nullptr || counts_host == nullptr || (id_bytes != 4 && id_bytes != 8) ||
      nnz >= (uint64_t{1} << 32)) {
    return -1;
  }
  auto* r = new (std::nothrow) Result;
  if (r == nullptr) return static_cast<int>(cudaErrorMemoryAllocation);
  auto s = static_cast<cudaStream_t>(stream);
  int rc = id_bytes == 4
               ? Run(static_cast<const int32_t*>(ids), values, nnz, dim, s, counts_host, r)
               : Run(static_cast<const int64_t*>(ids), values, nnz, dim, s, counts_host, r);
  if (rc != 0) {
    delete r;
    return rc;
  }
  *handle = r;
  return 0;
}

__attribute__((visibility("default"))) uint64_t outrider_gpu_coalesce_ids(void* handle) {
  return static_cast<Result*>(handle)->ids;
}

__attribute__((visibility("default"))) uint64_t outrider_gpu_coalesce_values(void* handle) {
  return static_cast<Result*>(handle)->values;
}

__attribute__((visibility("default"))) void outrider_gpu_coalesce_free(void* handle, void* stream) {
  auto* r = static_cast<Result*>(handle);
  (void)cudaFreeAsync(r->block, static_cast<cudaStream_t>(stream));
  delete r;
}

__attribute__((visibility("default"))) const char* outrider_gpu_sparse_error(int code) {
  if (code == -1)
    return "invalid argument (id size not 4 or 8, 2^32 rows or more, or a null pointer)";
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}

}  // extern "C"
