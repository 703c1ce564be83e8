// GPU handoff benchmark: L rank processes on one GPU, one agent, timings taken in rank 0. Each
// gpu_mode runs as its own job (a job has one mode); the host-buffer allreduce and the pinned
// copy baseline run in the first one, interleaved with its device-buffer ops.
#include "tools/bench/gpu_bench.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tools/bench/gpu_common.h"

namespace outrider::bench {

#if OUTRIDER_HAVE_CUDA
namespace {

constexpr int kMaxSizes = 32;
constexpr int kMaxModes = 2;
constexpr int kMaxRttIters = 2000;

struct GpuSize {
  uint64_t bytes;
  double host_us;               // allreduce of host buffers (submit -> completion)
  double device_us[kMaxModes];  // allreduce of device buffers (submit -> stream synchronized)
  double copy_us;               // plain pinned copy: device -> pinned host -> device, one stream
  int iters;
  int check_failed;
};

struct GpuShared {
  GpuSize sizes[kMaxSizes];
  double rtt_host_us;
  double rtt_device_us[kMaxModes];
};

int RankMain(int rank, int mode_index, const std::string& socket, const std::string& job,
             const LocalOptions& o, const GpuOptions& g, const std::vector<uint64_t>& sizes,
             GpuShared* out) {
  ::setenv("OUTRIDER_GPU_MODE", g.modes[static_cast<size_t>(mode_index)].c_str(), 1);
  const cuda::Driver& d = RankCuda(g.gpu);
  outrider_client_t* c = ConnectRank(socket, job, rank, o.clients);
  CUstream s = nullptr;
  Cu(d, d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUdeviceptr in = 0, res = 0;  // cudaMalloc-style allocations (legacy handles in gpu_mode ipc)
  Cu(d, d.cuMemAlloc(&in, o.max_bytes), "cuMemAlloc");
  Cu(d, d.cuMemAlloc(&res, o.max_bytes), "cuMemAlloc");
  const bool first = mode_index == 0;
  void *host_in = nullptr, *host_out = nullptr, *pinned = nullptr;
  if (first) {
    Must(c, outrider_region_create(c, o.max_bytes, &host_in), "region_create");
    Must(c, outrider_region_create(c, o.max_bytes, &host_out), "region_create");
  }
  if (first && rank == 0) {
    pinned =
        ::mmap(nullptr, o.max_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pinned == MAP_FAILED) return 1;
    Cu(d, d.cuMemHostRegister(pinned, o.max_bytes, 0),
       "pinning the baseline's host buffer (cuMemHostRegister)");
  }
  std::vector<float> fill(o.max_bytes / 4, static_cast<float>(rank + 1)), back(o.max_bytes / 4);
  const float sum = static_cast<float>(o.clients * (o.clients + 1) / 2);
  outrider_op_options_t opt;
  outrider_op_options_init(&opt);
  opt.cuda_stream = s;
  outrider_op_t h = 0;
  auto device_op = [&](uint64_t count) {
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
  auto host_op = [&](uint64_t count) {
    double t0 = NowUs();
    Must(c,
         outrider_allreduce(c, host_in, host_out, count, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h),
         "allreduce (host buffers)");
    Must(c, outrider_wait(c, h, -1), "wait");
    return NowUs() - t0;
  };
  auto pinned_copy = [&](uint64_t bytes) {
    double t0 = NowUs();
    Cu(d, d.cuMemcpyDtoHAsync(pinned, in, bytes, s), "cuMemcpyDtoHAsync");
    Cu(d, d.cuMemcpyHtoDAsync(res, pinned, bytes, s), "cuMemcpyHtoDAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    return NowUs() - t0;
  };
  auto barrier = [&] {
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, -1), "wait");
  };
  for (size_t si = 0; si < sizes.size(); ++si) {
    const uint64_t bytes = sizes[si], count = bytes / 4;
    Cu(d, d.cuMemcpyHtoDAsync(in, fill.data(), bytes, s), "cuMemcpyHtoDAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    (void)device_op(count);  // warm-up, and the result checked
    Cu(d, d.cuMemcpyDtoHAsync(back.data(), res, bytes, s), "cuMemcpyDtoHAsync");
    Cu(d, d.cuStreamSynchronize(s), "cuStreamSynchronize");
    bool ok = std::all_of(back.begin(), back.begin() + static_cast<int64_t>(count),
                          [&](float v) { return v == sum; });
    if (first) {
      std::fill_n(static_cast<float*>(host_in), count, static_cast<float>(rank + 1));
      (void)host_op(count);
    }
    const int iters = GpuIters(bytes, o.iters);
    std::vector<double> dev_t, host_t, copy_t;
    barrier();
    // Interleaved: device op, host op, pinned copy, so drift on a shared machine hits all alike.
    for (int i = 0; i < iters; ++i) {
      dev_t.push_back(device_op(count));
      if (first) host_t.push_back(host_op(count));
      if (pinned != nullptr) copy_t.push_back(pinned_copy(bytes));
    }
    if (rank == 0) {
      GpuSize& r = out->sizes[si];
      r.bytes = bytes;
      r.iters = iters;
      r.device_us[mode_index] = Median(dev_t);
      if (first) {
        r.host_us = Median(host_t);
        r.copy_us = Median(copy_t);
      }
    }
    if (!ok) out->sizes[si].check_failed = 1;
  }
  const int rtt_iters = std::min(o.rtt_iters, kMaxRttIters);
  if (rtt_iters > 0) {
    std::vector<double> dev_t, host_t;
    barrier();
    for (int i = 0; i < rtt_iters; ++i) {
      dev_t.push_back(device_op(2));
      if (first) host_t.push_back(host_op(2));
    }
    if (rank == 0) {
      out->rtt_device_us[mode_index] = Median(dev_t);
      if (first) out->rtt_host_us = Median(host_t);
    }
  }
  outrider_disconnect(c);
  return 0;
}

}  // namespace

int RunGpu(const CommonOptions& common, const LocalOptions& o, const GpuOptions& g) {
  if (o.clients < 1 || o.clients > 64) {
    std::fprintf(stderr, "--clients must be in [1, 64]\n");
    return 2;
  }
  if (o.op != "allreduce" || o.dtype != "f32" || o.redop != "sum") {
    std::fprintf(stderr, "--device cuda runs allreduce of f32 with sum only\n");
    return 2;
  }
  if (g.modes.empty() || g.modes.size() > kMaxModes) {
    std::fprintf(stderr, "--gpu-modes takes one or two of staging, ipc\n");
    return 2;
  }
  for (const std::string& m : g.modes) {
    if (m != "staging" && m != "ipc") {
      std::fprintf(stderr, "unknown gpu mode '%s' (staging or ipc)\n", m.c_str());
      return 2;
    }
  }
  // Probed in a throwaway child: the ranks are forked from this process, and CUDA is unusable
  // in a child forked after cuInit.
  auto devices = cuda::ProbeDevices();
  if (!devices.ok() || devices->empty()) {
    std::fprintf(stderr, "outrider-bench: --device cuda needs a GPU: %s\n",
                 devices.ok() ? "no GPU visible" : devices.status().ToString().c_str());
    return 1;
  }
  if (g.gpu < 0 || g.gpu >= static_cast<int>(devices->size())) {
    std::fprintf(stderr, "outrider-bench: --gpu %d: this machine has %zu GPU(s)\n", g.gpu,
                 devices->size());
    return 2;
  }
  std::vector<uint64_t> sizes = GpuSizes(o, kMaxSizes);
  auto agent = BenchAgent::Start(common);
  if (!agent.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n", agent.status().ToString().c_str());
    return 1;
  }
  Shared<GpuShared> shared(1);
  for (size_t m = 0; m < g.modes.size(); ++m) {
    std::string job = "bench-gpu-" + std::to_string(::getpid()) + "-" + g.modes[m];
    Status st = RunRanks(o.clients, [&](int rank) {
      return RankMain(rank, static_cast<int>(m), (*agent)->socket_path(), job, o, g, sizes,
                      shared.get());
    });
    if (!st.ok()) {
      std::fprintf(stderr, "outrider-bench: gpu_mode %s: %s\n%s", g.modes[m].c_str(),
                   st.ToString().c_str(), (*agent)->LogTail().c_str());
      return 1;
    }
  }
  const GpuShared& r = *shared.get();
  std::printf("# outrider-bench local --device cuda: %d clients on GPU %d (%s), agent at %s\n",
              o.clients, g.gpu, cuda::LibraryName().c_str(), (*agent)->socket_path().c_str());
  std::printf(
      "# allreduce f32 sum; times are medians in us; device ops: submit -> stream synchronized\n");
  std::printf("# %12s %10s", "size", "host");
  for (const std::string& m : g.modes) std::printf(" %10s", m.c_str());
  std::printf(" %10s %14s %6s\n", "copy", "staging_ratio", "check");
  nlohmann::json rows = nlohmann::json::array();
  int failures = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const GpuSize& s = r.sizes[i];
    failures += s.check_failed != 0;
    std::printf("  %12llu %10.1f", static_cast<unsigned long long>(s.bytes), s.host_us);
    nlohmann::json row = {
        {"system", "outrider"}, {"op", "allreduce"},           {"device", "cuda"},
        {"bytes", s.bytes},     {"clients", o.clients},        {"iters", s.iters},
        {"host_us", s.host_us}, {"pinned_copy_us", s.copy_us}, {"check", s.check_failed == 0}};
    double ratio = 0;
    for (size_t m = 0; m < g.modes.size(); ++m) {
      std::printf(" %10.1f", s.device_us[m]);
      row[g.modes[m] + "_us"] = s.device_us[m];
      // What staging adds to the op (its two copies) against the same two copies done plainly.
      if (g.modes[m] == "staging" && s.device_us[m] > s.host_us)
        ratio = s.copy_us / (s.device_us[m] - s.host_us);
    }
    char ratio_text[32] = "-";
    if (ratio > 0) {
      std::snprintf(ratio_text, sizeof(ratio_text), "%.2f", ratio);
      row["staging_copy_ratio"] = ratio;
    }
    std::printf(" %10.1f %14s %6s\n", s.copy_us, ratio_text, s.check_failed ? "WRONG" : "ok");
    rows.push_back(row);
  }
  if (o.rtt_iters > 0) {
    std::printf("#\n# 8-byte allreduce round trip (median, us): host %.1f", r.rtt_host_us);
    nlohmann::json row = {{"system", "outrider"},    {"op", "allreduce"}, {"device", "cuda"},
                          {"metric", "rtt"},         {"bytes", 8},        {"clients", o.clients},
                          {"host_us", r.rtt_host_us}};
    for (size_t m = 0; m < g.modes.size(); ++m) {
      std::printf("  %s %.1f (fences)", g.modes[m].c_str(), r.rtt_device_us[m]);
      row[g.modes[m] + "_us"] = r.rtt_device_us[m];
    }
    std::printf("\n");
    rows.push_back(row);
  }
  std::printf(
      "# copy: device -> pinned host -> device of the same size on one stream (the baseline, this "
      "run)\n"
      "# staging_ratio = copy / (staging - host): the staging copies' speed against the plain "
      "pinned copy\n");
  return FinishGpuRun(common, rows, failures);
}

#else

int RunGpu(const CommonOptions&, const LocalOptions&, const GpuOptions&) {
  std::fprintf(stderr,
               "outrider-bench: built without CUDA (OUTRIDER_WITH_CUDA=OFF): --device cuda is not "
               "available\n");
  return 2;
}

#endif

}  // namespace outrider::bench
