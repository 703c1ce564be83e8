// liboutrider_gpu_sparse.so on the host, for the tests: coalesce_rows.h on Thrust's C++ backend.
// The fake CUDA driver's device memory is host memory in the agent's process, so this runs the
// real algorithm on it; the "stream" is ignored (the work is done when the call returns, which
// the agent's stream order allows: it calls once the op's inputs are ready).
#include <thrust/system/cpp/execution_policy.h>

#include <cstring>
#include <new>
#include <vector>

#include "agent/memory/gpu_sparse/coalesce_rows.h"
#include "loaders/gpu_sparse/abi.h"

namespace {

using outrider::gpu_sparse::CoalesceCounts;

struct Result {
  std::vector<uint64_t> ids;  // 8-byte aligned storage for either id size
  std::vector<float> values;
};

template <class Id>
void Run(const Id* ids, const float* values, uint64_t nnz, uint64_t dim, uint64_t* counts_host,
         Result* r) {
  r->ids.resize(nnz == 0 ? 1 : nnz);
  r->values.resize(nnz * dim == 0 ? 1 : nnz * dim);
  std::vector<uint64_t> scratch((outrider::gpu_sparse::ScratchBytes<Id>(nnz) + 7) / 8);
  CoalesceCounts counts{};
  outrider::gpu_sparse::CoalesceRows(thrust::cpp::par, ids, values, nnz, dim,
                                     reinterpret_cast<Id*>(r->ids.data()), r->values.data(),
                                     &counts, scratch.data());
  std::memcpy(counts_host, &counts, sizeof(counts));
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int outrider_gpu_sparse_abi(void) {
  return OUTRIDER_GPU_SPARSE_ABI;
}

__attribute__((visibility("default"))) int outrider_gpu_coalesce(const void* ids, int id_bytes,
                                                                 const float* values, uint64_t nnz,
                                                                 uint64_t dim, void*,
                                                                 uint64_t* counts_host,
                                                                 void** handle) {
  if (handle == nullptr || counts_host == nullptr || (id_bytes != 4 && id_bytes != 8) ||
      nnz >= (uint64_t{1} << 32)) {
    return -1;
  }
  auto* r = new (std::nothrow) Result;
  if (r == nullptr) return 2;
  try {
    if (id_bytes == 4) {
      Run(static_cast<const int32_t*>(ids), values, nnz, dim, counts_host, r);
    } else {
      Run(static_cast<const int64_t*>(ids), values, nnz, dim, counts_host, r);
    }
  } catch (const std::bad_alloc&) {
    delete r;
    return 2;
  }
  *handle = r;
  return 0;
}

__attribute__((visibility("default"))) uint64_t outrider_gpu_coalesce_ids(void* handle) {
  return reinterpret_cast<uint64_t>(static_cast<Result*>(handle)->ids.data());
}

__attribute__((visibility("default"))) uint64_t outrider_gpu_coalesce_values(void* handle) {
  return reinterpret_cast<uint64_t>(static_cast<Result*>(handle)->values.data());
}

__attribute__((visibility("default"))) void outrider_gpu_coalesce_free(void* handle, void*) {
  delete static_cast<Result*>(handle);
}

__attribute__((visibility("default"))) const char* outrider_gpu_sparse_error(int code) {
  if (code == -1)
    return "invalid argument (id size not 4 or 8, 2^32 rows or more, or a null pointer)";
  return code == 2 ? "out of memory" : "unknown error";
}

}  // extern "C"
