// A job's GPU side (engine/device_path.h's JobDevice): where its local ranks keep their GPU
// buffers, which decides where each of its GPU ops runs, and its NCCL path (made on first use,
// linked to node 0's messages through the job's node group).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/engine/device_path.h"
#include "agent/engine/engine_options.h"
#include "agent/memory/gpu_memory.h"

namespace outrider::agent {

class NcclPath;

// Thread-safety: loop thread only (its job's).
class JobGpu final : public JobDevice {
 public:
  // `busy_paths`: the agent's count of NCCL paths with work (GpuDevicePath::busy); `memory`: the
  // agent's GPU memory (both not owned; they outlive the job).
  JobGpu(const std::string& job_id, int world_size, int local_size, const EngineOptions& engine,
         int* busy_paths, GpuMemory* memory);
  ~JobGpu() override;

  void Attach(DeviceLinks* links) override { links_ = links; }
  void NoteFirstMemory(int local_rank, int device) override;
  // Other nodes' agents may answer otherwise (a different gpu_nccl, trainers sharing a GPU there):
  // the instance's fingerprint says which, and the node group fails it on every rank naming both.
  // A communicator of the job (a split group) is a job of its own to the agents, with NCCL
  // communicators of its own.
  DeviceRoute RouteOf(const ValidatedOp& op, ipc::GpuMode mode) const override;
  std::string RanksNotYetSeen() const override;

  bool started() const override { return nccl_ != nullptr; }
  void SetRanks(const std::vector<int>& ranks) override;
  void Run(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops, int32_t priority,
           Done done) override;
  std::unique_ptr<Algorithm> MakeAlgorithm(Collective& c, const AlgorithmDeps& deps) override;
  Status OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) override;
  bool Pump() override;
  bool busy() const override;
  void Fail(const Status& why) override;
  // Its NCCL path drops every item without completing it, so that the node group's instances,
  // destroyed after this, find nothing to drop.
  void Abandon() override;
  nlohmann::json StatusJson() const override;

 private:
  // The NCCL path, made on first use (a GPU op, or node 0's id or ticket).
  NcclPath* Path();

  // Whether the job's local ranks each have a GPU of their own (the agents' NCCL runs one rank per
  // GPU; ranks that share one go through the host engine): unknown until every local rank's first
  // op on GPU memory came. Logged once known to be shared.
  enum class Sharing { kUnknown, kShared, kOwn };

  std::string job_id_;
  int world_size_;
  EngineOptions engine_;
  int* busy_paths_;
  GpuMemory* memory_;
  DeviceLinks* links_ = nullptr;   // multi-node jobs: the node group
  std::vector<int> first_memory_;  // by local rank: the GPU of its first GPU op, -2 until it came
  Sharing sharing_ = Sharing::kUnknown;
  // Outlives the node group's instances that name it (the job destroys the group first).
  std::unique_ptr<NcclPath> nccl_;
};

}  // namespace outrider::agent
