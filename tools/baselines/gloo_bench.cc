// outrider-gloo-bench: the collectives of outrider-bench done by plain Gloo (TCP transport, options
// API, f32 sum) between the same ranks, for `tools/outrider compare`. One process per rank, started
// like torchrun; rank 0 prints nccl-tests columns and writes {"rows": [...], "env": {...}}.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/config.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fresh_file_store.h"
#include "rank_env.h"

namespace outrider::baselines {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kElem = sizeof(float);
constexpr int kMaxIters = 100000;
// Ranks of one run start within this much of each other; older store files belong to other runs.
constexpr auto kStartSkew = std::chrono::seconds(30);

struct Options {
  std::string op;
  std::string min_bytes = "8", max_bytes = "64M";
  int factor = 2;
  int iters = 0;    // 0: by size, clamp(1 GiB / bytes, 10, 100)
  int warmup = -1;  // -1: clamp(iters / 4, 1, 5)
  std::string algo = "ring";
  std::string json_path;
  int latency_iters = 0;
  std::string store_dir;  // "": $OUTRIDER_RUN_DIR/gloo-store or /tmp/outrider-gloo-<MASTER_PORT>
  std::string iface;      // "": eth0 with OUTRIDER_NETNS=1, else lo
  int timeout_s = 120;
};

struct SizeResult {
  uint64_t bytes = 0;
  double time_us = 0;  // median over timed iterations, rank 0
  int iters = 0;
  bool ok = true;  // result check on every rank (after the failure allreduce)
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double idx = p / 100.0 * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(idx));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

double BusFactor(const std::string& op, int n) {
  if (op == "allreduce") return 2.0 * (n - 1) / n;
  if (op == "allgather" || op == "alltoall") return static_cast<double>(n - 1) / n;
  return 1.0;  // broadcast
}

void SumF32(void* c, const void* a, const void* b, size_t n) { gloo::sum<float>(c, a, b, n); }

void Barrier(const std::shared_ptr<gloo::Context>& ctx) {
  gloo::BarrierOptions o(ctx);
  gloo::barrier(o);
}

// One collective of `count` floats with buffers bound once; Run() may be called repeatedly.
// Sizes follow nccl-tests: `count` is the whole output (allgather), the whole per-rank send
// buffer (alltoall), or the buffer (allreduce, broadcast).
class Collective {
 public:
  Collective(const std::shared_ptr<gloo::Context>& ctx, const std::string& op,
             const std::string& algo, size_t count, float* send, float* recv)
      : op_(op), ar_(ctx), bc_(ctx), ag_(ctx), a2a_(ctx) {
    const size_t n = static_cast<size_t>(ctx->size);
    if (op == "allreduce") {
      ar_.setAlgorithm(algo == "bcube" ? gloo::AllreduceOptions::Algorithm::BCUBE
                                       : gloo::AllreduceOptions::Algorithm::RING);
      ar_.setInput(send, count);
      ar_.setOutput(recv, count);
      ar_.setReduceFunction(&SumF32);
    } else if (op == "broadcast") {
      bc_.setOutput(recv, count);
      bc_.setRoot(0);
    } else if (op == "allgather") {
      ag_.setInput(send, count / n);
      ag_.setOutput(recv, count);
    } else {
      a2a_.setInput(send, count);
      a2a_.setOutput(recv, count);
    }
  }
  void Run() {
    if (op_ == "allreduce")
      gloo::allreduce(ar_);
    else if (op_ == "broadcast")
      gloo::broadcast(bc_);
    else if (op_ == "allgather")
      gloo::allgather(ag_);
    else
      gloo::alltoall(a2a_);
  }

 private:
  std::string op_;
  gloo::AllreduceOptions ar_;
  gloo::BroadcastOptions bc_;
  gloo::AllgatherOptions ag_;
  gloo::AlltoallOptions a2a_;
};

// Inputs are rank+1 everywhere, so every op has a known result (broadcast: the root's 1.0).
void Fill(const std::string& op, int rank, size_t count, float* send, float* recv) {
  std::fill(send, send + count, static_cast<float>(rank + 1));
  std::fill(recv, recv + count, op == "broadcast" && rank == 0 ? 1.0f : 0.0f);
}

bool Check(const std::string& op, int n, size_t count, const float* recv) {
  const size_t chunk = std::max<size_t>(1, count / static_cast<size_t>(n));
  const size_t step = std::max<size_t>(1, count / 4096);
  for (size_t i = 0; i < count; i += step) {
    float want = op == "allreduce"   ? n * (n + 1) / 2.0f
                 : op == "broadcast" ? 1.0f
                                     : static_cast<float>(i / chunk + 1);  // chunk i from rank i
    if (recv[i] != want) return false;
  }
  return true;
}

nlohmann::json EnvJson(const RankEnv& env, const std::string& iface) {
  utsname u{};
  ::uname(&u);
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  time_t now = ::time(nullptr);
  char when[64];
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"host", host},
          {"kernel", std::string(u.release)},
          {"cpus", ::sysconf(_SC_NPROCESSORS_ONLN)},
          {"date", when},
          {"runner", "outrider-gloo-bench"},
          {"gloo_version", std::to_string(GLOO_VERSION_MAJOR) + "." +
                               std::to_string(GLOO_VERSION_MINOR) + "." +
                               std::to_string(GLOO_VERSION_PATCH)},
          {"world_size", env.world_size},
          {"nodes", env.nodes},
          {"netns", env.netns},
          {"iface", iface},
          {"master_addr", env.master_addr}};
}

std::shared_ptr<gloo::Context> Connect(const RankEnv& env, const Options& o,
                                       const std::string& iface,
                                       const std::chrono::system_clock::time_point& start) {
  std::string dir = o.store_dir;
  if (dir.empty()) {
    dir = env.run_dir.empty() ? "/tmp/outrider-gloo-" + std::to_string(env.master_port)
                              : env.run_dir + "/gloo-store";
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw gloo::IoException("cannot create store dir " + dir + ": " + std::strerror(errno));
  }
  // The prefix separates runs sharing a directory; FreshFileStore ignores files of earlier runs.
  const std::string prefix = "outrider-gloo-" + std::to_string(env.master_port) + "-" +
                             (env.job_id.empty() ? "nojob" : env.job_id);
  FreshFileStore files(dir, start - kStartSkew, std::chrono::seconds(o.timeout_s));
  gloo::rendezvous::PrefixStore store(prefix, files);

  gloo::transport::tcp::attr attr;
  attr.iface = iface;
  attr.ai_family = AF_INET;  // eth0 in a namespace also has an fe80:: address that needs a scope id
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(env.rank, env.world_size);
  ctx->setTimeout(std::chrono::seconds(o.timeout_s));
  try {
    ctx->connectFullMesh(store, dev);
    Barrier(ctx);  // every rank has read every key: this run's files can go
  } catch (...) {
    files.RemoveOwnKeys();  // a failed run leaves nothing behind for the next one
    throw;
  }
  files.RemoveOwnKeys();
  return ctx;
}

// Sizes up to this are timed as ping-pong (one way: half the round trip), larger ones as a stream
// one way, as outrider-bench p2p does.
constexpr uint64_t kPingPongMaxBytes = 64 << 10;

// outrider-gloo-bench p2p: ranks 0 and 1 exchange messages through Gloo's unbound buffers (what
// torch.distributed's gloo send/recv use). Rank 0 gets the rows.
nlohmann::json RunPointToPoint(const std::shared_ptr<gloo::Context>& ctx, const Options& o,
                               uint64_t min_bytes, uint64_t max_bytes, const nlohmann::json& rate,
                               int nodes) {
  const int rank = ctx->rank, peer = 1 - ctx->rank;
  std::vector<uint8_t> buf(std::max<uint64_t>(max_bytes, 8));
  nlohmann::json rows = nlohmann::json::array();
  for (uint64_t bytes = std::max<uint64_t>(min_bytes, 1); bytes <= max_bytes;
       bytes *= static_cast<uint64_t>(o.factor)) {
    const bool ping = bytes <= kPingPongMaxBytes;
    const int iters = o.iters > 0 ? std::min(o.iters, kMaxIters)
                      : ping
                          ? 1000
                          : static_cast<int>(std::clamp<uint64_t>((256ull << 20) / bytes, 8, 64));
    std::vector<double> times;
    bool ok = true;
    if (rank < 2) {
      auto data = ctx->createUnboundBuffer(buf.data(), bytes);
      auto one = ctx->createUnboundBuffer(buf.data(), 1);
      for (int round = -std::max(1, o.warmup); round < (ping ? iters : 3); ++round) {
        const uint8_t mark = static_cast<uint8_t>(round + 7);
        auto t0 = Clock::now();
        if (ping) {
          if (rank == 0) {
            buf[0] = mark;
            data->send(peer, 0);
            data->waitSend();
            data->recv(peer, 0);
            data->waitRecv();
            ok = ok && buf[0] == static_cast<uint8_t>(mark + 1);
          } else {
            data->recv(peer, 0);
            data->waitRecv();
            ok = ok && buf[0] == mark;
            buf[0] = static_cast<uint8_t>(mark + 1);
            data->send(peer, 0);
            data->waitSend();
          }
          if (round >= 0)
            times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
                            2);
          continue;
        }
        buf[0] = mark;
        for (int i = 0; i < iters; ++i) rank == 0 ? data->send(peer, 0) : data->recv(peer, 0);
        for (int i = 0; i < iters; ++i) rank == 0 ? data->waitSend() : data->waitRecv();
        ok = ok && buf[0] == mark;
        if (rank == 0) {
          one->recv(peer, 1);
          one->waitRecv();
        } else {
          one->send(peer, 1);
          one->waitSend();
        }
        if (round >= 0)
          times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
                          iters);
      }
    }
    Barrier(ctx);
    if (rank != 0) continue;
    const double t = Percentile(times, 50), algbw = static_cast<double>(bytes) / (t * 1e3);
    std::printf("  %12llu %10s %12.2f %12.3f %6s\n", static_cast<unsigned long long>(bytes),
                ping ? "latency" : "bandwidth", t, algbw, ok ? "ok" : "WRONG");
    rows.push_back({{"system", "gloo"},
                    {"op", "p2p"},
                    {"algo", nullptr},
                    {"metric", ping ? "latency" : "bandwidth"},
                    {"bytes", bytes},
                    {"count", bytes},
                    {"dtype", "u8"},
                    {"time_us", t},
                    {"algbw_gbps", algbw},
                    {"busbw_gbps", algbw},
                    {"nodes", nodes},
                    {"ranks", ctx->size},
                    {"rate_gbit", rate},
                    {"iters", iters},
                    {"check", ok}});
  }
  return rows;
}

int Run(const RankEnv& env, const Options& o) {
  const auto start = std::chrono::system_clock::now();
  const std::string iface = !o.iface.empty() ? o.iface : env.netns ? "eth0" : "lo";
  const int n = env.world_size;
  auto mn = ParseBytes(o.min_bytes), mx = ParseBytes(o.max_bytes);
  if (!mn || !mx || *mn > *mx || o.factor < 2) {
    std::fprintf(stderr, "outrider-gloo-bench: bad --min-bytes/--max-bytes/--factor\n");
    return 2;
  }
  // Element counts per row; allgather and alltoall need a multiple of the rank count.
  const size_t granule = (o.op == "allgather" || o.op == "alltoall") ? static_cast<size_t>(n) : 1;
  std::vector<size_t> counts;
  for (unsigned long long b = std::max<unsigned long long>(*mn, kElem);
       b <= *mx && counts.size() < 64; b *= static_cast<unsigned long long>(o.factor)) {
    size_t c = b / kElem / granule * granule;
    if (c > 0 && (counts.empty() || counts.back() != c)) counts.push_back(c);
  }
  auto ctx = Connect(env, o, iface, start);
  if (o.op == "p2p") {
    if (n < 2) {
      std::fprintf(stderr, "outrider-gloo-bench p2p: needs 2 ranks, got %d\n", n);
      return 2;
    }
    if (env.rank == 0) {
      std::printf(
          "# outrider-gloo-bench p2p: ranks 0 and 1 of %d, gloo TCP on %s; up to %llu bytes "
          "ping-pong (one way = half the round trip), above a stream one way\n",
          n, iface.c_str(), static_cast<unsigned long long>(kPingPongMaxBytes));
      std::printf("# %12s %10s %12s %12s %6s\n", "size", "metric", "time(us)", "algbw(GB/s)",
                  "check");
    }
    nlohmann::json rows = RunPointToPoint(
        ctx, o, *mn, *mx, env.rate_gbit ? nlohmann::json(*env.rate_gbit) : nlohmann::json(nullptr),
        env.nodes);
    Barrier(ctx);
    if (env.rank != 0) return 0;
    int failures = 0;
    for (const auto& r : rows) failures += !r["check"].get<bool>();
    if (!o.json_path.empty()) {
      std::ofstream out(o.json_path);
      out << nlohmann::json{{"rows", rows}, {"env", EnvJson(env, iface)}}.dump(2) << "\n";
    }
    return failures ? 1 : 0;
  }
  const size_t max_count = counts.empty() ? 2 : std::max<size_t>(counts.back(), 2);
  std::vector<float> send(max_count), recv(max_count);

  std::vector<SizeResult> results;
  std::vector<float> failed;  // per size, summed over ranks below
  for (size_t count : counts) {
    const uint64_t bytes = count * kElem;
    int iters = o.iters > 0 ? std::min(o.iters, kMaxIters)
                            : static_cast<int>(std::clamp<uint64_t>((1ull << 30) / bytes, 10, 100));
    int warmup = o.warmup >= 0 ? o.warmup : std::clamp(iters / 4, 1, 5);
    Fill(o.op, env.rank, count, send.data(), recv.data());
    Collective coll(ctx, o.op, o.algo, count, send.data(), recv.data());
    coll.Run();  // also touches every page
    failed.push_back(Check(o.op, n, count, recv.data()) ? 0.0f : 1.0f);
    for (int i = 0; i < warmup; ++i) coll.Run();
    Barrier(ctx);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(iters));
    for (int i = 0; i < iters; ++i) {
      auto t0 = Clock::now();
      coll.Run();
      times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    results.push_back({bytes, Percentile(times, 50), iters, true});
  }
  if (!failed.empty()) {  // every rank's check, seen by rank 0
    gloo::AllreduceOptions ar(ctx);
    ar.setOutput(failed.data(), failed.size());
    ar.setReduceFunction(&SumF32);
    gloo::allreduce(ar);
    for (size_t i = 0; i < results.size(); ++i) results[i].ok = failed[i] == 0;
  }
  double lat_p50 = 0, lat_p99 = 0;
  if (o.latency_iters > 0 && o.op == "allreduce") {
    std::fill(send.begin(), send.begin() + 2, 1.0f);
    Collective coll(ctx, "allreduce", o.algo, 2, send.data(), recv.data());
    for (int i = 0; i < 10; ++i) coll.Run();
    Barrier(ctx);
    std::vector<double> times;
    for (int i = 0; i < std::min(o.latency_iters, kMaxIters); ++i) {
      auto t0 = Clock::now();
      coll.Run();
      times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    lat_p50 = Percentile(times, 50);
    lat_p99 = Percentile(times, 99);
  }
  Barrier(ctx);  // nobody tears down connections while a peer still uses them
  if (env.rank != 0) return 0;

  const bool is_ar = o.op == "allreduce";
  const nlohmann::json algo = is_ar ? nlohmann::json(o.algo) : nlohmann::json(nullptr);
  const nlohmann::json rate =
      env.rate_gbit ? nlohmann::json(*env.rate_gbit) : nlohmann::json(nullptr);
  std::printf("# outrider-gloo-bench %s: %d ranks, %d nodes, gloo TCP on %s%s\n", o.op.c_str(), n,
              env.nodes, iface.c_str(), is_ar ? (", algorithm " + o.algo).c_str() : "");
  std::printf("# %12s %12s %6s %6s %12s %12s %12s %8s\n", "size", "count", "type", "redop",
              "time(us)", "algbw(GB/s)", "busbw(GB/s)", "check");
  nlohmann::json rows = nlohmann::json::array();
  int failures = 0;
  for (const auto& r : results) {
    double algbw = static_cast<double>(r.bytes) / (r.time_us * 1e3);
    double busbw = algbw * BusFactor(o.op, n);
    failures += !r.ok;
    std::printf("  %12llu %12llu %6s %6s %12.1f %12.3f %12.3f %8s\n",
                static_cast<unsigned long long>(r.bytes),
                static_cast<unsigned long long>(r.bytes / kElem), "f32", is_ar ? "sum" : "-",
                r.time_us, algbw, busbw, r.ok ? "ok" : "WRONG");
    rows.push_back({{"system", "gloo"},
                    {"op", o.op},
                    {"algo", algo},
                    {"bytes", r.bytes},
                    {"count", r.bytes / kElem},
                    {"dtype", "f32"},
                    {"time_us", r.time_us},
                    {"algbw_gbps", algbw},
                    {"busbw_gbps", busbw},
                    {"nodes", env.nodes},
                    {"ranks", n},
                    {"rate_gbit", rate},
                    {"iters", r.iters},
                    {"check", r.ok}});
  }
  if (o.latency_iters > 0 && is_ar) {
    std::printf("#\n# 8-byte allreduce latency (rank 0, %d ops): p50 %.1f us  p99 %.1f us\n",
                o.latency_iters, lat_p50, lat_p99);
    rows.push_back({{"system", "gloo"},
                    {"op", "allreduce"},
                    {"algo", algo},
                    {"metric", "latency"},
                    {"bytes", 8},
                    {"count", 2},
                    {"dtype", "f32"},
                    {"time_us", lat_p50},
                    {"p50_us", lat_p50},
                    {"p99_us", lat_p99},
                    {"nodes", env.nodes},
                    {"ranks", n},
                    {"rate_gbit", rate},
                    {"iters", o.latency_iters}});
  }
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << nlohmann::json{{"rows", rows}, {"env", EnvJson(env, iface)}}.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "outrider-gloo-bench: cannot write %s\n", o.json_path.c_str());
      return 1;
    }
  }
  if (failures) std::fprintf(stderr, "outrider-gloo-bench: %d result check(s) failed\n", failures);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace outrider::baselines

int main(int argc, char** argv) {
  using namespace outrider::baselines;
  Options o;
  CLI::App app{
      "outrider-gloo-bench: Gloo collectives (TCP, f32 sum) between torchrun-style ranks; "
      "rank 0 prints nccl-tests columns"};
  app.add_option(
         "op", o.op,
         "allreduce, broadcast, allgather, alltoall, or p2p (ranks 0 and 1: ping-pong up to "
         "64 KiB, a stream above)")
      ->required()
      ->check(CLI::IsMember({"allreduce", "broadcast", "allgather", "alltoall", "p2p"}));
  app.add_option("--min-bytes,-b", o.min_bytes, "smallest message (K/M/G suffixes)")
      ->capture_default_str();
  app.add_option("--max-bytes,-e", o.max_bytes, "largest message")->capture_default_str();
  app.add_option("--factor,-f", o.factor, "size multiplier between rows")->capture_default_str();
  app.add_option("--iters,-n", o.iters, "timed iterations per size (0: 10..100 by size)")
      ->capture_default_str();
  app.add_option("--warmup,-w", o.warmup, "untimed iterations per size (-1: 1..5 by iters)")
      ->capture_default_str();
  app.add_option("--algo", o.algo, "allreduce algorithm")
      ->check(CLI::IsMember({"ring", "bcube"}))
      ->capture_default_str();
  app.add_option("--json", o.json_path, "rank 0 writes {\"rows\": [...], \"env\": {...}} here");
  app.add_option("--latency-iters", o.latency_iters,
                 "allreduce: also time this many 8-byte ops (p50, p99)")
      ->capture_default_str();
  app.add_option(
      "--store-dir", o.store_dir,
      "rendezvous directory shared by all ranks (default: $OUTRIDER_RUN_DIR/gloo-store or "
      "/tmp/outrider-gloo-<MASTER_PORT>)");
  app.add_option("--iface", o.iface,
                 "network interface (default: eth0 if OUTRIDER_NETNS=1, else lo)");
  app.add_option("--timeout-s", o.timeout_s, "rendezvous and per-operation timeout")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::string error;
  auto env = ReadRankEnv(&error);
  if (!env) {
    std::fprintf(stderr, "outrider-gloo-bench: %s\n", error.c_str());
    return 2;
  }
  try {
    return Run(*env, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "outrider-gloo-bench: rank %d: %s\n", env->rank, e.what());
    return 1;
  }
}
