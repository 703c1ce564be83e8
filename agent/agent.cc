// Agent lifecycle: start listening, announce readiness, run the loop, shut down cleanly.
#include "agent/agent.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

#include "agent/log.h"

namespace outrider::agent {
namespace {
constexpr uint64_t kExpiryCheckNs = 100'000'000;  // op timeouts are checked every 100 ms when busy
}

Agent::Agent(const AgentOptions& options) : options_(options) {}

Agent::~Agent() = default;

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

  if (options.port != 0) {
    NetworkOptions no;
    no.listen_address = options.listen_address;
    no.port = static_cast<uint16_t>(options.port);
    no.heartbeat_ms = options.heartbeat_ms;
    no.peer_timeout_ms = options.peer_timeout_ms;
    no.rendezvous_timeout_ms = options.rendezvous_timeout_ms;
    no.ring_chunk_bytes = options.ring_chunk_bytes;
    no.direct_max_bytes = options.direct_max_bytes;
    no.sparse_block_rows = options.sparse_block_rows;
    OUTRIDER_ASSIGN_OR_RETURN(agent->network_, Network::Create(agent->loop_.get(), &agent->jobs_, no));
    agent->jobs_.set_network(agent->network_.get());
  }
  ControlServerOptions co;
  co.socket_path = options.socket_path;
  co.socket_group = options.socket_group;
  co.allowed_uids = options.allowed_uids;
  co.sq_entries = options.sq_entries;
  co.max_clients = options.max_clients;
  co.limits.max_regions = options.max_regions_per_client;
  co.limits.max_region_bytes = options.max_region_bytes;
  agent->control_ = std::make_unique<ControlServer>(co, agent->loop_.get(), &agent->jobs_);
  OUTRIDER_RETURN_IF_ERROR(agent->control_->Start());
  return agent;
}

void Agent::OnSignal() {
  signalfd_siginfo info{};
  if (::read(signal_fd_.get(), &info, sizeof(info)) != sizeof(info)) return;
  Logger("agent")->info("received signal {}; shutting down", info.ssi_signo);
  loop_->Stop();
}

bool Agent::Poll() {
  bool worked = network_ != nullptr && network_->Progress();
  worked |= control_->PollSessions();
  worked |= jobs_.Pump();
  uint64_t now_ns = ipc::MonotonicNs();
  if (now_ns >= next_tick_ns_) {
    next_tick_ns_ = now_ns + 50'000'000;  // 50 ms: heartbeats, liveness, finished jobs
    if (network_ != nullptr) network_->Tick(now_ns);
    jobs_.Sweep();
  }
  if (options_.op_timeout_ms != 0) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= next_expiry_check_ns_) {
      jobs_.ExpireOps(now, uint64_t{options_.op_timeout_ms} * 1'000'000);
      next_expiry_check_ns_ = now + kExpiryCheckNs;
    }
  }
  return worked;
}

int Agent::TimeoutMs() {
  uint64_t now = ipc::MonotonicNs();
  int net_ms = -1;
  if (network_ != nullptr) {
    net_ms = network_->TimeoutMs(now);
    next_tick_ns_ = std::min<uint64_t>(next_tick_ns_, now + uint64_t(net_ms) * 1'000'000);
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
  EventLoop::Hooks hooks;
  hooks.poll = [this] { return Poll(); };
  hooks.prepare_sleep = [this] {
    if (network_ != nullptr && !network_->Arm()) return false;
    return control_->PrepareSleep();
  };
  hooks.after_wake = [this] { control_->FinishSleep(); };
  hooks.timeout_ms = [this] { return TimeoutMs(); };
  loop_->Run(hooks);
  // In-flight ops run to completion inside the loop; what still waits for a rank fails now.
  control_->StopListening();
  control_->CloseAll(Unavailable("agent shutting down"));
  Logger("agent")->info("stopped");
  return Status::Ok();
}

}  // namespace outrider::agent
