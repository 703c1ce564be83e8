// NCCL telemetry datagrams: what the parser takes and refuses, and that the sink counts a
// datagram whole or not at all, never lets a bad job name into /metrics, and counts rejections.
#include "agent/control/nccl_stats_receiver.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "agent/observability.h"

namespace outrider::agent {
namespace {

std::vector<uint8_t> Datagram(const std::string& job, std::vector<uint32_t> ops,
                              uint64_t comm = 0xc0ffee) {
  ipc::NcclStatsHeader h{};
  h.magic = ipc::kNcclTelemetryMagic;
  h.version = ipc::kNcclTelemetryVersion;
  h.source = static_cast<uint8_t>(ipc::NcclSource::kInterposer);
  h.records = static_cast<uint8_t>(ops.size());
  h.pid = 77;
  h.nranks = 2;
  h.comm_id = comm;
  std::memcpy(h.job, job.data(), std::min(job.size(), sizeof(h.job)));
  std::vector<uint8_t> out(sizeof(h) + ops.size() * sizeof(ipc::NcclStatsRecord));
  std::memcpy(out.data(), &h, sizeof(h));
  for (size_t i = 0; i < ops.size(); ++i) {
    ipc::NcclStatsRecord r{};
    r.op = ops[i];
    r.calls = 5;
    r.bytes = 1000;
    std::memcpy(out.data() + sizeof(h) + i * sizeof(r), &r, sizeof(r));
  }
  return out;
}

Status Parse(const std::vector<uint8_t>& d) {
  return ParseNcclTelemetry(d.data(), d.size()).status();
}

TEST(NcclTelemetryParseTest, TakesAWellFormedDatagramWithItsJobAndRecords) {
  std::vector<uint8_t> d = Datagram("train-1", {0, 3});
  Result<NcclTelemetryReport> r = ParseNcclTelemetry(d.data(), d.size());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->job, "train-1");
  ASSERT_EQ(r->records.size(), 2u);
  EXPECT_EQ(r->records[1].op, 3u);
  EXPECT_TRUE(Parse(Datagram("", {0})).ok());  // no job name: counted as _unnamed
}

TEST(NcclTelemetryParseTest, RefusesJobNamesThatAreNotPrintableAscii) {
  for (std::string job : {std::string("a\rb"), std::string("a\nb"), std::string("caf\xc3\xa9"),
                          std::string("\xff\xfe"), std::string("two words")}) {
    Status st = Parse(Datagram(job, {0}));
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << "job " << job;
    EXPECT_NE(st.message().find("job name must be printable ASCII"), std::string::npos)
        << st.message();
  }
}

TEST(NcclTelemetryParseTest, RefusesNoRecordsTooManyAndUnknownOnes) {
  EXPECT_EQ(Parse(Datagram("j", {})).code(), Code::kInvalidArgument);
  EXPECT_EQ(Parse(Datagram("j", std::vector<uint32_t>(ipc::kNumNcclOps + 1, 0))).code(),
            Code::kInvalidArgument);
  Status st = Parse(Datagram("j", {0, ipc::kNumNcclOps}));
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown op"), std::string::npos) << st.message();
  std::vector<uint8_t> cut = Datagram("j", {0, 1});
  cut.pop_back();
  EXPECT_EQ(Parse(cut).code(), Code::kInvalidArgument);
}

// ---- The sink on a real socket ----

class NcclTelemetrySinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loop = EventLoop::Create(0);
    ASSERT_TRUE(loop.ok());
    loop_ = std::move(*loop);
    char dir[] = "/tmp/outrider-telemetry-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    sink_ = std::make_unique<NcclStatsReceiver>(loop_.get(), &metrics_,
                                                [](const ucred&) { return true; });
    ASSERT_TRUE(sink_->Open(dir_ + "/agent.sock.nccl", 0600, static_cast<gid_t>(-1)).ok());
  }
  void TearDown() override {
    sink_.reset();
    ::rmdir(dir_.c_str());
  }
  // Sends each datagram, then runs the loop until the sink has read them all.
  void Send(const std::vector<std::vector<uint8_t>>& datagrams) {
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string path = dir_ + "/agent.sock.nccl";
    std::memcpy(addr.sun_path, path.data(), path.size());
    for (const auto& d : datagrams) {
      ASSERT_EQ(
          ::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
          static_cast<ssize_t>(d.size()));
    }
    ::close(fd);
    uint64_t want = sink_->accepted() + sink_->rejected() + datagrams.size();
    EventLoop::Hooks hooks;
    hooks.poll = [&] {
      if (sink_->accepted() + sink_->rejected() >= want) loop_->Stop();
      return false;
    };
    hooks.prepare_sleep = [] { return true; };
    hooks.after_wake = [] {};
    hooks.timeout_ms = [] { return 100; };
    loop_->Run(hooks);
  }
  static double Value(const std::string& text, const std::string& series) {
    size_t at = text.find(series + " ");
    return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 1));
  }

  AgentMetrics metrics_;
  std::unique_ptr<EventLoop> loop_;
  std::string dir_;
  std::unique_ptr<NcclStatsReceiver> sink_;
};

TEST_F(NcclTelemetrySinkTest, CountsADatagramWholeOrNotAtAllAndCountsRejections) {
  std::string before = metrics_.registry().Serialize();
  double rejected = Value(before, "outrider_nccl_telemetry_datagrams_total{result=\"rejected\"}");
  // The first record is fine, the second is not: nothing of the datagram may count.
  Send({Datagram("whole-or-none", {0, 99}), Datagram("bad\rname", {0}),
        Datagram("whole-or-none", {}), Datagram("counted", {1})});
  EXPECT_EQ(sink_->rejected(), 3u);
  EXPECT_EQ(sink_->accepted(), 1u);
  std::string after = metrics_.registry().Serialize();
  EXPECT_EQ(after.find("whole-or-none"), std::string::npos)
      << "a refused datagram's records were counted";
  EXPECT_EQ(after.find("bad\r"), std::string::npos);
  EXPECT_NE(after.find("outrider_nccl_calls_total{training_job=\"counted\""), std::string::npos);
  EXPECT_EQ(Value(after, "outrider_nccl_telemetry_datagrams_total{result=\"rejected\"}"),
            rejected + 3);
}

}  // namespace
}  // namespace outrider::agent
