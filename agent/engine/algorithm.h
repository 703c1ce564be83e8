// How one collective instance crosses nodes once this node's ranks have all submitted it: a state
// machine per algorithm (agent/engine/algorithms/, one file each) with no transport and no memory
// access inside. It sends through CollectiveLinks and moves bytes through a DataPlane.
//
// Lifecycle, driven by the node group:
//   Prepare(ready)   local work before agreement (e.g. the local reduction); once `ready` runs,
//                    Contribution(n) is sent to node n with the fingerprint
//   Agreed()         every node sent the same fingerprint; their contributions are in c.data
//   OnChunk()        a kRing / kSparse chunk (chunks that came before agreement are replayed)
//   Pump()           one slice of deferred local work, when the loop is otherwise idle
// It finishes by calling Complete(), once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/engine/collective.h"
#include "agent/engine/dataplane/data_plane.h"
#include "agent/engine/engine_options.h"
#include "agent/engine/op_report.h"

namespace outrider::agent {

struct SparseShared;
class JobDevice;

// What every algorithm of one node group works with. Pointers are not owned and outlive the
// algorithms.
struct AlgorithmDeps {
  CollectiveLinks* links;
  const Topology* topo;
  const EngineOptions* options;
  DataPlane* data;
  SparseShared* sparse;         // what sparse exchanges learn across instances
  JobDevice* device = nullptr;  // the job's device side (instances on GPU memory), or null
};

// Thread-safety: loop thread only.
class Algorithm {
 public:
  Algorithm(Collective& c, const AlgorithmDeps& deps)
      : c_(c), links_(*deps.links), topo_(*deps.topo), options_(*deps.options), data_(*deps.data) {}
  virtual ~Algorithm() = default;

  // The `algo` label of outrider_ops_total (a small fixed set).
  virtual std::string_view label() const = 0;
  virtual void Prepare(std::function<void()> ready) = 0;
  // What to send `node` with the fingerprint (empty: nothing).
  virtual BufferSpan Contribution(int node) const { return {}; }
  virtual void Agreed() = 0;
  // `data` is valid only during the call (the transport's buffer, unless RecvBuffer placed it).
  virtual void OnChunk(const PeerHeader& h, const uint8_t* data, size_t len);
  // Where a large chunk should land so it needs no copy (empty: anywhere).
  virtual BufferSpan RecvBuffer(const PeerHeader& h, size_t len) { return {}; }
  virtual bool Pump() { return false; }
  // A send of this instance finished (ok) or failed.
  virtual void OnSent(const PeerHeader& h, bool ok) {}
  // What a running instance waits for ("3 ring chunks"), or "".
  virtual std::string WaitingFor() const { return ""; }
  // Per local rank, for ops that report more than a status (sparse); empty otherwise.
  virtual std::vector<OpReport> Reports() const { return {}; }
  // Data-plane calls still running: the instance (and the memory they name) must stay.
  bool busy() const { return data_calls_ > 0; }

 protected:
  using Then = std::function<void()>;
  const ValidatedOp& op() const { return c_.op(); }
  size_t local() const { return c_.ops.size(); }
  bool failed() const { return c_.done && !c_.result.ok(); }
  void Send(int node, const CollectiveLinks::SendArgs& args, const BufferSpan& payload) {
    links_.Send(c_, node, args, payload);
  }
  void Complete(const Status& st) { links_.Complete(c_, st); }
  // Data movement: `then` runs once it is done, unless it failed (the instance then fails) or
  // the instance failed meanwhile. `kind`: what the instance's trace counts it as.
  void Copy(std::vector<CopyPair> pairs, Then then, OpTrace::Kind kind = OpTrace::kCopy);
  void Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs, ipc::ReduceOp op,
              Then then, OpTrace::Kind kind = OpTrace::kReduce);
  void Divide(const BufferSpan& dst, int64_t divisor, Then then);
  // Copies `outputs`, then completes the instance successfully.
  void CompleteAfter(std::vector<CopyPair> outputs);
  // Allgather's local step: every local rank's block into every local output, at this node's
  // slots (in-place blocks stay where they are).
  std::vector<CopyPair> GatherLocalBlocks() const;
  // Broadcast's local step on the root's node: the root's buffer into every local output.
  std::vector<CopyPair> CopyRootLocally() const;

  Collective& c_;  // Owns this algorithm.
  CollectiveLinks& links_;
  const Topology& topo_;
  const EngineOptions& options_;
  DataPlane& data_;

 private:
  int data_calls_ = 0;
};

// Runs `then` once, after the last of several data-plane calls (or at once when Seal() finds
// none running). Use: auto j = Join::Make(then); Reduce(..., j->Add()); ...; j->Seal();
class Join : public std::enable_shared_from_this<Join> {
 public:
  static std::shared_ptr<Join> Make(std::function<void()> then) {
    return std::shared_ptr<Join>(new Join(std::move(then)));
  }
  std::function<void()> Add() {
    ++pending_;
    return [self = shared_from_this()] { self->Arrive(); };
  }
  void Seal() { Arrive(); }

 private:
  explicit Join(std::function<void()> then) : then_(std::move(then)) {}
  void Arrive() {
    if (--pending_ == 0 && then_) std::exchange(then_, nullptr)();
  }
  int pending_ = 1;  // the seal
  std::function<void()> then_;
};

// Reductions of an average are sums until the last step divides once.
inline ipc::ReduceOp PartialOp(ipc::ReduceOp op) {
  return op == ipc::ReduceOp::kAvg ? ipc::ReduceOp::kSum : op;
}
// The ring chunk rounded down to whole elements (at least one).
uint64_t ChunkBytes(const EngineOptions& options, ipc::DType dtype);
// Why a received kRing chunk of `len` bytes at `offset` is not one a node sends (empty, or not
// whole elements of `dtype` at an element boundary: senders cut buffers at element multiples),
// or OK.
Status CheckRingChunk(uint64_t offset, uint64_t len, ipc::DType dtype);

// Picks the algorithm for an instance whose ops have all arrived: by op kind and size, and only
// where the data plane reaches every buffer. Same inputs on every node give the same choice.
Result<std::unique_ptr<Algorithm>> MakeAlgorithm(Collective& c, const AlgorithmDeps& deps);

}  // namespace outrider::agent
