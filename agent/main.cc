// outrider-agent: the per-node communication-offload daemon.
#include <malloc.h>
#include <signal.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "agent/config.h"
#include "agent/log.h"

int main(int argc, char** argv) {
  // Collectives allocate and free buffers of megabytes per op. glibc would map and unmap each one
  // (or trim the heap after a large op), paying a page fault per 4 KiB on the next; kept in the
  // heap, they are reused. The agent returns the memory once it has been idle for a while.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  using namespace outrider;
  using namespace outrider::agent;
  // Signals are taken through a signalfd by the loop; block them before any thread exists.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  auto loaded = LoadConfig(argc, argv, getenv);
  if (!loaded.ok()) {
    std::fprintf(stderr, "outrider-agent: %s\n(see outrider-agent --help)\n",
                 loaded.status().message().c_str());
    return 2;
  }
  if (loaded->help_requested) {
    std::fputs(loaded->help_text.c_str(), stdout);
    return 0;
  }
  AgentOptions& options = loaded->options;
#ifdef OUTRIDER_NEXT_PROTOCOL
  // outrider-agent-next, built for tests only: this agent as the next release, which speaks the
  // protocol one version higher and serves this release's shims (their layouts are the same).
  options.control.protocol = {.newest = ipc::kProtocolVersion + 1, .oldest = ipc::kProtocolVersion};
#endif
  Status st = InitLogging(options.log_level);
  if (!st.ok()) {
    std::fprintf(stderr, "outrider-agent: %s\n", st.message().c_str());
    return 2;
  }
  auto log = Logger("config");
  for (const EffectiveValue& v : loaded->effective) {
    // "(default)", or where the value was set: "(from flag --port)", "(from env OUTRIDER_...)".
    if (v.source == Source::kDefault) {
      log->info("{} = {} (default)", v.name, v.value);
    } else {
      log->info("{} = {} (from {}{}{})", v.name, v.value, SourceName(v.source),
                v.origin.empty() ? "" : " ", v.origin);
    }
  }
  auto agent = Agent::Create(options);
  if (!agent.ok()) {
    Logger("agent")->critical("cannot start: {}", agent.status().ToString());
    return 1;
  }
  st = (*agent)->Run();
  if (!st.ok()) {
    Logger("agent")->critical("{}", st.ToString());
    return 1;
  }
  return 0;
}
