// Every op kind on device buffers, in both GPU modes (staging and ipc), against a real agent with
// the fake CUDA driver (tests/fakes/cuda/) in the trainers and in the agent: broadcast, allgather,
// reduce-scatter, alltoallv and a sparse allreduce, all queued on one stream before any result is
// read, each result checked; and sends and receives of device buffers, both ways on one stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {
// Device memory holding `v`, written on `s` (before returning: `v` may be a temporary).
template <typename T>
CUdeviceptr ToDevice(const cuda::Driver& d, const std::vector<T>& v, CUstream s) {
  CUdeviceptr p = 0;
  if (d.cuMemAlloc(&p, std::max<size_t>(v.size(), 1) * sizeof(T)) != CUDA_SUCCESS) std::_Exit(70);
  if (!v.empty() && d.cuMemcpyHtoDAsync(p, v.data(), v.size() * sizeof(T), s) != CUDA_SUCCESS)
    std::_Exit(71);
  if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) std::_Exit(74);
  return p;
}

template <typename T>
std::vector<T> FromDevice(const cuda::Driver& d, CUdeviceptr p, size_t n, CUstream s) {
  std::vector<T> v(n);
  if (n > 0 && d.cuMemcpyDtoHAsync(v.data(), p, n * sizeof(T), s) != CUDA_SUCCESS) std::_Exit(72);
  if (d.cuStreamSynchronize(s) != CUDA_SUCCESS) std::_Exit(73);
  return v;
}

void* Ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

// Broadcast, allgather, reduce-scatter, alltoallv and a sparse allreduce, every buffer in device
// memory, all queued on one stream before any result is read: 0, or the number of the first op
// whose result is wrong (or whose call failed, + 20).
int EveryOpOnDeviceBuffers(const cuda::Driver& d, outrider_client_t* c, int r) {
  CUstream s = nullptr;
  if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 60;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = s;
  std::vector<outrider_op_t> ops(5);
  constexpr uint64_t n = 256;
  // 1: broadcast from rank 1.
  CUdeviceptr bc = ToDevice(d, std::vector<float>(n, r == 1 ? 7.0f : 0.0f), s);
  if (outrider_broadcast(c, Ptr(bc), n, OUTRIDER_F32, 1, &o, &ops[0]) != OUTRIDER_OK) return 21;
  // 2: allgather of rank-valued blocks.
  CUdeviceptr ag_in = ToDevice(d, std::vector<int32_t>(n, r + 1), s);
  CUdeviceptr ag_out = ToDevice(d, std::vector<int32_t>(2 * n, -1), s);
  if (outrider_allgather(c, Ptr(ag_in), Ptr(ag_out), n, OUTRIDER_I32, &o, &ops[1]) != OUTRIDER_OK)
    return 22;
  // 3: reduce-scatter: element i of the input is i + r.
  std::vector<double> rs(2 * n);
  for (uint64_t i = 0; i < 2 * n; ++i) rs[i] = static_cast<double>(i + r);
  CUdeviceptr rs_in = ToDevice(d, rs, s);
  CUdeviceptr rs_out = ToDevice(d, std::vector<double>(n, -1), s);
  if (outrider_reduce_scatter(c, Ptr(rs_in), Ptr(rs_out), n, OUTRIDER_F64, OUTRIDER_SUM, &o,
                              &ops[2]) != OUTRIDER_OK)
    return 23;
  // 4: alltoallv: rank r sends r + 1 + j elements (valued 10 r + j) to rank j.
  int64_t sc[2] = {r + 1, r + 2}, rc[2] = {1 + r, 2 + r};
  std::vector<float> a2a;
  for (int j = 0; j < 2; ++j)
    a2a.insert(a2a.end(), static_cast<size_t>(sc[j]), static_cast<float>(10 * r + j));
  CUdeviceptr a2a_in = ToDevice(d, a2a, s);
  CUdeviceptr a2a_out = ToDevice(d, std::vector<float>(static_cast<size_t>(rc[0] + rc[1]), -1), s);
  if (outrider_alltoallv(c, Ptr(a2a_in), sc, Ptr(a2a_out), rc, OUTRIDER_F32, &o, &ops[3]) !=
      OUTRIDER_OK)
    return 24;
  // 5: sparse allreduce: rank r has rows {r, 5} of a 10 x 4 table, valued r + 1.
  constexpr uint64_t dim = 4, cap = 10;
  CUdeviceptr ids = ToDevice(d, std::vector<int64_t>{r, 5}, s);
  CUdeviceptr vals = ToDevice(d, std::vector<float>(2 * dim, static_cast<float>(r + 1)), s);
  CUdeviceptr out_ids = ToDevice(d, std::vector<int64_t>(cap, -1), s);
  CUdeviceptr out_vals = ToDevice(d, std::vector<float>(cap * dim, -1), s);
  outrider_sparse_t sp;
  outrider_sparse_init(&sp);
  sp.rows = 10;
  sp.dim = dim;
  sp.dtype = OUTRIDER_F32;
  sp.id_dtype = OUTRIDER_I64;
  sp.ids = Ptr(ids);
  sp.values = Ptr(vals);
  sp.nnz = 2;
  sp.out_ids = Ptr(out_ids);
  sp.out_values = Ptr(out_vals);
  sp.capacity = cap;
  if (outrider_sparse_allreduce(c, &sp, &o, &ops[4]) != OUTRIDER_OK) {
    std::fprintf(stderr, "sparse: %s\n", outrider_last_error(c));
    return 25;
  }
  // The results, read on the same stream.
  for (float v : FromDevice<float>(d, bc, n, s)) {
    if (v != 7.0f) return 1;
  }
  auto gathered = FromDevice<int32_t>(d, ag_out, 2 * n, s);
  for (uint64_t i = 0; i < 2 * n; ++i) {
    if (gathered[i] != static_cast<int32_t>(i / n + 1)) return 2;
  }
  auto scattered = FromDevice<double>(d, rs_out, n, s);
  for (uint64_t i = 0; i < n; ++i) {
    if (scattered[i] != static_cast<double>(2 * (r * n + i) + 1)) return 3;
  }
  auto exchanged = FromDevice<float>(d, a2a_out, static_cast<size_t>(rc[0] + rc[1]), s);
  for (size_t i = 0; i < exchanged.size(); ++i) {
    int from = i < static_cast<size_t>(rc[0]) ? 0 : 1;
    if (exchanged[i] != static_cast<float>(10 * from + r)) return 4;
  }
  auto got_ids = FromDevice<int64_t>(d, out_ids, cap, s);
  auto got_vals = FromDevice<float>(d, out_vals, cap * dim, s);
  // Union {0, 1, 5}: row 0 from rank 0 (1), row 1 from rank 1 (2), row 5 from both (3); the
  // rest of the output is as it was.
  const int64_t want_ids[] = {0, 1, 5, -1};
  const float want_vals[] = {1, 2, 3, -1};
  for (size_t k = 0; k < 4; ++k) {
    if (got_ids[k] != want_ids[k] || got_vals[k * dim] != want_vals[k] ||
        got_vals[k * dim + dim - 1] != want_vals[k])
      return 5;
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    outrider_op_result_t res;
    std::memset(&res, 0, sizeof(res));
    res.size = sizeof(res);
    if (outrider_wait_result(c, ops[k], 10000, &res) != OUTRIDER_OK)
      return 30 + static_cast<int>(k);
    if (k == 4 && res.result_rows != 3) return 36;
  }
  return 0;
}

// Two ranks of job `job` in gpu_mode `mode` against one agent, each running `body`: both exit 0.
void ExpectTwoRanksPass(const char* mode, const char* job,
                        int (*body)(const cuda::Driver&, outrider_client_t*, int)) {
  auto agent = StartGpuAgent();
  ASSERT_NE(agent, nullptr);
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda(mode);
    outrider_client_t* c = ConnectOrExit(agent->socket_path(), job, r, 2);
    int rc = body(d, c, r);
    outrider_disconnect(c);
    return rc;
  });
  ranks.ExpectAllExitZero();
}

class GpuEveryOpTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuEveryOpTest, EveryOpKindRunsOnDeviceBuffersInStreamOrder) {
  ExpectTwoRanksPass(GetParam(), "gpu-every-op", EveryOpOnDeviceBuffers);
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuEveryOpTest, ::testing::Values("staging", "ipc"));

// Each rank sends to the other, then receives from it, a small and a large message, all four ops
// queued on one stream before any completes (as PyTorch's batch_isend_irecv queues them on the
// current stream). A send completes once the other rank's receive took it, so a stream that waited
// for each send before it queued the next receive would wait for ever on both ranks: the stream
// goes past a send once its input is copied. 0, or the first failure.
int SendThenReceiveOnOneStream(const cuda::Driver& d, outrider_client_t* c, int r) {
  CUstream s = nullptr;
  if (d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 60;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = s;
  const int other = 1 - r;
  const uint64_t sizes[] = {17, 3 << 18};  // 68 B and 3 MiB of floats
  std::vector<CUdeviceptr> outbox, inbox;
  for (uint64_t n : sizes) {  // every buffer first: ToDevice synchronizes the stream
    std::vector<float> mine(n);
    for (uint64_t i = 0; i < n; ++i) mine[i] = static_cast<float>(1000 * r + i % 1000);
    outbox.push_back(ToDevice(d, mine, s));
    inbox.push_back(ToDevice(d, std::vector<float>(n, -1), s));
  }
  std::vector<outrider_op_t> ops;
  for (size_t m = 0; m < inbox.size(); ++m) {
    outrider_op_t send = 0, recv = 0;
    if (outrider_send(c, Ptr(outbox[m]), sizes[m], OUTRIDER_F32, other, 7, &o, &send) !=
        OUTRIDER_OK)
      return 21;
    if (outrider_recv(c, Ptr(inbox[m]), sizes[m], OUTRIDER_F32, other, 7, &o, &recv) != OUTRIDER_OK)
      return 22;
    ops.push_back(send);
    ops.push_back(recv);
  }
  for (size_t k = 0; k < ops.size(); ++k) {  // bounded: a stuck stream fails here, not hangs
    if (int rc = outrider_wait(c, ops[k], 10000); rc != OUTRIDER_OK) {
      std::fprintf(stderr, "rank %d op %zu: %s\n", r, k, outrider_last_error(c));
      return 30 + static_cast<int>(k);
    }
  }
  for (size_t m = 0; m < inbox.size(); ++m) {
    auto got = FromDevice<float>(d, inbox[m], sizes[m], s);
    for (uint64_t i = 0; i < sizes[m]; ++i) {
      if (got[i] != static_cast<float>(1000 * other + i % 1000)) return 1 + static_cast<int>(m);
    }
  }
  return 0;
}

class GpuPointToPointTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuPointToPointTest, SendsAndReceivesOfDeviceBuffersBothWaysOnOneStreamComplete) {
  ExpectTwoRanksPass(GetParam(), "gpu-point-to-point", SendThenReceiveOnOneStream);
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuPointToPointTest, ::testing::Values("staging", "ipc"));

}  // namespace
}  // namespace outrider::testing
