// Steps of sparse allreduce on device rows by 2 ranks in gpu_mode ipc, every result checked: what
// the agent's coalescing of sparse rows on the GPU is tested with, on the fake driver
// (integration/gpu_sparse_test.cc) and on a GPU (gpu/gpu_sparse_accept_test.cc).
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"
#include "outrider/outrider.h"
#include "tests/support/test_support.h"

namespace outrider::testing {

inline std::string AgentLog(const harness::AgentProcess& agent) {
  std::ifstream in(agent.log_path());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace sparse_steps {

constexpr uint64_t kTableRows = 5000, kDim = 4, kNnz = 30000, kSteps = 3;

// Rank r's rows at step s: unsorted ids with many repeats, small integer values (exact sums).
inline int64_t IdOf(int r, uint64_t s, uint64_t i) {
  return static_cast<int64_t>((i * 7919 + 13 * r + s) % kTableRows);
}
inline float ValueOf(int r, uint64_t i, uint64_t k) { return static_cast<float>(i % 10 + r + k); }

// kSteps sparse allreduces of device rows by 2 ranks: 0 if every result was right, else the step
// (10 + s: the call failed, 20 + s: a wrong id, 30 + s: a wrong value, 40 + s: wrong row count).
inline int SparseSteps(const cuda::Driver& d, outrider_client_t* c, int r) {
  CUstream st = nullptr;
  if (d.cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 60;
  CUdeviceptr ids = 0, vals = 0, out_ids = 0, out_vals = 0;
  if (d.cuMemAlloc(&ids, kNnz * 8) != CUDA_SUCCESS ||
      d.cuMemAlloc(&vals, kNnz * kDim * 4) != CUDA_SUCCESS ||
      d.cuMemAlloc(&out_ids, kTableRows * 8) != CUDA_SUCCESS ||
      d.cuMemAlloc(&out_vals, kTableRows * kDim * 4) != CUDA_SUCCESS) {
    return 61;
  }
  for (uint64_t s = 0; s < kSteps; ++s) {
    std::vector<int64_t> my_ids(kNnz);
    std::vector<float> my_vals(kNnz * kDim);
    std::map<int64_t, std::vector<float>> want;
    for (int rank = 0; rank < 2; ++rank) {
      for (uint64_t i = 0; i < kNnz; ++i) {
        std::vector<float>& row = want[IdOf(rank, s, i)];
        row.resize(kDim, 0.0f);
        for (uint64_t k = 0; k < kDim; ++k) row[k] += ValueOf(rank, i, k);
        if (rank != r) continue;
        my_ids[i] = IdOf(r, s, i);
        for (uint64_t k = 0; k < kDim; ++k) my_vals[i * kDim + k] = ValueOf(r, i, k);
      }
    }
    if (d.cuMemcpyHtoDAsync(ids, my_ids.data(), kNnz * 8, st) != CUDA_SUCCESS ||
        d.cuMemcpyHtoDAsync(vals, my_vals.data(), kNnz * kDim * 4, st) != CUDA_SUCCESS) {
      return 62;
    }
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = st;
    outrider_sparse_t sp;
    outrider_sparse_init(&sp);
    sp.rows = kTableRows;
    sp.dim = kDim;
    sp.dtype = OUTRIDER_F32;
    sp.id_dtype = OUTRIDER_I64;
    sp.ids = reinterpret_cast<void*>(ids);
    sp.values = reinterpret_cast<void*>(vals);
    sp.nnz = kNnz;
    sp.out_ids = reinterpret_cast<void*>(out_ids);
    sp.out_values = reinterpret_cast<void*>(out_vals);
    sp.capacity = kTableRows;
    outrider_op_t h;
    outrider_op_result_t res;
    res.size = sizeof(res);
    if (outrider_sparse_allreduce(c, &sp, &o, &h) != OUTRIDER_OK ||
        outrider_wait_result(c, h, 20000, &res) != OUTRIDER_OK) {
      std::fprintf(stderr, "step %llu: %s\n", static_cast<unsigned long long>(s),
                   outrider_last_error(c));
      return 10 + static_cast<int>(s);
    }
    if (res.result_rows != want.size()) return 40 + static_cast<int>(s);
    std::vector<int64_t> got_ids(want.size());
    std::vector<float> got_vals(want.size() * kDim);
    if (d.cuMemcpyDtoHAsync(got_ids.data(), out_ids, got_ids.size() * 8, st) != CUDA_SUCCESS ||
        d.cuMemcpyDtoHAsync(got_vals.data(), out_vals, got_vals.size() * 4, st) != CUDA_SUCCESS ||
        d.cuStreamSynchronize(st) != CUDA_SUCCESS) {
      return 63;
    }
    size_t u = 0;
    for (const auto& [id, row] : want) {
      if (got_ids[u] != id) return 20 + static_cast<int>(s);
      for (uint64_t k = 0; k < kDim; ++k) {
        if (got_vals[u * kDim + k] != row[k]) return 30 + static_cast<int>(s);
      }
      ++u;
    }
  }
  return 0;
}

}  // namespace sparse_steps
}  // namespace outrider::testing
