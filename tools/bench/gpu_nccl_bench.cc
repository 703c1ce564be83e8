// Agent NCCL against direct NCCL: L rank processes, one per GPU, one agent (gpu_nccl = force).
// Each rank makes its own NCCL communicator too (rank 0's unique id through shared memory), and
// times both allreduces of each size alternately, so drift on a shared machine hits both alike.
#include "tools/bench/gpu_nccl_bench.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "loaders/nccl/library.h"
#include "tools/bench/gpu_common.h"

namespace outrider::bench {

#if OUTRIDER_HAVE_CUDA && OUTRIDER_HAVE_NCCL
namespace {

constexpr int kMaxSizes = 32;

struct NcclSize {
  uint64_t bytes;
  double direct_us;  // the ranks' own ncclAllReduce
  double agent_us;   // outrider_allreduce of the same buffers' size, on the agent's NCCL
  int iters;
  int check_failed;  // 1: direct wrong, 2: agent wrong
};

struct NcclShared {
  std::atomic<int> id_ready;
  ncclUniqueId id;
  NcclSize sizes[kMaxSizes];
};

void Nc(const nccl::Nccl& n, ncclResult_t rc, const char* what, ncclComm_t comm = nullptr) {
  Status st = nccl::Check(n, rc, what, comm);
  if (st.ok()) return;
  std::fprintf(stderr, "outrider-bench: %s\n", st.ToString().c_str());
  std::_Exit(1);
}

int RankMain(int rank, const std::string& socket, const std::string& job, const LocalOptions& o,
             const GpuOptions& g, const std::vector<uint64_t>& sizes, NcclShared* shared) {
  ::setenv("OUTRIDER_GPU_MODE", "ipc", 1);
  const cuda::Driver& d = RankCuda(g.gpu + rank);
  auto nccl_loaded = nccl::Load();
  if (!nccl_loaded.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n", nccl_loaded.status().ToString().c_str());
    return 1;
  }
  const nccl::Nccl& n = **nccl_loaded;
  // The direct communicator: rank 0's unique id through shared memory.
  if (rank == 0) {
    Nc(n, n.ncclGetUniqueId(&shared->id), "ncclGetUniqueId");
    shared->id_ready.store(1, std::memory_order_release);
  } else {
    uint64_t deadline = ipc::MonotonicNs() + uint64_t{60'000'000'000};
    while (shared->id_ready.load(std::memory_order_acquire) == 0) {
      if (ipc::MonotonicNs() > deadline) {
        std::fprintf(stderr, "outrider-bench: rank 0 made no NCCL unique id within 60 s\n");
        return 1;
      }
      ::usleep(1000);
    }
  }
  ncclComm_t comm = nullptr;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;  // blocking
  Nc(n, n.ncclCommInitRankConfig(&comm, o.clients, shared->id, rank, &config),
     "ncclCommInitRankConfig");
  outrider_client_t* c = ConnectRank(socket, job, rank, o.clients);
  CUstream s = nullptr;
  Cu(d, d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUdeviceptr in = 0, res = 0;
  Cu(d, d.cuMemAlloc(&in, o.max_bytes), "cuMemAlloc");
  Cu(d, d.cuMemAlloc(&res, o.max_bytes), "cuMemAlloc");
  std::vector<float> fill(o.max_bytes / 4, static_cast<float>(rank + 1)), back(o.max_bytes / 4);
  const float sum = static_cast<float>(o.clients * (o.clients + 1) / 2);
  outrider_op_options_t opt;
  outrider_op_options_init(&opt);
  opt.cuda_stream = s;
  outrider_op_t h = 0;
  auto direct_op = [&](uint64_t count) {
    double t0 = NowUs();
    Nc(n,
       n.ncclAllReduce(reinterpret_cast<void*>(in), reinterpret_cast<void*>(res), count,
                       ncclFloat32, ncclSum, comm, reinterpret_cast<cudaStream_t>(s)),
       "ncclAllReduce", comm);
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    return NowUs() - t0;
  };
  auto agent_op = [&](uint64_t count) {
    double t0 = NowUs();
    Must(c,
         outrider_allreduce(c, reinterpret_cast<void*>(in), reinterpret_cast<void*>(res), count,
                            OUTRIDER_F32, OUTRIDER_SUM, &opt, &h),
         "allreduce (device buffers)");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    double t = NowUs() - t0;
    Must(c, outrider_wait(c, h, -1), "wait");
    return t;
  };
  // The result is right; then cleared, so the next check sees only what the next op wrote.
  auto right = [&](uint64_t bytes) {
    auto end = back.begin() + static_cast<int64_t>(bytes / 4);
    Cu(d, d.cuMemcpyDtoHAsync(back.data(), res, bytes, s), "cuMemcpyDtoHAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    bool ok = std::all_of(back.begin(), end, [&](float v) { return v == sum; });
    std::fill(back.begin(), end, 0.0f);
    Cu(d, d.cuMemcpyHtoDAsync(res, back.data(), bytes, s), "cuMemcpyHtoDAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    return ok;
  };
  auto barrier = [&] {
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, -1), "wait");
  };
  for (size_t si = 0; si < sizes.size(); ++si) {
    const uint64_t bytes = sizes[si], count = bytes / 4;
    Cu(d, d.cuMemcpyHtoDAsync(in, fill.data(), bytes, s), "cuMemcpyHtoDAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    (void)direct_op(count);  // warm-up, and both results checked
    if (!right(bytes)) shared->sizes[si].check_failed = 1;
    (void)agent_op(count);
    if (!right(bytes)) shared->sizes[si].check_failed = 2;
    const int iters = GpuIters(bytes, o.iters);
    std::vector<double> direct_t, agent_t;
    barrier();
    for (int i = 0; i < iters; ++i) {
      direct_t.push_back(direct_op(count));
      agent_t.push_back(agent_op(count));
    }
    if (rank == 0) {
      NcclSize& r = shared->sizes[si];
      r.bytes = bytes;
      r.iters = iters;
      r.direct_us = Median(direct_t);
      r.agent_us = Median(agent_t);
    }
  }
  outrider_disconnect(c);
  (void)n.ncclCommDestroy(comm);
  return 0;
}

// nccl-tests' bus bandwidth of an allreduce, GB/s (0 with one rank).
double BusBw(uint64_t bytes, double us, int ranks) {
  if (ranks < 2 || us <= 0) return 0;
  return static_cast<double>(bytes) * 2.0 * (ranks - 1) / ranks / (us * 1e3);
}

}  // namespace

int RunGpuAgainstNccl(const CommonOptions& common, const LocalOptions& o, const GpuOptions& g) {
  if (!common.socket.empty()) {
    std::fprintf(
        stderr,
        "--against-nccl starts an agent of its own (gpu_nccl = force): leave out --socket\n");
    return 2;
  }
  if (o.op != "allreduce" || o.dtype != "f32" || o.redop != "sum") {
    std::fprintf(stderr, "--against-nccl runs allreduce of f32 with sum only\n");
    return 2;
  }
  // Probed in a throwaway child: the ranks are forked from this process, and CUDA is unusable
  // in a child forked after cuInit.
  auto devices = cuda::ProbeDevices();
  if (!devices.ok()) {
    std::fprintf(stderr, "outrider-bench: --device cuda needs a GPU: %s\n",
                 devices.status().ToString().c_str());
    return 1;
  }
  auto n = nccl::Load();
  if (!n.ok()) {
    std::fprintf(stderr, "outrider-bench: --against-nccl needs NCCL: %s\n",
                 n.status().ToString().c_str());
    return 1;
  }
  int gpus = static_cast<int>(devices->size());
  if (o.clients < 1 || g.gpu < 0 || g.gpu + o.clients > gpus) {
    std::fprintf(stderr,
                 "--against-nccl runs one rank per GPU: %d rank(s) from GPU %d need %d GPUs, this "
                 "machine has %d\n",
                 o.clients, g.gpu, g.gpu + o.clients, gpus);
    return 2;
  }
  std::vector<uint64_t> sizes = GpuSizes(o, kMaxSizes);
  auto agent = BenchAgent::Start(common, {"--gpu-nccl", "force"});
  if (!agent.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n", agent.status().ToString().c_str());
    return 1;
  }
  Shared<NcclShared> shared(1);
  std::string job = "bench-gpu-nccl-" + std::to_string(::getpid());
  Status st = RunRanks(o.clients, [&](int rank) {
    return RankMain(rank, (*agent)->socket_path(), job, o, g, sizes, shared.get());
  });
  if (!st.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n%s", st.ToString().c_str(),
                 (*agent)->LogTail().c_str());
    return 1;
  }
  // The agent says when a job's ops run on its communicators: without that line they did not.
  if ((*agent)->Log().find("job '" + job + "': NCCL communicators ready") == std::string::npos) {
    std::fprintf(stderr,
                 "outrider-bench: the agent did not run the ops on its NCCL communicators:\n%s",
                 (*agent)->LogTail().c_str());
    return 1;
  }
  const NcclShared& r = *shared.get();
  std::printf(
      "# outrider-bench local --device cuda --against-nccl: %d ranks on GPUs %d-%d, NCCL %s (%s)\n",
      o.clients, g.gpu, g.gpu + o.clients - 1, nccl::VersionString((*n)->version).c_str(),
      (*n)->library.c_str());
  std::printf(
      "# allreduce f32 sum, one rank per GPU; medians in us, submit -> stream synchronized; busbw "
      "in GB/s\n");
  std::printf("# %12s %10s %10s %10s %10s %8s %6s\n", "size", "direct", "agent", "busbw_dir",
              "busbw_agt", "ratio", "check");
  nlohmann::json rows = nlohmann::json::array();
  int failures = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const NcclSize& s = r.sizes[i];
    failures += s.check_failed != 0;
    double ratio = s.direct_us > 0 ? s.agent_us / s.direct_us : 0;
    double bw_direct = BusBw(s.bytes, s.direct_us, o.clients),
           bw_agent = BusBw(s.bytes, s.agent_us, o.clients);
    std::printf("  %12llu %10.1f %10.1f %10.2f %10.2f %8.2f %6s\n",
                static_cast<unsigned long long>(s.bytes), s.direct_us, s.agent_us, bw_direct,
                bw_agent, ratio,
                s.check_failed == 1   ? "WRONG(direct)"
                : s.check_failed == 2 ? "WRONG(agent)"
                                      : "ok");
    rows.push_back({{"system", "outrider"},
                    {"op", "allreduce"},
                    {"device", "cuda"},
                    {"against", "nccl"},
                    {"bytes", s.bytes},
                    {"ranks", o.clients},
                    {"iters", s.iters},
                    {"direct_nccl_us", s.direct_us},
                    {"agent_nccl_us", s.agent_us},
                    {"busbw_direct_gbs", bw_direct},
                    {"busbw_agent_gbs", bw_agent},
                    {"time_ratio", ratio},
                    {"check", s.check_failed == 0}});
  }
  std::printf(
      "# direct: the ranks' own ncclAllReduce; agent: outrider_allreduce on the agent's "
      "communicators (this run)\n"
      "# ratio = agent / direct time (the busbw ratio inverted)%s\n",
      o.clients == 1 ? "; one rank: no bus bandwidth, the times alone compare" : "");
  return FinishGpuRun(common, rows, failures);
}

#else

int RunGpuAgainstNccl(const CommonOptions&, const LocalOptions&, const GpuOptions&) {
  std::fprintf(stderr,
               "outrider-bench: built without CUDA or NCCL: --against-nccl is not available\n");
  return 2;
}

#endif

}  // namespace outrider::bench
