// Sparse allreduce benchmark through the node agents, and the byte simulator.
#include "tools/bench/sparse_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "ipc/protocol.h"
#include "tools/bench/sparse_ids.h"
#include "tools/bench/sparse_sim.h"
#include "tools/bench/trace.h"

namespace outrider::bench {
namespace {

double EnvDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::atof(v);
}

int AlgoValue(const std::string& name) {
  for (uint32_t a = 0; a < ipc::kNumSparseAlgos; ++a) {
    if (ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(a)) == name) return static_cast<int>(a);
  }
  return -1;
}

const SimAlgo* Find(const SimResult& r, ipc::SparseAlgo a) {
  for (const SimAlgo& s : r.algos) {
    if (s.algo == a) return &s;
  }
  return nullptr;
}

struct Stats {
  uint64_t sent, recv, predicted, algo;
};

// The host's CPU time so far (/proc/stat, all cores, in clock ticks): busy and in all. On an
// emulated cluster every node shares the host, so the host's busy share while an op runs says
// whether the emulation's CPU rather than its links could be the limit.
struct CpuTicks {
  uint64_t busy = 0, total = 0;
};
CpuTicks ReadCpu() {
  CpuTicks t;
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return t;
  unsigned long long v[8] = {};
  if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                  &v[4], &v[5], &v[6], &v[7]) == 8) {
    for (unsigned long long x : v) t.total += x;
    t.busy = t.total - v[3] - v[4];  // less idle and iowait
  }
  std::fclose(f);
  return t;
}

// How many ops fit each algorithm's turn: `turn_ms` over its slowest warm-up op on any rank
// (agreed by an allreduce, so every rank runs the same ops), at least 1 and at most 64.
std::vector<int> OpsPerTurn(outrider_client_t* c, const std::vector<double>& warm_us,
                            double turn_ms) {
  size_t n = warm_us.size();
  void* buf;
  Must(c, outrider_region_create(c, 2 * 8 * n, &buf), "region_create");
  auto* in = static_cast<int64_t*>(buf);
  int64_t* out = in + n;
  for (size_t a = 0; a < n; ++a) in[a] = std::max<int64_t>(1, std::llround(warm_us[a]));
  outrider_op_t h;
  Must(c, outrider_allreduce(c, in, out, n, OUTRIDER_I64, OUTRIDER_MAX, nullptr, &h), "allreduce");
  Must(c, outrider_wait(c, h, 600000), "wait");
  std::vector<int> reps(n);
  for (size_t a = 0; a < n; ++a) {
    reps[a] = static_cast<int>(
        std::clamp<int64_t>(std::llround(turn_ms * 1000.0 / static_cast<double>(out[a])), 1, 64));
  }
  Must(c, outrider_region_release(c, buf), "region_release");
  return reps;
}

}  // namespace

int RunSparse(const CommonOptions& common, const SparseOptions& o) {
  for (const std::string& a : o.algos) {
    if (AlgoValue(a) < 0) {
      std::fprintf(stderr, "outrider-bench: unknown sparse algorithm '%s'\n", a.c_str());
      return 2;
    }
  }
  if (o.rows == 0 || o.dim == 0 || o.density <= 0 || o.density > 1 || o.iters < 1) {
    std::fprintf(stderr, "outrider-bench: need rows, dim, iters >= 1 and density in (0, 1]\n");
    return 2;
  }
  if (o.turn_ms < 0 || (o.turn_ms > 0 && o.warmup < 1)) {
    std::fprintf(stderr,
                 "outrider-bench: --turn-ms must be >= 0 and needs --warmup >= 1 (the warm-up op "
                 "sizes the turns)\n");
    return 2;
  }
  outrider_client_t* c = ConnectLaunched(common);
  if (c == nullptr) return 1;
  const int rank = outrider_rank(c), world = outrider_world_size(c),
            local = outrider_local_world_size(c);
  const int nodes = std::max(1, world / std::max(1, local));
  const double rate = EnvDouble("OUTRIDER_RATE_GBIT", 0);
  const uint64_t nnz = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(o.density * static_cast<double>(o.rows))));
  SparseGradient g = MakeSparseGradient(c, ZipfTable(o.rows, o.zipf).Draw(nnz, o.seed, rank),
                                        o.rows, o.dim, world);
  for (size_t i = 0; i < g.ids.size(); ++i) {
    for (uint64_t k = 0; k < o.dim; ++k)
      g.values[i * o.dim + k] =
          0.25f * static_cast<float>((g.ids[i] + static_cast<int64_t>(k)) % 7 + rank);
  }
  void* stats_buf;
  Must(c, outrider_region_create(c, sizeof(Stats) * (static_cast<size_t>(world) + 1), &stats_buf),
       "region_create");
  // The time model's message round on this cluster: the median of back-to-back barriers (each one
  // message round between the agents once every rank is in).
  std::vector<double> barrier_us;
  for (int i = 0; i < 11; ++i) {
    outrider_op_t h;
    double t0 = NowUs();
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    Must(c, outrider_wait(c, h, 600000), "wait");
    if (i > 0) barrier_us.push_back(NowUs() - t0);
  }
  agent::sparse::TimeParams model;
  model.round_s = Median(barrier_us) * 1e-6;
  if (rate > 0) model.link_bytes_per_s = rate * 1e9 / 8;
  SimConfig sc;
  sc.time = model;
  sc.rows = o.rows;
  sc.dim = o.dim;
  sc.nodes = nodes;
  sc.local = local;
  sc.per_rank_nnz = nnz;
  sc.zipf_s = o.zipf;
  sc.seed = o.seed;
  sc.block_rows = o.block_rows;
  sc.chunk_bytes = o.chunk_bytes;
  SimResult sim;
  if (rank == 0) sim = Simulate(sc, ZipfSource(sc));
  if (rank == 0) {
    std::printf(
        "# outrider-bench sparse: %d ranks on %d nodes, table %llu x %llu f32 (%s), %llu rows per "
        "rank "
        "(Zipf %.2f)%s\n",
        world, nodes, static_cast<unsigned long long>(o.rows),
        static_cast<unsigned long long>(o.dim), FormatBytes(o.rows * o.dim * 4).c_str(),
        static_cast<unsigned long long>(nnz), o.zipf,
        rate > 0 ? (", links " + std::to_string(rate).substr(0, 4) + " Gbit/s").c_str() : "");
    std::printf("# union %llu rows (density %.4f per node, %.4f union)\n",
                static_cast<unsigned long long>(sim.union_rows), sim.density, sim.union_density);
    std::printf(
        "# time model (docs/design.md): link %.0f MB/s, message round %.0f us (median of 10 "
        "barriers), sums at %.0f MB/s\n",
        model.link_bytes_per_s / 1e6, model.round_s * 1e6, model.sum_bytes_per_s / 1e6);
    std::printf("# %-10s %-10s %12s %14s %14s %14s %8s %8s %10s %12s %9s %5s %6s\n", "algo", "ran",
                "time(us)", "wire_sent(B)", "sim_sent(B)", "bound(B)", "w/bound", "sim_err",
                "t/link", "model(us)", "model/t", "cpu%", "check");
  }
  nlohmann::json rows = nlohmann::json::array();
  // Algorithms take turns op by op (interleaved), so drift on a shared machine hits all alike, in
  // an order shuffled anew each round (the same on every rank), so none always follows the same
  // one (in a fixed order, the same algorithm differed by 20 % between two slots).
  size_t na = o.algos.size();
  std::vector<std::vector<double>> times(na);
  std::vector<outrider_op_result_t> last(na);
  std::vector<uint64_t> hashes(na);
  std::vector<char> hashed(na, 0);  // a result never hashed must not pass as equal
  std::vector<size_t> order(na);
  for (size_t a = 0; a < na; ++a) order[a] = a;
  std::mt19937 shuffle(static_cast<uint32_t>(o.seed));
  std::vector<int> reps(na, 1);  // ops per turn
  std::vector<double> warm_us(na, 0);
  std::vector<uint64_t> cpu_busy(na, 0), cpu_total(na, 0);  // rank 0's view of the host
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    if (i == o.warmup && o.turn_ms > 0) reps = OpsPerTurn(c, warm_us, o.turn_ms);
    std::shuffle(order.begin(), order.end(), shuffle);
    for (size_t a : order) {
      outrider_sparse_t s = g.Args(static_cast<uint32_t>(AlgoValue(o.algos[a])));
      outrider_op_options_t opts;
      outrider_op_options_init(&opts);
      opts.key = outrider_key(("sparse-bench-" + o.algos[a]).c_str());
      for (int r = 0; r < reps[a]; ++r) {
        outrider_op_result_t res{};
        res.size = sizeof(res);
        outrider_op_t h;
        Must(c, outrider_barrier(c, nullptr, &h), "barrier");
        Must(c, outrider_wait(c, h, 600000), "wait");
        CpuTicks cpu0 = rank == 0 ? ReadCpu() : CpuTicks{};
        double t0 = NowUs();
        Must(c, outrider_sparse_allreduce(c, &s, &opts, &h), "sparse_allreduce");
        Must(c, outrider_wait_result(c, h, 600000, &res), "wait");
        double us = NowUs() - t0;
        CpuTicks cpu1 = rank == 0 ? ReadCpu() : CpuTicks{};
        if (i >= o.warmup) {
          times[a].push_back(us);
          cpu_busy[a] += cpu1.busy - cpu0.busy;
          cpu_total[a] += cpu1.total - cpu0.total;
        }
        if (i < o.warmup) warm_us[a] = std::max(warm_us[a], us);
        last[a] = res;
        // The last op's result is the one checked; hashing every op's would hold a core between ops
        // while other nodes' agents still finish theirs.
        if (i + 1 == o.warmup + o.iters && r + 1 == reps[a]) {
          hashes[a] = ipc::Fnv1a(g.out_values, res.result_rows * o.dim * 4) ^
                      ipc::Fnv1a(g.out_ids, res.result_rows * 8);
          hashed[a] = 1;
        }
      }
    }
  }
  if (rank == 0 && o.turn_ms > 0) {
    std::printf("# ops per turn (--turn-ms %.0f):", o.turn_ms);
    for (size_t a = 0; a < na; ++a) std::printf(" %s %d", o.algos[a].c_str(), reps[a]);
    std::printf("\n");
  }
  int failures = 0;
  for (size_t a = 0; a < na; ++a) {
    const std::string& name = o.algos[a];
    const outrider_op_result_t& res = last[a];
    // Every algorithm must give the same bits.
    bool ok =
        hashed[a] && hashed[0] && hashes[a] == hashes[0] && res.result_rows == last[0].result_rows;
    failures += !ok;
    // Per-rank wire statistics of the algorithm's last op, gathered to every rank.
    auto* st = static_cast<Stats*>(stats_buf);
    st[world] = Stats{res.wire_bytes_sent, res.wire_bytes_recv, res.predicted_bytes, res.algo};
    outrider_op_t h;
    Must(c, outrider_allgather(c, &st[world], st, sizeof(Stats) / 8, OUTRIDER_I64, nullptr, &h),
         "allgather");
    Must(c, outrider_wait(c, h, 600000), "wait");
    if (rank != 0) continue;
    uint64_t max_sent = 0, max_recv = 0, max_pred = 0;
    for (int r = 0; r < world; ++r) {
      max_sent = std::max(max_sent, st[r].sent);
      max_recv = std::max(max_recv, st[r].recv);
      max_pred = std::max(max_pred, st[r].predicted);
    }
    auto ran = static_cast<ipc::SparseAlgo>(res.algo);
    const SimAlgo* sa = Find(sim, static_cast<ipc::SparseAlgo>(AlgoValue(name)));
    double t = Median(times[a]);
    double sim_sent = sa ? static_cast<double>(sa->max_sent) : 0;
    double bound = sa ? sa->bound : 0;
    double sim_err = max_sent > 0 ? std::abs(sim_sent - static_cast<double>(max_sent)) /
                                        static_cast<double>(max_sent)
                                  : 0;
    double link_us =
        rate > 0 ? static_cast<double>(std::max(max_sent, max_recv)) * 8.0 / (rate * 1e3) : 0;
    // The time model on the simulator's bytes of the algorithm that ran (auto: the agents' pick).
    const SimAlgo* ma = Find(sim, ran);
    double model_us = rate > 0 && ma ? agent::sparse::ExchangeSeconds(ma->work, model) * 1e6 : 0;
    double busy =
        cpu_total[a] > 0 ? static_cast<double>(cpu_busy[a]) / static_cast<double>(cpu_total[a]) : 0;
    std::printf(
        "  %-10s %-10s %12.1f %14llu %14.0f %14.0f %8.3f %8.4f %10.3f %12.1f %9.3f %5.0f %6s\n",
        name.c_str(), std::string(ipc::SparseAlgoName(ran)).c_str(), t,
        static_cast<unsigned long long>(max_sent), sim_sent, bound,
        bound > 0 ? static_cast<double>(max_sent) / bound : 0, sim_err,
        link_us > 0 ? t / link_us : 0, model_us, model_us > 0 ? model_us / t : 0, busy * 100,
        ok ? "ok" : "WRONG");
    nlohmann::json row = {
        {"system", "outrider"},
        {"op", "sparse_allreduce"},
        {"algo", name},
        {"algo_ran", std::string(ipc::SparseAlgoName(ran))},
        {"bytes", o.rows * o.dim * 4},
        {"rows", o.rows},
        {"dim", o.dim},
        {"nnz_per_rank", nnz},
        {"zipf", o.zipf},
        {"density", sim.density},
        {"union_rows", sim.union_rows},
        {"union_density", sim.union_density},
        {"time_us", t},
        {"wire_bytes_sent", max_sent},
        {"wire_bytes_recv", max_recv},
        {"predicted_bytes", max_pred},
        {"sim_wire_bytes_sent", sim_sent},
        {"sim_error", sim_err},
        {"bound_bytes", bound},
        {"wire_over_bound", bound > 0 ? static_cast<double>(max_sent) / bound : 0},
        {"nodes", nodes},
        {"ranks", world},
        {"iters", o.iters},
        {"ops_per_turn", reps[a]},
        {"op_times_us", times[a]},
        {"check", ok}};
    row["rate_gbit"] = rate > 0 ? nlohmann::json(rate) : nlohmann::json(nullptr);
    if (link_us > 0) {
      row["link_time_us"] = link_us;
      row["time_over_link"] = t / link_us;
    }
    if (cpu_total[a] > 0) row["host_cpu_busy"] = busy;
    if (model_us > 0) {
      row["model_time_us"] = model_us;
      row["model_over_time"] = model_us / t;
      row["model_round_us"] = model.round_s * 1e6;
    }
    if (common.trace) {
      nlohmann::json tr = TraceLastOps(common.http_url, "sparse_allreduce", 0, times[a].size(),
                                       outrider_key(("sparse-bench-" + name).c_str()));
      if (!tr.is_null()) row["trace"] = tr;
    }
    rows.push_back(row);
  }
  outrider_disconnect(c);
  if (rank == 0 && !WriteJsonOrSay(common, rows)) return 1;
  if (failures > 0) {
    std::fprintf(stderr,
                 "outrider-bench: rank %d: %d algorithms gave results that differ from the first\n",
                 rank, failures);
    return 1;
  }
  return 0;
}

int RunSparseSim(const CommonOptions& common, const SparseOptions& o) {
  if (o.rows == 0 || o.dim == 0 || o.density <= 0 || o.density > 1 || o.sim_local < 1) {
    std::fprintf(stderr, "outrider-bench: need rows, dim, --local >= 1 and density in (0, 1]\n");
    return 2;
  }
  if (!(o.model_gbit > 0) || !(o.model_round_us >= 0) || !(o.model_sum_gbyte > 0)) {
    std::fprintf(stderr,
                 "outrider-bench: --link-gbit and --sum-gbyte must be positive, --round-us at "
                 "least 0\n");
    return 2;
  }
  agent::sparse::TimeParams model;
  model.link_bytes_per_s = o.model_gbit * 1e9 / 8;
  model.round_s = o.model_round_us * 1e-6;
  model.sum_bytes_per_s = o.model_sum_gbyte * 1e9;
  nlohmann::json rows = nlohmann::json::array();
  uint64_t nnz = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(o.density * static_cast<double>(o.rows))));
  std::printf(
      "# outrider-bench sparse-sim: table %llu x %llu f32 (%s), %llu rows per rank (Zipf %.2f), %d "
      "rank(s) per node\n",
      static_cast<unsigned long long>(o.rows), static_cast<unsigned long long>(o.dim),
      FormatBytes(o.rows * o.dim * 4).c_str(), static_cast<unsigned long long>(nnz), o.zipf,
      o.sim_local);
  std::printf("# per-node bytes sent (max over nodes); bound: docs/design.md, sparse gradients\n");
  std::printf(
      "# time: the time model (docs/design.md) at %.4g Gbit/s links, %.4g us message rounds, sums "
      "at %.4g GB/s; wire/sum: the busiest node's bytes at the link over its sums at that rate\n",
      o.model_gbit, o.model_round_us, o.model_sum_gbyte);
  std::printf("# %6s %10s %10s %-15s %16s %16s %8s %12s %9s\n", "nodes", "d", "d_union", "algo",
              "max_sent(B)", "bound(B)", "sent/bnd", "time(ms)", "wire/sum");
  for (int n : o.sim_nodes) {
    if (n < 1) continue;
    SimConfig sc;
    sc.rows = o.rows;
    sc.dim = o.dim;
    sc.nodes = n;
    sc.local = o.sim_local;
    sc.per_rank_nnz = nnz;
    sc.zipf_s = o.zipf;
    sc.seed = o.seed;
    sc.block_rows = o.block_rows;
    sc.chunk_bytes = o.chunk_bytes;
    sc.time = model;
    SimResult r = Simulate(sc, ZipfSource(sc));
    for (const SimAlgo& s : r.algos) {
      std::string name(ipc::SparseAlgoName(s.algo));
      if (s.algo == ipc::SparseAlgo::kAuto)
        name += "=" + std::string(ipc::SparseAlgoName(r.auto_choice));
      double secs = agent::sparse::ExchangeSeconds(s.work, model);
      double wire_over_sum = s.work.summed > 0 ? (s.work.wire / model.link_bytes_per_s) /
                                                     (s.work.summed / model.sum_bytes_per_s)
                                               : 0;
      std::printf("  %6d %10.5f %10.5f %-15s %16llu %16.0f %8.3f %12.3f %9.3f\n", n, r.density,
                  r.union_density, name.c_str(), static_cast<unsigned long long>(s.max_sent),
                  s.bound, s.bound > 0 ? static_cast<double>(s.max_sent) / s.bound : 0, secs * 1e3,
                  wire_over_sum);
      rows.push_back({{"system", "outrider-sim"},
                      {"op", "sparse_allreduce"},
                      {"algo", std::string(ipc::SparseAlgoName(s.algo))},
                      {"auto_choice", std::string(ipc::SparseAlgoName(r.auto_choice))},
                      {"bytes", o.rows * o.dim * 4},
                      {"nodes", n},
                      {"ranks_per_node", o.sim_local},
                      {"nnz_per_rank", nnz},
                      {"density", r.density},
                      {"union_density", r.union_density},
                      {"union_rows", r.union_rows},
                      {"time_us", nullptr},
                      {"model_time_us", secs * 1e6},
                      {"model_link_gbit", o.model_gbit},
                      {"model_round_us", o.model_round_us},
                      {"model_sum_gbyte", o.model_sum_gbyte},
                      {"wire_over_sum", wire_over_sum},
                      {"wire_bytes_sent", s.max_sent},
                      {"wire_bytes_recv", s.max_recv},
                      {"mean_bytes_sent", s.mean_sent},
                      {"bound_bytes", s.bound}});
    }
  }
  if (!WriteJsonOrSay(common, rows)) return 1;
  return 0;
}

}  // namespace outrider::bench
