// The agents' TCP congestion control (--tcp-congestion-control) through real agents: /status names
// it and `ss` shows it on every data-plane socket after a job; an algorithm the kernel lacks
// stops the agent at start, naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

// The congestion control of process `pid`'s TCP sockets as `ss` shows them, listeners included,
// leaving out those with a local or remote port in `skip`.
std::vector<std::string> CongestionControlOf(pid_t pid, const std::vector<uint16_t>& skip) {
  std::vector<std::string> names;
  FILE* ss = ::popen("ss -tinpaH 2>/dev/null", "r");
  if (ss == nullptr) return names;
  std::string owner = "pid=" + std::to_string(pid) + ",";
  auto port = [](const std::string& endpoint) {
    return static_cast<uint16_t>(std::atoi(endpoint.substr(endpoint.rfind(':') + 1).c_str()));
  };
  char line[4096];
  bool mine = false;
  while (std::fgets(line, sizeof(line), ss) != nullptr) {
    std::string l(line);
    if (l.empty() || (l[0] != ' ' && l[0] != '\t')) {  // a socket's first line; its details follow
      std::istringstream in(l);
      std::string state, rq, sq, local, peer;
      in >> state >> rq >> sq >> local >> peer;
      mine = l.find(owner) != std::string::npos &&
             std::find(skip.begin(), skip.end(), port(local)) == skip.end() &&
             std::find(skip.begin(), skip.end(), port(peer)) == skip.end();
      continue;
    }
    if (!mine) continue;
    std::istringstream in(l);
    std::string name;
    in >> name;
    names.push_back(name);
    mine = false;
  }
  ::pclose(ss);
  return names;
}

TEST_F(MultiNodeTest, AgentsGiveTheirConnectionsTheConfiguredCongestionControl) {
  StartAgents(2, /*http=*/true, {"--tcp-congestion-control", "reno"});
  RunJob("cc", 2, 1, "tok", [&](outrider_client_t* c, int) {
    auto* x = static_cast<float*>(outrider_alloc(c, 4 * 4096));
    outrider_op_t h;
    return Wait(c, outrider_allreduce(c, x, x, 4096, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h), &h);
  });
  // The data plane's sockets: all but the rendezvous and HTTP ports' (whose algorithm depends on
  // whether they opened before or after the agent's last connect).
  std::vector<uint16_t> skip = ports_;
  skip.insert(skip.end(), http_ports_.begin(), http_ports_.end());
  for (int n = 0; n < 2; ++n) {
    EXPECT_THAT(HttpGet(http_ports_[n], "/status"),
                HasSubstr("\"tcp_congestion_control\": \"reno\""));
    std::vector<std::string> names = CongestionControlOf(agents_[n]->pid(), skip);
    EXPECT_GE(names.size(), 2u) << "agent " << n
                                << ": the data plane's listener and a connection at least";
    for (const std::string& name : names) EXPECT_EQ(name, "reno") << "agent " << n;
  }
}

TEST_F(MultiNodeTest, AnAgentGivenACongestionControlTheKernelLacksRefusesToStart) {
  harness::AgentProcessOptions o;
  o.extra_args = {"--port",    std::to_string(FreePort()), "--listen-address",
                  "127.0.0.1", "--tcp-congestion-control", "no_such_cc"};
  auto agent = harness::AgentProcess::Start(o);
  ASSERT_FALSE(agent.ok());
  EXPECT_THAT(agent.status().message(),
              HasSubstr("TCP congestion control 'no_such_cc' is not in this kernel (available: "));
}

}  // namespace
}  // namespace outrider::testing
