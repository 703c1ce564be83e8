// Two jobs on the same agents: job A's latency and job B's throughput, alone and together.
#include "tools/bench/interfere_bench.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tools/bench/trace.h"

namespace outrider::bench {
namespace {

enum Phase { kAAlone, kBAlone, kAHigh, kANormal, kEqual, kPhases };
const char* const kPhaseNames[kPhases] = {"a_alone", "b_alone", "a_high", "a_normal", "equal"};

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// Marker files: written whole (rename), waited for by polling every 0.5 ms, within a bound.
class Markers {
 public:
  explicit Markers(std::string dir) : dir_(std::move(dir)) {}
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Put(const std::string& name, const std::string& text) const {
    std::string tmp = Path(name) + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream f(tmp);
      f << text;
    }
    std::rename(tmp.c_str(), Path(name).c_str());
  }
  bool Has(const std::string& name) const { return ::access(Path(name).c_str(), F_OK) == 0; }
  // The marker's text; exits the process if it does not appear within 900 s.
  std::string Wait(const std::string& name) const {
    double deadline = NowUs() + 900e6;
    while (!Has(name)) {
      if (NowUs() > deadline) {
        std::fprintf(stderr, "outrider-bench interfere: gave up waiting for %s\n",
                     Path(name).c_str());
        std::exit(3);
      }
      ::usleep(500);
    }
    std::ifstream f(Path(name));
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }

 private:
  std::string dir_;
};

struct Span {
  double t0, t1;  // us, CLOCK_MONOTONIC: one clock for every process of the machine
};

// Bytes of `ops` (each `bytes`) that fell inside [w0, w1], assuming each op progressed evenly.
double BytesIn(const std::vector<Span>& ops, uint64_t bytes, double w0, double w1) {
  double sum = 0;
  for (const Span& s : ops) {
    double in = std::min(s.t1, w1) - std::max(s.t0, w0);
    if (in > 0 && s.t1 > s.t0) sum += static_cast<double>(bytes) * in / (s.t1 - s.t0);
  }
  return sum;
}

class Rank {
 public:
  Rank(const CommonOptions& common, const InterfereOptions& o, const Markers& m)
      : common_(common), o_(o), m_(m) {
    int rank = EnvInt("RANK", 0), world = EnvInt("WORLD_SIZE", 2);
    nodes_ = world / 2;
    node_ = rank / 2;
    is_a_ = EnvInt("LOCAL_RANK", 0) == 0;
    const char* job = std::getenv("OUTRIDER_JOB_ID");
    base_ = job != nullptr && *job != '\0' ? job : "interfere";
    bus_ = nodes_ > 1 ? 2.0 * (nodes_ - 1) / nodes_ : 1.0;
  }
  bool leader() const { return node_ == 0; }
  bool is_a() const { return is_a_; }
  int nodes() const { return nodes_; }
  double bus() const { return bus_; }

  void Connect(const std::string& tag, int32_t job_class) {
    outrider_connect_options_t co;
    outrider_connect_options_init(&co);
    if (!common_.socket.empty()) co.socket_path = common_.socket.c_str();
    std::string job = base_ + (is_a_ ? "-a-" : "-b-") + tag;
    co.job_id = job.c_str();
    co.rank = node_;
    co.world_size = nodes_;
    co.local_rank = 0;
    co.local_world_size = 1;
    co.job_class = job_class;
    ::setenv("OUTRIDER_JOB_ID", job.c_str(), 1);  // --trace reads the job's ops in /status
    if (outrider_connect(&co, &c_) != OUTRIDER_OK) {
      std::fprintf(stderr, "outrider-bench interfere: connect %s: %s\n", job.c_str(),
                   outrider_last_error(nullptr));
      std::exit(1);
    }
    flag_ = static_cast<int32_t*>(outrider_alloc(c_, 8));
    if (flag_ == nullptr) Must(c_, OUTRIDER_ERR_RESOURCE_EXHAUSTED, "alloc");
  }
  void Disconnect() {
    outrider_disconnect(c_);
    c_ = nullptr;
    buf_ = nullptr;
  }
  void Allreduce(uint64_t bytes) {
    // One region per connection: an input of ones and an output, as large as the job's largest
    // op.
    if (buf_ == nullptr) {
      uint64_t largest =
          is_a_ ? *std::max_element(o_.sizes.begin(), o_.sizes.end()) : o_.bulk_bytes;
      cap_ = std::max(bytes, largest) / 4 * 4;
      void* p = nullptr;
      Must(c_, outrider_region_create(c_, 2 * cap_, &p), "region_create");
      buf_ = static_cast<float*>(p);
      std::fill_n(buf_, cap_ / 4, 1.0f);
    }
    float* in = buf_;
    float* out = buf_ + cap_ / 4;
    uint64_t n = bytes / 4;
    out[0] = out[n / 2] = out[n - 1] = 0;
    outrider_op_t h;
    Must(c_, outrider_allreduce(c_, in, out, n, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h),
         "allreduce");
    Must(c_, outrider_wait(c_, h, 600000), "wait");
    // Every rank gave ones: the sum is the number of nodes everywhere (first, middle, last).
    auto want = static_cast<float>(nodes_);
    if (out[0] != want || out[n / 2] != want || out[n - 1] != want) {
      std::fprintf(stderr, "outrider-bench interfere: wrong allreduce result of %llu bytes\n",
                   static_cast<unsigned long long>(bytes));
      std::exit(4);
    }
  }
  // Node 0's `yes`, agreed by every rank of the job.
  bool Agree(bool yes) {
    *flag_ = leader() && yes ? 1 : 0;
    outrider_op_t h;
    Must(c_, outrider_allreduce(c_, flag_, flag_, 1, OUTRIDER_I32, OUTRIDER_MAX, nullptr, &h),
         "allreduce");
    Must(c_, outrider_wait(c_, h, 600000), "wait");
    return *flag_ != 0;
  }
  // Whether `stop` exists at node 0, agreed by every rank of the job.
  bool Agreed(const std::string& stop) { return Agree(leader() && m_.Has(stop)); }
  // Back-to-back bulk allreduces until `stop` (node 0 marks `running` after the first).
  std::vector<Span> Bulk(const std::string& running, const std::string& stop, int max_ops) {
    Allreduce(o_.bulk_bytes);  // untimed: the region's first use
    if (leader()) m_.Put(running, std::to_string(NowUs()));
    std::vector<Span> ops;
    while (static_cast<int>(ops.size()) < max_ops && !Agreed(stop)) {
      double t0 = NowUs();
      Allreduce(o_.bulk_bytes);
      ops.push_back({t0, NowUs()});
    }
    return ops;
  }
  // A's sweeps over the sizes until every size has min_samples latencies and (if `until_s` > 0)
  // that long has passed; node 0 decides, between sweeps.
  struct Sweep {
    std::map<uint64_t, std::vector<double>> lat_us;
    double t0 = 0, t1 = 0, bytes = 0;
  };
  Sweep Latencies(double until_s) {
    Sweep s;
    for (uint64_t b : o_.sizes) Allreduce(b);  // warm-up
    slow_traced_.clear();
    const int per = 20;
    s.t0 = NowUs();
    for (int sweep = 0;; ++sweep) {
      if (Agree(sweep * per >= o_.min_samples && NowUs() - s.t0 >= until_s * 1e6)) break;
      for (uint64_t b : o_.sizes) {
        for (int i = 0; i < per; ++i) {
          double t = NowUs();
          Allreduce(b);
          s.lat_us[b].push_back(NowUs() - t);
          s.bytes += static_cast<double>(b);
          if (common_.trace) TraceIfSlow(b, s.lat_us[b]);
        }
      }
    }
    s.t1 = NowUs();
    return s;
  }

 private:
  // --trace: the first three ops of a size in a phase that took over 4x the median of the ones
  // before (and 10 ms), as this node's agent saw them (its /status trace of the op just finished).
  // Every node's A prints its own (rank logs); node 0's reaches the launcher's output.
  void TraceIfSlow(uint64_t bytes, const std::vector<double>& lat_us) {
    if (lat_us.size() < 5 || slow_traced_[bytes] >= 3) return;
    double last = lat_us.back();
    if (last < 10e3 || last < 4 * Percentile({lat_us.begin(), lat_us.end() - 1}, 50)) return;
    ++slow_traced_[bytes];
    std::printf(
        "# slow op: node %d, %s, op %zu of the phase, %.2f ms, ended at %.1f ms (monotonic); its "
        "agent:",
        node_, FormatBytes(bytes).c_str(), lat_us.size(), last / 1e3, NowUs() / 1e3);
    TraceLastOps(common_.http_url, "allreduce", bytes / 4, 1);
    std::fflush(stdout);
  }

  const CommonOptions& common_;
  const InterfereOptions& o_;
  std::map<uint64_t, int> slow_traced_;
  const Markers& m_;
  int nodes_ = 1, node_ = 0;
  bool is_a_ = true;
  std::string base_;
  double bus_ = 1;
  outrider_client_t* c_ = nullptr;
  float* buf_ = nullptr;
  uint64_t cap_ = 0;
  int32_t* flag_ = nullptr;
};

// What node 0 of job A keeps per round and phase.
struct Round {
  std::map<uint64_t, double> p50, p99;  // A's latency by size, us
  double a_gbps = 0, b_gbps = 0;        // bus bandwidth, GB/s
};

}  // namespace

int RunInterfere(const CommonOptions& common, const InterfereOptions& o) {
  if (EnvInt("LOCAL_WORLD_SIZE", 0) != 2 || o.rounds < 1 || o.sizes.empty() ||
      o.bulk_bytes < (1u << 20) || o.phase_s <= 0 || o.min_samples < 1) {
    std::fprintf(stderr,
                 "outrider-bench interfere: run it with two processes per node (local rank 0 is "
                 "job A, 1 job B), and sane options\n");
    return 2;
  }
  std::string dir = o.sync_dir;
  if (dir.empty()) {
    const char* job = std::getenv("OUTRIDER_JOB_ID");
    dir = std::string("/tmp/outrider-interfere-") + (job != nullptr ? job : "default");
  }
  ::mkdir(dir.c_str(), 0700);
  Markers m(dir);
  Rank me(common, o, m);
  std::vector<std::map<Phase, Round>> rounds(static_cast<size_t>(o.rounds));
  for (int r = 0; r < o.rounds; ++r) {
    for (int i = 0; i < kPhases; ++i) {
      Phase p = static_cast<Phase>((i + r) % kPhases);
      std::string tag = "r" + std::to_string(r) + kPhaseNames[p];
      bool conductor = me.is_a() && me.leader();
      if (conductor) m.Put("begin-" + tag, "");
      m.Wait("begin-" + tag);
      Round& out = rounds[static_cast<size_t>(r)][p];
      const std::string running = "b-running-" + tag, stop = "stop-" + tag,
                        window = "window-" + tag, result = "b-result-" + tag;
      if (me.is_a()) {
        if (p == kBAlone) {
          // Idle: B reports.
        } else if (p == kEqual) {
          me.Connect(tag, OUTRIDER_JOB_CLASS_NORMAL);
          me.Allreduce(o.bulk_bytes);
          double both = std::stod(m.Wait(running));
          std::vector<Span> ops;
          double w0 = std::max(both, NowUs()), w1 = 0;
          for (;;) {
            double t0 = NowUs();
            me.Allreduce(o.bulk_bytes);
            ops.push_back({t0, NowUs()});
            if (me.leader() && NowUs() - w0 >= o.phase_s * 1e6 && w1 == 0) {
              w1 = NowUs();
              m.Put(window, std::to_string(w0) + " " + std::to_string(w1));
              m.Put(stop, "");
            }
            if (me.Agreed(stop)) break;
          }
          if (me.leader())
            out.a_gbps = BytesIn(ops, o.bulk_bytes, w0, w1) * me.bus() / (w1 - w0) / 1e3;
          me.Disconnect();
        } else {
          bool beside = p != kAAlone;
          me.Connect(tag, p == kAHigh ? OUTRIDER_JOB_CLASS_HIGH : OUTRIDER_JOB_CLASS_NORMAL);
          if (beside) m.Wait(running);
          Rank::Sweep s = me.Latencies(beside ? o.phase_s : 0);
          if (me.leader() && common.trace) {
            // Where node 0's agent spent the last ops of each size (its /status traces).
            for (uint64_t b : o.sizes) {
              std::printf("# %s %s:", kPhaseNames[p], FormatBytes(b).c_str());
              TraceLastOps(common.http_url, "allreduce", b / 4, 20);
            }
          }
          if (me.leader() && common.trace && p == kAHigh) {
            // What the high class's chunks found ahead of them at node 0 (since the agent started:
            // only A high sends high chunks).
            Result<nlohmann::json> st = FetchAgentJson(common.http_url, "/status");
            if (st.ok() && st->contains("scheduler")) {
              const nlohmann::json& h = (*st)["scheduler"]["job_classes"]["high"];
              std::printf(
                  "# high-class chunks at node 0 so far: %llu, lower classes' bytes in flight "
                  "ahead of them: mean %.0f KiB, max %.0f KiB\n",
                  static_cast<unsigned long long>(h.value("sent_chunks", uint64_t{0})),
                  h.value("mean_lower_ahead_bytes", 0.0) / 1024,
                  static_cast<double>(h.value("max_lower_ahead_bytes", uint64_t{0})) / 1024);
            }
          }
          if (me.leader()) {
            for (const auto& [b, v] : s.lat_us) {
              out.p50[b] = Percentile(v, 50);
              out.p99[b] = Percentile(v, 99);
            }
            out.a_gbps = s.bytes * me.bus() / (s.t1 - s.t0) / 1e3;
            if (beside) {
              m.Put(window, std::to_string(s.t0) + " " + std::to_string(s.t1));
              m.Put(stop, "");
            }
          }
          me.Disconnect();
        }
        if (conductor && p != kAAlone) out.b_gbps = std::stod(m.Wait(result));
      } else {
        if (p != kAAlone) {
          me.Connect(tag, OUTRIDER_JOB_CLASS_NORMAL);
          bool alone = p == kBAlone;
          std::vector<Span> ops = me.Bulk(running, stop, alone ? o.bulk_alone_ops : 1 << 30);
          if (me.leader()) {
            double w0 = ops.front().t0, w1 = ops.back().t1;
            if (!alone) {
              std::istringstream in(m.Wait(window));
              in >> w0 >> w1;
            }
            m.Put(result,
                  std::to_string(BytesIn(ops, o.bulk_bytes, w0, w1) * me.bus() / (w1 - w0) / 1e3));
          }
          me.Disconnect();
        }
      }
      // The phase is over for this process; the next begins once every process said so.
      m.Put("done-" + tag + "-" + std::to_string(EnvInt("RANK", 0)), "");
      if (conductor) {
        for (int q = 0; q < 2 * me.nodes(); ++q) m.Wait("done-" + tag + "-" + std::to_string(q));
      }
    }
  }
  if (!(me.is_a() && me.leader())) return 0;
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // every process is past its last marker

  // Medians over rounds.
  auto median = [&](Phase p, auto get) {
    std::vector<double> v;
    for (auto& r : rounds) v.push_back(get(r[p]));
    return Median(v);
  };
  std::printf(
      "# outrider-bench interfere: %d nodes; job A: allreduces of %zu sizes (p50/p99 over >= %d "
      "ops per size and phase), job B: back-to-back %s allreduces; medians of %d rounds\n",
      me.nodes(), o.sizes.size(), o.min_samples, FormatBytes(o.bulk_bytes).c_str(), o.rounds);
  std::printf("# %-8s %12s %12s %14s %14s %14s %14s %10s %10s\n", "size", "p50_alone", "p99_alone",
              "p50_a_high", "p99_a_high", "p50_a_normal", "p99_a_normal", "p99_high/", "p99_norm/");
  std::printf("# %-8s %12s %12s %14s %14s %14s %14s %10s %10s\n", "", "(us)", "(us)", "(us)",
              "(us)", "(us)", "(us)", "alone", "alone");
  nlohmann::json rows = nlohmann::json::array();
  for (uint64_t b : o.sizes) {
    double l50 = median(kAAlone, [&](Round& x) { return x.p50[b]; });
    double l99 = median(kAAlone, [&](Round& x) { return x.p99[b]; });
    double h50 = median(kAHigh, [&](Round& x) { return x.p50[b]; });
    double h99 = median(kAHigh, [&](Round& x) { return x.p99[b]; });
    double n50 = median(kANormal, [&](Round& x) { return x.p50[b]; });
    double n99 = median(kANormal, [&](Round& x) { return x.p99[b]; });
    std::printf("  %-8s %12.1f %12.1f %14.1f %14.1f %14.1f %14.1f %10.2f %10.2f\n",
                FormatBytes(b).c_str(), l50, l99, h50, h99, n50, n99, h99 / l99, n99 / l99);
    rows.push_back({{"system", "outrider"},
                    {"op", "interfere"},
                    {"what", "a_latency"},
                    {"bytes", b},
                    {"p50_alone_us", l50},
                    {"p99_alone_us", l99},
                    {"p50_a_high_us", h50},
                    {"p99_a_high_us", h99},
                    {"p50_a_normal_us", n50},
                    {"p99_a_normal_us", n99},
                    {"p99_high_over_alone", h99 / l99},
                    {"p99_normal_over_alone", n99 / l99},
                    {"nodes", me.nodes()},
                    {"rounds", o.rounds},
                    {"time_us", h99}});
  }
  double b_alone = median(kBAlone, [](Round& x) { return x.b_gbps; });
  std::printf("# job B bus bandwidth (GB/s): alone %.3f\n", b_alone);
  for (Phase p : {kAHigh, kANormal}) {
    double a = median(p, [](Round& x) { return x.a_gbps; });
    double b = median(p, [](Round& x) { return x.b_gbps; });
    double left = std::max(b_alone - a, 1e-9);
    std::printf("  beside A (%s): A uses %.3f, leaving %.3f; B gets %.3f = %.2f of what A leaves\n",
                p == kAHigh ? "high" : "normal", a, left, b, b / left);
    rows.push_back({{"system", "outrider"},
                    {"op", "interfere"},
                    {"what", "b_throughput"},
                    {"phase", kPhaseNames[p]},
                    {"bytes", o.bulk_bytes},
                    {"b_alone_gbps", b_alone},
                    {"a_gbps", a},
                    {"b_gbps", b},
                    {"b_over_left", b / left},
                    {"nodes", me.nodes()},
                    {"rounds", o.rounds},
                    {"time_us", 0}});
  }
  double ea = median(kEqual, [](Round& x) { return x.a_gbps; });
  double eb = median(kEqual, [](Round& x) { return x.b_gbps; });
  double sum = std::max(ea + eb, 1e-9);
  std::printf("# two equal bulk jobs (GB/s): A %.3f (%.1f %%), B %.3f (%.1f %%)\n", ea,
              100 * ea / sum, eb, 100 * eb / sum);
  rows.push_back({{"system", "outrider"},
                  {"op", "interfere"},
                  {"what", "equal_share"},
                  {"bytes", o.bulk_bytes},
                  {"a_gbps", ea},
                  {"b_gbps", eb},
                  {"a_share", ea / sum},
                  {"b_share", eb / sum},
                  {"nodes", me.nodes()},
                  {"rounds", o.rounds},
                  {"time_us", 0}});
  if (!WriteJsonOrSay(common, rows)) return 1;
  return 0;
}

}  // namespace outrider::bench
