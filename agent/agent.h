// The agent wires its parts together and owns the progress thread: event loop, control
// server, job table, signal handling.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "agent/config.h"
#include "agent/control/control_server.h"
#include "agent/engine/gpu/gpu_device_path.h"
#include "agent/engine/gpu/nccl_policy.h"
#include "agent/engine/job_table.h"
#include "agent/event_loop.h"
#include "agent/http/http_server.h"
#include "agent/membership/port_link.h"
#include "agent/membership/reformer.h"
#include "agent/net/network.h"
#include "agent/observability.h"

namespace outrider::agent {

// Thread-safety: Create() and Run() on one thread; Run() returns after SIGTERM/SIGINT.
class Agent {
 public:
  // Expects SIGTERM and SIGINT blocked in every thread (main does it before starting threads).
  static Result<std::unique_ptr<Agent>> Create(const AgentOptions& options);
  ~Agent();
  // Serves until SIGTERM/SIGINT, then fails pending ops, says goodbye to clients and returns.
  Status Run();

 private:
  explicit Agent(const AgentOptions& options);
  void OnSignal();
  // Stops serving and hands the jobs over to the next agent (SIGTERM, POST /drain): true while it
  // does; false when there is nothing to hand over (no jobs, or drain_timeout_ms 0) and the agent
  // shuts down at once. Loop thread.
  bool Drain(const std::string& why);
  // When a hand-over ends even if started ops still run (drain_timeout_ms after it began).
  uint64_t HandOverDeadlineNs() const {
    return hand_over_.started_ns + uint64_t{options_.drain_timeout_ms} * 1'000'000;
  }
  bool Poll();
  // Whether GPU work the loop waits for is in flight: a stream's ready fence, or NCCL launches.
  bool AwaitsGpu() const;
  // Whether the loop keeps polling rather than sleep: GPU work it waits for is in flight, and it
  // made progress within gpu_spin_us (a GPU step's end wakes a sleeping loop only through a host
  // function, which the driver calls late).
  bool PollForGpu() const;
  int TimeoutMs();
  // Gauges read from loop-thread state, refreshed with the periodic tick.
  void RefreshGauges();
  Status StartHttp();
  // Runs on the loop thread (posted from an HTTP thread).
  std::string StatusJson();
  // From an HTTP thread: `answer` (JSON) run on the loop thread, with `status`; 503 when the loop
  // does not answer within 2 s or has closed.
  HttpResponse OnLoop(int status, const std::function<std::string()>& answer);
  HttpResponse StatusResponse();
  HttpResponse DrainResponse();  // POST /drain

  AgentOptions options_;
  // The process's metrics, handed to every part that counts; declared first: gone last.
  AgentMetrics metrics_;
  GpuNcclPolicy gpu_nccl_;  // decided at start
  // The process's GPU path; declared before the jobs and sessions whose device sides it made.
  std::unique_ptr<GpuDevicePath> devices_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<Network> network_;  // declared before jobs_: jobs use it until they are gone
  JobTable jobs_;
  membership::MonotonicClock clock_;
  std::unique_ptr<membership::PortLink> port_link_;    // with a network: the agents' port
  std::unique_ptr<membership::Reformer> generations_;  // jobs' next generations
  std::unique_ptr<ControlServer> control_;
  UniqueFd signal_fd_;
  uint64_t next_expiry_check_ns_ = 0;
  // SIGTERM or a drain with jobs running: the jobs are being handed over (then it exits).
  bool handing_over_ = false;
  struct HandOverProgress {
    uint64_t started_ns = 0;
    size_t given_back = 0;        // ops that had not started, given back to their trainers
    size_t running_at_start = 0;  // started ones, let finish here
  } hand_over_;
  uint64_t next_tick_ns_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t watchdog_us_ = 0;   // systemd WatchdogSec, 0 = none
  uint64_t last_busy_ns_ = 0;  // last tick with pending collectives, or a job started or ended
  size_t jobs_at_last_tick_ = 0;
  bool trimmed_ = true;  // heap returned since then
  uint64_t next_watchdog_ns_ = 0;
  uint64_t last_progress_ns_ = 0;           // the last Poll() that did work
  std::atomic<uint64_t> loop_alive_ns_{0};  // last progress-loop iteration (for /healthz)
  std::atomic<bool> ready_{false};          // listening and serving (for /readyz)
  std::unique_ptr<HttpServer> http_;        // declared last: stopped first
};

}  // namespace outrider::agent
