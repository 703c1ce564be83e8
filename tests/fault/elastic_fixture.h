// What the elastic fault tests share (elastic_test.cc, elastic_joiner_test.cc): a step whose sum
// checks the ranks' numbering, a survivor's loop through re-forms, training until a joiner waits,
// and a joiner process.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "ipc/event_fd.h"
#include "tests/support/multinode_fixture.h"

namespace outrider::testing {

constexpr int kCount = 1000;
constexpr uint64_t kSecond = 1'000'000'000;

struct Elastic {
  uint32_t generation[kMaxRanks];
  int32_t rank[kMaxRanks];
  int32_t world[kMaxRanks];
  uint64_t reformed_ns[kMaxRanks];  // when the first op of the new generation completed
  int steps[kMaxRanks];             // steps completed in the last generation
};

// One step: every rank contributes rank + 1; the sum says the ranks are 0 .. world - 1, each once.
inline int Step(outrider_client_t* c, int32_t* x) {
  int rank = outrider_rank(c), world = outrider_world_size(c);
  for (int i = 0; i < kCount; ++i) x[i] = rank + 1;
  outrider_op_t h;
  int rc =
      Wait(c, outrider_allreduce(c, x, x, kCount, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h), &h);
  if (rc != 0) return rc;
  for (int i = 0; i < kCount; ++i) {
    if (x[i] != world * (world + 1) / 2) return 99;
  }
  return 0;
}

// Runs steps until one fails, then re-forms (as often as needed, up to `reforms` times) and runs
// `after` steps in the last generation. Records where the rank ended.
inline int Survive(outrider_client_t* c, int slot, SharedValue<Elastic>& out, int reforms,
                   int after, Pipe* failed = nullptr) {
  auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
  int rc = 0;
  for (int step = 0; step < 100000 && rc == 0; ++step) rc = Step(c, x);
  if (failed != nullptr) failed->Send('f');
  for (int attempt = 0; attempt < reforms; ++attempt) {
    outrider_membership_t m;
    rc = outrider_reconfigure(c, 10000, &m);
    if (rc != 0) {
      std::fprintf(stderr, "slot %d: reconfigure: %s\n", slot, outrider_last_error(c));
      return rc;
    }
    rc = Step(c, x);
    if (rc != 0) continue;  // the generation failed already (a rank died while it formed)
    out->reformed_ns[slot] = ipc::MonotonicNs();
    out->generation[slot] = m.generation;
    out->rank[slot] = m.rank;
    out->world[slot] = m.world_size;
    int s = 0;
    for (; s < after && rc == 0; ++s) rc = Step(c, x);
    out->steps[slot] = s;
    return rc;
  }
  return rc;
}

// Trains in the current generation until a joiner it can place waits: every rank checks at the
// same steps (the MAX of what their agents hold), so they all re-form at the same one.
inline int TrainUntilAJoinerWaits(outrider_client_t* c, int32_t* x) {
  int rc = 0;
  for (int step = 0; rc == 0 && step < 100000; ++step) {
    rc = Step(c, x);
    outrider_membership_t now;
    if (rc == 0) rc = outrider_membership(c, &now);
    x[0] = static_cast<int32_t>(now.joiners_waiting);
    outrider_op_t h;
    if (rc == 0)
      rc = Wait(c, outrider_allreduce(c, x, x, 1, OUTRIDER_I32, OUTRIDER_MAX, nullptr, &h), &h);
    if (rc == 0 && x[0] > 0) break;
  }
  return rc;
}

// A joiner at the agent of `socket` for job `job` (the job's node 0 at `root_port`): reconfigures
// within `timeout_ms`, then runs `steps` steps. Records its result in slot `slot` of `res`, `out`.
inline pid_t SpawnJoiner(const std::string& socket, uint16_t root_port, const char* job,
                         uint32_t timeout_ms, int steps, int slot, SharedValue<Results>& res,
                         SharedValue<Elastic>& out) {
  return Spawn([=, &res, &out] {
    ::setenv("OUTRIDER_JOB_TOKEN", "tok", 1);
    ::setenv("OUTRIDER_ROOT_ADDR", ("127.0.0.1:" + std::to_string(root_port)).c_str(), 1);
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    o.socket_path = socket.c_str();
    o.job_id = job;
    o.flags = OUTRIDER_CONNECT_JOINER;
    outrider_client_t* c = ConnectOrExitWith(&o);
    auto* x = static_cast<int32_t*>(outrider_alloc(c, 4 * kCount));
    outrider_membership_t m;
    int rc = outrider_reconfigure(c, timeout_ms, &m);
    CopyText(res->error[slot], 256, outrider_last_error(c));
    for (int s = 0; rc == 0 && s < steps; ++s) rc = Step(c, x);
    res->rc[slot] = rc;
    out->generation[slot] = m.generation;
    out->rank[slot] = m.rank;
    out->world[slot] = m.world_size;
    outrider_disconnect(c);
    return 0;
  });
}

}  // namespace outrider::testing
