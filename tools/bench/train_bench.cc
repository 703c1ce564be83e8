// Training-like loop with verified results and a per-op summary table.
#include "tools/bench/train_bench.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace outrider::bench {
namespace {

constexpr int kMaxSamples = 8192;
enum Kind { kBroadcast, kAllreduce, kAllgather, kBarrier, kStep, kNumKinds };
const char* kKindNames[] = {"broadcast", "allreduce", "allgather", "barrier", "step"};

struct Series {
  int n;
  uint64_t bytes;  // per call
  double us[kMaxSamples];
};

struct TrainShared {
  Series series[kNumKinds];
  int wrong[64];
};

void Record(Series& s, uint64_t bytes, double us) {
  s.bytes = bytes;
  if (s.n < kMaxSamples) s.us[s.n++] = us;
}

int RankMain(int rank, const std::string& socket, const std::string& job, const TrainOptions& o,
             const std::vector<uint64_t>& bucket_bytes, TrainShared* out) {
  outrider_client_t* c = ConnectRank(socket, job, rank, o.clients);
  bool record = rank == 0;
  std::vector<float*> params, grads;
  for (uint64_t b : bucket_bytes) {
    auto* p = static_cast<float*>(outrider_alloc(c, b));
    auto* g = static_cast<float*>(outrider_alloc(c, b));
    if (p == nullptr || g == nullptr) Must(c, OUTRIDER_ERR_RESOURCE_EXHAUSTED, "outrider_alloc");
    params.push_back(p);
    grads.push_back(g);
  }
  int wrong = 0;
  // Initial parameters: rank 0's values win everywhere.
  for (size_t i = 0; i < params.size(); ++i) {
    uint64_t n = bucket_bytes[i] / 4;
    for (uint64_t k = 0; k < n; ++k)
      params[i][k] = rank == 0 ? static_cast<float>(k % 1000) * 0.001f : -1.0f;
    outrider_op_t h;
    double t0 = NowUs();
    Must(c, outrider_broadcast(c, params[i], n, OUTRIDER_F32, 0, nullptr, &h), "broadcast");
    Must(c, outrider_wait(c, h, 60000), "wait(broadcast)");
    if (record) Record(out->series[kBroadcast], bucket_bytes[i], NowUs() - t0);
    for (uint64_t k = 0; k < n; k += 997)
      wrong += params[i][k] != static_cast<float>(k % 1000) * 0.001f;
  }
  auto* loss = static_cast<float*>(outrider_alloc(c, sizeof(float)));
  auto* losses =
      static_cast<float*>(outrider_alloc(c, sizeof(float) * static_cast<size_t>(o.clients)));
  std::vector<outrider_op_t> handles(bucket_bytes.size());
  std::vector<double> started(bucket_bytes.size());
  const int L = o.clients;
  for (int step = 0; step < o.steps; ++step) {
    double step_t0 = NowUs();
    // Backward pass: the last bucket's gradients are ready first and go first.
    for (size_t j = bucket_bytes.size(); j-- > 0;) {
      uint64_t n = bucket_bytes[j] / 4;
      float v = 0.5f * static_cast<float>((rank + 1) * (step + 1));
      for (uint64_t k = 0; k < n; ++k) grads[j][k] = v;
      outrider_op_options_t opts;
      outrider_op_options_init(&opts);
      char name[32];
      std::snprintf(name, sizeof(name), "bucket%zu", j);
      opts.key = outrider_key(name);
      started[j] = NowUs();
      Must(c,
           outrider_allreduce(c, grads[j], grads[j], n, OUTRIDER_F32, OUTRIDER_AVG, &opts,
                              &handles[j]),
           "allreduce");
    }
    for (size_t j = bucket_bytes.size(); j-- > 0;) {
      Must(c, outrider_wait(c, handles[j], 60000), "wait(allreduce)");
      if (record) Record(out->series[kAllreduce], bucket_bytes[j], NowUs() - started[j]);
      // Mean of 0.5*(r+1)*(step+1) over r = 0..L-1.
      float want = 0.5f * static_cast<float>(step + 1) * static_cast<float>(L + 1) / 2.0f;
      uint64_t n = bucket_bytes[j] / 4;
      for (uint64_t k = 0; k < n; k += 4099) wrong += grads[j][k] != want;
      for (uint64_t k = 0; k < n; ++k) params[j][k] -= 0.01f * grads[j][k];
    }
    *loss = 1.0f / static_cast<float>(step + 1) + 0.01f * static_cast<float>(rank);
    outrider_op_t h;
    double t0 = NowUs();
    Must(c, outrider_allgather(c, loss, losses, 1, OUTRIDER_F32, nullptr, &h), "allgather");
    Must(c, outrider_wait(c, h, 60000), "wait(allgather)");
    if (record) Record(out->series[kAllgather], sizeof(float) * L, NowUs() - t0);
    for (int r = 0; r < L; ++r) {
      wrong += losses[r] != 1.0f / static_cast<float>(step + 1) + 0.01f * static_cast<float>(r);
    }
    if (record) Record(out->series[kStep], 0, NowUs() - step_t0);
  }
  outrider_op_t h;
  double t0 = NowUs();
  Must(c, outrider_barrier(c, nullptr, &h), "barrier");
  Must(c, outrider_wait(c, h, 60000), "wait(barrier)");
  if (record) Record(out->series[kBarrier], 0, NowUs() - t0);
  out->wrong[rank] = wrong;
  outrider_disconnect(c);
  return 0;
}

}  // namespace

int RunTrain(const CommonOptions& common, const TrainOptions& o) {
  if (o.clients < 1 || o.clients > 64 || o.steps < 1) {
    std::fprintf(stderr, "--clients must be in [1, 64] and --steps >= 1\n");
    return 2;
  }
  std::vector<uint64_t> bucket_bytes;
  for (const auto& b : o.buckets) {
    auto bytes = ParseBytes(b);
    if (!bytes.ok() || *bytes < 4) {
      std::fprintf(stderr, "bad --buckets entry '%s'\n", b.c_str());
      return 2;
    }
    bucket_bytes.push_back(*bytes / 4 * 4);
  }
  auto agent = BenchAgent::Start(common);
  if (!agent.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n", agent.status().ToString().c_str());
    return 1;
  }
  uint64_t step_bytes = 0;
  for (uint64_t b : bucket_bytes) step_bytes += b;
  std::printf(
      "# outrider-bench train: %d trainer processes, %d steps, %zu gradient buckets (%s per "
      "step)\n",
      o.clients, o.steps, bucket_bytes.size(), FormatBytes(step_bytes).c_str());
  Shared<TrainShared> shared(1);
  std::string job = "train-" + std::to_string(::getpid());
  double t0 = NowUs();
  Status st = RunRanks(o.clients, [&](int rank) {
    return RankMain(rank, (*agent)->socket_path(), job, o, bucket_bytes, shared.get());
  });
  double total_s = (NowUs() - t0) / 1e6;
  if (!st.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n%s", st.ToString().c_str(),
                 (*agent)->LogTail().c_str());
    return 1;
  }
  int wrong = 0;
  for (int r = 0; r < o.clients; ++r) wrong += shared.get()->wrong[r];
  nlohmann::json rows = nlohmann::json::array();
  std::printf("\n  %-10s %7s %12s %10s %10s %12s\n", "op", "calls", "bytes/call", "p50 (ms)",
              "p99 (ms)", "algbw (GB/s)");
  for (int k = 0; k < kNumKinds; ++k) {
    const Series& s = shared.get()->series[k];
    if (s.n == 0) continue;
    std::vector<double> v(s.us, s.us + s.n);
    double p50 = Median(v), p99 = Percentile(v, 99);
    double mean_bytes = static_cast<double>(
        k == kAllreduce || k == kBroadcast ? step_bytes / bucket_bytes.size() : s.bytes);
    double algbw = (k == kStep || k == kBarrier) ? 0 : mean_bytes / (p50 * 1e3);
    char bw[32] = "-";
    if (algbw > 0) std::snprintf(bw, sizeof(bw), "%.3g", algbw);
    std::string per_call = k == kStep      ? FormatBytes(step_bytes)
                           : k == kBarrier ? "-"
                                           : FormatBytes(static_cast<uint64_t>(mean_bytes));
    std::printf("  %-10s %7d %12s %10.3f %10.3f %12s\n", kKindNames[k], s.n, per_call.c_str(),
                p50 / 1e3, p99 / 1e3, bw);
    rows.push_back({{"system", "outrider"},
                    {"op", kKindNames[k]},
                    {"algo", "local"},
                    {"bytes", k == kStep ? step_bytes : static_cast<uint64_t>(mean_bytes)},
                    {"time_us", p50},
                    {"p99_us", p99},
                    {"calls", s.n},
                    {"nodes", 1},
                    {"clients", o.clients}});
  }
  std::printf("\n  results verified on every rank: %s; wall time %.2f s\n",
              wrong == 0 ? "all correct" : "MISMATCHES", total_s);
  std::string stopped = (*agent)->Stop();
  if (!stopped.empty()) std::printf("  %s\n", stopped.c_str());
  if (!WriteJsonOrSay(common, rows)) return 1;
  if (wrong != 0) {
    std::fprintf(stderr, "outrider-bench: %d wrong values\n", wrong);
    return 1;
  }
  return 0;
}

}  // namespace outrider::bench
