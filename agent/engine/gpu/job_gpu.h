// A job's GPU side: where its local ranks keep their GPU buffers, which decides where each of its
// GPU ops runs (GpuRoute), and its NCCL path (made on first use, linked to node 0's messages
// through the job's node group).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/engine/engine_options.h"
#include "agent/engine/op.h"
#include "agent/net/peer_protocol.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

class NcclPath;
class NodeGroup;

// Where an op on GPU memory runs (docs/design.md#gpu-path).
enum class GpuRoute {
  kHost,    // its session copies it through the agent's pinned buffers (gpu/staging.h), the host
            // engine runs it
  kNccl,    // the job's NCCL path runs it on the GPU memory itself
  kNotYet,  // held: not every local rank's first GPU op has come, so whether they share a GPU is
            // unknown
};

// Thread-safety: loop thread only (its job's).
class JobGpu {
 public:
  JobGpu(const std::string& job_id, int world_size, int local_size, const EngineOptions& engine);
  ~JobGpu();

  // An op of local rank `local_rank` came with buffers on GPU `device` (the agent's ordinal; -1:
  // host memory, which tells nothing). The rank's first GPU op counts; later calls change nothing.
  void NoteFirstMemory(int local_rank, int device);
  // The same answer for every local rank of an instance: the agent's gpu_nccl, the job's mode, the
  // op's kind, dtype and memory (agreed between the ranks), and whether the job's local ranks
  // share a GPU (known once each submitted its first op; NCCL runs one rank per GPU). Other
  // nodes' agents may answer otherwise (a different gpu_nccl, trainers sharing a GPU there): the
  // instance's fingerprint says which, and the node group fails it on every rank naming both. A
  // communicator of the job (a split group) is a job of its own to the agents, with NCCL
  // communicators of its own.
  GpuRoute RouteOf(const ValidatedOp& op, ipc::GpuMode mode) const;
  // "local ranks 1, 3": those whose first GPU op has not come.
  std::string RanksNotYetSeen() const;

  // The NCCL path, null until Path made it.
  NcclPath* path() const { return nccl_.get(); }
  // The NCCL path, made on first use (a GPU op, or node 0's id or ticket); `group` (null for a
  // single-node job) carries its messages to the other nodes.
  NcclPath* Path(NodeGroup* group);
  // The job ends: its NCCL path drops every item without completing it, so that the node group's
  // instances, destroyed after this, find nothing to drop. Idempotent.
  void Abandon();
  // A message of node 0's agent for the NCCL path (its unique id or a launch ticket). An error if
  // it is malformed: the job cannot go on.
  Status OnMessage(NodeGroup* group, const PeerHeader& h, const uint8_t* data, size_t len);

 private:
  // Whether the job's local ranks each have a GPU of their own (the agents' NCCL runs one rank per
  // GPU; ranks that share one go through the host engine): unknown until every local rank's first
  // op on GPU memory came. Logged once known to be shared.
  enum class Sharing { kUnknown, kShared, kOwn };

  std::string job_id_;
  int world_size_;
  EngineOptions engine_;
  std::vector<int> first_memory_;  // by local rank: the GPU of its first GPU op, -2 until it came
  Sharing sharing_ = Sharing::kUnknown;
  // Outlives the node group's instances that name it (the job destroys the group first).
  std::unique_ptr<NcclPath> nccl_;
};

}  // namespace outrider::agent
