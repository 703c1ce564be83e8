// Training-step demo through the node agents.
#include "tools/bench/step_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ipc/protocol.h"
#include "tools/bench/sparse_ids.h"

namespace outrider::bench {

int RunStep(const CommonOptions& common, const StepOptions& o) {
  if (o.rows == 0 || o.dim == 0 || o.density <= 0 || o.density > 1 || o.steps < 1) {
    std::fprintf(stderr, "outrider-bench: need rows, dim, steps >= 1 and density in (0, 1]\n");
    return 2;
  }
  outrider_client_t* c = ConnectLaunched(common);
  if (c == nullptr) return 1;
  const int rank = outrider_rank(c), world = outrider_world_size(c);
  const int nodes = std::max(1, world / std::max(1, outrider_local_world_size(c)));
  uint64_t nnz = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(o.density * static_cast<double>(o.rows))));
  SparseGradient g =
      MakeSparseGradient(c, ZipfTable(o.rows, o.zipf).Draw(nnz, 1, rank), o.rows, o.dim, world);
  std::fill_n(g.values, g.ids.size() * o.dim,
              1.0f);  // each row sums to the count of ranks that touched it
  const std::vector<int64_t>& ids = g.ids;
  // The dense path takes the table as a dense gradient (zeros outside the rank's rows).
  void* table = nullptr;
  Must(c, outrider_region_create(c, o.rows * o.dim * 4, &table), "region_create");
  std::vector<float*> buckets;
  for (uint64_t b : o.buckets) {
    auto* p = static_cast<float*>(outrider_alloc(c, b));
    if (p == nullptr) Must(c, OUTRIDER_ERR_RESOURCE_EXHAUSTED, "alloc bucket");
    buckets.push_back(p);
  }
  if (rank == 0) {
    std::printf(
        "# outrider-bench step: %d ranks on %d nodes; per step %zu dense buckets (%s) + an "
        "embedding "
        "gradient of %llu x %llu f32 (%s), %llu rows per rank (Zipf %.2f)\n",
        world, nodes, o.buckets.size(),
        [&] {
          uint64_t t = 0;
          for (uint64_t b : o.buckets) t += b;
          return FormatBytes(t);
        }()
            .c_str(),
        static_cast<unsigned long long>(o.rows), static_cast<unsigned long long>(o.dim),
        FormatBytes(o.rows * o.dim * 4).c_str(), static_cast<unsigned long long>(nnz), o.zipf);
    std::printf("# %-12s %-10s %14s %14s %16s %8s\n", "sparse sync", "ran", "step(us)", "vs auto",
                "sparse wire(B)", "check");
  }
  nlohmann::json rows = nlohmann::json::array();
  double auto_time = 0;
  int wrong = 0;
  for (const std::string& mode : o.modes) {
    std::vector<double> times;
    uint32_t ran = 0;
    uint64_t wire = 0;
    for (int s = 0; s < o.steps + 1; ++s) {  // the first step warms up
      for (size_t b = 0; b < buckets.size(); ++b) std::fill_n(buckets[b], o.buckets[b] / 4, 1.0f);
      outrider_op_t h;
      Must(c, outrider_barrier(c, nullptr, &h), "barrier");
      Must(c, outrider_wait(c, h, 600000), "wait");
      double t0 = NowUs();
      std::vector<outrider_op_t> ops;
      for (size_t b = buckets.size(); b-- > 0;) {  // backward order: last layer first
        outrider_op_options_t opts;
        outrider_op_options_init(&opts);
        opts.key = outrider_key(("bucket" + std::to_string(b)).c_str());
        Must(c,
             outrider_allreduce(c, buckets[b], buckets[b], o.buckets[b] / 4, OUTRIDER_F32,
                                OUTRIDER_SUM, &opts, &h),
             "allreduce");
        ops.push_back(h);
      }
      outrider_op_options_t eo;
      outrider_op_options_init(&eo);
      eo.key = outrider_key("embedding");
      outrider_op_result_t res{};
      res.size = sizeof(res);
      if (mode == "dense") {
        auto* t = static_cast<float*>(table);
        std::memset(t, 0, o.rows * o.dim * 4);
        for (int64_t id : ids) std::fill_n(t + static_cast<uint64_t>(id) * o.dim, o.dim, 1.0f);
        Must(c, outrider_allreduce(c, t, t, o.rows * o.dim, OUTRIDER_F32, OUTRIDER_SUM, &eo, &h),
             "allreduce");
        for (outrider_op_t op : ops) Must(c, outrider_wait(c, op, 600000), "wait");
        Must(c, outrider_wait(c, h, 600000), "wait");
      } else {
        outrider_sparse_t sp =
            g.Args(mode == "auto" ? OUTRIDER_SPARSE_AUTO : OUTRIDER_SPARSE_ALLGATHER);
        Must(c, outrider_sparse_allreduce(c, &sp, &eo, &h), "sparse_allreduce");
        for (outrider_op_t op : ops) Must(c, outrider_wait(c, op, 600000), "wait");
        Must(c, outrider_wait_result(c, h, 600000, &res), "wait");
        ran = res.algo;
        wire = res.wire_bytes_sent;
      }
      if (s > 0) times.push_back(NowUs() - t0);
      for (size_t b = 0; b < buckets.size(); ++b)
        wrong += buckets[b][0] != static_cast<float>(world);
      if (mode != "dense") {
        // Every row of the union sums to the number of ranks that touched it: between 1 and world.
        const float* v = g.out_values;
        for (uint64_t r = 0; r < res.result_rows;
             r += std::max<uint64_t>(1, res.result_rows / 64)) {
          wrong += v[r * o.dim] < 1.0f || v[r * o.dim] > static_cast<float>(world);
        }
      }
    }
    double t = Median(times);
    if (mode == "auto" || auto_time == 0) auto_time = auto_time == 0 ? t : auto_time;
    if (rank == 0) {
      std::string ran_name =
          mode == "dense" ? "ring"
                          : std::string(ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(ran)));
      std::printf("  %-12s %-10s %14.1f %13.2fx %16s %8s\n", mode.c_str(), ran_name.c_str(), t,
                  t / auto_time, mode == "dense" ? "-" : std::to_string(wire).c_str(),
                  wrong ? "WRONG" : "ok");
      rows.push_back({{"system", "outrider"},
                      {"op", "train_step"},
                      {"algo", mode},
                      {"algo_ran", ran_name},
                      {"bytes", o.rows * o.dim * 4},
                      {"time_us", t},
                      {"nodes", nodes},
                      {"ranks", world},
                      {"steps", o.steps},
                      {"check", wrong == 0}});
    }
  }
  outrider_disconnect(c);
  if (rank == 0 && !WriteJsonOrSay(common, rows)) return 1;
  if (wrong) {
    std::fprintf(stderr, "outrider-bench: rank %d saw %d wrong values\n", rank, wrong);
    return 1;
  }
  return 0;
}

}  // namespace outrider::bench
