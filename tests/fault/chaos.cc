// outrider-chaos: fault injection against real agents and trainers on emulated nodes (one agent
// per node on loopback). Each round runs a victim job (every node, several ranks per node, mixed
// dense and sparse ops kept in flight) and, in most rounds, a second job on the same agents that
// checks every result; then it injects one fault at a random moment: SIGKILL or SIGSTOP of a
// trainer, or of an agent. It checks that every surviving rank of the victim job fails with the
// right code naming the right rank or node within a bound, that the second job sees no error and
// no wrong result and keeps going, and that the agents' fds and memory stay flat. Prints the error
// latency distribution; exits 1 if any check failed.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/fault/chaos_cluster.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"
#include "tools/harness/agent_process.h"

namespace outrider::chaos {
namespace {

using testing::CopyText;
using testing::CountOpenFds;
using testing::FreePort;
using testing::Pipe;
using testing::Ranks;
using testing::Reap;
using testing::Spawn;

constexpr uint64_t kSparseRows = 100000, kSparseDim = 16, kSparseNnz = 512;

// One rank's report, in memory shared with the forked rank processes.
struct Slot {
  std::atomic<int> ops;
  int rc;
  int64_t error_ns;  // CLOCK_MONOTONIC (system-wide) when the rank saw its error
  int wrong;         // results that differed from the expected values
  char message[1024];
};
struct Board {
  Slot victim[kMaxRanks];
  Slot bystander[kMaxRanks];
  // The second job's ranks all stop before this step (so none waits on one that already left).
  std::atomic<int> bystander_stop_step;
};

enum class Fault { kTrainerKill, kTrainerStop, kAgentKill, kAgentStop };
const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kTrainerKill:
      return "trainer SIGKILL";
    case Fault::kTrainerStop:
      return "trainer SIGSTOP";
    case Fault::kAgentKill:
      return "agent SIGKILL";
    case Fault::kAgentStop:
      return "agent SIGSTOP";
  }
  return "?";
}

struct Plan {
  Fault fault;
  int target;      // trainer faults: the victim job's rank; agent faults: the node
  int kill_after;  // ops the trigger rank completes before the fault
  int delay_us;    // then this long
  bool bystander;  // a second job runs on the same agents
};

// A latency sample: one surviving rank's time from the fault to its error.
struct Sample {
  Fault fault;
  std::string where;  // "same node", "other node", "on the agent"
  bool bystander;
  double ms;
};

// Where a job's ranks run: job node k on cluster node nodes[k], `local` ranks each.
struct JobLayout {
  std::string id, token;
  std::vector<int> nodes;
  int local = 1;
  int world() const { return static_cast<int>(nodes.size()) * local; }
  int node_of(int rank) const { return nodes[static_cast<size_t>(rank / local)]; }
};

// In a rank process: connects as `rank` of `job`; on failure records why and returns null.
outrider_client_t* ConnectRank(Cluster& cluster, const JobLayout& job, int rank, Slot* slot) {
  ::setenv("OUTRIDER_ROOT_ADDR",
           ("127.0.0.1:" + std::to_string(cluster.port(job.nodes[0]))).c_str(), 1);
  ::setenv("OUTRIDER_JOB_TOKEN", job.token.c_str(), 1);
  std::string socket = cluster.agent(job.node_of(rank)).socket_path();
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = job.id.c_str();
  o.rank = rank;
  o.world_size = job.world();
  o.local_rank = rank % job.local;
  o.local_world_size = job.local;
  outrider_client_t* c = nullptr;
  int rc = outrider_connect(&o, &c);
  if (rc != OUTRIDER_OK) {
    slot->rc = rc;
    slot->error_ns = NowNs();
    CopyText(slot->message, sizeof(slot->message), outrider_last_error(nullptr));
    return nullptr;
  }
  return c;
}

void Record(Slot* slot, outrider_client_t* c, int rc) {
  slot->error_ns = NowNs();
  slot->rc = rc;
  CopyText(slot->message, sizeof(slot->message), outrider_last_error(c));
}

// A victim-job rank: a dense allreduce of a size that changes every step and a sparse allreduce
// of random rows, both in flight at once, until an op fails. `trigger` is told when this rank has
// completed `kill_after` steps.
int VictimRank(Cluster& cluster, const JobLayout& job, int rank, Slot* slot, Pipe* trigger,
               int kill_after) {
  outrider_client_t* c = ConnectRank(cluster, job, rank, slot);
  if (c == nullptr) return 0;
  const uint64_t dense_max =
      std::max<uint64_t>(cluster.options().dense_max_bytes / sizeof(float), 256);
  int dense_sizes = 1;  // 256 << (dense_sizes - 1) <= dense_max
  while ((uint64_t{256} << dense_sizes) <= dense_max) ++dense_sizes;
  auto* dense = static_cast<float*>(outrider_alloc(c, dense_max * sizeof(float)));
  auto* ids = static_cast<int64_t*>(outrider_alloc(c, kSparseNnz * sizeof(int64_t)));
  auto* values = static_cast<float*>(outrider_alloc(c, kSparseNnz * kSparseDim * sizeof(float)));
  uint64_t capacity = kSparseNnz * static_cast<uint64_t>(job.world());
  auto* out_ids = static_cast<int64_t*>(outrider_alloc(c, capacity * sizeof(int64_t)));
  auto* out_values = static_cast<float*>(outrider_alloc(c, capacity * kSparseDim * sizeof(float)));
  if (!dense || !ids || !values || !out_ids || !out_values) {
    Record(slot, c, OUTRIDER_ERR_INTERNAL);
    return 0;
  }
  std::fill(dense, dense + dense_max, 1.0f);
  std::fill(values, values + kSparseNnz * kSparseDim, 0.5f);
  std::mt19937_64 gen(static_cast<uint64_t>(rank) * 7919 + 1);
  for (int step = 0; step < 1'000'000; ++step) {
    if (trigger != nullptr && step == kill_after) trigger->Send('k');
    for (uint64_t i = 0; i < kSparseNnz; ++i) ids[i] = static_cast<int64_t>(gen() % kSparseRows);
    outrider_sparse_t s;
    outrider_sparse_init(&s);
    s.rows = kSparseRows;
    s.dim = kSparseDim;
    s.dtype = OUTRIDER_F32;
    s.id_dtype = OUTRIDER_I64;
    s.ids = ids;
    s.values = values;
    s.nnz = kSparseNnz;
    s.out_ids = out_ids;
    s.out_values = out_values;
    s.capacity = capacity;
    outrider_op_t hd, hs;
    uint64_t count = uint64_t{256} << (step % dense_sizes);
    int rc = outrider_allreduce(c, dense, dense, count, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &hd);
    if (rc == OUTRIDER_OK) rc = outrider_sparse_allreduce(c, &s, nullptr, &hs);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, hd, kClientWaitMs);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, hs, kClientWaitMs);
    if (rc != OUTRIDER_OK) {
      Record(slot, c, rc);
      break;
    }
    std::fill(dense, dense + count, 1.0f);
    slot->ops.fetch_add(1);
  }
  outrider_disconnect(c);
  return 0;
}

// A rank of the second job: allreduces whose result it knows, until the step the harness names.
// `ready` is told after its third op.
int BystanderRank(Cluster& cluster, const JobLayout& job, int rank, Slot* slot, Board* board,
                  Pipe* ready) {
  outrider_client_t* c = ConnectRank(cluster, job, rank, slot);
  if (c == nullptr) {
    ready->Send('x');
    return 0;
  }
  auto* x = static_cast<float*>(outrider_alloc(c, kBystanderCount * sizeof(float)));
  int world = job.world();
  for (int step = 0; step < board->bystander_stop_step.load(); ++step) {
    float factor = static_cast<float>(step % 7 + 1);
    std::fill(x, x + kBystanderCount, factor * static_cast<float>(rank + 1));
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, kBystanderCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, kClientWaitMs);
    if (rc != OUTRIDER_OK) {
      Record(slot, c, rc);
      break;
    }
    float want = factor * static_cast<float>(world * (world + 1) / 2);
    if (std::any_of(x, x + kBystanderCount, [&](float v) { return v != want; })) ++slot->wrong;
    if (slot->ops.fetch_add(1) + 1 == 3) ready->Send('r');
  }
  if (slot->ops.load() < 3 && slot->rc != 0) ready->Send('x');
  outrider_disconnect(c);
  return 0;
}

class Chaos {
 public:
  explicit Chaos(const Options& o) : o_(o), cluster_(o), gen_(o.seed) {
    board_ = static_cast<Board*>(testing::MapSharedAnon(sizeof(Board)));
  }
  ~Chaos() { testing::UnmapShared(board_, sizeof(Board)); }

  int Run();

 private:
  void Fail(int round, const Plan& p, const std::string& what) {
    ++failures_;
    std::fprintf(stderr, "round %d (%s of %s %d): %s\n", round, FaultName(p.fault),
                 p.fault == Fault::kTrainerKill || p.fault == Fault::kTrainerStop ? "rank" : "node",
                 p.target, what.c_str());
  }
  std::vector<Plan> MakePlans();
  void RunRound(int round, const Plan& p);
  void CheckAgents(int round, const Plan& p, bool baseline);
  // False (and the dead agent's log on stderr) if an agent exited without being told to.
  bool AgentsAlive();
  void Report();

  const Options& o_;
  Cluster cluster_;
  std::mt19937 gen_;
  Board* board_;
  std::vector<Sample> samples_;
  std::vector<int> fd_baseline_;
  std::vector<long> rss_first_, rss_last_, rss_max_;
  std::vector<int> fds_max_over_;
  int failures_ = 0;
  int rounds_ = 0;
  int restarts_ = 0;
};

std::vector<Plan> Chaos::MakePlans() {
  std::vector<Plan> plans;
  int world = o_.nodes * o_.ranks_per_node;
  auto add = [&](Fault f, int n) {
    for (int i = 0; i < n; ++i) {
      Plan p;
      p.fault = f;
      bool trainer = f == Fault::kTrainerKill || f == Fault::kTrainerStop;
      p.target = std::uniform_int_distribution<int>(0, trainer ? world - 1 : o_.nodes - 1)(gen_);
      // An agent fault waits for the job's first op, so that every node has joined it (a node
      // whose agent dies before it joins is only missed when the rendezvous times out).
      p.kill_after = std::uniform_int_distribution<int>(trainer ? 0 : 1, 12)(gen_);
      p.delay_us = std::uniform_int_distribution<int>(0, 3000)(gen_);
      // Trainer faults: every other one with a second job on the agents. Agent faults: always,
      // on the nodes the fault spares (a job on a dead agent dies with it).
      p.bystander = trainer ? i % 2 == 0 : o_.nodes > 1;
      plans.push_back(p);
    }
  };
  add(Fault::kTrainerKill, o_.kills);
  add(Fault::kTrainerStop, o_.trainer_stops);
  add(Fault::kAgentKill, o_.agent_kills);
  add(Fault::kAgentStop, o_.agent_stops);
  std::shuffle(plans.begin(), plans.end(), gen_);
  return plans;
}

void Chaos::RunRound(int round, const Plan& p) {
  std::memset(static_cast<void*>(board_), 0, sizeof(Board));
  board_->bystander_stop_step.store(INT32_MAX);
  bool trainer_fault = p.fault == Fault::kTrainerKill || p.fault == Fault::kTrainerStop;
  int fault_node = trainer_fault ? p.target / o_.ranks_per_node : p.target;

  JobLayout victim{
      "victim-" + std::to_string(round), "v" + std::to_string(round), {}, o_.ranks_per_node};
  for (int n = 0; n < o_.nodes; ++n) victim.nodes.push_back(n);
  JobLayout steady{"steady-" + std::to_string(round), "s" + std::to_string(round), {}, 1};
  if (p.bystander) {
    for (int n = 0; n < o_.nodes; ++n) {
      if (trainer_fault || n != fault_node) steady.nodes.push_back(n);
    }
    if (steady.nodes.size() == 1) steady.local = 2;
  }

  // The second job first: it is running when the victim job starts and when the fault hits.
  Pipe steady_ready;
  Ranks steady_ranks;
  if (p.bystander) {
    steady_ranks.Add(steady.world(), [&](int r) {
      return BystanderRank(cluster_, steady, r, &board_->bystander[r], board_, &steady_ready);
    });
  }
  for (int i = 0; i < steady_ranks.size(); ++i) {
    char ch = 0;
    if (!steady_ready.Receive(&ch, 30000) || ch != 'r') {
      Fail(round, p,
           "the second job did not get going: " + std::string(board_->bystander[i].message));
      break;
    }
  }

  Pipe trigger;
  int trigger_rank = trainer_fault ? p.target : fault_node * o_.ranks_per_node;
  Ranks ranks(victim.world(), [&](int r) {
    return VictimRank(cluster_, victim, r, &board_->victim[r],
                      r == trigger_rank ? &trigger : nullptr, p.kill_after);
  });
  char ch;
  bool triggered = trigger.Receive(&ch, 30000);
  if (!triggered)
    Fail(round, p, "the victim job never reached its step " + std::to_string(p.kill_after));
  timespec pause{0, static_cast<long>(p.delay_us) * 1000};
  ::nanosleep(&pause, nullptr);

  std::vector<int> steady_ops_at_fault;
  for (int r = 0; r < steady.world() && p.bystander; ++r)
    steady_ops_at_fault.push_back(board_->bystander[r].ops.load());
  int64_t fault_ns = NowNs();
  pid_t agent_pid = cluster_.agent(fault_node).pid();
  switch (p.fault) {
    case Fault::kTrainerKill:
      ranks.Kill(p.target, SIGKILL);
      break;
    case Fault::kTrainerStop:
      ranks.Kill(p.target, SIGSTOP);
      break;
    case Fault::kAgentKill:
      ::kill(agent_pid, SIGKILL);
      break;
    case Fault::kAgentStop:
      ::kill(agent_pid, SIGSTOP);
      break;
  }

  // Survivors on other nodes first: with a stopped agent, ranks on its node end only once it dies.
  auto on_fault_node = [&](int r) { return victim.node_of(r) == fault_node; };
  for (int r = 0; r < victim.world(); ++r) {
    if (!(trainer_fault && r == p.target) && !on_fault_node(r)) ranks.Reap(r);
  }
  if (p.fault == Fault::kAgentKill || p.fault == Fault::kAgentStop)
    cluster_.agent(fault_node).Stop(SIGKILL);
  for (int r = 0; r < victim.world(); ++r) {
    if (!(trainer_fault && r == p.target) && on_fault_node(r)) ranks.Reap(r);
  }
  if (trainer_fault) {
    // A stopped trainer is killed once the others have their error.
    ranks.Kill(p.target, SIGKILL);
    ranks.Reap(p.target);
  }
  bool agent_fault = !trainer_fault;
  if (agent_fault) {
    ++restarts_;
    Status st = cluster_.Start(fault_node);
    if (!st.ok()) Fail(round, p, st.ToString());
  }

  // Every survivor: the right code, naming the right rank or node, in time.
  for (int r = 0; r < victim.world(); ++r) {
    if (trainer_fault && r == p.target) continue;
    const Slot& s = board_->victim[r];
    bool same = on_fault_node(r);
    std::string where =
        agent_fault ? (same ? "on the agent" : "other node") : (same ? "same node" : "other node");
    int want_rc = OUTRIDER_ERR_PEER_LOST;
    std::string want_text = "rank " + std::to_string(p.target) + " (local rank";
    int bound = same ? o_.same_node_bound_ms : o_.remote_bound_ms;
    switch (p.fault) {
      case Fault::kTrainerKill:
        // A rank still connecting when the job failed on its node is refused, naming the dead rank.
        if (s.rc == OUTRIDER_ERR_FAILED_PRECONDITION &&
            std::strstr(s.message, "refused the connection") != nullptr) {
          want_rc = s.rc;
        }
        break;
      case Fault::kTrainerStop:
        // The op times out; a node whose ranks then leave with another op unfinished may reach
        // some nodes first with PEER_LOST, which names the timeout it follows.
        want_rc = s.rc == OUTRIDER_ERR_PEER_LOST ? OUTRIDER_ERR_PEER_LOST
                                                 : OUTRIDER_ERR_DEADLINE_EXCEEDED;
        bound = o_.op_timeout_ms + o_.remote_bound_ms;
        break;
      case Fault::kAgentKill:
        want_text = "(node " + std::to_string(fault_node) + ")";
        bound = o_.remote_bound_ms;
        break;
      case Fault::kAgentStop:
        want_text = "(node " + std::to_string(fault_node) + ")";
        bound = o_.peer_timeout_ms + o_.remote_bound_ms;
        break;
    }
    if (agent_fault && same) {
      // Its own agent is gone: any error will do (the shim says UNAVAILABLE); a stopped agent's
      // ranks end only when the agent is killed, so their latency says nothing.
      if (s.rc == OUTRIDER_OK)
        Fail(round, p, "rank " + std::to_string(r) + " on the faulted agent saw no error");
      if (p.fault == Fault::kAgentStop) continue;
      want_rc = s.rc;
      want_text.clear();
    }
    double ms = static_cast<double>(s.error_ns - fault_ns) / 1e6;
    if (s.rc == OUTRIDER_OK) {
      Fail(round, p, "rank " + std::to_string(r) + " saw no error");
      continue;
    }
    samples_.push_back({p.fault, where, p.bystander, ms});
    if (s.rc != want_rc) {
      Fail(round, p,
           "rank " + std::to_string(r) + " got " + outrider_error_string(s.rc) + " instead of " +
               outrider_error_string(want_rc) + ": " + s.message);
    } else if (!want_text.empty() && std::strstr(s.message, want_text.c_str()) == nullptr) {
      Fail(
          round, p,
          "rank " + std::to_string(r) + "'s error does not name '" + want_text + "': " + s.message);
    }
    if (ms > bound) {
      Fail(round, p,
           "rank " + std::to_string(r) + " (" + where + ") learned after " + std::to_string(ms) +
               " ms (bound " + std::to_string(bound) + " ms): " + s.message);
    }
    if (o_.verbose)
      std::fprintf(stderr, "round %d rank %d %s %.2f ms: %s\n", round, r, where.c_str(), ms,
                   s.message);
  }

  // The second job: no error, no wrong result, and it kept going after the fault.
  if (p.bystander) {
    bool progressed = true;
    for (int r = 0; r < steady.world(); ++r) {
      int at_fault = steady_ops_at_fault[static_cast<size_t>(r)];
      progressed = testing::WaitUntil(
          [&] {
            return board_->bystander[r].ops.load() >= at_fault + 3 || board_->bystander[r].rc != 0;
          },
          10000);
      if (!progressed) break;
    }
    // Ranks of an allreduce are at most one step apart: two steps past the furthest, all stop.
    int furthest = 0;
    for (int r = 0; r < steady.world(); ++r)
      furthest = std::max(furthest, board_->bystander[r].ops.load());
    board_->bystander_stop_step.store(furthest + 2);
    steady_ranks.ReapAll();
    for (int r = 0; r < steady.world(); ++r) {
      const Slot& s = board_->bystander[r];
      if (s.rc != OUTRIDER_OK)
        Fail(round, p, "second job's rank " + std::to_string(r) + " failed: " + s.message);
      if (s.wrong != 0)
        Fail(round, p,
             "second job's rank " + std::to_string(r) + " got " + std::to_string(s.wrong) +
                 " wrong results");
    }
    if (!progressed) Fail(round, p, "the second job stopped making progress after the fault");
  }
  ++rounds_;
}

bool Chaos::AgentsAlive() {
  for (int n = 0; n < o_.nodes; ++n) {
    siginfo_t info{};
    pid_t pid = cluster_.agent(n).pid();
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      ++failures_;
      std::string log = cluster_.agent(n).ReadLog();
      if (log.size() > 6000) log = log.substr(log.size() - 6000);
      std::fprintf(stderr, "node %d's agent died (%s %d); its log ends:\n%s\n", n,
                   info.si_code == CLD_EXITED ? "exit status" : "signal", info.si_status,
                   log.c_str());
      return false;
    }
  }
  return true;
}

void Chaos::CheckAgents(int round, const Plan& p, bool baseline) {
  for (int n = 0; n < o_.nodes; ++n) {
    pid_t pid = cluster_.agent(n).pid();
    auto un = static_cast<size_t>(n);
    if (baseline || fd_baseline_[un] < 0) {
      // The round's clients are gone, but the agent may still be closing their sessions: the
      // baseline is the count once it has not dropped for 300 ms.
      int settled = CountOpenFds(pid);
      while (testing::WaitUntil([&] { return CountOpenFds(pid) < settled; }, 300))
        settled = CountOpenFds(pid);
      fd_baseline_[un] = settled;
      rss_first_[un] = rss_last_[un] = rss_max_[un] = RssKiB(pid);
      continue;
    }
    // Every client of the round is gone: the agent lets go of what they held. It may hold one
    // more connection (two sockets) per peer agent than at its baseline, made when a job first
    // needed it; a leak grows past that with the rounds.
    int want = fd_baseline_[un] + 2 * (o_.nodes - 1);
    if (!testing::WaitUntil([&] { return CountOpenFds(pid) <= want; }, 5000)) {
      int have = CountOpenFds(pid);
      fds_max_over_[un] = std::max(fds_max_over_[un], have - want);
      Fail(round, p,
           "node " + std::to_string(n) + "'s agent holds " + std::to_string(have) + " fds, " +
               std::to_string(want) + " before");
    }
    rss_last_[un] = RssKiB(pid);
    rss_max_[un] = std::max(rss_max_[un], rss_last_[un]);
  }
}

int Chaos::Run() {
  for (int n = 0; n < o_.nodes; ++n) {
    Status st = cluster_.Start(n);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  fd_baseline_.assign(static_cast<size_t>(o_.nodes), 0);
  rss_first_.assign(static_cast<size_t>(o_.nodes), 0);
  rss_last_ = rss_max_ = rss_first_;
  fds_max_over_.assign(static_cast<size_t>(o_.nodes), 0);
  std::vector<Plan> plans = MakePlans();
  int64_t start = NowNs();
  // A warm-up round (a trainer kill with the second job) brings the agents' connections and pools
  // to their steady state before the baseline is taken.
  RunRound(0, {Fault::kTrainerKill, 0, 2, 0, true});
  CheckAgents(0, plans.empty() ? Plan{} : plans[0], /*baseline=*/true);
  samples_.clear();
  rounds_ = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const Plan& p = plans[i];
    int round = static_cast<int>(i) + 1;
    RunRound(round, p);
    if (!AgentsAlive()) break;
    CheckAgents(round, p, false);
    if (p.fault == Fault::kAgentKill || p.fault == Fault::kAgentStop) {
      // A restarted agent takes its baseline after its next round, once it has its connections.
      fd_baseline_[static_cast<size_t>(p.target)] = -1;
    }
    if ((i + 1) % 10 == 0) {
      std::fprintf(stderr, "[chaos] %zu/%zu rounds, %d failures, %.0f s\n", i + 1, plans.size(),
                   failures_, static_cast<double>(NowNs() - start) / 1e9);
    }
  }
  for (int n = 0; n < o_.nodes; ++n) {
    auto un = static_cast<size_t>(n);
    if (rss_last_[un] - rss_first_[un] > long{o_.rss_slack_mib} * 1024) {
      ++failures_;
      std::fprintf(stderr, "node %d's agent grew from %ld KiB to %ld KiB RSS\n", n, rss_first_[un],
                   rss_last_[un]);
    }
  }
  Report();
  std::printf("%d rounds, %d agent restarts, %.0f s: %s\n", rounds_, restarts_,
              static_cast<double>(NowNs() - start) / 1e9,
              failures_ == 0 ? "all checks passed" : "FAILED");
  if (failures_ != 0) std::printf("%d failed checks (listed on stderr)\n", failures_);
  return failures_ == 0 ? 0 : 1;
}

void Chaos::Report() {
  // Groups by fault, where the survivor ran, and whether the second job ran.
  std::map<std::string, std::vector<double>> groups;
  for (const Sample& s : samples_) {
    groups[std::string(FaultName(s.fault)) + " | " + s.where + " | " +
           (s.bystander ? "2 jobs" : "1 job")]
        .push_back(s.ms);
  }
  std::printf("error latency of surviving ranks, ms (fault | survivor | jobs on the agents)\n");
  std::printf("%-44s %6s %8s %8s %8s %8s %8s\n", "", "n", "min", "median", "p90", "p99", "max");
  for (auto& [name, v] : groups) {
    std::printf("%-44s %6zu %8.2f %8.2f %8.2f %8.2f %8.2f\n", name.c_str(), v.size(),
                *std::min_element(v.begin(), v.end()), Percentile(v, 0.5), Percentile(v, 0.9),
                Percentile(v, 0.99), *std::max_element(v.begin(), v.end()));
  }
  std::printf("agents (node: fds at baseline, RSS KiB first -> last, max)\n");
  for (int n = 0; n < o_.nodes; ++n) {
    auto un = static_cast<size_t>(n);
    if (fd_baseline_[un] < 0) {
      std::printf("  node %d: restarted in the last round\n", n);
      continue;
    }
    std::printf("  node %d: %d fds, RSS %ld -> %ld KiB (max %ld)\n", n, fd_baseline_[un],
                rss_first_[un], rss_last_[un], rss_max_[un]);
  }
  if (o_.json.empty()) return;
  std::ofstream out(o_.json);
  out << "{\"rounds\": " << rounds_ << ", \"failures\": " << failures_ << ", \"groups\": {";
  bool first = true;
  for (auto& [name, v] : groups) {
    out << (first ? "" : ", ") << "\"" << name << "\": {\"n\": " << v.size()
        << ", \"min\": " << *std::min_element(v.begin(), v.end())
        << ", \"median\": " << Percentile(v, 0.5) << ", \"p90\": " << Percentile(v, 0.9)
        << ", \"p99\": " << Percentile(v, 0.99)
        << ", \"max\": " << *std::max_element(v.begin(), v.end()) << "}";
    first = false;
  }
  out << "}}\n";
}

}  // namespace

int RunRounds(const Options& o) {
  Chaos chaos(o);
  return chaos.Run();
}

}  // namespace outrider::chaos
