// The metrics registry and its Prometheus text exposition (format 0.0.4): HELP/TYPE lines,
// label escaping, cumulative histogram buckets with +Inf, _sum and _count, and concurrent updates.
#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace outrider::metrics {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST(RegistryTest, CounterFamilyWritesHelpTypeAndLabelledSamples) {
  Registry r;
  auto& ops = r.AddCounter("x_ops_total", "Ops done.", {"job", "op"});
  ops.Get({"a", "allreduce"})->Inc();
  ops.Get({"a", "allreduce"})->Inc(2);
  ops.Get({"b", "barrier"})->Inc();
  std::string t = r.Serialize();
  EXPECT_TRUE(Has(t, "# HELP x_ops_total Ops done.\n# TYPE x_ops_total counter\n"));
  EXPECT_TRUE(Has(t, "x_ops_total{job=\"a\",op=\"allreduce\"} 3\n"));
  EXPECT_TRUE(Has(t, "x_ops_total{job=\"b\",op=\"barrier\"} 1\n"));
}

TEST(RegistryTest, RemovesTheSeriesOfOneLabelValueInEveryFamilyThatHasTheLabel) {
  Registry r;
  auto& ops = r.AddCounter("x_ops_total", "Ops done.", {"job", "op"});
  auto& mode = r.AddGauge("x_mode", "Mode.", {"job"});
  auto& peers = r.AddGauge("x_peers", "Peers.", {"state"});
  auto& wait = r.AddHistogram("x_wait_seconds", "Wait.", {"job"}, {1.0});
  ops.Get({"a", "allreduce"})->Inc();
  ops.Get({"b", "allreduce"})->Inc();
  mode.Get({"a"})->Set(1);
  peers.Get({"a"})->Set(2);  // another label of the same value stays
  wait.Get({"a"})->Observe(0.5);
  // A scrape that took its snapshot before the removal still reads valid children.
  auto before = ops.Children();
  EXPECT_EQ(r.RemoveSeries("job", "a"), 3u);
  EXPECT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].second->Value(), 1);
  std::string t = r.Serialize();
  EXPECT_FALSE(Has(t, "job=\"a\""));
  EXPECT_TRUE(Has(t, "x_ops_total{job=\"b\",op=\"allreduce\"} 1\n"));
  EXPECT_TRUE(Has(t, "x_peers{state=\"a\"} 2\n"));
  // The label can come back: fresh series from zero.
  ops.Get({"a", "allreduce"})->Inc();
  EXPECT_TRUE(Has(r.Serialize(), "x_ops_total{job=\"a\",op=\"allreduce\"} 1\n"));
}

TEST(RegistryTest, CountersNeverGoDown) {
  Counter c;
  c.Inc(5);
  c.Inc(-3);
  EXPECT_EQ(c.Value(), 5);
}

TEST(RegistryTest, EscapesLabelValuesAndHelp) {
  Registry r;
  r.AddGauge("x_g", "Line one\nback\\slash", {"job"}).Get({"we\"ird\\job\nname"})->Set(1.5);
  std::string t = r.Serialize();
  EXPECT_TRUE(Has(t, "# HELP x_g Line one\\nback\\\\slash\n"));
  EXPECT_TRUE(Has(t, "x_g{job=\"we\\\"ird\\\\job\\nname\"} 1.5\n"));
}

TEST(RegistryTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  auto* h = r.AddHistogram("x_seconds", "Latency.", {"op"}, {0.1, 1, 10}).Get({"allreduce"});
  for (double v : {0.05, 0.1, 0.5, 5.0, 50.0}) h->Observe(v);
  std::string t = r.Serialize();
  EXPECT_TRUE(Has(t, "# TYPE x_seconds histogram\n"));
  EXPECT_TRUE(Has(t, "x_seconds_bucket{op=\"allreduce\",le=\"0.1\"} 2\n"));  // le is inclusive
  EXPECT_TRUE(Has(t, "x_seconds_bucket{op=\"allreduce\",le=\"1\"} 3\n"));
  EXPECT_TRUE(Has(t, "x_seconds_bucket{op=\"allreduce\",le=\"10\"} 4\n"));
  EXPECT_TRUE(Has(t, "x_seconds_bucket{op=\"allreduce\",le=\"+Inf\"} 5\n"));
  EXPECT_TRUE(Has(t, "x_seconds_sum{op=\"allreduce\"} 55.65\n"));
  EXPECT_TRUE(Has(t, "x_seconds_count{op=\"allreduce\"} 5\n"));
}

TEST(RegistryTest, BucketHelpers) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(LinearBuckets(0, 5, 3), (std::vector<double>{0, 5, 10}));
}

TEST(RegistryTest, SpecialValuesUsePrometheusSpelling) {
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
  EXPECT_EQ(FormatValue(42), "42");
}

TEST(RegistryTest, ConcurrentIncrementsAreNotLost) {
  Registry r;
  Counter* c = r.AddCounter("x_total", "n").Get({});
  Histogram* h = r.AddHistogram("x_h", "h", {}, {1}).Get({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100000; ++i) {
        c->Inc();
        h->Observe(0.5);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->Value(), 400000);
  EXPECT_EQ(h->CumulativeCounts().back(), 400000u);
}

TEST(RegistryTest, CollectorsRunBeforeEachScrape) {
  Registry r;
  Gauge* g = r.AddGauge("x_live", "live").Get({});
  int calls = 0;
  r.AddCollector([&] { g->Set(++calls); });
  EXPECT_TRUE(Has(r.Serialize(), "x_live 1\n"));
  EXPECT_TRUE(Has(r.Serialize(), "x_live 2\n"));
}

TEST(RegistryTest, ProcessCollectorReportsThisProcess) {
  Registry r;
  AddProcessCollector(&r);
  std::string t = r.Serialize();
  for (const char* name :
       {"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
        "process_max_fds ", "process_start_time_seconds ", "process_virtual_memory_bytes "}) {
    EXPECT_TRUE(Has(t, std::string("\n") + name)) << name;
  }
}

}  // namespace
}  // namespace outrider::metrics
