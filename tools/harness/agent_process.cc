// Child-process agent for benchmarks and tests.
#include "tools/harness/agent_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace outrider::harness {

std::string DefaultAgentBinary() {
  if (const char* env = std::getenv("OUTRIDER_AGENT_BINARY"); env && *env) return env;
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "outrider-agent";
  buf[n] = '\0';
  std::filesystem::path self(buf);
  std::filesystem::path beside = self.parent_path() / "outrider-agent";
  if (std::filesystem::exists(beside)) return beside.string();
  // Tests live in build/tests, the agent in build/bin.
  return (self.parent_path().parent_path() / "bin" / "outrider-agent").string();
}

Result<std::string> MakeTempDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return ErrnoStatus("mkdtemp " + tmpl, errno);
  return tmpl;
}

void RemoveTree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

Result<std::unique_ptr<AgentProcess>> AgentProcess::Start(AgentProcessOptions o) {
  auto p = std::unique_ptr<AgentProcess>(new AgentProcess());
  OUTRIDER_ASSIGN_OR_RETURN(p->dir_, MakeTempDir("outrider-agent-"));
  p->socket_path_ = o.socket_path.empty() ? p->dir_ + "/agent.sock" : o.socket_path;
  p->log_path_ = o.log_path.empty() ? p->dir_ + "/agent.log" : o.log_path;
  std::string binary = o.binary.empty() ? DefaultAgentBinary() : o.binary;
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  std::vector<std::string> args = {binary, "--socket", p->socket_path_, "--ready-fd", "3"};
  args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
  // Without an explicit port the agent serves single-node jobs only, so several can share a host.
  if (std::find(args.begin(), args.end(), "--port") == args.end()) {
    args.push_back("--port");
    args.push_back("0");
  }
  // Likewise no HTTP listener unless asked for.
  if (std::find(args.begin(), args.end(), "--http-port") == args.end()) {
    args.push_back("--http-port");
    args.push_back("0");
  }
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoStatus("fork", errno);
  if (pid == 0) {
    int log = ::open(p->log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log >= 0) {
      ::dup2(log, 1);
      ::dup2(log, 2);
    }
    ::dup2(ready[1], 3);  // dup2 clears close-on-exec on the copy
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    _exit(127);
  }
  p->pid_ = pid;
  ::close(ready[1]);
  pollfd pfd{ready[0], POLLIN, 0};
  int r = ::poll(&pfd, 1, o.ready_timeout_ms);
  char byte = 0;
  ssize_t n = r > 0 ? ::read(ready[0], &byte, 1) : 0;
  if (n == 1) {
    // The agent closes its end right after writing: wait for that too, so callers that count
    // the agent's fds see its steady state.
    pfd.revents = 0;
    if (::poll(&pfd, 1, o.ready_timeout_ms) > 0) (void)!::read(ready[0], &byte, 1);
  }
  ::close(ready[0]);
  if (n != 1) {
    int status = p->Stop(SIGKILL);
    return Unavailable("outrider-agent (" + binary + ") did not become ready (wait status " +
                       std::to_string(status) + "); its log:\n" + p->ReadLog());
  }
  return p;
}

int AgentProcess::Stop(int sig, int grace_ms) {
  if (pid_ <= 0) return -1;
  // A pidfd turns "the agent exited" into an event to poll, with the grace period as deadline.
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  ::kill(pid_, sig);
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    if (sig != SIGKILL && ::poll(&p, 1, grace_ms) == 0) ::kill(pid_, SIGKILL);
    ::close(pidfd);
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

std::string AgentProcess::ReadLog() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

AgentProcess::~AgentProcess() {
  Stop(SIGTERM);
  if (!dir_.empty()) RemoveTree(dir_);
}

}  // namespace outrider::harness
