// Job classes: a job declares its class and weight (OUTRIDER_JOB_PRIORITY, OUTRIDER_JOB_WEIGHT or
// the connect options); the agent refuses a class above its owner's ceiling, ranks of one job that
// disagree, and malformed values; /status and /metrics show each job's class and its chunks in
// the send scheduler.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

class JobClassTest : public MultiNodeTest {
 protected:
  void TearDown() override {
    ::unsetenv("OUTRIDER_JOB_PRIORITY");
    ::unsetenv("OUTRIDER_JOB_WEIGHT");
    MultiNodeTest::TearDown();
  }
  // Connects in this process as rank `local_rank` of a one-node job of `local` ranks.
  int ConnectLocal(const char* job, int local_rank, int local, int32_t job_class, uint32_t weight,
                   outrider_client_t** c) {
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    std::string socket = agents_[0]->socket_path();
    o.socket_path = socket.c_str();
    o.job_id = job;
    o.rank = o.local_rank = local_rank;
    o.world_size = o.local_world_size = local;
    o.job_class = job_class;
    o.job_weight = weight;
    return outrider_connect(&o, c);
  }
};

const nlohmann::json* FindJob(const nlohmann::json& status, const std::string& id) {
  for (const auto& j : status["jobs"]) {
    if (j["id"] == id) return &j;
  }
  return nullptr;
}

TEST_F(JobClassTest, EachJobShowsItsClassWeightAndItsChunksInTheScheduler) {
  StartAgents(2, /*http=*/true, {"--job-class-ceiling", "high"});
  ::setenv("OUTRIDER_JOB_PRIORITY", "high", 1);
  ::setenv("OUTRIDER_JOB_WEIGHT", "3", 1);
  const uint16_t http = http_ports_[0];
  RunJob("urgent-job", 2, 1, "tok", [http](outrider_client_t* c, int rank) {
    const size_t n = (4u << 20) / 4;
    auto* x = static_cast<float*>(outrider_alloc(c, n * 4));
    if (x == nullptr) return 90;
    outrider_op_t h;
    int rc = Wait(c, outrider_allreduce(c, x, x, n, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    if (rank == 0) {
      nlohmann::json status = nlohmann::json::parse(HttpGet(http, "/status"));
      const nlohmann::json* job = FindJob(status, "urgent-job");
      if (job == nullptr) return 91;
      if ((*job)["class"] != "high" || (*job)["weight"] != 3) return 92;
      const nlohmann::json& sched = (*job)["scheduler"];
      // 4 MiB over two nodes: half of it crosses, in chunks, all of them this job's.
      if (sched["sent_bytes"].get<uint64_t>() < (2u << 20) || sched["queued_chunks"] != 0) {
        return 93;
      }
      if (sched["recent_share"].get<double>() != 1.0) return 94;
      // The agent's scheduler counts what the high class's chunks found ahead of them: no other
      // job, so no lower class.
      const nlohmann::json& high = status["scheduler"]["job_classes"]["high"];
      if (high["sent_chunks"].get<uint64_t>() == 0 || high["max_lower_ahead_bytes"] != 0) return 96;
      // The per-job gauges are refreshed every 50 ms: read until they are there (5 s at most).
      auto shown = [&] {
        std::string metrics = HttpGet(http, "/metrics");
        return metrics.find("outrider_job_class{training_job=\"urgent-job\",class=\"high\"} 1") !=
                   std::string::npos &&
               metrics.find("outrider_job_class{training_job=\"urgent-job\",class=\"weight\"} 3") !=
                   std::string::npos &&
               metrics.find("outrider_job_scheduled_bytes{training_job=\"urgent-job\"} 0\n") ==
                   std::string::npos &&
               metrics.find("outrider_job_scheduled_bytes{training_job=\"urgent-job\"}") !=
                   std::string::npos;
      };
      bool seen = false;
      for (int i = 0; i < 100 && !(seen = shown()); ++i) ::usleep(50'000);
      if (!seen) return 95;
    }
    return Wait(c, outrider_barrier(c, nullptr, &h), &h);
  });
}

TEST_F(JobClassTest, AClassAboveItsOwnersCeilingIsRefused) {
  StartAgents(1, false, {"--job-class-ceiling", std::to_string(::getuid()) + "=normal,*=high"});
  outrider_client_t* c = nullptr;
  EXPECT_EQ(ConnectLocal("too-high", 0, 1, OUTRIDER_JOB_CLASS_HIGH, 1, &c),
            OUTRIDER_ERR_PERMISSION_DENIED);
  std::string why = outrider_last_error(nullptr);
  EXPECT_NE(why.find("job class high is above what uid"), std::string::npos) << why;
  EXPECT_NE(why.find("job_class_ceiling"), std::string::npos) << why;
  // At or below the ceiling: served.
  for (int32_t cls : {OUTRIDER_JOB_CLASS_NORMAL, OUTRIDER_JOB_CLASS_LOW}) {
    ASSERT_EQ(ConnectLocal("in-bounds", 0, 1, cls, 1, &c), OUTRIDER_OK)
        << outrider_last_error(nullptr);
    outrider_disconnect(c);
  }
}

TEST_F(JobClassTest, UnconfiguredNoJobMayDeclareHigh) {
  StartAgents(1);
  outrider_client_t* c = nullptr;
  EXPECT_EQ(ConnectLocal("uninvited", 0, 1, OUTRIDER_JOB_CLASS_HIGH, 1, &c),
            OUTRIDER_ERR_PERMISSION_DENIED);
  std::string why = outrider_last_error(nullptr);
  EXPECT_NE(why.find("job_class_ceiling"), std::string::npos) << why;
  ASSERT_EQ(ConnectLocal("invited", 0, 1, OUTRIDER_JOB_CLASS_NORMAL, 1, &c), OUTRIDER_OK)
      << outrider_last_error(nullptr);
  outrider_disconnect(c);
}

TEST_F(JobClassTest, RanksOfOneJobMustAgreeOnItsClassAndWeight) {
  StartAgents(1);
  outrider_client_t* first = nullptr;
  ASSERT_EQ(ConnectLocal("agree", 0, 2, OUTRIDER_JOB_CLASS_LOW, 2, &first), OUTRIDER_OK)
      << outrider_last_error(nullptr);
  outrider_client_t* other = nullptr;
  EXPECT_EQ(ConnectLocal("agree", 1, 2, OUTRIDER_JOB_CLASS_NORMAL, 2, &other),
            OUTRIDER_ERR_FAILED_PRECONDITION);
  std::string why = outrider_last_error(nullptr);
  EXPECT_NE(why.find("is of class low with weight 2, this client says normal"), std::string::npos)
      << why;
  EXPECT_EQ(ConnectLocal("agree", 1, 2, OUTRIDER_JOB_CLASS_LOW, 5, &other),
            OUTRIDER_ERR_FAILED_PRECONDITION);
  ASSERT_EQ(ConnectLocal("agree", 1, 2, OUTRIDER_JOB_CLASS_LOW, 2, &other), OUTRIDER_OK)
      << outrider_last_error(nullptr);
  outrider_disconnect(other);
  outrider_disconnect(first);
}

TEST_F(JobClassTest, MalformedClassesAndWeightsAreRefusedBeforeConnecting) {
  StartAgents(1);
  outrider_client_t* c = nullptr;
  ::setenv("OUTRIDER_JOB_PRIORITY", "urgent", 1);
  EXPECT_EQ(ConnectLocal("bad", 0, 1, 0, 0, &c), OUTRIDER_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(outrider_last_error(nullptr))
                .find("OUTRIDER_JOB_PRIORITY=urgent is not high, normal or low"),
            std::string::npos);
  ::setenv("OUTRIDER_JOB_PRIORITY", "low", 1);
  ::setenv("OUTRIDER_JOB_WEIGHT", "101", 1);
  EXPECT_EQ(ConnectLocal("bad", 0, 1, 0, 0, &c), OUTRIDER_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(outrider_last_error(nullptr)).find("job weight 101 is outside 1..100"),
            std::string::npos);
  ::unsetenv("OUTRIDER_JOB_WEIGHT");
  EXPECT_EQ(ConnectLocal("bad", 0, 1, 7, 0, &c), OUTRIDER_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ConnectLocal("bad", 0, 1, -1, 0, &c), OUTRIDER_ERR_INVALID_ARGUMENT);
  // The environment's class, then an explicit one over it.
  ASSERT_EQ(ConnectLocal("env-class", 0, 1, 0, 0, &c), OUTRIDER_OK);
  outrider_disconnect(c);
}

}  // namespace
}  // namespace outrider::testing
