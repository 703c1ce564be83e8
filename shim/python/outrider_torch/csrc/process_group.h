// The "outrider" torch.distributed backend: c10d process groups that hand every collective to the
// node's outrider-agent through the shim. Each group is an outrider communicator over the
// process's one connection (Connection). CPU tensors are copied into memory shared with the agent
// (the client's arena, or pooled regions for large tensors) and back, unless they already lie in
// it (shared_memory.h): then the agent works on them in place. CUDA tensors go to the shim as
// device pointers, ordered on the caller's current stream. Sparse COO tensors go to the agent's
// sparse allreduce; send/recv go from agent to agent in the group's communicator.
// Thread-safety: the collective methods may be called from any thread (they only queue).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "outrider/outrider.h"
#include "shim/python/outrider_torch/csrc/connection.h"
#include "shim/python/outrider_torch/csrc/torch_compat.h"

namespace outrider::torch_backend {

// A sparse allreduce with row demand, from Python (ProcessGroupOutrider.sparse_allreduce): the
// summed rows the demand named and the others arrive apart, each as a coalesced COO tensor.
class SparseWork : public OutriderWork {
 public:
  using OutriderWork::OutriderWork;
  // Blocks until the demanded rows are in (or rethrows why the op failed).
  at::Tensor WaitDemanded();
  // Blocks until the op is done; the rows the demand did not name (or rethrows).
  at::Tensor WaitRest();
  void SetDemanded(at::Tensor rows);
  void SetRest(at::Tensor rows) {
    std::lock_guard<std::mutex> l(m_);
    rest_ = std::move(rows);
  }

 protected:
  void OnFinished() override;

 private:
  std::mutex m_;
  std::condition_variable c_;
  std::optional<at::Tensor> demanded_;
  at::Tensor rest_;
  bool finished_ = false;
};

// A c10d::ProcessGroup in PyTorch 1.13, a c10d::Backend from 2.0 (torch_compat.h): one group of
// ranks, an outrider communicator over the process's Connection. One class in one file
// (process_group.cc, ~1,200 lines), as c10d's own backends are: most of its members are c10d's
// interface, each op a translation of tensors into shim requests over one enqueue core
// (Enqueue), and every family of ops shares the group's communicator and options.
class ProcessGroupOutrider : public BackendBase {
 public:
  ProcessGroupOutrider(std::shared_ptr<Connection> conn, outrider_comm_t comm, int rank, int size,
                       std::chrono::milliseconds timeout);
  // Leaves the group's communicator once its ops are done.
  ~ProcessGroupOutrider() override;

  // The factory torch.distributed.Backend.register_backend gets (the same arguments in 1.13 and
  // 2.x), for the default group: the whole job. The agents need no store: they meet by themselves.
  static c10::intrusive_ptr<ProcessGroupOutrider> Create(
      const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
      const std::chrono::duration<float>& timeout);
  // Any other group: `ranks` are its members' ranks in the job (in group rank order); the job has
  // `job_size` ranks of which this process is `job_rank`. Members only.
  static c10::intrusive_ptr<ProcessGroupOutrider> CreateGroup(
      const c10::intrusive_ptr<c10d::Store>& store, const std::vector<int>& ranks, int job_rank,
      int job_size, int rank, int size, const std::chrono::duration<float>& timeout);

  const std::string getBackendName() const override { return "outrider"; }

  // The collectives and barriers, alltoall, gather and scatter, then the point-to-point ops.
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  // What 2.1 and later call for sparse CUDA tensors (sparse CPU ones come through allreduce).
  c10::intrusive_ptr<c10d::Work> allreduce_sparse(std::vector<at::Tensor>& tensors,
                                                  const c10d::AllreduceOptions& opts) override {
    return allreduce(tensors, opts);
  }
#endif
  void monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) override;

  // The group's sequence number (c10d's desynchronization checks compare it across ranks): every
  // rank starts at 0 and counts its collectives; point-to-point ops, which ranks issue unevenly,
  // do not count.
  void setSequenceNumberForGroup() override { seq_ = 0; }
  uint64_t getSequenceNumberForGroup() override { return seq_.load(); }

  // Row demand: the row ids (int64) the next forward pass needs; the next sparse allreduce
  // of a table with at least that many rows carries them (once).
  void SetDemand(at::Tensor ids);
  // Sparse allreduce of `t` (COO, one sparse dimension) whose `demand` rows (ids) come first:
  // SparseWork::WaitDemanded returns them, WaitRest the others. `t` is left as it is.
  c10::intrusive_ptr<SparseWork> SparseAllreduce(at::Tensor t, std::optional<at::Tensor> demand);
  // Every op of the group goes at `priority` (lower = sooner; 0: the agent's defaults, which put
  // point-to-point messages first, then small collectives, then the bulk ones).
  void SetPriority(int32_t priority) { priority_ = priority; }
  int32_t priority() const { return priority_; }
  // Which algorithm sparse allreduces ask for (outrider_sparse_algo_t; default auto).
  void SetSparseAlgo(uint32_t algo) { sparse_algo_ = algo; }
  // The sparse algorithm the agent ran for the last sparse allreduce (outrider_sparse_algo_t).
  uint32_t last_sparse_algo() const { return last_sparse_algo_; }

 private:
  c10::intrusive_ptr<c10d::Work> Enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                         std::function<void(Request&)> prepare);
  void EnqueueWork(c10::intrusive_ptr<OutriderWork> work, std::function<void(Request&)> prepare) {
    CheckGeneration();
    conn_->Enqueue(std::move(work), comm_, timeout_, std::move(prepare));
  }
  // Throws once the job re-formed after this group was made (its ranks are another job's now).
  void CheckGeneration() const;
  // Options naming this group's communicator.
  outrider_op_options_t Options(int32_t priority = 0, uint64_t key = 0) const;
  // Gathers `in` from every rank into shared memory; `copy_out` gets the gathered bytes (rank
  // order).
  c10::intrusive_ptr<c10d::Work> EnqueueAllgather(c10d::OpType type, at::Tensor in,
                                                  std::vector<at::Tensor> outputs,
                                                  std::function<void(void*)> copy_out);
  // Alltoallv of the packed `ins` (send_counts[r] elements to rank r); `outs` unpacked from the
  // received blocks (recv_counts[r] from rank r), in order. Counts in elements of `dtype`.
  c10::intrusive_ptr<c10d::Work> EnqueueAlltoall(c10d::OpType type, std::vector<at::Tensor> ins,
                                                 std::vector<at::Tensor> outs,
                                                 std::vector<int64_t> send_counts,
                                                 std::vector<int64_t> recv_counts,
                                                 outrider_dtype_t dtype);
  // ---- Ops on CUDA tensors ----
  // Work for an op on tensors of CUDA `device`, ordered on the caller's current stream there.
  c10::intrusive_ptr<OutriderWork> StreamWork(c10d::OpType type, std::vector<at::Tensor> outputs,
                                              c10::Device device);
  // Submits `work`'s op on its stream: `call` runs on the worker with the options (cuda_stream
  // set) and the handle to fill, then `copy_out` (may be empty) queues the result's copies into
  // the caller's tensors on the stream, before the op can complete; this returns once both ran
  // (EnqueueOrdered). Work queued on the stream after the call sees the result.
  using StreamCall = std::function<int(outrider_op_options_t*, outrider_op_t*)>;
  void SubmitOnStream(const c10::intrusive_ptr<OutriderWork>& work, outrider_op_options_t opts,
                      const char* what, StreamCall call, std::function<void()> copy_out);
  // StreamWork + SubmitOnStream; counts a collective in the sequence number.
  c10::intrusive_ptr<c10d::Work> EnqueueOnStream(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                 c10::Device device, outrider_op_options_t opts,
                                                 const char* what, StreamCall call,
                                                 std::function<void()> copy_out);
  // Gathers `in` from every rank into `outputs` (consecutive elements of the rank-ordered result).
  c10::intrusive_ptr<c10d::Work> AllgatherOnStream(c10d::OpType type, c10::Device device,
                                                   at::Tensor in, outrider_dtype_t dtype,
                                                   std::vector<at::Tensor> outputs);
  // EnqueueAlltoall's counterpart: `ins` packed, `outs` unpacked on the stream.
  c10::intrusive_ptr<c10d::Work> AlltoallOnStream(c10d::OpType type, c10::Device device,
                                                  std::vector<at::Tensor> ins,
                                                  std::vector<at::Tensor> outs,
                                                  std::vector<int64_t> send_counts,
                                                  std::vector<int64_t> recv_counts,
                                                  outrider_dtype_t dtype);
  // ---- Point-to-point ----
  // Checks `t` and `peer` for a send or receive; the dtype.
  outrider_dtype_t CheckPeer(const at::Tensor& t, int peer, bool sending);
  // Submits a send or receive of `t`'s elements at `buf` in the group's communicator; without a
  // priority in `o`, the group's (set_priority), else the agent's default for messages.
  int PointOp(outrider_op_options_t* o, void* buf, const at::Tensor& t, outrider_dtype_t dtype,
              int peer, int tag, bool sending, outrider_op_t* h);
  // The preparation of a send or receive of a CPU tensor (`peer` OUTRIDER_ANY_SOURCE: from any);
  // a receive's work learns its sender when it completes.
  std::function<void(Request&)> Point(at::Tensor t, int peer, int tag, bool sending);
  // The same for a CUDA tensor, submitted on `work`'s stream.
  void PointOnStream(const c10::intrusive_ptr<OutriderWork>& work, at::Tensor t, int peer, int tag,
                     bool sending);
  // A sparse result in shared memory: `total` rows, the first `demanded` of them demanded.
  struct SparseResult {
    void* ids;
    void* values;
    at::Tensor like;  // the input (shape, dtype)
    int64_t total, demanded;
    // The result's tensors (on the device, or in shared memory on the CPU; ids and values are
    // their data): Rows are views of them. Undefined: ids and values are a staging buffer.
    at::Tensor out_ids, out_values;
    // Rows [begin, end) as a coalesced COO tensor shaped like the input (views of out_ids and
    // out_values, or copied out of the staging buffer).
    at::Tensor Rows(int64_t begin, int64_t end) const;
  };
  // allreduce of a sparse COO tensor: the sum replaces `t`, and the
  // pending row demand (SetDemand) goes with it.
  c10::intrusive_ptr<c10d::Work> AllreduceSparse(at::Tensor t);
  // Queues a sparse allreduce of `t`; `demanded` (may be null) gets the demanded rows as soon as
  // they are in, `done` the whole result.
  void EnqueueSparse(at::Tensor t, std::optional<at::Tensor> demand,
                     c10::intrusive_ptr<OutriderWork> work,
                     std::function<void(const SparseResult&)> demanded,
                     std::function<void(const SparseResult&)> done);
  // Priority of the next allreduce. Ops match across ranks by kind and order (so ranks that
  // disagree on a shape get an error, not a hang); their priority follows the agent's default
  // policy, computed here because every allreduce shares one key: within an iteration (which
  // ends when an op of an already seen shape comes again) later allreduces — DDP's buckets of
  // earlier layers, the embedding last — are needed first by the next forward pass and go first.
  // Collectives of at most ipc::kSmallOpBytes (`bytes`) go ahead of the bulk ones, and a group
  // with a priority of its own (SetPriority) gives every op that.
  int32_t NextPriority(const std::string& signature, uint64_t bytes);

  std::shared_ptr<Connection> conn_;
  uint32_t generation_ = 0;  // conn_->generation() when made
  outrider_comm_t comm_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::optional<at::Tensor> demand_;  // guarded by mu_
  std::set<std::string> iteration_;   // guarded by mu_: allreduce shapes of the current iteration
  std::atomic<int32_t> priority_{0};
  std::atomic<uint32_t> sparse_algo_{OUTRIDER_SPARSE_AUTO};
  std::atomic<uint32_t> last_sparse_algo_{0};
  std::atomic<uint64_t> seq_{0};
};

}  // namespace outrider::torch_backend
