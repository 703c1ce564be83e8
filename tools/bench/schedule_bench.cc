// Training-step replay through the node agents: FIFO against the priority scheduler.
#include "tools/bench/schedule_bench.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tools/bench/sparse_ids.h"
#include "tools/bench/trace.h"

namespace outrider::bench {
namespace {

void SleepUntilUs(double t_us) {
  double now = NowUs();
  if (t_us <= now) return;
  timespec ts{};
  double d = t_us - now;
  ts.tv_sec = static_cast<time_t>(d / 1e6);
  ts.tv_nsec = static_cast<long>(std::fmod(d, 1e6) * 1e3);
  nanosleep(&ts, nullptr);
}

struct StepResult {
  double iteration_us = 0, first_ready_us = 0;
  // How long the forward pass waited for bucket gradients in all (each layer from when its
  // compute could have started), and the bucket it waited for longest.
  double forward_wait_us = 0, worst_wait_us = 0;
  size_t worst_bucket = 0;
};

enum class Mode { kFifo, kPriority, kDemand };
const char* const kModeNames[3] = {"fifo", "priority", "demand"};

}  // namespace

int RunSchedule(const CommonOptions& common, const ScheduleOptions& o) {
  if (o.rounds < 1 || o.backward_ms < 0 || o.forward_ms < 0 || o.buckets_mib.empty() ||
      o.rows == 0 || o.dim == 0 || o.density <= 0 || o.density > 1) {
    std::fprintf(stderr, "outrider-bench: bad schedule options\n");
    return 2;
  }
  outrider_client_t* c = ConnectLaunched(common);
  if (c == nullptr) return 1;
  const int rank = outrider_rank(c), world = outrider_world_size(c);
  const int nodes = std::max(1, world / std::max(1, outrider_local_world_size(c)));
  const size_t nb = o.buckets_mib.size();
  std::vector<float*> buckets(nb);
  uint64_t total = 0;
  for (size_t k = 0; k < nb; ++k) {
    void* p = nullptr;
    Must(c, outrider_region_create(c, o.buckets_mib[k] << 20, &p), "region_create");
    buckets[k] = static_cast<float*>(p);
    std::fill_n(buckets[k], (o.buckets_mib[k] << 20) / 4, 1.0f);
    total += o.buckets_mib[k] << 20;
  }
  uint64_t nnz = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(o.density * static_cast<double>(o.rows))));
  SparseGradient g =
      MakeSparseGradient(c, ZipfTable(o.rows, 1.05).Draw(nnz, 1, rank), o.rows, o.dim, world);
  std::fill_n(g.values, g.ids.size() * o.dim, 1.0f);
  // The next batch's rows (same law, next draw): what the forward pass after this step looks up.
  std::vector<int64_t> next = ZipfTable(o.rows, 1.05).Draw(nnz, 2, rank);
  auto* demand = static_cast<int64_t*>(outrider_alloc(c, next.size() * 8));
  if (demand == nullptr) Must(c, OUTRIDER_ERR_RESOURCE_EXHAUSTED, "alloc");
  std::copy(next.begin(), next.end(), demand);
  auto submit_embedding = [&](int32_t priority, bool with_demand, outrider_op_t* h) {
    outrider_sparse_t s = g.Args(OUTRIDER_SPARSE_AUTO);
    if (with_demand) {
      s.demand_ids = demand;
      s.demand_nnz = next.size();
    }
    outrider_op_options_t opts;
    outrider_op_options_init(&opts);
    opts.key = outrider_key("embedding");
    opts.priority = priority;
    Must(c, outrider_sparse_allreduce(c, &s, &opts, h), "sparse_allreduce");
  };
  auto barrier = [&] {
    outrider_op_t h;
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, 600000), "wait");
  };
  const double back_us = o.backward_ms * 1000, fwd_us = o.forward_ms * 1000;
  // One step: backward (bucket nb-1 first, the embedding last, back_us of compute per layer), then
  // forward (embedding, then bucket 0, 1, ...; fwd_us per layer, each waiting for its gradients).
  // kDemand: the embedding op carries the next batch's rows as demand; the forward pass starts
  // once those rows are in (outrider_wait_demand) and the whole op must be done by the step's end.
  auto step = [&](Mode mode) {
    bool fifo = mode == Mode::kFifo;
    barrier();
    int32_t prio = fifo ? 1 : 0;  // equal explicit priorities: submission order; 0: no hint
    std::vector<outrider_op_t> h(nb);
    double t0 = NowUs();
    for (size_t i = 0; i < nb; ++i) {
      size_t k = nb - 1 - i;
      SleepUntilUs(t0 + static_cast<double>(i + 1) * back_us);
      outrider_op_options_t opts;
      outrider_op_options_init(&opts);
      opts.key = outrider_key(("bucket" + std::to_string(k)).c_str());
      opts.priority = prio;
      Must(c,
           outrider_allreduce(c, buckets[k], buckets[k], (o.buckets_mib[k] << 20) / 4, OUTRIDER_F32,
                              OUTRIDER_SUM, &opts, &h[k]),
           "allreduce");
    }
    SleepUntilUs(t0 + static_cast<double>(nb + 1) * back_us);
    outrider_op_t eh;
    double te = NowUs();
    submit_embedding(prio, mode == Mode::kDemand, &eh);
    if (mode == Mode::kDemand) {
      Must(c, outrider_wait_demand(c, eh, 600000, nullptr), "wait_demand");
    } else {
      Must(c, outrider_wait(c, eh, 600000), "wait");
    }
    double ready = NowUs();
    double f_end = ready + fwd_us;  // the embedding layer's forward compute
    StepResult r;
    r.first_ready_us = ready - te;
    for (size_t k = 0; k < nb; ++k) {
      SleepUntilUs(f_end);
      Must(c, outrider_wait(c, h[k], 600000), "wait");
      double waited = std::max(0.0, NowUs() - f_end);
      r.forward_wait_us += waited;
      if (waited > r.worst_wait_us) {
        r.worst_wait_us = waited;
        r.worst_bucket = k;
      }
      f_end = std::max(f_end, NowUs()) + fwd_us;
    }
    SleepUntilUs(f_end);
    if (mode == Mode::kDemand) {
      Must(c, outrider_wait(c, eh, 600000), "wait");
      f_end = std::max(f_end, NowUs());
    }
    r.iteration_us = f_end - t0;
    return r;
  };
  // The embedding op alone: until it is done, and (with demand) until the demanded rows are in.
  auto standalone = [&](bool with_demand) {
    barrier();
    outrider_op_t eh;
    double t = NowUs();
    submit_embedding(0, with_demand, &eh);
    if (with_demand) Must(c, outrider_wait_demand(c, eh, 600000, nullptr), "wait_demand");
    double ready = NowUs() - t;
    Must(c, outrider_wait(c, eh, 600000), "wait");
    return with_demand ? ready : NowUs() - t;
  };
  standalone(false);  // warm up
  std::vector<double> alone, alone_demand, it[3], first[3];
  for (int r = 0; r < o.rounds; ++r) {
    alone.push_back(standalone(false));
    if (common.trace) {  // the same op with the links idle, to hold the steps' traces against
      std::printf("# rank %d round %d alone, embedding done after %.1f ms:", rank, r,
                  alone.back() / 1e3);
      TraceLastOps(common.http_url, "sparse_allreduce", 0, 1, outrider_key("embedding"));
    }
    alone_demand.push_back(standalone(true));
    for (Mode m : {Mode::kFifo, Mode::kPriority, Mode::kDemand}) {
      StepResult x = step(m);
      it[static_cast<int>(m)].push_back(x.iteration_us);
      first[static_cast<int>(m)].push_back(x.first_ready_us);
      if (common.trace) {
        // Where this rank's agent spent the step's embedding op (its /status trace). Every rank
        // prints its own node's: the launcher streams rank 0's, the others are in the rank logs
        // (tools/cluster/run.sh --keep-logs), and an op waits for its slowest node.
        std::printf(
            "# rank %d round %d %s: iteration %.1f ms, the forward pass waited %.1f ms for "
            "buckets (longest for bucket %zu, %.1f ms)\n",
            rank, r, kModeNames[static_cast<int>(m)], x.iteration_us / 1e3, x.forward_wait_us / 1e3,
            x.worst_bucket, x.worst_wait_us / 1e3);
        std::printf("# rank %d round %d %s, embedding ready after %.1f ms:", rank, r,
                    kModeNames[static_cast<int>(m)], x.first_ready_us / 1e3);
        TraceLastOps(common.http_url, "sparse_allreduce", 0, 1, outrider_key("embedding"));
      }
    }
  }
  bool wrong = false;
  for (size_t k = 0; k < nb; ++k) wrong |= buckets[k][0] == 0.0f;
  outrider_disconnect(c);
  if (rank != 0) return wrong ? 1 : 0;
  double a = Median(alone), ad = Median(alone_demand);
  std::printf(
      "# outrider-bench schedule: %d ranks on %d nodes; %zu buckets (%s) produced over a %.0f ms "
      "backward pass, then a "
      "%llu x %llu sparse embedding gradient; forward %.0f ms per layer; medians of %d interleaved "
      "rounds\n",
      world, nodes, nb, FormatBytes(total).c_str(), o.backward_ms * static_cast<double>(nb + 1),
      static_cast<unsigned long long>(o.rows), static_cast<unsigned long long>(o.dim), o.forward_ms,
      o.rounds);
  std::printf("# embedding alone: %.1f us (its demanded rows alone: %.1f us)\n", a, ad);
  std::printf(
      "# demand = priority + the next batch's rows demanded; its first_ready is when those rows "
      "are in\n");
  std::printf("# %-9s %14s %16s %14s %18s\n", "algo", "iteration(us)", "first_ready(us)",
              "first/alone", "first/demand_alone");
  nlohmann::json rows = nlohmann::json::array();
  for (int m = 0; m < 3; ++m) {
    double t = Median(it[m]), f = Median(first[m]);
    std::printf("  %-9s %14.1f %16.1f %14.2f %18s\n", kModeNames[m], t, f, f / a,
                m == 2 ? std::to_string(f / ad).substr(0, 4).c_str() : "-");
    nlohmann::json row = {
        {"system", "outrider"}, {"op", "train_step"}, {"algo", kModeNames[m]},
        {"bytes", total},       {"time_us", t},       {"iteration_us", t},
        {"first_ready_us", f},  {"standalone_us", a}, {"first_ready_over_standalone", f / a},
        {"nodes", nodes},       {"ranks", world},     {"rounds", o.rounds}};
    if (m == 2) {
      row["demand_standalone_us"] = ad;
      row["first_ready_over_demand_standalone"] = f / ad;
    }
    rows.push_back(row);
  }
  std::printf("  iteration speed-up over fifo: priority %.2fx, demand %.2fx\n",
              Median(it[0]) / Median(it[1]), Median(it[0]) / Median(it[2]));
  if (!WriteJsonOrSay(common, rows)) return 1;
  return wrong ? 1 : 0;
}

}  // namespace outrider::bench
