// A small Prometheus metrics registry in the shape of prometheus-cpp (not packaged in Debian):
// families of counters, gauges and histograms with fixed label names, children per label-value
// set, and the text exposition format 0.0.4. Updates are lock- and allocation-free (relaxed
// atomics on a child the caller keeps); only creating a child or a family takes a lock.
// Thread-safety: everything may be called from any thread. Children live as long as the
// registry (pointers stay valid).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"

namespace outrider::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Inc(double v = 1.0);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// Fixed upper bounds (strictly increasing; +Inf is implicit).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts per bound, then +Inf; sum.
  std::vector<uint64_t> CumulativeCounts() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // per bucket (not cumulative), +Inf last
  std::atomic<double> sum_{0.0};
};

std::vector<double> ExponentialBuckets(double start, double factor, int count);
std::vector<double> LinearBuckets(double start, double width, int count);

enum class Type { kCounter, kGauge, kHistogram };

// One metric name with its help, type and label names; children by label values.
template <typename T>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> bounds = {})
      : name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        bounds_(std::move(bounds)) {}
  // The child for these label values (in label-name order); created on first use. Callers on a
  // hot path keep the pointer.
  T* Get(const std::vector<std::string>& values);
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  // Snapshot of the children (values, child); a child removed meanwhile stays valid in it.
  std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const T>>> Children() const;
  // Removes the children whose label `label` has `value` (a family without that label: none);
  // returns how many. Pointers from Get to them must no longer be used.
  size_t RemoveWhere(const std::string& label, const std::string& value);

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::vector<double> bounds_;
  mutable Mutex mu_;
  std::map<std::vector<std::string>, std::shared_ptr<T>> children_ OUTRIDER_GUARDED_BY(mu_);
};

class Registry {
 public:
  Family<Counter>& AddCounter(const std::string& name, const std::string& help,
                              std::vector<std::string> labels = {});
  Family<Gauge>& AddGauge(const std::string& name, const std::string& help,
                          std::vector<std::string> labels = {});
  Family<Histogram>& AddHistogram(const std::string& name, const std::string& help,
                                  std::vector<std::string> labels, std::vector<double> bounds);
  // Called at the start of every Serialize (for values read on demand, e.g. process_*).
  void AddCollector(std::function<void()> collect);
  // Prometheus text format 0.0.4.
  std::string Serialize() const;
  // Removes every series, of every family, whose label `label` has `value`; returns how many.
  size_t RemoveSeries(const std::string& label, const std::string& value);

 private:
  mutable Mutex mu_;
  std::vector<std::unique_ptr<Family<Counter>>> counters_ OUTRIDER_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_ OUTRIDER_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_ OUTRIDER_GUARDED_BY(mu_);
  // families in registration order
  std::vector<std::pair<Type, size_t>> order_ OUTRIDER_GUARDED_BY(mu_);
  std::vector<std::function<void()>> collectors_ OUTRIDER_GUARDED_BY(mu_);
};

// Escapes a label value (backslash, double quote, newline) and a HELP text (backslash, newline).
std::string EscapeLabelValue(const std::string& v);
std::string EscapeHelp(const std::string& v);
// Formats a sample value the way Prometheus parses it (+Inf, -Inf, NaN, shortest round trip).
std::string FormatValue(double v);

// process_* series of the calling process (cpu, memory, fds, start time), read from /proc.
void AddProcessCollector(Registry* registry);

template <typename T>
T* Family<T>::Get(const std::vector<std::string>& values) {
  MutexLock lock(&mu_);
  auto it = children_.find(values);
  if (it != children_.end()) return it->second.get();
  std::shared_ptr<T> child;
  if constexpr (std::is_same_v<T, Histogram>) {
    child = std::make_shared<T>(bounds_);
  } else {
    child = std::make_shared<T>();
  }
  T* p = child.get();
  children_.emplace(values, std::move(child));
  return p;
}

template <typename T>
size_t Family<T>::RemoveWhere(const std::string& label, const std::string& value) {
  auto at = std::find(label_names_.begin(), label_names_.end(), label);
  if (at == label_names_.end()) return 0;
  auto index = static_cast<size_t>(at - label_names_.begin());
  MutexLock lock(&mu_);
  size_t n = 0;
  for (auto it = children_.begin(); it != children_.end();) {
    if (it->first[index] == value) {
      it = children_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

template <typename T>
std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const T>>> Family<T>::Children()
    const {
  MutexLock lock(&mu_);
  std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const T>>> out;
  for (const auto& [values, child] : children_) out.emplace_back(values, child);
  return out;
}

}  // namespace outrider::metrics
