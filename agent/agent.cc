// Agent lifecycle: start listening, announce readiness, run the loop, shut down cleanly.
#include "agent/agent.h"

#include <malloc.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <future>

#include "agent/engine/hand_over_record.h"
#include "agent/engine/json_text.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "loaders/cuda/driver.h"

namespace outrider::agent {
namespace {
constexpr uint64_t kExpiryCheckNs = 100'000'000;  // op timeouts are checked every 100 ms when busy
}

Agent::Agent(const AgentOptions& options)
    : options_(options), metrics_(options.control.protocol.newest) {}

Agent::~Agent() {
  // In the order the members would go, but with the generations unhooked from the job table and
  // the port before they go: clients leaving as the control server goes still reach them.
  http_.reset();
  control_.reset();
  jobs_.set_generations(nullptr);
  if (port_link_ != nullptr) port_link_->Serve(nullptr);
}

Result<std::unique_ptr<Agent>> Agent::Create(const AgentOptions& options) {
  auto agent = std::unique_ptr<Agent>(new Agent(options));
  OUTRIDER_ASSIGN_OR_RETURN(agent->loop_, EventLoop::Create(options.spin_us));
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  agent->signal_fd_ = UniqueFd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!agent->signal_fd_.valid()) return ErrnoStatus("signalfd", errno);
  Agent* a = agent.get();
  OUTRIDER_RETURN_IF_ERROR(
      agent->loop_->Add(agent->signal_fd_.get(), EPOLLIN, [a](uint32_t) { a->OnSignal(); }));
  // The process's GPU path, before anything uses GPU memory. GPU work the agent waits for (its
  // copies and NCCL collectives) says when it is done: the poll hook that runs after every wake
  // sees it at once.
  agent->devices_ = std::make_unique<GpuDevicePath>(
      GpuDevicePath::Options{.pinned_max_bytes = options.gpu_pinned_max_bytes,
                             .pinned_idle_ns = uint64_t{options.gpu_pinned_idle_ms} * 1'000'000,
                             .metrics = &agent->metrics_});
  if (int fd = agent->devices_->CompletionFd(); fd >= 0) {
    OUTRIDER_RETURN_IF_ERROR(agent->loop_->Add(fd, EPOLLIN, [fd](uint32_t) {
      uint64_t n = 0;
      while (::read(fd, &n, sizeof(n)) > 0) {
      }
    }));
  }

  GpuNcclPolicy& nccl = agent->gpu_nccl_;
  nccl = GpuNcclPolicy::Decide(options.gpu_nccl == "force" ? GpuNccl::kForce
                               : options.gpu_nccl == "off" ? GpuNccl::kOff
                                                           : GpuNccl::kAuto);
  if (cuda::kBuiltWithCuda)
    Logger("agent")->info("gpu_nccl = {}: {}", GpuNcclName(nccl.mode), nccl.why);
  agent->metrics_.gpu_nccl->Get({GpuNcclName(nccl.mode)})->Set(nccl.on ? 1 : 0);
  EngineOptions engine = options.engine;
  engine.gpu_nccl = nccl.on;
  engine.aging_ns = options.network.scheduler.aging_ns;  // one aging for sends and NCCL launches
  agent->jobs_.set_engine_options(engine);
  agent->jobs_.set_hand_over_path(HandOverRecordPath(options.control.socket_path));
  agent->jobs_.set_device_path(agent->devices_.get());
  agent->jobs_.set_metrics(&agent->metrics_);
  if (options.network.port != 0) {
    OUTRIDER_ASSIGN_OR_RETURN(
        agent->network_, Network::Create(agent->loop_.get(), &agent->jobs_, options.network,
                                         UcxTransportFactory(options.network.tcp_congestion_control,
                                                             options.network.ucx_zero_copy != 0)));
    agent->jobs_.set_network(agent->network_.get());
    AgentMetrics* metrics = &agent->metrics_;
    agent->network_->rendezvous()->set_on_drop([metrics](const char* why) {
      if (metrics->enabled()) metrics->agent_port_dropped->Get({why})->Inc();
    });
    agent->port_link_ =
        std::make_unique<membership::PortLink>(agent->loop_.get(), agent->network_->rendezvous());
  }
  agent->generations_ = std::make_unique<membership::Reformer>(
      &agent->jobs_, agent->port_link_.get(), &agent->clock_, &agent->metrics_);
  if (agent->port_link_ != nullptr) agent->port_link_->Serve(agent->generations_.get());
  agent->jobs_.set_generations(agent->generations_.get());
  agent->control_ =
      std::make_unique<ControlServer>(options.control, agent->loop_.get(), &agent->jobs_,
                                      agent->generations_.get(), &agent->metrics_);
  agent->control_->set_device_path(agent->devices_.get());
  agent->control_->set_fence_timeout_ns(uint64_t{options.op_timeout_ms} * 1'000'000);
  OUTRIDER_RETURN_IF_ERROR(agent->control_->Start());
  agent->metrics_.set_enabled(options.metrics != 0);
  agent->start_ns_ = ipc::MonotonicNs();
  agent->loop_alive_ns_ = agent->start_ns_;
  if (options.http_port != 0) OUTRIDER_RETURN_IF_ERROR(agent->StartHttp());
  return agent;
}

Status Agent::StartHttp() {
  std::map<std::string, HttpServer::Handler> routes;
  routes["/metrics"] = [this] {
    return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                        metrics_.registry().Serialize()};
  };
  routes["/healthz"] = [this] {
    // The loop may store a newer time between the two reads: a stamp ahead of `now` is age 0.
    uint64_t alive = loop_alive_ns_.load(std::memory_order_relaxed);
    uint64_t now = ipc::MonotonicNs();
    uint64_t age = now > alive ? now - alive : 0;
    if (age < 5'000'000'000ull) return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
    return HttpResponse{
        503, "text/plain; charset=utf-8",
        "progress loop has not run for " + std::to_string(age / 1'000'000) + " ms\n"};
  };
  routes["/readyz"] = [this] {
    if (ready_.load()) return HttpResponse{200, "text/plain; charset=utf-8", "ready\n"};
    return HttpResponse{503, "text/plain; charset=utf-8",
                        "not ready (starting or shutting down)\n"};
  };
  routes["/status"] = [this] { return StatusResponse(); };
  std::map<std::string, HttpServer::Handler> post_routes;
  post_routes["/drain"] = [this] { return DrainResponse(); };
  OUTRIDER_ASSIGN_OR_RETURN(
      http_, HttpServer::Start(options_.http_address, static_cast<uint16_t>(options_.http_port),
                               std::move(routes), std::move(post_routes)));
  Logger("agent")->info("HTTP on {}:{} (/metrics /healthz /readyz /status; POST /drain)",
                        options_.http_address, options_.http_port);
  return Status::Ok();
}

HttpResponse Agent::OnLoop(int status, const std::function<std::string()>& answer) {
  // The task alone holds the promise: a loop that closes without running it breaks the promise,
  // and the request is answered at once; a stuck loop answers 503 instead of hanging.
  auto promise = std::make_shared<std::promise<std::string>>();
  std::future<std::string> result = promise->get_future();
  bool posted =
      loop_->Post([promise = std::move(promise), answer] { promise->set_value(answer()); });
  if (posted && result.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
    return HttpResponse{503, "text/plain; charset=utf-8",
                        "progress loop did not answer within 2 s\n"};
  }
  try {
    if (posted) return HttpResponse{status, "application/json", result.get()};
  } catch (const std::future_error&) {
  }
  return HttpResponse{503, "text/plain; charset=utf-8", "the agent is shutting down\n"};
}

HttpResponse Agent::StatusResponse() {
  return OnLoop(200, [this] { return StatusJson(); });
}

std::string Agent::StatusJson() {
  uint64_t now = ipc::MonotonicNs();
  nlohmann::json j;
  j["agent"] = {
      {"pid", ::getpid()},
      {"uptime_s", (now - start_ns_) / 1e9},
      {"socket", options_.control.socket_path},
      {"port", options_.network.port},
      {"protocol", options_.control.protocol.newest},
      {"serves_protocols", {options_.control.protocol.oldest, options_.control.protocol.newest}},
      {"ready", ready_.load()}};
  if (handing_over_) {
    j["agent"]["hand_over"] = {
        {"since_s", (now - hand_over_.started_ns) / 1e9},
        {"deadline_s", (static_cast<double>(HandOverDeadlineNs()) - now) / 1e9},
        {"given_back", jobs_.MovedOps()},
        {"running", jobs_.HandOverRunning()}};
  }
  j["clients"] = control_->ClientsJson();
  const GpuNcclPolicy& nccl = gpu_nccl_;
  j["gpu_nccl"] = {
      {"mode", GpuNcclName(nccl.mode)}, {"enabled", nccl.on}, {"mps", nccl.mps}, {"why", nccl.why}};
  j["jobs"] = jobs_.StatusJson();
  j["generations"] = generations_->StatusJson();
  j["finished_jobs"] = jobs_.FinishedJson();
  j["peers"] = network_ != nullptr ? network_->PeersJson(now) : nlohmann::json::array();
  j["peers_lost"] = network_ != nullptr ? network_->peers_lost() : 0;
  j["tcp_congestion_control"] = network_ != nullptr
                                    ? network_->transport()->tcp_congestion_control()
                                    : std::string(kKernelCongestionControl);
  j["queues"] = {{"default", {{"pending_collectives", jobs_.PendingCount()}}}};
  if (network_ != nullptr) {
    const SendScheduler& sched = *network_->scheduler();
    nlohmann::json classes = nlohmann::json::object();
    for (const auto& [name, c] : sched.Stats()) {
      classes[name] = {
          {"queued_chunks", c.queued},
          {"sent_chunks", c.sent},
          {"mean_wait_ms", c.sent ? c.wait_s * 1e3 / static_cast<double>(c.sent) : 0.0}};
    }
    nlohmann::json order = nlohmann::json::array();
    const auto& recent = sched.recent();
    for (size_t i = recent.size() > 32 ? recent.size() - 32 : 0; i < recent.size(); ++i) {
      const auto& x = recent[i];
      order.push_back({{"order", x.order},
                       {"peer", x.peer},
                       {"priority", x.priority},
                       {"bytes", x.bytes},
                       {"wait_ms", x.wait_ns / 1e6}});
    }
    nlohmann::json job_classes = nlohmann::json::object();
    for (ipc::JobClass jc : {ipc::JobClass::kHigh, ipc::JobClass::kNormal}) {
      const SendScheduler::AheadStats& a = sched.ahead(jc);
      job_classes[std::string(ipc::JobClassName(jc))] = {
          {"sent_chunks", a.chunks},
          {"mean_lower_ahead_bytes",
           a.chunks ? a.lower_bytes / static_cast<double>(a.chunks) : 0.0},
          {"max_lower_ahead_bytes", a.max_lower_bytes}};
    }
    j["scheduler"] = {{"policy", sched.options().priority ? "priority" : "fifo"},
                      {"credit_window_bytes", sched.options().window_bytes},
                      {"solo_window_bytes", sched.options().solo_window_bytes},
                      {"yield_window_bytes", sched.options().yield_window_bytes},
                      {"express_lane", sched.options().express_lane},
                      {"op_yield", sched.options().op_yield},
                      {"aging_ms", sched.options().aging_ns / 1'000'000},
                      {"classes", classes},
                      {"job_classes", job_classes},
                      {"last_sends", order}};
  }
  return JsonText(j, 2) + "\n";
}

void Agent::RefreshGauges() {
  AgentMetrics& m = metrics_;
  m.clients->Set(static_cast<double>(control_->session_count()));
  m.jobs->Set(static_cast<double>(jobs_.size()));
  jobs_.RefreshGauges();
  m.pending_ops->Set(static_cast<double>(jobs_.PendingCount()));
  m.memory_registered->Set(static_cast<double>(control_->RegisteredBytes()));
  if (std::optional<PinnedUse> pinned = devices_->pinned()) {
    m.gpu_pinned->Get({"in_use"})->Set(static_cast<double>(pinned->in_use));
    m.gpu_pinned->Get({"idle"})->Set(static_cast<double>(pinned->idle));
  }
  m.peers->Get({"up"})->Set(network_ != nullptr ? static_cast<double>(network_->peers_up()) : 0);
  m.peers->Get({"lost"})->Set(network_ != nullptr ? static_cast<double>(network_->peers_lost())
                                                  : 0);
  if (network_ != nullptr) {
    for (const auto& [name, c] : network_->scheduler()->Stats()) {
      m.scheduler_queued->Get({name})->Set(static_cast<double>(c.queued));
      m.scheduler_wait->Get({name})->Set(c.wait_s);
      m.scheduler_sent->Get({name})->Set(static_cast<double>(c.sent));
    }
  }
}

void Agent::OnSignal() {
  signalfd_siginfo info{};
  if (::read(signal_fd_.get(), &info, sizeof(info)) != sizeof(info)) return;
  if (!handing_over_ && info.ssi_signo == SIGTERM) {
    Drain("received signal " + std::to_string(info.ssi_signo));
    return;
  }
  Logger("agent")->info("received signal {}; shutting down", info.ssi_signo);
  loop_->Stop();
}

bool Agent::Drain(const std::string& why) {
  if (handing_over_) return true;
  if (options_.drain_timeout_ms == 0 || jobs_.size() == 0) {
    Logger("agent")->info("{}; shutting down", why);
    loop_->Stop();
    return false;
  }
  // The socket goes first, so that the next agent can listen; the trainers of one-node jobs
  // reconnect to it and submit there what was given back to them.
  Logger("agent")->info(
      "{}; handing {} jobs over: ops that have not started go back to their trainers for the "
      "next agent, started ones finish here (at most {} ms)",
      why, jobs_.size(), options_.drain_timeout_ms);
  handing_over_ = true;
  hand_over_.started_ns = ipc::MonotonicNs();
  ready_ = false;
  control_->StopListening();
  hand_over_.given_back = jobs_.HandOver();
  hand_over_.running_at_start = jobs_.HandOverRunning();
  Logger("agent")->info("gave {} ops that had not started back to their trainers",
                        hand_over_.given_back);
  if (AgentMetrics* m = Counting(&metrics_)) {
    m->hand_over_in_progress->Set(1);
    m->hand_over_ops->Get({"given_back"})->Inc(static_cast<double>(hand_over_.given_back));
  }
  return true;
}

HttpResponse Agent::DrainResponse() {
  // Started on the loop thread, as SIGTERM starts it; the answer says what it does.
  return OnLoop(202, [this] {
    size_t jobs = jobs_.size();
    bool handing_over = Drain("asked to drain (POST /drain)");
    nlohmann::json j = {{"handing_over", handing_over}, {"jobs", jobs}};
    if (handing_over) {
      j["given_back"] = hand_over_.given_back;
      j["running"] = jobs_.HandOverRunning();
      j["drain_timeout_ms"] = options_.drain_timeout_ms;
    }
    return JsonText(j) + "\n";
  });
}

bool Agent::Poll() {
  bool worked = network_ != nullptr && network_->Progress();
  worked |= control_->PollSessions();
  worked |= jobs_.Pump();
  uint64_t now_ns = ipc::MonotonicNs();
  if (worked) last_progress_ns_ = now_ns;
  loop_alive_ns_.store(now_ns, std::memory_order_relaxed);
  if (now_ns >= next_tick_ns_) {
    next_tick_ns_ = now_ns + 50'000'000;  // 50 ms: heartbeats, liveness, finished jobs, gauges
    if (network_ != nullptr) network_->Tick(now_ns);
    control_->Tick(now_ns);
    devices_->Tick(now_ns);
    jobs_.Sweep();
    metrics_.RetireJobLabels(now_ns, uint64_t{options_.job_metrics_retire_s} * 1'000'000'000);
    RefreshGauges();
    // Give heap memory back after 5 s without collectives or jobs coming and going (main()
    // keeps it while busy): what ended jobs and communicators held goes back too.
    if (jobs_.PendingCount() != 0 || jobs_.size() != jobs_at_last_tick_) {
      jobs_at_last_tick_ = jobs_.size();
      last_busy_ns_ = now_ns;
      trimmed_ = false;
    } else if (!trimmed_ && now_ns - last_busy_ns_ > 5'000'000'000ull) {
      malloc_trim(0);
      trimmed_ = true;
    }
    if (watchdog_us_ != 0 && now_ns >= next_watchdog_ns_) {
      sd_notify(0, "WATCHDOG=1");
      next_watchdog_ns_ = now_ns + watchdog_us_ * 500;  // twice per watchdog period
    }
  }
  if (handing_over_) {
    size_t running = jobs_.HandOverRunning();
    if (running == 0 || ipc::MonotonicNs() >= HandOverDeadlineNs()) {
      uint64_t took_ms = (ipc::MonotonicNs() - hand_over_.started_ns) / 1'000'000;
      // Jobs across nodes give theirs back once their nodes agreed where to stop, later arrivals
      // are given back as they come: counted now.
      size_t given_back = std::max(jobs_.MovedOps(), hand_over_.given_back);
      size_t finished =
          hand_over_.running_at_start - std::min(running, hand_over_.running_at_start);
      if (running == 0) {
        Logger("agent")->info(
            "jobs handed over in {} ms ({} ops given back, {} finished here); shutting down",
            took_ms, given_back, finished);
      } else {
        Logger("agent")->warn(
            "hand-over took too long ({} ms, drain_timeout_ms; {} ops still running); shutting "
            "down",
            took_ms, running);
      }
      if (AgentMetrics* m = Counting(&metrics_)) {
        m->hand_over_ops->Get({"finished"})->Inc(static_cast<double>(finished));
        m->hand_over_ops->Get({"given_back"})
            ->Inc(static_cast<double>(given_back - hand_over_.given_back));
        m->hand_over_in_progress->Set(0);
      }
      // Before the trainers hear the goodbye: the next agent reads it when they come back.
      std::vector<HandOverRecord> records = jobs_.HandOverRecords();
      std::string path = HandOverRecordPath(options_.control.socket_path);
      if (Status st = WriteHandOverRecords(path, records); !st.ok()) {
        Logger("agent")->error("the jobs across nodes cannot be handed over: {}", st.ToString());
      } else if (!records.empty()) {
        Logger("agent")->info("{} jobs across nodes handed over ({})", records.size(), path);
      }
      loop_->Stop();
    }
  }
  if (uint64_t now = ipc::MonotonicNs(); now >= generations_->NextDeadlineNs())
    generations_->Tick(now);
  if (options_.op_timeout_ms != 0) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= next_expiry_check_ns_) {
      jobs_.ExpireOps(now, uint64_t{options_.op_timeout_ms} * 1'000'000);
      next_expiry_check_ns_ = now + kExpiryCheckNs;
    }
  }
  return worked;
}

bool Agent::AwaitsGpu() const { return control_->HasFencedWaits() || devices_->busy(); }

bool Agent::PollForGpu() const {
  if (options_.gpu_spin_us == 0 || !AwaitsGpu()) return false;
  return ipc::MonotonicNs() - last_progress_ns_ < uint64_t{options_.gpu_spin_us} * 1000;
}

int Agent::TimeoutMs() {
  uint64_t now = ipc::MonotonicNs();
  // Wake at least once a second: /healthz, gauges and the systemd watchdog see a live loop; every
  // millisecond while ops wait for a fence, which a GPU stream writes without waking anyone.
  int net_ms = AwaitsGpu() ? 1 : 1000;
  if (network_ != nullptr) {
    int t = network_->TimeoutMs(now);
    if (t >= 0) net_ms = std::min(net_ms, t);
    next_tick_ns_ = std::min<uint64_t>(next_tick_ns_, now + uint64_t(net_ms) * 1'000'000);
  }
  // Silent connections close on time, and a pause in accepting ends on time.
  if (uint64_t control_ns = control_->NextDeadlineNs(); control_ns != UINT64_MAX) {
    int ms = control_ns <= now
                 ? 0
                 : static_cast<int>(std::min<uint64_t>((control_ns - now) / 1'000'000 + 1, 1000));
    net_ms = net_ms < 0 ? ms : std::min(net_ms, ms);
    next_tick_ns_ = std::min(next_tick_ns_, control_ns);
  }
  if (uint64_t reform_ns = generations_->NextDeadlineNs(); reform_ns != UINT64_MAX) {
    int ms = reform_ns <= now ? 0 : static_cast<int>((reform_ns - now) / 1'000'000 + 1);
    net_ms = net_ms < 0 ? ms : std::min(net_ms, ms);
  }
  if (options_.op_timeout_ms == 0) return net_ms;
  uint64_t next = jobs_.NextExpiryNs(uint64_t{options_.op_timeout_ms} * 1'000'000);
  if (next == UINT64_MAX) return net_ms;
  next_expiry_check_ns_ = std::min(next_expiry_check_ns_, next);
  int op_ms = next <= now ? 0 : static_cast<int>((next - now) / 1'000'000 + 1);
  return net_ms < 0 ? op_ms : std::min(op_ms, net_ms);
}

Status Agent::Run() {
  if (options_.ready_fd >= 0) {
    char ready = 'R';
    (void)!::write(options_.ready_fd, &ready, 1);
    ::close(options_.ready_fd);
  }
  Logger("agent")->info("ready (pid {})", ::getpid());
  ready_ = true;
  // Under systemd (Type=notify): ready now; feed the watchdog from the progress loop.
  uint64_t wd = 0;
  if (sd_watchdog_enabled(0, &wd) > 0) watchdog_us_ = wd;
  sd_notify(0, "READY=1");
  EventLoop::Hooks hooks;
  hooks.poll = [this] { return Poll(); };
  hooks.prepare_sleep = [this] {
    if (PollForGpu()) return false;
    if (network_ != nullptr && !network_->Arm()) return false;
    return control_->PrepareSleep();
  };
  hooks.after_wake = [this] { control_->FinishSleep(); };
  hooks.timeout_ms = [this] { return TimeoutMs(); };
  loop_->Run(hooks);
  ready_ = false;
  // HTTP requests that wait for the loop are answered at once (503), not after 2 s.
  loop_->Close();
  sd_notify(0, "STOPPING=1");
  // In-flight ops run to completion inside the loop; what still waits for a rank fails now.
  control_->StopListening();
  control_->CloseAll(Unavailable("agent shutting down"));
  Logger("agent")->info("stopped");
  return Status::Ok();
}

}  // namespace outrider::agent
