// outrider-bench: benchmarks of the agent in nccl-tests style. Every mode accepts --json FILE
// and writes {"rows": [...], "env": {...}}.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "tools/bench/collective_bench.h"
#include "tools/bench/gpu_bench.h"
#include "tools/bench/gpu_nccl_bench.h"
#include "tools/bench/interfere_bench.h"
#include "tools/bench/local_bench.h"
#include "tools/bench/p2p_bench.h"
#include "tools/bench/schedule_bench.h"
#include "tools/bench/sparse_bench.h"
#include "tools/bench/step_bench.h"
#include "tools/bench/train_bench.h"

using namespace outrider::bench;

int main(int argc, char** argv) {
  CLI::App app{
      "outrider-bench: benchmarks of outrider-agent (nccl-tests style tables; --json FILE for "
      "scripts)"};
  app.require_subcommand(1);
  CommonOptions common;
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--socket", common.socket,
                    "use the agent at this socket instead of starting a private one");
    sub->add_option("--json", common.json_path,
                    "also write results as JSON {\"rows\": [...], \"env\": {...}}");
    sub->add_flag("--verbose", common.verbose, "debug logging in the private agent");
    sub->add_flag("--trace", common.trace,
                  "after each size, print where this node's agent spent the ops' time (medians of "
                  "its per-op traces "
                  "in /status: wire, credit wait, local reduce, reduce, copy, write-back, page "
                  "faults, private memory)");
    sub->add_option("--http-url", common.http_url,
                    "the agent's HTTP listener for --trace (default: $OUTRIDER_HTTP_URL, else "
                    "http://127.0.0.1:$OUTRIDER_HTTP_PORT, else port 9750)");
  };

  LocalOptions local;
  std::string min_bytes = "8", max_bytes = "256M";
  CLI::App* l = app.add_subcommand("local",
                                   "single-node collectives across L local clients: size sweep, "
                                   "8-byte round trip, memcpy traffic ratio");
  add_common(l);
  l->add_option("--clients,-n", local.clients, "client processes on this node")
      ->capture_default_str();
  l->add_option("--min-bytes,-b", min_bytes, "smallest message (K/M/G suffixes)")
      ->capture_default_str();
  l->add_option("--max-bytes,-e", max_bytes, "largest message")->capture_default_str();
  l->add_option("--factor,-f", local.factor, "size multiplier between rows")->capture_default_str();
  l->add_option("--op", local.op, "allreduce, broadcast, allgather, reduce_scatter or all")
      ->capture_default_str();
  l->add_option("--dtype", local.dtype, "f32 f64 f16 bf16 i32 i64 u8 i8 i16 bool c64 c128")
      ->capture_default_str();
  l->add_option("--redop", local.redop, "sum avg min max prod")->capture_default_str();
  l->add_option("--iters", local.iters, "timed iterations per size (0: by size, 10..1000)")
      ->capture_default_str();
  l->add_option("--rtt-iters", local.rtt_iters, "8-byte round trips to time (0: skip)")
      ->capture_default_str();
  std::string device = "host";
  l->add_option("--device", device,
                "host: buffers in shared memory; cuda: device buffers on one GPU, allreduce f32 in "
                "each gpu_mode against "
                "host buffers and a plain pinned copy in the same run, plus the fence round trip")
      ->check(CLI::IsMember({"host", "cuda"}))
      ->capture_default_str();
  GpuOptions gpu;
  l->add_option("--gpu", gpu.gpu, "--device cuda: the GPU (ordinal) every rank uses")
      ->capture_default_str();
  l->add_option("--gpu-modes", gpu.modes, "--device cuda: gpu_modes to run (staging, ipc)")
      ->delimiter(',')
      ->capture_default_str();
  bool against_nccl = false;
  l->add_flag(
      "--against-nccl", against_nccl,
      "--device cuda: allreduce on the agent's own NCCL communicators (gpu_mode ipc, gpu_nccl = "
      "force) against "
      "the ranks calling NCCL themselves, in the same run; one rank per GPU, from --gpu on");

  TrainOptions train;
  CLI::App* t = app.add_subcommand("train",
                                   "training-like loop (broadcast, bucketed async allreduce, "
                                   "allgather, barrier) with verified results");
  add_common(t);
  t->add_option("--clients,-n", train.clients, "trainer processes")->capture_default_str();
  t->add_option("--steps", train.steps, "training steps")->capture_default_str();
  t->add_option("--buckets", train.buckets, "gradient bucket sizes (K/M suffixes)")->delimiter(',');

  CollectiveOptions coll;
  std::string coll_min = "8", coll_max = "64M";
  std::vector<CLI::App*> colls;
  for (const char* name :
       {"allreduce", "broadcast", "allgather", "reducescatter", "alltoall", "p2p"}) {
    std::string what = std::string(name) == "p2p"
                           ? "point-to-point messages between ranks 0 and 1 (ping-pong up to 64 "
                             "KiB, a stream above)"
                           : std::string(name);
    CLI::App* sub = app.add_subcommand(
        name, what +
                  " across the ranks of a job started by a launcher (tools/outrider run): one rank "
                  "per process, torchrun environment");
    add_common(sub);
    sub->add_option("--min-bytes,-b", coll_min, "smallest message (K/M/G suffixes)")
        ->capture_default_str();
    sub->add_option("--max-bytes,-e", coll_max, "largest message")->capture_default_str();
    sub->add_option("--factor,-f", coll.factor, "size multiplier between rows")
        ->capture_default_str();
    sub->add_option("--iters", coll.iters, "timed iterations per size (0: by size)")
        ->capture_default_str();
    sub->add_option("--warmup", coll.warmup, "untimed iterations per size")->capture_default_str();
    if (std::string(name) == "allreduce") {
      sub->add_option("--latency-iters", coll.latency_iters,
                      "also time this many 8-byte allreduces (p50/p99)")
          ->capture_default_str();
    }
    colls.push_back(sub);
  }

  SparseOptions sparse;
  auto add_sparse = [&](CLI::App* sub) {
    add_common(sub);
    sub->add_option("--rows", sparse.rows, "embedding table rows")->capture_default_str();
    sub->add_option("--dim", sparse.dim, "values per row (f32)")->capture_default_str();
    sub->add_option("--density", sparse.density,
                    "distinct rows each rank touches, as a fraction of the table")
        ->capture_default_str();
    sub->add_option("--zipf", sparse.zipf, "Zipf exponent of row popularity (row 0 most popular)")
        ->capture_default_str();
    sub->add_option("--seed", sparse.seed, "id stream seed (same seed, same ids)")
        ->capture_default_str();
    sub->add_option("--block-rows", sparse.block_rows, "the agents' --sparse-block-rows")
        ->capture_default_str();
    sub->add_option("--chunk-bytes", sparse.chunk_bytes, "the agents' --ring-chunk-bytes")
        ->capture_default_str();
  };
  CLI::App* sp = app.add_subcommand(
      "sparse",
      "sparse embedding-gradient allreduce per algorithm across the ranks of a job started by a "
      "launcher (tools/outrider run): time, wire bytes, simulator prediction and bound");
  add_sparse(sp);
  sp->add_option("--algos", sparse.algos,
                 "algorithms to run, in order (allgather balanced block dense auto)")
      ->delimiter(',')
      ->capture_default_str();
  sp->add_option("--iters", sparse.iters, "timed ops per algorithm (median reported)")
      ->capture_default_str();
  sp->add_option("--warmup", sparse.warmup, "untimed ops per algorithm")->capture_default_str();
  sp->add_option(
        "--turn-ms", sparse.turn_ms,
        "each turn of an algorithm runs as many ops as its slowest warm-up op (on any rank) fits "
        "in this many ms, up to 64 (0: one); medians then rest on more ops of the cheap algorithms")
      ->capture_default_str();
  CLI::App* sim =
      app.add_subcommand("sparse-sim",
                         "wire bytes per node of every sparse algorithm at any node count, from "
                         "the same id streams and encodings as the agents, next to the bounds");
  add_sparse(sim);
  sim->add_option("--nodes", sparse.sim_nodes, "node counts to simulate")
      ->delimiter(',')
      ->capture_default_str();
  sim->add_option("--local", sparse.sim_local, "ranks per node")->capture_default_str();
  sim->add_option("--link-gbit", sparse.model_gbit,
                  "time model: each node's link, Gbit/s (docs/design.md, the sparse time model)")
      ->capture_default_str();
  sim->add_option("--round-us", sparse.model_round_us,
                  "time model: one message round between agents, microseconds")
      ->capture_default_str();
  sim->add_option("--sum-gbyte", sparse.model_sum_gbyte,
                  "time model: received GB one agent decodes and sums per second (2: one core of "
                  "this project's machines)")
      ->capture_default_str();

  StepOptions step;
  std::vector<std::string> step_buckets;
  CLI::App* st = app.add_subcommand(
      "step",
      "training steps across the ranks of a launched job: dense buckets + a sparse embedding "
      "gradient, its sync by auto, allgather and dense allreduce side by side (the demo)");
  add_common(st);
  st->add_option("--rows", step.rows, "embedding table rows")->capture_default_str();
  st->add_option("--dim", step.dim, "values per row (f32)")->capture_default_str();
  st->add_option("--density", step.density,
                 "distinct rows each rank touches per step, as a fraction")
      ->capture_default_str();
  st->add_option("--steps", step.steps, "timed steps per mode")->capture_default_str();
  st->add_option("--buckets", step_buckets, "dense bucket sizes (K/M suffixes)")->delimiter(',');
  st->add_option("--modes", step.modes, "sparse sync modes: auto, allgather, dense")
      ->delimiter(',')
      ->capture_default_str();

  ScheduleOptions sched;
  CLI::App* sc =
      app.add_subcommand("schedule",
                         "training-step replay across the ranks of a launched job: when the next "
                         "forward pass gets its gradients, FIFO against the priority scheduler. "
                         "With --trace, each rank also prints, per step, how long its forward "
                         "pass waited for bucket gradients and its own agent's trace of the "
                         "embedding op, and per round that trace of the op alone (rank 0's on the "
                         "launcher's output, the others' in their logs)");
  add_common(sc);
  sc->add_option("--rounds", sched.rounds, "interleaved rounds (medians reported)")
      ->capture_default_str();
  sc->add_option("--backward-ms", sched.backward_ms, "simulated backward compute per layer")
      ->capture_default_str();
  sc->add_option("--forward-ms", sched.forward_ms, "simulated forward compute per layer")
      ->capture_default_str();
  sc->add_option("--buckets-mib", sched.buckets_mib, "dense bucket sizes in MiB, first layer first")
      ->delimiter(',');

  InterfereOptions inter;
  std::vector<std::string> inter_sizes;
  std::string inter_bulk = "256M";
  CLI::App* in = app.add_subcommand(
      "interfere",
      "two jobs on the same agents, launched with two processes per node (local rank 0: job A, "
      "1: job B): A's small allreduces' p50/p99 alone and beside B's bulk allreduces, with A high "
      "and with both normal; B's throughput alone and beside A; two equal bulk jobs' shares. "
      "With --trace, also each node's agent's trace of the first three ops per size and phase "
      "that took over 4x the median (the /status reads slow the ops after them)");
  add_common(in);
  in->add_option("--sizes", inter_sizes, "job A's allreduce sizes (K/M suffixes)")->delimiter(',');
  in->add_option("--bulk-bytes", inter_bulk, "job B's allreduce size")->capture_default_str();
  in->add_option("--rounds", inter.rounds, "rounds (medians reported)")->capture_default_str();
  in->add_option("--min-samples", inter.min_samples, "job A's ops per size and phase, at least")
      ->capture_default_str();
  in->add_option("--phase-s", inter.phase_s, "seconds each phase with both jobs lasts, at least")
      ->capture_default_str();
  in->add_option("--bulk-alone-ops", inter.bulk_alone_ops, "timed bulk ops of job B alone")
      ->capture_default_str();
  in->add_option("--sync-dir", inter.sync_dir,
                 "directory where the jobs meet between phases (default "
                 "/tmp/outrider-interfere-$OUTRIDER_JOB_ID)");

  CLI11_PARSE(app, argc, argv);
  if (sc->parsed()) return RunSchedule(common, sched);
  if (in->parsed()) {
    if (!inter_sizes.empty()) inter.sizes.clear();
    for (const std::string& s : inter_sizes) {
      auto v = ParseBytes(s);
      if (!v.ok() || *v < 4 || *v > (uint64_t{1} << 30)) {
        std::fprintf(stderr, "outrider-bench: bad size '%s'\n", s.c_str());
        return 2;
      }
      inter.sizes.push_back(*v / 4 * 4);
    }
    auto bulk = ParseBytes(inter_bulk);
    if (!bulk.ok()) {
      std::fprintf(stderr, "outrider-bench: bad --bulk-bytes '%s'\n", inter_bulk.c_str());
      return 2;
    }
    inter.bulk_bytes = *bulk / 4 * 4;
    return RunInterfere(common, inter);
  }
  if (st->parsed()) {
    if (!step_buckets.empty()) step.buckets.clear();
    for (const std::string& b : step_buckets) {
      auto v = ParseBytes(b);
      if (!v.ok() || *v < 4) {
        std::fprintf(stderr, "outrider-bench: bad bucket size '%s'\n", b.c_str());
        return 2;
      }
      step.buckets.push_back(*v / 4 * 4);
    }
    for (const std::string& m : step.modes) {
      if (m != "auto" && m != "allgather" && m != "dense") {
        std::fprintf(stderr, "outrider-bench: unknown step mode '%s'\n", m.c_str());
        return 2;
      }
    }
    return RunStep(common, step);
  }
  if (sp->parsed()) return RunSparse(common, sparse);
  if (sim->parsed()) return RunSparseSim(common, sparse);
  for (CLI::App* sub : colls) {
    if (!sub->parsed()) continue;
    auto mn = ParseBytes(coll_min), mx = ParseBytes(coll_max);
    if (!mn.ok() || !mx.ok() || *mn > *mx) {
      std::fprintf(stderr, "outrider-bench: bad --min-bytes/--max-bytes\n");
      return 2;
    }
    coll.min_bytes = *mn;
    coll.max_bytes = *mx;
    coll.op = sub->get_name();
    if (coll.op == "p2p") return RunPointToPoint(common, coll);
    return RunCollective(common, coll);
  }
  if (l->parsed()) {
    auto mn = ParseBytes(min_bytes), mx = ParseBytes(max_bytes);
    if (!mn.ok() || !mx.ok() || *mn > *mx) {
      std::fprintf(stderr, "outrider-bench: bad --min-bytes/--max-bytes\n");
      return 2;
    }
    local.min_bytes = *mn;
    local.max_bytes = *mx;
    if (device == "cuda")
      return against_nccl ? RunGpuAgainstNccl(common, local, gpu) : RunGpu(common, local, gpu);
    if (against_nccl) {
      std::fprintf(stderr, "--against-nccl needs --device cuda\n");
      return 2;
    }
    return RunLocal(common, local);
  }
  return RunTrain(common, train);
}
