// Starts an outrider-agent as a child process on a private socket and waits until it listens
// (readiness comes through --ready-fd, so nobody polls or sleeps). Used by outrider-bench and the
// integration and fault tests.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace outrider::harness {

struct AgentProcessOptions {
  std::string binary;       // "" = outrider-agent next to this executable
  std::string socket_path;  // "" = <fresh temp dir>/agent.sock
  std::vector<std::string> extra_args;
  std::string log_path;  // "" = <temp dir>/agent.log
  int ready_timeout_ms = 10000;
};

// Thread-safety: one thread.
class AgentProcess {
 public:
  static Result<std::unique_ptr<AgentProcess>> Start(AgentProcessOptions options);
  ~AgentProcess();  // stops a still-running agent (SIGTERM, then SIGKILL) and removes the temp dir

  pid_t pid() const { return pid_; }
  const std::string& socket_path() const { return socket_path_; }
  const std::string& log_path() const { return log_path_; }
  // Sends `sig` and reaps the agent; returns its wait status. If it has not exited after
  // `grace_ms`, it is SIGKILLed.
  int Stop(int sig, int grace_ms = 10000);
  std::string ReadLog() const;

 private:
  AgentProcess() = default;
  pid_t pid_ = -1;
  std::string dir_;
  std::string socket_path_;
  std::string log_path_;
};

// outrider-agent beside /proc/self/exe, or $OUTRIDER_AGENT_BINARY.
std::string DefaultAgentBinary();
// mkdtemp under $TMPDIR or /tmp.
Result<std::string> MakeTempDir(const std::string& prefix);
void RemoveTree(const std::string& dir);

}  // namespace outrider::harness
