// Per-rank collective benchmark through the node agent.
#include "tools/bench/collective_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tools/bench/trace.h"

namespace outrider::bench {
namespace {

double EnvDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::atof(v);
}

double BusFactor(const std::string& op, int n) {
  if (n <= 1) return 1.0;
  if (op == "allreduce") return 2.0 * (n - 1) / n;
  if (op == "allgather" || op == "reducescatter" || op == "alltoall")
    return static_cast<double>(n - 1) / n;
  return 1.0;
}

int Iters(uint64_t bytes, int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(
      std::clamp<uint64_t>((uint64_t{256} << 20) / std::max<uint64_t>(bytes, 1), 10, 200));
}

}  // namespace

int RunCollective(const CommonOptions& common, const CollectiveOptions& o) {
  if (o.op != "allreduce" && o.op != "broadcast" && o.op != "allgather" &&
      o.op != "reducescatter" && o.op != "alltoall") {
    std::fprintf(stderr, "outrider-bench: unknown collective '%s'\n", o.op.c_str());
    return 2;
  }
  outrider_client_t* c = ConnectLaunched(common);
  if (c == nullptr) return 1;
  const int rank = outrider_rank(c), world = outrider_world_size(c);
  const int nodes = static_cast<int>(
      EnvDouble("OUTRIDER_NODES", world / std::max(1, outrider_local_world_size(c))));
  const double rate = EnvDouble("OUTRIDER_RATE_GBIT", 0);
  uint64_t max_send = o.max_bytes * (o.op == "reducescatter" ? world : 1);
  uint64_t max_recv = o.max_bytes * (o.op == "allgather" ? world : 1);
  void *send = nullptr, *recv = nullptr;
  Must(c, outrider_region_create(c, max_send, &send), "region_create");
  Must(c, outrider_region_create(c, max_recv, &recv), "region_create");
  auto submit = [&](uint64_t bytes, outrider_op_t* h) {
    uint64_t count = bytes / 4;
    if (o.op == "allreduce")
      return outrider_allreduce(c, send, recv, count, OUTRIDER_F32, OUTRIDER_SUM, nullptr, h);
    if (o.op == "broadcast") return outrider_broadcast(c, recv, count, OUTRIDER_F32, 0, nullptr, h);
    if (o.op == "allgather")
      return outrider_allgather(c, send, recv, count, OUTRIDER_F32, nullptr, h);
    if (o.op == "alltoall") {
      // nccl-tests convention: `bytes` is each rank's whole buffer, world equal blocks.
      std::vector<int64_t> counts(static_cast<size_t>(world), static_cast<int64_t>(count / world));
      return outrider_alltoallv(c, send, counts.data(), recv, counts.data(), OUTRIDER_F32, nullptr,
                                h);
    }
    return outrider_reduce_scatter(c, send, recv, count, OUTRIDER_F32, OUTRIDER_SUM, nullptr, h);
  };
  nlohmann::json rows = nlohmann::json::array();
  if (rank == 0) {
    std::printf(
        "# outrider-bench %s: %d ranks on %d nodes%s\n", o.op.c_str(), world, nodes,
        rate > 0 ? (", links " + std::to_string(rate).substr(0, 4) + " Gbit/s").c_str() : "");
    std::printf("# %12s %12s %6s %6s %12s %12s %12s %6s\n", "size", "count", "type", "redop",
                "time(us)", "algbw(GB/s)", "busbw(GB/s)", "check");
  }
  int wrong_total = 0;
  for (uint64_t bytes = std::max<uint64_t>(o.min_bytes / 4 * 4, 4); bytes <= o.max_bytes;
       bytes *= static_cast<uint64_t>(std::max(2, o.factor))) {
    uint64_t count = bytes / 4;
    auto* s = static_cast<float*>(send);
    for (uint64_t i = 0; i < count * (o.op == "reducescatter" ? world : 1); ++i)
      s[i] = static_cast<float>(rank + 1);
    if (o.op == "broadcast") {
      for (uint64_t i = 0; i < count; ++i) static_cast<float*>(recv)[i] = rank == 0 ? 7.0f : 0.0f;
    }
    outrider_op_t h;
    for (int w = 0; w < std::max(1, o.warmup); ++w) {
      Must(c, submit(bytes, &h), o.op.c_str());
      Must(c, outrider_wait(c, h, 120000), "wait");
    }
    // Check the warm-up's result.
    const auto* r = static_cast<const float*>(recv);
    float want = o.op == "broadcast"   ? 7.0f
                 : o.op == "allgather" ? 0.0f
                                       : static_cast<float>(world * (world + 1) / 2);
    int wrong = 0;
    if (o.op == "alltoall") {
      uint64_t block = count / static_cast<uint64_t>(world);
      for (int src = 0; src < world; ++src)
        wrong += block > 0 && r[static_cast<uint64_t>(src) * block] != static_cast<float>(src + 1);
    } else if (o.op == "allgather") {
      for (int src = 0; src < world; ++src)
        wrong += r[static_cast<uint64_t>(src) * count] != static_cast<float>(src + 1);
    } else {
      for (uint64_t i = 0; i < count; i += std::max<uint64_t>(1, count / 1024))
        wrong += r[i] != want;
    }
    wrong_total += wrong;
    int iters = Iters(bytes, o.iters);
    std::vector<double> times;
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, 120000), "wait");
    for (int i = 0; i < iters; ++i) {
      double t0 = NowUs();
      Must(c, submit(bytes, &h), o.op.c_str());
      Must(c, outrider_wait(c, h, 120000), "wait");
      times.push_back(NowUs() - t0);
    }
    double t = Median(times);
    double algbw = static_cast<double>(bytes) / (t * 1e3);
    double busbw = algbw * BusFactor(o.op, world);
    if (rank == 0) {
      std::printf("  %12llu %12llu %6s %6s %12.1f %12.3f %12.3f %6s\n",
                  static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(count),
                  "f32", o.op == "allreduce" || o.op == "reducescatter" ? "sum" : "-", t, algbw,
                  busbw, wrong ? "WRONG" : "ok");
      nlohmann::json row = {{"system", "outrider"}, {"op", o.op},          {"algo", nullptr},
                            {"bytes", bytes},       {"count", count},      {"dtype", "f32"},
                            {"time_us", t},         {"algbw_gbps", algbw}, {"busbw_gbps", busbw},
                            {"nodes", nodes},       {"ranks", world},      {"iters", iters},
                            {"check", wrong == 0}};
      row["rate_gbit"] = rate > 0 ? nlohmann::json(rate) : nlohmann::json(nullptr);
      if (common.trace) {
        std::string kind = o.op == "reducescatter" ? "reduce_scatter"
                           : o.op == "alltoall"    ? "alltoallv"
                                                   : o.op;
        nlohmann::json t = TraceLastOps(common.http_url, kind, o.op == "alltoall" ? 0 : count,
                                        static_cast<size_t>(iters));
        if (!t.is_null()) row["trace"] = t;
      }
      rows.push_back(row);
    }
  }
  if (o.latency_iters > 0 && o.op == "allreduce") {
    outrider_op_t h;
    std::vector<double> lat;
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, 120000), "wait");
    for (int i = 0; i < o.latency_iters; ++i) {
      double t0 = NowUs();
      Must(c, outrider_allreduce(c, send, recv, 2, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h),
           "allreduce");
      Must(c, outrider_wait(c, h, 120000), "wait");
      lat.push_back(NowUs() - t0);
    }
    if (rank == 0) {
      double p50 = Percentile(lat, 50), p99 = Percentile(lat, 99);
      std::printf("# 8-byte allreduce latency (%d ops, rank 0): p50 %.1f us  p99 %.1f us\n",
                  o.latency_iters, p50, p99);
      nlohmann::json row = {{"system", "outrider"},
                            {"op", "allreduce"},
                            {"algo", nullptr},
                            {"metric", "latency"},
                            {"bytes", 8},
                            {"time_us", p50},
                            {"p50_us", p50},
                            {"p99_us", p99},
                            {"nodes", nodes},
                            {"ranks", world},
                            {"iters", o.latency_iters}};
      row["rate_gbit"] = rate > 0 ? nlohmann::json(rate) : nlohmann::json(nullptr);
      rows.push_back(row);
    }
  }
  outrider_disconnect(c);
  if (rank == 0 && !WriteJsonOrSay(common, rows)) return 1;
  if (wrong_total) {
    std::fprintf(stderr, "outrider-bench: rank %d saw %d wrong values\n", rank, wrong_total);
    return 1;
  }
  return 0;
}

}  // namespace outrider::bench
