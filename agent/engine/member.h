// A local client as its job sees it: who it is, and where the results of its ops go. The control
// layer's Session implements it; the engine never sees sockets or rings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/engine/op_report.h"
#include "base/status.h"
#include "ipc/protocol.h"
#include "ipc/unix_channel.h"

namespace outrider::agent {

struct ClientIdentity {
  uint32_t client_id = 0;
  std::string job_id;
  int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  // Ranks per node, in node order, where nodes run different numbers (a generation the agents
  // decided); empty: every node runs local_world_size (a hello's job, a communicator).
  std::vector<int32_t> node_ranks;
  std::string root_addr;  // host:port of the job's root agent (multi-node)
  std::string token;
  ipc::PeerCredentials peer{};
  // A member of a communicator of a job (a group of its ranks), and the node of the client in
  // that job: the agent of the job's node 0 hosts the rendezvous of all its communicators.
  bool comm = false;
  int32_t job_node = 0;
  ipc::GpuMode gpu_mode = ipc::GpuMode::kStaging;  // how the client hands over device buffers
  // The job as its trainers name it, and its generation: it re-forms as generation 1, 2, ...
  // after losing a rank or to admit joiners. job_id names the generation's own job in the agents
  // (membership::GenerationJobId); for generation 0 the two are the same.
  std::string job_base;
  uint32_t generation = 0;
  bool joiner = false;  // connected to join the job at its next generation: in no job until then
  // Back from an agent that handed its job across nodes over (ipc::kHelloHandedOver): the job
  // resumes here from what that agent left (engine/hand_over_record.h).
  bool handed_over = false;
  // The job's class and weight in its class (send scheduling between jobs; docs/jobs.md).
  ipc::JobClass job_class = ipc::JobClass::kNormal;
  uint32_t job_weight = 1;
};

// Thread-safety: loop thread only.
class Member {
 public:
  virtual ~Member() = default;
  virtual const ClientIdentity& identity() const = 0;
  // The op finished (for good).
  virtual void Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                        const OpReport* report = nullptr) = 0;
  // The op's demanded rows are in its output; Complete follows.
  virtual void Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) = 0;
  // The agent hands its jobs over to the next agent and this op had not started: the client
  // submits it again there (its buffers are untouched). Where the client cannot hear that, the op
  // fails.
  virtual void Moved(uint64_t op_id, uint64_t seq) {
    Complete(op_id, Unavailable("the agent stopped before this op started"), seq, 0);
  }
  // This node's part of the member's job across nodes is handed over: when the agent stops, the
  // client comes back to the next one as the same rank.
  virtual void HandedOver() {}
  // Whether the client can come back to the next agent as the same rank of a job across nodes
  // (its shim understands the hand-over's goodbye).
  virtual bool ComesBackHandedOver() const { return true; }
};

}  // namespace outrider::agent
