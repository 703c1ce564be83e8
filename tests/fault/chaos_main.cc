// outrider-chaos's command line: the options of every mode, then the mode (the fault rounds in
// chaos.cc, --elastic in chaos_elastic.cc, --port-abuse in chaos_port.cc).
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "tests/fault/chaos_cluster.h"

int main(int argc, char** argv) {
  using outrider::chaos::Options;
  Options o;
  CLI::App app{
      "outrider-chaos: injects faults (SIGKILL and SIGSTOP of trainers and agents) at random "
      "moments into a job\n"
      "with mixed dense and sparse traffic on emulated nodes (one agent per node on loopback), "
      "with a second job\n"
      "on the same agents; checks every survivor's error (code, named rank or node, latency), that "
      "the second\n"
      "job sees no error and no wrong result, and that agent fds and RSS stay flat. Exits 1 on any "
      "failed check."};
  app.add_option("--nodes", o.nodes, "emulated nodes (agents)")
      ->check(CLI::Range(2, 8))
      ->capture_default_str();
  app.add_option("--ranks-per-node", o.ranks_per_node, "victim job's ranks per node")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  app.add_option("--kills", o.kills, "rounds that SIGKILL a trainer")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--trainer-stops", o.trainer_stops,
                 "rounds that SIGSTOP a trainer (the others fail after --op-timeout-ms)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--agent-kills", o.agent_kills, "rounds that SIGKILL an agent (then restart it)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--agent-stops", o.agent_stops,
                 "rounds that SIGSTOP an agent (then kill and restart it)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--seed", o.seed, "random seed (targets, moments, order)")->capture_default_str();
  app.add_option("--same-node-bound-ms", o.same_node_bound_ms,
                 "a killed trainer's node-mates must fail within this")
      ->capture_default_str();
  app.add_option(
         "--remote-bound-ms", o.remote_bound_ms,
         "ranks on other nodes must fail within this (plus the op or peer timeout for stops)")
      ->capture_default_str();
  app.add_option("--op-timeout-ms", o.op_timeout_ms, "the agents' --op-timeout-ms")
      ->check(CLI::Range(100, 60000))
      ->capture_default_str();
  app.add_option("--peer-timeout-ms", o.peer_timeout_ms, "the agents' --peer-timeout-ms")
      ->check(CLI::Range(100, 60000))
      ->capture_default_str();
  app.add_option("--rss-slack-mib", o.rss_slack_mib, "RSS an agent may gain over the run")
      ->capture_default_str();
  app.add_option("--dense-max-bytes", o.dense_max_bytes,
                 "largest dense allreduce of the victim job (sizes double from 1 KiB up to it); "
                 "large ones keep "
                 "sends in flight when an agent is killed")
      ->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 30))
      ->capture_default_str();
  app.add_option("--json", o.json, "also write the latency distribution here");
  app.add_option("--log-dir", o.log_dir,
                 "keep every agent's log here (agent-<node>-<start>.log), for a failed run")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--verbose", o.verbose, "print every survivor's error and latency");
  app.add_flag("--elastic", o.elastic,
               "elastic mode: after every fault (--kills of trainers and agents, --agent-kills of "
               "them agents, --double-kills of them two trainers) the victim job re-forms without "
               "the lost ranks and replacements join; reports both times (docs/elastic.md)");
  app.add_flag("--port-abuse", o.port_abuse,
               "port-abuse mode: a 2-node job's allreduces while node 0's agent port is idle, then "
               "held by 64 partial frames and flooded with forged reports, phase after phase; "
               "compares the job's p99 and checks the agent's fds and RSS");
  app.add_option("--abuse-rounds", o.abuse_rounds, "port abuse: pairs of idle and abused phases")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  app.add_option("--abuse-phase-ms", o.abuse_phase_ms, "port abuse: each phase's length")
      ->check(CLI::Range(500, 60000))
      ->capture_default_str();
  app.add_option("--p99-ratio-bound", o.p99_ratio_bound,
                 "port abuse: the job's p99 abused over idle (median over the pairs), at most (0: "
                 "reported only)")
      ->capture_default_str();
  app.add_option("--double-kills", o.double_kills,
                 "elastic: rounds that kill a trainer, then the job's rank 0 0-300 ms later")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--joiner-deaths", o.joiner_deaths,
                 "elastic: rounds whose first replacement is killed 0-5 ms after it asked to join")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--reform-bound-ms", o.reform_bound_ms,
                 "elastic: from a fault to the survivors' first op of the new generation, at most")
      ->capture_default_str();
  app.add_option("--join-bound-ms", o.join_bound_ms,
                 "elastic: from a replacement's start to its first op, at most")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  ::signal(SIGPIPE, SIG_IGN);
  if (o.port_abuse) return outrider::chaos::RunPortAbuse(o);
  if (o.elastic) {
    if (o.nodes < 3) {
      std::fprintf(stderr, "--elastic needs --nodes 3 or more\n");
      return 2;
    }
    return outrider::chaos::RunElastic(o);
  }
  if (o.nodes * o.ranks_per_node > outrider::chaos::kMaxRanks) {
    std::fprintf(stderr, "--nodes x --ranks-per-node must be at most %d\n",
                 outrider::chaos::kMaxRanks);
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);
  return outrider::chaos::RunRounds(o);
}
