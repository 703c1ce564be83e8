// Ops on GPU memory while the agent is replaced (docs/operations.md, "Restarting the agent under
// a running job"), in gpu_mode staging with the fake CUDA driver (tests/fakes/cuda/) in each
// trainer: an op the stopped agent gave back runs at the next agent, which signals the fence its
// stream waits on in the earlier agent's control segment, so the stream sees the right result and
// no op fails — whether the agent held the op in its job or still waited for its fence. One node
// and across nodes. A next agent that never comes: the streams go on after OUTRIDER_RECONNECT_MS
// and the ops fail, saying why, whether the trainer calls into the shim or only waits on its
// stream.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"
#include "tools/harness/agent_process.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kCount = 4096;

struct RankReport {
  int step;  // the step that failed
  int wrong_step;
  float wrong;
  char message[256];
};

// One step on device memory, all queued on `s`: the inputs (rank + 1) * (step + 1) + i % 100
// copied to the device, the allreduce, the result copied back; `before_op` (if set) is queued on
// the stream just before the op. Then the op is waited for and the stream synchronized; the
// result must be the sum over `world` ranks. 0, or where it failed (report filled in).
class DeviceStep {
 public:
  DeviceStep(const cuda::Driver& d, outrider_client_t* c)
      : d_(d), c_(c), in_(kCount), out_(kCount) {
    if (d_.cuMemAlloc(&buf_, kCount * 4) != CUDA_SUCCESS) std::_Exit(82);
    if (d_.cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) std::_Exit(83);
    // Pinned, so that queueing the copy back returns at once (into pageable memory it returns
    // once the stream ran it, after the op).
    if (d_.cuMemHostRegister(out_.data(), kCount * 4, 0) != CUDA_SUCCESS) std::_Exit(81);
  }
  // Queues the step; the op's handle is returned in *h.
  int Queue(int r, int step, outrider_op_t* h, CUhostFn before_op = nullptr, void* arg = nullptr) {
    for (uint64_t i = 0; i < kCount; ++i)
      in_[i] = static_cast<float>((r + 1) * (step + 1) + static_cast<int>(i % 100));
    if (d_.cuMemcpyHtoDAsync(buf_, in_.data(), kCount * 4, s_) != CUDA_SUCCESS) return 84;
    if (before_op != nullptr && d_.cuLaunchHostFunc(s_, before_op, arg) != CUDA_SUCCESS) return 85;
    outrider_op_options_t o;
    outrider_op_options_init(&o);
    o.cuda_stream = s_;
    void* p = reinterpret_cast<void*>(buf_);
    if (int rc = outrider_allreduce(c_, p, p, kCount, OUTRIDER_F32, OUTRIDER_SUM, &o, h); rc != 0)
      return rc;
    if (d_.cuMemcpyDtoHAsync(out_.data(), buf_, kCount * 4, s_) != CUDA_SUCCESS) return 86;
    return 0;
  }
  // Waits for the op and the stream, and checks the result.
  int Finish(int world, int step, outrider_op_t h, RankReport* rep) {
    int rc = outrider_wait(c_, h, 60000);
    if (rc != OUTRIDER_OK) {
      CopyText(rep->message, sizeof(rep->message), outrider_last_error(c_));
      return rc;
    }
    if (d_.cuStreamSynchronize(s_) != CUDA_SUCCESS) return 87;
    for (uint64_t i = 0; i < kCount; ++i) {
      float want = static_cast<float>((step + 1) * world * (world + 1) / 2 +
                                      world * static_cast<int>(i % 100));
      if (out_[i] != want) {
        rep->wrong_step = step;
        rep->wrong = out_[i];
        return 99;
      }
    }
    return 0;
  }
  int Run(int r, int world, int step, RankReport* rep) {
    outrider_op_t h = 0;
    int rc = Queue(r, step, &h);
    if (rc == 0) rc = Finish(world, step, h, rep);
    if (rc != 0) rep->step = step;
    return rc;
  }
  CUstream stream() const { return s_; }

 private:
  const cuda::Driver& d_;
  outrider_client_t* c_;
  CUdeviceptr buf_ = 0;
  CUstream s_ = nullptr;
  std::vector<float> in_, out_;
};

// Both ranks exited 0: every op succeeded and every result was right (else the report says where).
void ExpectTrainedRight(Ranks& ranks, SharedValue<RankReport> (&reports)[2]) {
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r << " at step " << reports[r]->step << ": "
                                << reports[r]->message << " (wrong at step "
                                << reports[r]->wrong_step << ": " << reports[r]->wrong << ")";
  }
}

// Where rank 1's op of the step at the stop is when the agent stops.
enum class Held { kInTheJob, kForItsFence };

class GpuHandOverTest : public ::testing::TestWithParam<Held> {};

// A host function on the stream that holds it until the pipe says go.
void HoldStream(void* pipe) {
  char ch;
  (void)static_cast<Pipe*>(pipe)->Receive(&ch, 60000);
}

// A job of 2 ranks on one node, 20 steps on device memory. Both finish step 9; rank 0 then waits
// before step 10, while rank 1 queues its step 10: its stream wrote the op's ready fence and the
// agent holds the op in the job for rank 0's (kInTheJob), or its stream is held before the op by
// a host function until the agent has gone, so the agent holds the op until its fence is ready
// (kForItsFence). The agent is stopped (SIGTERM) and another started on the same socket.
TEST_P(GpuHandOverTest, AnOpTheAgentGaveBackRunsAtTheNextAgentAndItsStreamSeesTheResult) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  std::string socket = agent->socket_path();
  constexpr int kSteps = 20, kStop = 10;
  Pipe at_stop[2], go, stopped;
  SharedValue<RankReport> reports[2];
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda("staging");
    outrider_client_t* c = ConnectOrExit(socket, "gpu-hand-over", r, 2);
    DeviceStep step(d, c);
    for (int i = 0; i < kSteps; ++i) {
      if (r == 0 && i == kStop) {
        at_stop[0].Send('t');
        char ch;
        if (!stopped.Receive(&ch, 60000)) return 2;
      }
      if (r == 1 && i == kStop) {
        outrider_op_t h = 0;
        bool hold = GetParam() == Held::kForItsFence;
        int rc = step.Queue(r, i, &h, hold ? HoldStream : nullptr, &go);
        at_stop[1].Send('t');
        if (rc == 0) rc = step.Finish(2, i, h, &*reports[r]);
        if (rc != 0) return rc;
        continue;
      }
      if (int rc = step.Run(r, 2, i, &*reports[r]); rc != 0) return rc;
    }
    outrider_disconnect(c);
    return 0;
  });
  char ch;
  ASSERT_TRUE(at_stop[0].Receive(&ch, 60000));
  ASSERT_TRUE(at_stop[1].Receive(&ch, 60000));
  // Where the agent holds rank 1's op: pending in the job, or taken and held by its session.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto st = nlohmann::json::parse(HttpGet(http, "/status"), nullptr, false);
        if (st.is_discarded()) return false;
        uint64_t pending = st["queues"]["default"]["pending_collectives"].get<uint64_t>();
        uint64_t in_flight = 0;
        for (const auto& client : st["clients"]) in_flight += client["in_flight"].get<uint64_t>();
        return in_flight == 1 && pending == (GetParam() == Held::kInTheJob ? 1u : 0u);
      },
      20000));
  int status = agent->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent wait status " << status;
  EXPECT_THAT(agent->ReadLog(), HasSubstr("jobs handed over in"));
  go.Send('g');  // rank 1's stream writes the ready fence now, in the stopped agent's segment
  harness::AgentProcessOptions next;
  next.socket_path = socket;
  uint16_t next_http = FreePort();
  next.extra_args = {"--http-port", std::to_string(next_http)};
  Result<std::unique_ptr<harness::AgentProcess>> restarted = harness::AgentProcess::Start(next);
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  stopped.Send('s');
  ExpectTrainedRight(ranks, reports);
  HttpReply metrics = HttpFetch(next_http, "/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("outrider_client_reconnects_total{after=\"stop\"} 2"));
}

INSTANTIATE_TEST_SUITE_P(Held, GpuHandOverTest,
                         ::testing::Values(Held::kInTheJob, Held::kForItsFence),
                         [](const auto& info) {
                           return info.param == Held::kInTheJob ? "InTheJob" : "ForItsFence";
                         });

// A job of 3 ranks whose rank 2 never submits: ranks 0 and 1 each have an op on device memory
// pending when the agent stops, and no agent comes back. Rank 0 waits for its op: it tries to
// reach an agent for OUTRIDER_RECONNECT_MS, then the op fails saying so, and its stream goes on.
// Rank 1 makes no call into the shim and only waits on its stream: the shim's watchdog lets the
// stream go after OUTRIDER_RECONNECT_MS, and the op then fails saying so.
TEST(GpuHandOverNoNextAgentTest, StreamsGoOnAfterTheReconnectDeadlineAndTheOpsFailSayingWhy) {
  uint16_t http = FreePort();
  auto agent = StartAgent({"--http-port", std::to_string(http)});
  ASSERT_NE(agent, nullptr);
  std::string socket = agent->socket_path();
  Pipe submitted[2];
  SharedValue<RankReport> reports[2];
  SharedValue<std::atomic<uint64_t>> released_after_ms[2];
  std::atomic<uint64_t>* stopped_ns = nullptr;
  SharedValue<std::atomic<uint64_t>> stop_time;
  stopped_ns = &*stop_time;
  Ranks ranks(2, [&](int r) {
    ::setenv("OUTRIDER_RECONNECT_MS", "1500", 1);
    const cuda::Driver& d = ChildCuda("staging");
    outrider_client_t* c = ConnectOrExit(socket, "gpu-no-next-agent", r, 3);
    DeviceStep step(d, c);
    outrider_op_t h = 0;
    if (int rc = step.Queue(r, 0, &h); rc != 0) return rc;
    submitted[r].Send('s');
    int rc = OUTRIDER_OK;
    if (r == 0) {
      rc = outrider_wait(c, h, 60000);
      CopyText(reports[r]->message, sizeof(reports[r]->message), outrider_last_error(c));
      if (d.cuStreamSynchronize(step.stream()) != CUDA_SUCCESS) return 87;
    } else {
      if (d.cuStreamSynchronize(step.stream()) != CUDA_SUCCESS) return 87;
      released_after_ms[r]->store((ipc::MonotonicNs() - stopped_ns->load()) / 1'000'000);
      rc = outrider_wait(c, h, 60000);
      CopyText(reports[r]->message, sizeof(reports[r]->message), outrider_last_error(c));
    }
    return rc == OUTRIDER_ERR_UNAVAILABLE ? 0 : 90;
  });
  char ch;
  ASSERT_TRUE(submitted[0].Receive(&ch, 60000));
  ASSERT_TRUE(submitted[1].Receive(&ch, 60000));
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto st = nlohmann::json::parse(HttpGet(http, "/status"), nullptr, false);
        return !st.is_discarded() &&
               st["queues"]["default"]["pending_collectives"].get<uint64_t>() == 1;
      },
      20000));
  stopped_ns->store(ipc::MonotonicNs());
  int status = agent->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent wait status " << status;
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(ranks.Reap(r), 0) << "rank " << r << ": " << reports[r]->message;
  EXPECT_THAT(reports[0]->message, HasSubstr("no agent answered"));
  EXPECT_THAT(reports[0]->message, HasSubstr("OUTRIDER_RECONNECT_MS"));
  EXPECT_THAT(reports[1]->message, HasSubstr("let go after OUTRIDER_RECONNECT_MS"));
  // Held for the next agent, then let go: not at once, nor much after the deadline.
  EXPECT_GE(released_after_ms[1]->load(), 1000u);
  EXPECT_LT(released_after_ms[1]->load(), 30000u);
}

// A job of 2 ranks, one per node, training on device memory while each node's agent in turn is
// stopped and another started in its place: no op fails and every result is right.
class GpuHandOverAcrossNodesTest : public MultiNodeTest {};

TEST_F(GpuHandOverAcrossNodesTest, EachNodesAgentReplacedInTurnUnderAJobOnDeviceMemory) {
  StartAgents(2);
  struct Progress {
    std::atomic<int> steps[2];
    std::atomic<int> stop;
  };
  SharedValue<Progress> p;
  SharedValue<RankReport> reports[2];
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda("staging");
    outrider_client_t* c = ConnectOnePerNode("gpu-hand-over-nodes", "tok", r, 2);
    DeviceStep step(d, c);
    for (int i = 0;; ++i) {
      int stop = p->stop.load();
      if (stop != 0 && i >= stop) break;
      if (int rc = step.Run(r, 2, i, &*reports[r]); rc != 0) return rc;
      p->steps[r].fetch_add(1);
    }
    outrider_disconnect(c);
    return 0;
  });
  auto stepped = [&](int more) {
    int from[2] = {p->steps[0].load(), p->steps[1].load()};
    return WaitUntil([&] { return p->steps[0] >= from[0] + more && p->steps[1] >= from[1] + more; },
                     60000);
  };
  ASSERT_TRUE(stepped(5));
  for (size_t n : {size_t{1}, size_t{0}}) {
    int status = agents_[n]->Stop(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "agent " << n << ": " << status;
    EXPECT_THAT(agents_[n]->ReadLog(), HasSubstr("jobs handed over in"));
    RestartAgent(n);
    EXPECT_TRUE(stepped(5)) << "the job did not train on after node " << n
                            << "'s agent was replaced";
  }
  p->stop.store(std::max(p->steps[0].load(), p->steps[1].load()) + 3);
  ExpectTrainedRight(ranks, reports);
}

}  // namespace
}  // namespace outrider::testing
