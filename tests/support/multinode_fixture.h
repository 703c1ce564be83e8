// Fixture for tests with several agents on loopback, one per emulated node, and forked rank
// processes: results and error texts of every rank land in shared memory, and a failing test
// prints each agent's log tail.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {

constexpr int kMaxRanks = 8;
constexpr size_t kMaxBytes = 1 << 22;

struct Results {
  int rc[kMaxRanks];
  char error[kMaxRanks][256];
  uint8_t out[kMaxRanks][kMaxBytes];
};

class MultiNodeTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!HasFailure()) return;
    for (size_t n = 0; n < agents_.size(); ++n) {
      if (agents_[n] == nullptr) continue;
      std::string log = agents_[n]->ReadLog();
      if (log.size() > 3000) log = log.substr(log.size() - 3000);
      std::fprintf(stderr, "--- agent %zu log (tail) ---\n%s\n", n, log.c_str());
    }
  }
  // `extra` goes to every agent, `extra_by_node[n]` (flag, value pairs) to agent n only, in place
  // of the defaults below where it names the same flag.
  void StartAgents(int nodes, bool http = false, const std::vector<std::string>& extra = {},
                   const std::vector<std::vector<std::string>>& extra_by_node = {}) {
    // The agents run as documented for TCP networks. (With UCX's default transport mix on one
    // host, UCX 1.13 sometimes aborts in tcp_iface.c when a peer process is killed.)
    ::setenv("UCX_TLS", "tcp", 0);
    ::setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
    for (int n = 0; n < nodes; ++n) {
      std::vector<std::string> own = static_cast<size_t>(n) < extra_by_node.size()
                                         ? extra_by_node[static_cast<size_t>(n)]
                                         : std::vector<std::string>{};
      // A port free a moment ago may be taken (by a test running beside this one) before the agent
      // binds it: then again with other ports.
      Result<std::unique_ptr<harness::AgentProcess>> agent = Unavailable("not started");
      uint16_t port = 0, http_port = 0;
      for (int attempt = 0; attempt < 5; ++attempt) {
        port = FreePort();
        std::vector<std::string> args = {"--port", std::to_string(port), "--listen-address",
                                         "127.0.0.1"};
        for (auto [flag, value] : {std::pair<std::string, std::string>{"--heartbeat-ms", "200"},
                                   {"--peer-timeout-ms", "3000"},
                                   {"--rendezvous-timeout-ms", "8000"}}) {
          if (std::find(own.begin(), own.end(), flag) != own.end()) continue;
          args.push_back(flag);
          args.push_back(value);
        }
        args.insert(args.end(), own.begin(), own.end());
        args.insert(args.end(), extra.begin(), extra.end());
        if (http) {
          http_port = FreePort();
          args.push_back("--http-port");
          args.push_back(std::to_string(http_port));
        }
        args.insert(args.end(), {"--log-level", "debug"});
        harness::AgentProcessOptions o;
        o.extra_args = args;
        agent = harness::AgentProcess::Start(o);
        if (agent.ok()) agent_args_.push_back(std::move(args));
        std::string why = agent.ok() ? std::string() : agent.status().message();
        if (agent.ok() || (why.find("Address already in use") == std::string::npos &&
                           why.find("cannot listen for HTTP") == std::string::npos)) {
          break;
        }
      }
      ASSERT_TRUE(agent.ok()) << agent.status().ToString();
      ports_.push_back(port);
      if (http) http_ports_.push_back(http_port);
      agents_.push_back(std::move(*agent));
    }
  }
  // Agent `n` is started again after it was stopped or killed: the same port, socket and flags, as
  // systemd's Restart= or a DaemonSet brings a node's agent back. The stopped one is kept (its
  // directory holds the socket) until the test ends.
  // `binary`: another build (the next release's), else the same.
  void RestartAgent(size_t n, const std::string& binary = "") {
    harness::AgentProcessOptions o;
    o.binary = binary;
    o.extra_args = agent_args_[n];
    o.socket_path = agents_[n]->socket_path();
    Result<std::unique_ptr<harness::AgentProcess>> agent = harness::AgentProcess::Start(o);
    ASSERT_TRUE(agent.ok()) << agent.status().ToString();
    stopped_agents_.push_back(std::move(agents_[n]));
    agents_[n] = std::move(*agent);
  }
  // In a child: connects as `rank` of a job of `world` ranks, one per node (node `rank`'s agent,
  // node 0's as the root); exits the child if that fails.
  outrider_client_t* ConnectOnePerNode(const char* job, const char* token, int rank, int world) {
    return ConnectAt(rank, 0, job, token, rank, world);
  }
  // The same with `local` ranks per node (at node rank / local's agent).
  outrider_client_t* ConnectRank(const char* job, const char* token, int rank, int world,
                                 int local) {
    return ConnectAt(rank / local, 0, job, token, rank, world, local);
  }
  // The same at agent `agent`, the job's node 0 being at agent `root_agent`.
  outrider_client_t* ConnectAt(int agent, int root_agent, const char* job, const char* token,
                               int rank, int world, int local = 1) {
    ::setenv("OUTRIDER_ROOT_ADDR",
             ("127.0.0.1:" + std::to_string(ports_[static_cast<size_t>(root_agent)])).c_str(), 1);
    ::setenv("OUTRIDER_JOB_TOKEN", token, 1);
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    std::string socket = agents_[static_cast<size_t>(agent)]->socket_path();
    o.socket_path = socket.c_str();
    o.job_id = job;
    o.rank = rank;
    o.world_size = world;
    o.local_rank = rank % local;
    o.local_world_size = local;
    return ConnectOrExitWith(&o);
  }
  // A second job, one rank per node of the first two, that keeps the agents' link busy
  // (heartbeats) until EndIdleJob(): each rank runs one allreduce and waits. Returns once they ran.
  void StartIdleJob(const char* job) {
    Pipe ready;
    idle_ranks_ = std::make_unique<Ranks>(2, [&](int r) {
      outrider_client_t* c = ConnectOnePerNode(job, "idle", r, 2);
      auto* x = static_cast<float*>(outrider_alloc(c, 4));
      outrider_op_t h;
      int rc = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 30000);
      char ch;
      if (r == 0) ready.Send('r');
      if (!idle_end_.Receive(&ch, 60000)) rc = 90;
      outrider_disconnect(c);
      return rc;
    });
    char ch;
    ASSERT_TRUE(ready.Receive(&ch, 60000));
  }
  // Ends StartIdleJob()'s ranks; each must have seen no error.
  void EndIdleJob() {
    if (idle_ranks_ == nullptr) return;
    for (int i = 0; i < idle_ranks_->size(); ++i) idle_end_.Send('e');
    idle_ranks_->ExpectAllExitZero();
    idle_ranks_.reset();
  }
  // Runs nodes x local ranks, each calling body(client, rank); collects rc and error text.
  void RunJob(const std::string& job, int nodes, int local, const std::string& token,
              const std::function<int(outrider_client_t*, int)>& body, bool expect_ok = true) {
    int world = nodes * local;
    Ranks ranks(world, [&](int r) {
      ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(ports_[0])).c_str(), 1);
      ::setenv("OUTRIDER_JOB_TOKEN", r == token_breaker_ ? "not-the-token" : token.c_str(), 1);
      outrider_connect_options_t o;
      outrider_connect_options_init(&o);
      std::string socket = agents_[static_cast<size_t>(r / local)]->socket_path();
      o.socket_path = socket.c_str();
      o.job_id = job.c_str();
      o.rank = r;
      o.world_size = world;
      o.local_rank = r % local;
      o.local_world_size = local;
      outrider_client_t* c = nullptr;
      int rc = outrider_connect(&o, &c);
      if (rc != OUTRIDER_OK) {
        results_->rc[r] = rc;
        CopyText(results_->error[r], 256, outrider_last_error(nullptr));
        return 0;
      }
      rc = body(c, r);
      results_->rc[r] = rc;
      if (rc != OUTRIDER_OK) CopyText(results_->error[r], 256, outrider_last_error(c));
      outrider_disconnect(c);
      return 0;
    });
    ranks.ExpectAllExitZero();
    if (expect_ok) {
      for (int r = 0; r < world; ++r)
        EXPECT_EQ(results_->rc[r], 0) << "rank " << r << ": " << results_->error[r];
    }
  }

  std::vector<std::unique_ptr<harness::AgentProcess>> agents_;
  std::vector<std::vector<std::string>> agent_args_;                    // each agent's flags
  std::vector<std::unique_ptr<harness::AgentProcess>> stopped_agents_;  // see RestartAgent
  std::vector<uint16_t> ports_;
  std::vector<uint16_t> http_ports_;
  SharedValue<Results> results_;
  int token_breaker_ = -1;
  Pipe idle_end_;
  std::unique_ptr<Ranks> idle_ranks_;
};

inline int Wait(outrider_client_t* c, int rc, const outrider_op_t* h) {
  return rc == OUTRIDER_OK ? outrider_wait(c, *h, 30000) : rc;
}

}  // namespace outrider::testing
