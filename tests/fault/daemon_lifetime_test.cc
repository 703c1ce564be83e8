// One agent serving a thousand short jobs one after another, as a node that runs CI jobs does:
// each job's metric series retire after it ends, so the last job still has its own job label;
// /status remembers the last jobs and how they ended; the agent's memory, fds and threads come
// back to where they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct ProcStatus {
  long rss_kib = -1;
  long threads = -1;
};

ProcStatus ReadStatus(pid_t pid) {
  ProcStatus s;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") in >> s.rss_kib;
    if (key == "Threads:") in >> s.threads;
    in.ignore(1 << 16, '\n');
  }
  return s;
}

// Runs job `name`: one rank, one allreduce checked, then it leaves in order; `before_leaving`
// runs while the job is still there.
void RunShortJob(const std::string& socket, const std::string& name,
                 const std::function<void()>& before_leaving = {}) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = name.c_str();
  o.rank = 0;
  o.world_size = 1;
  o.arena_bytes = 1 << 20;
  outrider_client_t* c = nullptr;
  ASSERT_EQ(outrider_connect(&o, &c), OUTRIDER_OK) << outrider_last_error(nullptr);
  auto* x = static_cast<float*>(outrider_alloc(c, 4 * 256));
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i);
  outrider_op_t h;
  ASSERT_EQ(Wait(c, outrider_allreduce(c, x, x, 256, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h), &h),
            OUTRIDER_OK);
  ASSERT_EQ(x[255], 255.0f);
  if (before_leaving) before_leaving();
  outrider_disconnect(c);
}

TEST_F(MultiNodeTest, AThousandJobsLeaveEachItsOwnLabelAndTheAgentFlat) {
  StartAgents(1, /*http=*/true, {"--job-metrics-retire-s", "0"});
  const std::string socket = agents_[0]->socket_path();
  pid_t agent = agents_[0]->pid();
  // Warm-up: allocator pools, the HTTP thread, the first scrape.
  for (int j = 0; j < 50; ++j) RunShortJob(socket, "warmup-" + std::to_string(j));
  ASSERT_THAT(HttpGet(http_ports_[0], "/metrics"), HasSubstr("outrider_ops_total"));
  ASSERT_TRUE(WaitUntil(
      [&] { return HttpGet(http_ports_[0], "/metrics").find("warmup-") == std::string::npos; },
      10000));
  ProcStatus before = ReadStatus(agent);
  int fds_before = CountOpenFds(agent);
  const int kJobs = 1000;
  std::string metrics;  // scraped while the last job runs: its series go a tick after it ends
  for (int j = 0; j < kJobs; ++j) {
    RunShortJob(socket, "ci-" + std::to_string(j), [&] {
      if (j == kJobs - 1) metrics = HttpGet(http_ports_[0], "/metrics");
    });
    if (HasFailure()) return;
  }
  // The last job has its own series, not "_other".
  EXPECT_THAT(metrics, HasSubstr("training_job=\"ci-" + std::to_string(kJobs - 1) + "\""));
  EXPECT_THAT(metrics, Not(HasSubstr("training_job=\"_other\"")));
  // Every job's series go once it ended (retire after 0 s: at the next tick).
  EXPECT_TRUE(WaitUntil(
      [&] {
        return HttpGet(http_ports_[0], "/metrics").find("training_job=\"ci-") == std::string::npos;
      },
      10000));
  // /status remembers the last jobs, newest last, and how they ended.
  std::string status = HttpGet(http_ports_[0], "/status");
  EXPECT_THAT(status, HasSubstr("\"finished_jobs\""));
  EXPECT_THAT(status, HasSubstr("\"id\": \"ci-" + std::to_string(kJobs - 1) + "\""));
  EXPECT_THAT(status, HasSubstr("\"outcome\": \"left\""));
  EXPECT_THAT(status, Not(HasSubstr("\"id\": \"ci-0\"")));  // only the last 64
  // The scrapes' own connections close on the agent's HTTP threads a moment after the reply.
  int fds_after = -1;
  ProcStatus after;
  WaitUntil(
      [&] {
        fds_after = CountOpenFds(agent);
        after = ReadStatus(agent);
        return fds_after <= fds_before && after.threads <= before.threads;
      },
      5000);
  std::printf("agent over %d jobs: RSS %ld -> %ld KiB, fds %d -> %d, threads %ld -> %ld\n", kJobs,
              before.rss_kib, after.rss_kib, fds_before, fds_after, before.threads, after.threads);
  // (The count before may include a scrape's connection not yet closed: no more than that after.)
  EXPECT_LE(fds_after, fds_before);
  EXPECT_LE(after.threads, before.threads);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // A sanitized agent keeps freed memory in quarantine (or shadow state): its RSS says nothing.
#else
  EXPECT_LT(after.rss_kib, before.rss_kib + 8 * 1024) << "the agent's memory grew with the jobs";
#endif
}

}  // namespace
}  // namespace outrider::testing
