// Metrics registry and the Prometheus text exposition format.
#include "metrics/registry.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace outrider::metrics {
namespace {

void AtomicAdd(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

std::string LabelString(const std::vector<std::string>& names,
                        const std::vector<std::string>& values, const std::string& extra_name = "",
                        const std::string& extra_value = "") {
  std::string s;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    s += (s.empty() ? "" : ",") + names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra_name.empty()) s += (s.empty() ? "" : ",") + extra_name + "=\"" + extra_value + "\"";
  return s.empty() ? "" : "{" + s + "}";
}

}  // namespace

void Counter::Inc(double v) {
  if (v < 0) return;  // counters only go up
  AtomicAdd(value_, v);
}

void Gauge::Add(double v) { AtomicAdd(value_, v); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, v);
}

std::vector<uint64_t> Histogram::CumulativeCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t acc = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    acc += counts_[i].load(std::memory_order_relaxed);
    out[i] = acc;
  }
  return out;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> b;
  for (int i = 0; i < count; ++i, start *= factor) b.push_back(start);
  return b;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> b;
  for (int i = 0; i < count; ++i) b.push_back(start + width * i);
  return b;
}

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string EscapeHelp(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, p);
}

Family<Counter>& Registry::AddCounter(const std::string& name, const std::string& help,
                                      std::vector<std::string> labels) {
  MutexLock lock(&mu_);
  counters_.push_back(std::make_unique<Family<Counter>>(name, help, std::move(labels)));
  order_.emplace_back(Type::kCounter, counters_.size() - 1);
  return *counters_.back();
}

Family<Gauge>& Registry::AddGauge(const std::string& name, const std::string& help,
                                  std::vector<std::string> labels) {
  MutexLock lock(&mu_);
  gauges_.push_back(std::make_unique<Family<Gauge>>(name, help, std::move(labels)));
  order_.emplace_back(Type::kGauge, gauges_.size() - 1);
  return *gauges_.back();
}

Family<Histogram>& Registry::AddHistogram(const std::string& name, const std::string& help,
                                          std::vector<std::string> labels,
                                          std::vector<double> bounds) {
  MutexLock lock(&mu_);
  histograms_.push_back(
      std::make_unique<Family<Histogram>>(name, help, std::move(labels), std::move(bounds)));
  order_.emplace_back(Type::kHistogram, histograms_.size() - 1);
  return *histograms_.back();
}

void Registry::AddCollector(std::function<void()> collect) {
  MutexLock lock(&mu_);
  collectors_.push_back(std::move(collect));
}

size_t Registry::RemoveSeries(const std::string& label, const std::string& value) {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (auto& f : counters_) n += f->RemoveWhere(label, value);
  for (auto& f : gauges_) n += f->RemoveWhere(label, value);
  for (auto& f : histograms_) n += f->RemoveWhere(label, value);
  return n;
}

std::string Registry::Serialize() const {
  std::vector<std::function<void()>> collectors;
  {
    MutexLock lock(&mu_);
    collectors = collectors_;
  }
  for (auto& c : collectors) c();
  MutexLock lock(&mu_);
  std::string out;
  auto header = [&](const std::string& name, const std::string& help, const char* type) {
    out += "# HELP " + name + " " + EscapeHelp(help) + "\n# TYPE " + name + " " + type + "\n";
  };
  for (auto [type, index] : order_) {
    if (type == Type::kCounter) {
      const auto& f = *counters_[index];
      header(f.name(), f.help(), "counter");
      for (const auto& [values, c] : f.Children()) {
        out +=
            f.name() + LabelString(f.label_names(), values) + " " + FormatValue(c->Value()) + "\n";
      }
    } else if (type == Type::kGauge) {
      const auto& f = *gauges_[index];
      header(f.name(), f.help(), "gauge");
      for (const auto& [values, g] : f.Children()) {
        out +=
            f.name() + LabelString(f.label_names(), values) + " " + FormatValue(g->Value()) + "\n";
      }
    } else {
      const auto& f = *histograms_[index];
      header(f.name(), f.help(), "histogram");
      for (const auto& [values, h] : f.Children()) {
        std::vector<uint64_t> cum = h->CumulativeCounts();
        for (size_t i = 0; i < h->bounds().size(); ++i) {
          out += f.name() + "_bucket" +
                 LabelString(f.label_names(), values, "le", FormatValue(h->bounds()[i])) + " " +
                 std::to_string(cum[i]) + "\n";
        }
        out += f.name() + "_bucket" + LabelString(f.label_names(), values, "le", "+Inf") + " " +
               std::to_string(cum.back()) + "\n";
        out += f.name() + "_sum" + LabelString(f.label_names(), values) + " " +
               FormatValue(h->Sum()) + "\n";
        out += f.name() + "_count" + LabelString(f.label_names(), values) + " " +
               std::to_string(cum.back()) + "\n";
      }
    }
  }
  return out;
}

void AddProcessCollector(Registry* r) {
  auto& cpu = r->AddCounter("process_cpu_seconds_total",
                            "Total user and system CPU time spent in seconds.");
  auto& rss = r->AddGauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  auto& vms = r->AddGauge("process_virtual_memory_bytes", "Virtual memory size in bytes.");
  auto& fds = r->AddGauge("process_open_fds", "Number of open file descriptors.");
  auto& max_fds = r->AddGauge("process_max_fds", "Maximum number of open file descriptors.");
  auto& start = r->AddGauge("process_start_time_seconds",
                            "Start time of the process since unix epoch in seconds.");
  Counter* cpu_c = cpu.Get({});
  Gauge *rss_g = rss.Get({}), *vms_g = vms.Get({}), *fds_g = fds.Get({}), *max_g = max_fds.Get({}),
        *start_g = start.Get({});
  auto last_cpu = std::make_shared<double>(0.0);
  r->AddCollector([=] {
    std::ifstream stat("/proc/self/stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the command (which may hold spaces) start after the last ')'.
    size_t p = line.rfind(')');
    if (p == std::string::npos) return;
    std::istringstream in(line.substr(p + 2));
    std::vector<std::string> f;
    for (std::string x; in >> x;) f.push_back(x);
    // f[0] is field 3 (state): utime 14, stime 15, starttime 22, vsize 23, rss 24.
    if (f.size() < 22) return;
    double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    double cpu_s = (std::stod(f[11]) + std::stod(f[12])) / tick;
    cpu_c->Inc(cpu_s - *last_cpu);
    *last_cpu = cpu_s;
    vms_g->Set(std::stod(f[20]));
    rss_g->Set(std::stod(f[21]) * static_cast<double>(sysconf(_SC_PAGESIZE)));
    std::ifstream up("/proc/stat");
    double btime = 0;
    for (std::string k; up >> k;) {
      if (k == "btime") {
        up >> btime;
        break;
      }
    }
    start_g->Set(btime + std::stod(f[19]) / tick);
    int n = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
      while (readdir(d) != nullptr) ++n;
      closedir(d);
      n -= 3;  // ".", ".." and the directory's own fd
    }
    fds_g->Set(n);
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) max_g->Set(static_cast<double>(rl.rlim_cur));
  });
}

}  // namespace outrider::metrics
