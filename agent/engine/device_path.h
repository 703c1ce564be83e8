// The engine's one door to GPU memory (docs/design.md#gpu-path). The engine core and the control
// layer see GPU memory only through these interfaces; agent/engine/gpu/ implements them as a
// library of its own (outrider_gpu), and the Agent hands its one DevicePath to the job table and
// the control server. Without one (a test, a tool), an op that names GPU memory is refused, saying
// so.
//
// Three parts, by owner:
//   DevicePath  the agent's: the process's GPU state (pinned buffers, the fd that GPU work
//               completes on, whether any NCCL work is queued); makes the other two.
//   JobDevice   a job's: where its local ranks keep their GPU buffers, so where each of its GPU
//               ops runs, and the instances that run on its NCCL communicators.
//   DeviceGate  a session's: its ops on GPU memory between submission and the job. The gate holds
//               an op until its route is known, copies its inputs to host buffers when the host
//               engine runs it, and after the engine, copies its outputs back before the client
//               hears of it.
// An op on host memory meets none of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent/engine/engine_options.h"
#include "agent/engine/op.h"
#include "agent/engine/op_report.h"
#include "agent/net/peer_protocol.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

class GpuMemory;

class Algorithm;
struct Collective;
struct AlgorithmDeps;

// Where an op on GPU memory runs.
enum class DeviceRoute {
  kHost,    // its inputs are copied to the agent's pinned buffers, the host engine runs it
  kNccl,    // the job's NCCL communicators run it on the GPU memory itself
  kNotYet,  // held: not every local rank's first GPU op has come, so whether they share a GPU is
            // unknown
};

// How a job's device side reaches the job's other nodes' agents (its node group).
class DeviceLinks {
 public:
  virtual int node_rank() const = 0;
  // A job-level message to every other node's agent, ahead of bulk chunks.
  virtual void SendToOthers(PeerMsg type, uint64_t key, uint64_t seq, std::string payload) = 0;

 protected:
  ~DeviceLinks() = default;
};

// Thread-safety: loop thread only (its job's).
class JobDevice {
 public:
  virtual ~JobDevice() = default;
  // The job spans nodes: messages to them go through `links` (its node group, which outlives this
  // object's use of it). Before any op or message.
  virtual void Attach(DeviceLinks* links) = 0;
  // An op of local rank `local_rank` came with buffers on GPU `device` (the agent's ordinal). The
  // rank's first GPU op counts; later calls change nothing.
  virtual void NoteFirstMemory(int local_rank, int device) = 0;
  // The same answer for every local rank of an instance: the agent's gpu_nccl, the job's mode
  // (`mode`), the op's kind, dtype and memory, and whether the job's local ranks share a GPU.
  virtual DeviceRoute RouteOf(const ValidatedOp& op, ipc::GpuMode mode) const = 0;
  // "local ranks 1, 3": those whose first GPU op has not come.
  virtual std::string RanksNotYetSeen() const = 0;

  // Whether its NCCL communicators were started (by an op or by node 0's messages).
  virtual bool started() const = 0;
  // The job rank of each local rank, before the first instance on GPU memory (later calls change
  // nothing).
  virtual void SetRanks(const std::vector<int>& ranks) = 0;
  using Done = std::function<void(const Status&)>;
  // A single-node job's instance on GPU memory (`ops` by local rank, every one NCCL-eligible and
  // agreed among them, valid until `done` runs): runs it and calls `done` once.
  virtual void Run(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops,
                   int32_t priority, Done done) = 0;
  // A multi-node job's instance on GPU memory: the node group's algorithm for it.
  virtual std::unique_ptr<Algorithm> MakeAlgorithm(Collective& c, const AlgorithmDeps& deps) = 0;
  // A message of node 0's agent for the NCCL communicators. An error if it is malformed: the job
  // cannot go on.
  virtual Status OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) = 0;
  // Starts, launches and completes: true if it did any of it.
  virtual bool Pump() = 0;
  virtual bool busy() const = 0;
  // The job failed (`why`): every instance on GPU memory fails with it.
  virtual void Fail(const Status& why) = 0;
  // The job is going: everything is dropped, nothing is told. Idempotent.
  virtual void Abandon() = 0;
  // For /status (null until started).
  virtual nlohmann::json StatusJson() const = 0;
};

// An op's completion held back until its outputs are in the client's GPU memory.
struct DeviceCompletion {
  uint64_t op_id;
  Status status;
  uint64_t seq, agent_ns;
  std::optional<OpReport> report;
};

// Thread-safety: loop thread only (its session's).
class DeviceGate {
 public:
  virtual ~DeviceGate() = default;
  // What becomes of an op on GPU memory at the front of its session's queue.
  struct Admission {
    bool hold = false;                // it waits (the ops after it too)
    const ValidatedOp* op = nullptr;  // else: what goes to the job (valid until the next call)
    bool staged = false;              // ... its host copy: its completion goes through Finish
    Status refused;                   // or why it cannot go
    static Admission Hold() { return {true, nullptr, false, Status::Ok()}; }
    static Admission Go(const ValidatedOp* op) { return {false, op, false, Status::Ok()}; }
    static Admission Staged(const ValidatedOp* host_op) {
      return {false, host_op, true, Status::Ok()};
    }
    static Admission Refuse(Status why) { return {false, nullptr, false, std::move(why)}; }
  };
  // `job`: the op's job's device side (null if it has none). `since_ns`: when the op came;
  // held longer than `timeout_ns` (0: for good), it is refused.
  virtual Admission Admit(JobDevice* job, const ValidatedOp& op, uint64_t now_ns, uint64_t since_ns,
                          uint64_t timeout_ns) = 0;
  // The engine finished `op_id`, admitted Staged. True if its outputs are being copied back
  // (TakeFinished hands the completion on once they are there); false if the gate forgot it.
  virtual bool Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                      const OpReport* report) = 0;
  virtual std::vector<DeviceCompletion> TakeFinished() = 0;
  // Some op is being copied in or out.
  virtual bool busy() const = 0;
};

// The pinned host buffers the agent holds for GPU copies.
struct PinnedUse {
  uint64_t in_use = 0, idle = 0;
};

// Thread-safety: loop thread only.
class DevicePath {
 public:
  virtual ~DevicePath() = default;
  // `engine.gpu_nccl` says whether NCCL runs at all.
  virtual std::unique_ptr<JobDevice> MakeJobDevice(const std::string& job_id, int world_size,
                                                   int local_size, const EngineOptions& engine) = 0;
  // For a session whose client hands over GPU buffers in `mode`.
  virtual std::unique_ptr<DeviceGate> MakeGate(ipc::GpuMode mode) = 0;
  // Readable when GPU work the agent waits for completes (-1: none yet).
  virtual int CompletionFd() const = 0;
  // Some job's NCCL work is queued or in flight (the loop polls: GPU streams finish without
  // waking it).
  virtual bool busy() const = 0;
  // Every 50 ms: gives back pinned buffers idle too long.
  virtual void Tick(uint64_t now_ns) = 0;
  // Once GPU memory was used.
  virtual std::optional<PinnedUse> pinned() const = 0;
  // The agent's GPU memory, which clients' GPU allocations are imported into (null: none).
  virtual GpuMemory* memory() = 0;
};

}  // namespace outrider::agent
