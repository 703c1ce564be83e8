// Coalescing one rank's sparse rows where they lie: equal ids' rows summed (f32, in order of
// appearance) and the ids sorted, before the rows are copied to host memory
// (docs/design.md#gpu-path). Written once on Thrust so that one source runs on the GPU (CUDA
// backend, gpu_sparse_cuda.cu) and on the host (C++ backend: the fake CUDA driver's device memory
// is host memory, and the unit tests check it against the host engine's sum).
//
// Nothing here returns a value to the host (no call waits for the stream): the counts are written
// to device memory, and the caller copies them out on the same stream.
// Thread-safety: none of its own; one call per stream at a time.
#pragma once

#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>

#include <cstdint>

#if defined(__CUDACC__)
#define OUTRIDER_HD __host__ __device__
#else
#define OUTRIDER_HD
#endif

namespace outrider::gpu_sparse {

// What CoalesceRows leaves in device memory for the caller to copy out.
struct CoalesceCounts {
  uint64_t unique;  // rows after coalescing
  uint64_t moved;   // positions whose row moved: 0 iff the ids were strictly increasing already
};

// Scratch CoalesceRows needs for `nnz` rows of ids of type Id (device memory, any alignment of 8).
template <class Id>
constexpr uint64_t ScratchBytes(uint64_t nnz) {
  return nnz * (sizeof(Id) + 2 * sizeof(uint32_t)) + 16;
}

namespace detail {

template <class Id>
struct HeadFlag {  // 1 at the first position of each run of equal sorted ids
  const Id* keys;
  OUTRIDER_HD uint32_t operator()(uint64_t i) const {
    return i == 0 || keys[i] != keys[i - 1] ? 1u : 0u;
  }
};

struct MovedFlag {  // 1 where the sorted position holds another position's row
  const uint32_t* perm;
  OUTRIDER_HD uint32_t operator()(uint64_t i) const { return perm[i] != i ? 1u : 0u; }
};

template <class Id>
struct SumRun {  // thread (i, k): if i starts a run, out[run][k] = sum of the run's rows' column k
  const Id* keys;
  const uint32_t* perm;
  const uint32_t* run;  // inclusive scan of HeadFlag: run index + 1
  const float* vals;
  Id* out_ids;
  float* out_vals;
  uint64_t nnz, dim;
  OUTRIDER_HD void operator()(uint64_t t) const {
    uint64_t i = dim == 0 ? t : t / dim, k = dim == 0 ? 0 : t % dim;
    if (i != 0 && keys[i] == keys[i - 1]) return;
    uint64_t u = run[i] - 1;
    if (k == 0) out_ids[u] = keys[i];
    if (dim == 0) return;
    float acc = vals[uint64_t{perm[i]} * dim + k];
    for (uint64_t j = i + 1; j < nnz && keys[j] == keys[i]; ++j)
      acc += vals[uint64_t{perm[j]} * dim + k];
    out_vals[u * dim + k] = acc;
  }
};

struct WriteUnique {
  const uint32_t* run;
  uint64_t nnz;
  CoalesceCounts* out;
  OUTRIDER_HD void operator()(uint64_t) const { out->unique = run[nnz - 1]; }
};

struct WriteMoved {
  const uint32_t* moved;
  uint64_t nnz;
  CoalesceCounts* out;
  OUTRIDER_HD void operator()(uint64_t) const { out->moved = moved[nnz - 1]; }
};

struct WriteNone {
  CoalesceCounts* out;
  OUTRIDER_HD void operator()(uint64_t) const { *out = CoalesceCounts{0, 0}; }
};

}  // namespace detail

// Sorts `ids` (nnz of them; read only) stably and sums the f32 rows (dim floats each) of equal ids
// in the order they appear: out_ids/out_vals get the unique ids ascending and their sums (room
// for nnz rows), *counts (device memory) the number of unique rows and of moved positions.
// nnz < 2^32. The sums add in the host engine's order, so they are bitwise its sums.
template <class Policy, class Id>
void CoalesceRows(const Policy& policy, const Id* ids, const float* vals, uint64_t nnz,
                  uint64_t dim, Id* out_ids, float* out_vals, CoalesceCounts* counts,
                  void* scratch) {
  auto* keys = static_cast<Id*>(scratch);
  auto* perm = reinterpret_cast<uint32_t*>(keys + nnz);
  uint32_t* run = perm + nnz;  // later: the moved-position scan, once the sums are written
  thrust::counting_iterator<uint64_t> pos(0);
  if (nnz == 0) {
    thrust::for_each(policy, pos, pos + 1, detail::WriteNone{counts});
    return;
  }
  thrust::copy(policy, ids, ids + nnz, keys);
  thrust::sequence(policy, perm, perm + nnz, 0u);
  thrust::stable_sort_by_key(policy, keys, keys + nnz, perm);
  thrust::transform_inclusive_scan(policy, pos, pos + nnz, run, detail::HeadFlag<Id>{keys},
                                   thrust::plus<uint32_t>());
  uint64_t threads = dim == 0 ? nnz : nnz * dim;
  thrust::for_each(policy, pos, pos + threads,
                   detail::SumRun<Id>{keys, perm, run, vals, out_ids, out_vals, nnz, dim});
  thrust::for_each(policy, pos, pos + 1, detail::WriteUnique{run, nnz, counts});
  // `run` is free again once the sums are written (stream order): it takes the moved positions.
  thrust::transform_inclusive_scan(policy, pos, pos + nnz, run, detail::MovedFlag{perm},
                                   thrust::plus<uint32_t>());
  thrust::for_each(policy, pos, pos + 1, detail::WriteMoved{run, nnz, counts});
}

}  // namespace outrider::gpu_sparse
