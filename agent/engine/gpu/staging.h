// Ops that name GPU regions (clients in gpu_mode ipc) run on the host engine through the agent's
// pinned buffers (docs/design.md#gpu-path): the op's GPU inputs are copied to host buffers on the
// GPU's copy stream before the engine sees it, with its spans pointing there; once the engine
// finished it, the outputs are copied back, and only then does the client hear of it (and its
// stream's done fence get written). The loop polls: copies never block it.
//
// A sparse op's rows (ids and f32 values) may instead be coalesced on the GPU first (sorted, equal
// ids summed: liboutrider_gpu_sparse.so, when the agent finds it), so that only the unique rows
// are copied; the cost model (sparse::ChooseCoalesce) decides per op from what the rank's earlier
// op of the same key looked like. The engine sees the same op either way, with fewer rows.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "agent/engine/device_path.h"
#include "agent/engine/op.h"
#include "agent/engine/op_report.h"
#include "agent/memory/cuda_memory.h"
#include "agent/memory/gpu_memory.h"
#include "agent/observability.h"
#include "base/status.h"
#include "loaders/gpu_sparse/library.h"

namespace outrider::agent {

// Thread-safety: loop thread only (one per session).
class Staging {
 public:
  // `memory`: the agent's GPU memory; `metrics` counts staged sparse rows (both not owned,
  // outlive this; metrics may be null).
  Staging(GpuMemory* memory, AgentMetrics* metrics) : memory_(memory), metrics_(metrics) {}
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  // Waits for copies still running (they touch pinned buffers given back here).
  ~Staging();

  // Queues the copies in of `op` (which ValidatedOp::NamesDevice): the reason if it cannot run.
  Status Begin(const ValidatedOp& op);
  // The op with host spans, once its inputs arrived; null before. An error if the copies failed
  // (the op is forgotten: complete it with that).
  Result<const ValidatedOp*> Ready(uint64_t op_id);
  // The engine finished `op_id`. One of these: its outputs are being copied back (true), and
  // TakeFinished hands the completion on once they are there. Else false.
  bool Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
              const OpReport* report);

  using Completion = DeviceCompletion;
  // Completions whose copies out ran.
  std::vector<Completion> TakeFinished();
  bool busy() const { return !ops_.empty(); }
  // Begin queued `op_id` and it is not finished yet.
  bool has(uint64_t op_id) const { return ops_.count(op_id) != 0; }
  size_t size() const { return ops_.size(); }

 private:
  enum class Phase { kCoalesce, kCopyIn, kRunning, kCopyOut };
  struct Coalesce {  // the op's ids and rows, coalesced on its GPU before they are copied
    const gpu_sparse::Library* lib = nullptr;
    void* handle = nullptr;  // the library's result, freed once copied (or the op is dropped)
    void* stream = nullptr;
    CudaMemory::Pinned counts;  // unique rows, moved positions
    std::shared_ptr<const void> counts_hold;
    uint64_t nnz = 0, dim = 0;
    int id_bytes = 8;
  };
  // What the rank's last sparse op of a key looked like (the cost model's inputs).
  struct Seen {
    bool strictly_increasing = true;
    double unique_ratio = 1;
  };
  struct Shadow {
    BufferSpan device;        // the client's GPU memory
    CudaMemory::Pinned host;  // the agent's copy of it
    std::shared_ptr<const void>
        hold;  // gives `host` back once neither this nor the engine's op uses it
    bool in;   // copied in before the op
    bool out;  // copied back after it
  };
  struct Staged {
    Phase phase = Phase::kCopyIn;
    ValidatedOp device_op;  // as submitted: holds the GPU imports until the copies back ran
    ValidatedOp host_op;    // the engine's: spans in `shadows`
    std::vector<Shadow> shadows;
    int device = -1;
    uint64_t ticket = 0;
    Completion completion;
    std::optional<Coalesce> coalesce;
  };
  // Queues the coalescing of `op`'s rows on its GPU: false (and nothing queued) if the library is
  // missing or refused, or the cost model says the rows go as they are.
  bool StartCoalesce(const ValidatedOp& op, Staged* s);
  // The coalesced rows are counted: queues their copies to host memory.
  Status CopyCoalesced(Staged* s);
  void FreeCoalesced(Staged* s);
  // Records what the rank's rows of the op looked like once they were copied as they are.
  void NoteStaged(const Staged& s);
  // Gives `p` back to the pool once the last holder lets go.
  std::shared_ptr<const void> HoldPinned(CudaMemory::Pinned p);
  // A pinned host buffer of `bytes` for `device` memory, held by the engine's op.
  Shadow* NewShadow(Staged* s, const BufferSpan& device, uint64_t bytes, Status* st);

  GpuMemory* memory_;
  AgentMetrics* metrics_;
  CudaMemory* cuda_ = nullptr;  // memory_'s, once the first op is staged
  std::map<uint64_t, Staged> ops_;
  std::map<uint64_t, Seen> seen_;  // by op key
  bool said_coalescing_ = false;
  bool coalesce_off_ = false;  // the library failed once: this session stages rows as they are
};

}  // namespace outrider::agent
