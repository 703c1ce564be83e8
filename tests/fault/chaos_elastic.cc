// outrider-chaos --elastic (docs/elastic.md): random SIGKILLs of a job's trainers and agents while
// a second job runs; after every fault the job re-forms without the lost ranks and replacements
// join. The faults: one trainer on any node (the job's rank 0 too), an agent, two trainers
// staggered by 0-300 ms of which the second is the job's rank 0 (so it dies while the job
// re-forms), and a joiner killed 0-5 ms after it asked to join, before the real replacement.
// With --ranks-per-node 2, a node that lost one rank keeps the other. Checks results, the second
// job's errors and hangs; prints both times.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "outrider/outrider.h"
#include "tests/fault/chaos_cluster.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::chaos {
namespace {

using testing::CopyText;
using testing::Ranks;
using testing::Reap;
using testing::Spawn;

constexpr int kMaxElasticSlots = 512;  // rank processes over the run (one per start)
constexpr int kElasticCount = 4096;    // int32 elements per step

struct ElasticSlot {
  std::atomic<int> steps;  // steps completed (in any generation)
  std::atomic<uint32_t> generation;
  std::atomic<int> rank;
  std::atomic<int> world;
  std::atomic<int64_t> asking_ns;    // when it last asked for a new generation
  std::atomic<int64_t> first_op_ns;  // first completed op of `generation`
  std::atomic<int> done;             // the process returned (rc below)
  int rc;
  int wrong;
  char message[512];
};
struct ElasticBoard {
  ElasticSlot slot[kMaxElasticSlots];
  ElasticSlot bystander[2];
  std::atomic<int> stop;  // every rank stops at its next check (read by the job's rank 0)
};

// One rank of the victim job (or a joiner, rank < 0): steps, re-forms after a failure or to admit a
// joiner, until told to stop or its agent is gone.
int ElasticRank(Cluster& cluster, const std::string& token, int node, int rank, int world,
                ElasticSlot* slot, ElasticBoard* board) {
  ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(cluster.port(0))).c_str(), 1);
  ::setenv("OUTRIDER_JOB_TOKEN", token.c_str(), 1);
  const int per_node = cluster.options().ranks_per_node;
  std::string socket = cluster.agent(node).socket_path();
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = "elastic";
  o.rank = rank < 0 ? 0 : rank;
  o.world_size = world;
  o.local_rank = rank < 0 ? 0 : rank % per_node;
  o.local_world_size = rank < 0 ? 1 : per_node;
  o.flags = rank < 0 ? OUTRIDER_CONNECT_JOINER : 0;
  outrider_client_t* c = nullptr;
  auto finish = [&](int rc) {
    slot->rc = rc;
    CopyText(slot->message, sizeof(slot->message), outrider_last_error(c));
    slot->done = 1;
    if (c != nullptr) outrider_disconnect(c);
    return 0;
  };
  if (int rc = outrider_connect(&o, &c); rc != OUTRIDER_OK) return finish(rc);
  auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * (kElasticCount + 2)));
  bool reform = rank < 0;
  if (!reform) {
    slot->rank = rank;
    slot->world = world;
  }
  for (;;) {
    if (reform) {
      outrider_membership_t m;
      slot->asking_ns = NowNs();
      int rc = outrider_reconfigure(c, 30000, &m);
      if (rc != OUTRIDER_OK) return finish(rc);
      slot->first_op_ns = 0;
      slot->generation = m.generation;
      slot->rank = m.rank;
      slot->world = m.world_size;
      reform = false;
    }
    int r = outrider_rank(c), w = outrider_world_size(c);
    for (int i = 0; i < kElasticCount; ++i) x[i] = r + 1 + i;
    outrider_op_t h;
    int rc = outrider_allreduce(c, x, x, kElasticCount, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, kClientWaitMs);
    if (rc == OUTRIDER_ERR_UNAVAILABLE || rc == OUTRIDER_ERR_DEADLINE_EXCEEDED) return finish(rc);
    if (rc != OUTRIDER_OK) {
      reform = true;
      continue;
    }
    for (int i = 0; i < kElasticCount; ++i) {
      if (x[i] != w * (w + 1) / 2 + w * i) {
        ++slot->wrong;
        break;
      }
    }
    if (slot->first_op_ns == 0) slot->first_op_ns = NowNs();
    ++slot->steps;
    // Joiners waiting (held by node 0's agent) and the stop flag (rank 0's), agreed by MAX.
    outrider_membership_t m;
    rc = outrider_membership(c, &m);
    x[0] = rc == OUTRIDER_OK ? static_cast<int32_t>(m.joiners_waiting) : 0;
    x[1] = r == 0 && board->stop ? 1 : 0;
    rc = outrider_allreduce(c, x, x, 2, OUTRIDER_I32, OUTRIDER_MAX, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, kClientWaitMs);
    if (rc == OUTRIDER_ERR_UNAVAILABLE || rc == OUTRIDER_ERR_DEADLINE_EXCEEDED) return finish(rc);
    if (rc != OUTRIDER_OK) {
      reform = true;
      continue;
    }
    if (x[1] != 0) return finish(0);
    if (x[0] > 0) reform = true;
  }
}

}  // namespace

int RunElastic(const Options& o) {
  Cluster cluster(o);
  auto* board = new (testing::MapSharedAnon(sizeof(ElasticBoard))) ElasticBoard();
  std::mt19937 rng(o.seed);
  int failures = 0;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "FAILED: %s\n", why.c_str());
    ++failures;
  };
  for (int n = 0; n < o.nodes; ++n) {
    if (Status st = cluster.Start(n); !st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  const std::string token = "elastic-token";
  const int per_node = o.ranks_per_node, places = o.nodes * per_node;
  // The victim job's process and board slot per place (node * per_node + i): a place is where a
  // process runs, not its rank, which changes as the job re-forms.
  std::vector<pid_t> at(static_cast<size_t>(places), 0);
  std::vector<int> slot_at(static_cast<size_t>(places), -1);
  int next_slot = 0;
  auto start_rank = [&](int place, int rank) {
    if (next_slot == kMaxElasticSlots) return false;
    int s = next_slot++;
    ElasticSlot* slot = &board->slot[s];
    int node = place / per_node;
    at[static_cast<size_t>(place)] = Spawn([&, node, rank, slot] {
      return ElasticRank(cluster, token, node, rank, places, slot, board);
    });
    slot_at[static_cast<size_t>(place)] = s;
    return true;
  };
  auto slot = [&](int place) -> ElasticSlot& {
    return board->slot[slot_at[static_cast<size_t>(place)]];
  };
  for (int p = 0; p < places; ++p) start_rank(p, p);
  // The second job: nodes 0 and 1, whose agents are never killed.
  Ranks bystanders(2, [&](int r) {
    ElasticSlot* slot = &board->bystander[r];
    ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(cluster.port(0))).c_str(), 1);
    ::setenv("OUTRIDER_JOB_TOKEN", "bystander-token", 1);
    std::string socket = cluster.agent(r).socket_path();
    outrider_connect_options_t co;
    outrider_connect_options_init(&co);
    co.socket_path = socket.c_str();
    co.job_id = "bystander";
    co.rank = r;
    co.world_size = 2;
    co.local_rank = 0;
    co.local_world_size = 1;
    outrider_client_t* c = nullptr;
    int rc = outrider_connect(&co, &c);
    auto* x =
        rc == OUTRIDER_OK ? static_cast<int32_t*>(outrider_alloc(c, 4 * kBystanderCount)) : nullptr;
    while (rc == OUTRIDER_OK) {
      for (uint64_t i = 0; i < kBystanderCount; ++i) x[i] = r + static_cast<int32_t>(i);
      x[0] = r == 0 && board->stop ? 1 << 20 : 0;
      outrider_op_t h;
      rc = outrider_allreduce(c, x, x, kBystanderCount, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, kClientWaitMs);
      if (rc != OUTRIDER_OK) break;
      for (uint64_t i = 1; i < kBystanderCount; ++i) {
        if (x[i] != 1 + 2 * static_cast<int32_t>(i)) {
          ++slot->wrong;
          break;
        }
      }
      ++slot->steps;
      if (x[0] != 0) break;
    }
    slot->rc = rc;
    CopyText(slot->message, sizeof(slot->message), outrider_last_error(c));
    slot->done = 1;
    if (c != nullptr) outrider_disconnect(c);
    return 0;
  });
  // The job is whole: every place's process is in generation `g` of all places and stepping.
  auto whole = [&](uint32_t* g) {
    uint32_t gen = slot(0).generation;
    for (int p = 0; p < places; ++p) {
      ElasticSlot& s = slot(p);
      if (s.done || s.generation != gen || s.world != places || s.first_op_ns == 0) return false;
    }
    *g = gen;
    return true;
  };
  auto last_first_op = [&] {
    int64_t last = 0;
    for (int p = 0; p < places; ++p) last = std::max<int64_t>(last, slot(p).first_op_ns);
    return last;
  };
  // A fault kind drawn for `budget` of the --kills rounds, at random rounds.
  auto draw = [&](int budget, int used) {
    return used < budget && static_cast<int>(rng() % static_cast<uint32_t>(o.kills)) < budget;
  };
  std::vector<double> shrink_ms, grow_ms;
  int agent_kills = 0, double_kills = 0, joiner_deaths = 0;
  int64_t start = NowNs();
  for (int k = 0; k < o.kills && failures == 0; ++k) {
    uint32_t gen = 0;
    if (!testing::WaitUntil([&] { return whole(&gen); }, 60000)) {
      fail("round " + std::to_string(k) + ": the job did not come back to " +
           std::to_string(places) + " ranks");
      break;
    }
    // A few more steps in this generation, then the fault.
    int base_steps = slot(0).steps;
    int more = 1 + static_cast<int>(rng() % 20);
    testing::WaitUntil([&] { return slot(0).steps >= base_steps + more; }, 10000);
    bool agent = o.nodes > 2 && draw(o.agent_kills, agent_kills);
    bool twice = !agent && draw(o.double_kills, double_kills);
    bool joiner_dies = draw(o.joiner_deaths, joiner_deaths);
    int rank0 = 0;  // the place of the job's rank 0 (the node that decides the next generation)
    for (int p = 0; p < places; ++p) {
      if (slot(p).rank == 0) rank0 = p;
    }
    std::vector<int> killed;  // places
    std::string what;
    int64_t fault_ns = NowNs();
    if (agent) {
      ++agent_kills;
      int node = 2 + static_cast<int>(rng() % static_cast<uint32_t>(o.nodes - 2));
      what = "agent of node " + std::to_string(node);
      cluster.agent(node).Stop(SIGKILL);
      for (int i = 0; i < per_node; ++i) killed.push_back(node * per_node + i);
    } else if (twice) {
      // A trainer on another node than rank 0's, then rank 0 while the job re-forms.
      ++double_kills;
      int first = 0;
      do {
        first = static_cast<int>(rng() % static_cast<uint32_t>(places));
      } while (first / per_node == rank0 / per_node);
      int gap_ms = static_cast<int>(rng() % 301);
      what = "trainers at places " + std::to_string(first) + ", then " + std::to_string(rank0) +
             " (rank 0) " + std::to_string(gap_ms) + " ms later";
      ::kill(at[static_cast<size_t>(first)], SIGKILL);
      timespec gap{gap_ms / 1000, (gap_ms % 1000) * 1'000'000L};
      ::nanosleep(&gap, nullptr);
      fault_ns = NowNs();
      ::kill(at[static_cast<size_t>(rank0)], SIGKILL);
      killed = {first, rank0};
    } else {
      int p = static_cast<int>(rng() % static_cast<uint32_t>(places));
      what = "trainer at place " + std::to_string(p) + (p == rank0 ? " (rank 0)" : "");
      ::kill(at[static_cast<size_t>(p)], SIGKILL);
      killed = {p};
    }
    for (int p : killed) Reap(at[static_cast<size_t>(p)]);
    std::set<int> hit;  // nodes that lost a rank (an agent restarts on the first)
    for (int p : killed) hit.insert(p / per_node);
    // Shrink (from the last kill): the first op of every surviving rank, node-mates of the dead
    // included, in a generation of just those ranks.
    const int kept = places - static_cast<int>(killed.size());
    auto survived = [&](int p) {
      return std::find(killed.begin(), killed.end(), p) == killed.end();
    };
    int64_t back_ns = 0;
    bool shrunk = testing::WaitUntil(
        [&] {
          int64_t last = 0;
          for (int p = 0; p < places; ++p) {
            if (!survived(p)) continue;
            ElasticSlot& s = slot(p);
            if (s.done || s.generation <= gen || s.world != kept || s.first_op_ns == 0)
              return false;
            last = std::max<int64_t>(last, s.first_op_ns);
          }
          back_ns = last;
          return true;
        },
        30000);
    if (!shrunk) {
      fail("round " + std::to_string(k) + " (" + what +
           " killed): the survivors did not re-form within 30 s");
      break;
    }
    shrink_ms.push_back(static_cast<double>(back_ns - fault_ns) / 1e6);
    if (agent) {
      if (Status st = cluster.Start(*hit.begin()); !st.ok()) {
        fail(st.ToString());
        break;
      }
    }
    // A joiner at the first lost place that dies 0-5 ms after it asked.
    int dead_after_ms = -1;
    if (joiner_dies) {
      ++joiner_deaths;
      int p = killed.front();
      if (!start_rank(p, -1)) {
        fail("more rank processes than the board holds");
        break;
      }
      ElasticSlot& j = slot(p);
      if (!testing::WaitUntil([&] { return j.asking_ns != 0 || j.done; }, 10000)) {
        fail("round " + std::to_string(k) + ": a joiner never asked");
        break;
      }
      dead_after_ms = static_cast<int>(rng() % 6);
      timespec d{0, dead_after_ms * 1'000'000L};
      ::nanosleep(&d, nullptr);
      ::kill(at[static_cast<size_t>(p)], SIGKILL);
      Reap(at[static_cast<size_t>(p)]);
    }
    // Grow: a replacement at every lost place; the job is whole again.
    int64_t join_ns = NowNs();
    bool started = true;
    for (int p : killed) started = started && start_rank(p, -1);
    if (!started) {
      fail("more rank processes than the board holds");
      break;
    }
    uint32_t grown = 0;
    if (!testing::WaitUntil([&] { return whole(&grown) && grown > gen; }, 60000)) {
      std::string why;
      for (int p = 0; p < places; ++p) {
        if (slot(p).done)
          why += std::string(" place ") + std::to_string(p) + ": " + slot(p).message;
      }
      fail("round " + std::to_string(k) + " (" + what + "): the job did not grow back to " +
           std::to_string(places) + " ranks within 60 s;" + why);
      break;
    }
    grow_ms.push_back(static_cast<double>(last_first_op() - join_ns) / 1e6);
    if (o.verbose) {
      std::printf(
          "round %d: %s killed: re-formed in %.1f ms,%s whole again in %.1f ms\n", k, what.c_str(),
          shrink_ms.back(),
          dead_after_ms < 0
              ? ""
              : (" a joiner killed " + std::to_string(dead_after_ms) + " ms after asking,").c_str(),
          grow_ms.back());
    }
  }
  board->stop = 1;
  for (int p = 0; p < places; ++p) {
    Reap(at[static_cast<size_t>(p)]);
    ElasticSlot& s = slot(p);
    if (failures == 0 && s.rc != 0) fail("place " + std::to_string(p) + "'s rank: " + s.message);
  }
  for (int r = 0; r < 2; ++r) {
    bystanders.Reap(r);
    ElasticSlot& s = board->bystander[r];
    if (s.rc != 0) fail("the second job's rank " + std::to_string(r) + " failed: " + s.message);
  }
  int wrong = 0;
  for (int i = 0; i < next_slot; ++i) wrong += board->slot[i].wrong;
  wrong += board->bystander[0].wrong + board->bystander[1].wrong;
  if (wrong != 0) fail(std::to_string(wrong) + " wrong results");
  auto summary = [&](const char* what, const std::vector<double>& v, double bound_ms) {
    if (v.empty()) return;
    double med = Percentile(v, 0.5), max = *std::max_element(v.begin(), v.end());
    std::printf("%s: %zu, median %.1f ms, p90 %.1f ms, max %.1f ms\n", what, v.size(), med,
                Percentile(v, 0.9), max);
    if (max > bound_ms)
      fail(std::string(what) + ": max over the bound of " +
           std::to_string(static_cast<int>(bound_ms)) + " ms");
  };
  summary("fault -> survivors' first op of the new generation", shrink_ms, o.reform_bound_ms);
  summary("replacements' start -> the whole job's first op", grow_ms, o.join_bound_ms);
  std::printf(
      "%zu faults (%d agent SIGKILLs, %d staggered double kills with rank 0, %d joiners killed "
      "after asking), %d ranks per node, %d rank processes, second job %d steps, %.0f s: %s\n",
      shrink_ms.size(), agent_kills, double_kills, joiner_deaths, per_node, next_slot,
      board->bystander[0].steps.load(), static_cast<double>(NowNs() - start) / 1e9,
      failures == 0 ? "all checks passed" : "FAILED");
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << "{\"shrink_ms\": [";
    for (size_t i = 0; i < shrink_ms.size(); ++i) out << (i ? ", " : "") << shrink_ms[i];
    out << "], \"grow_ms\": [";
    for (size_t i = 0; i < grow_ms.size(); ++i) out << (i ? ", " : "") << grow_ms[i];
    out << "]}\n";
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace outrider::chaos
