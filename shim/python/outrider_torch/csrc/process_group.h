// The "outrider" torch.distributed backend: a c10d ProcessGroup that hands every collective to the
// node's outrider-agent through the shim. Tensors are copied into memory shared with the agent
// (the client's arena, or pooled regions for large tensors) and back. One worker thread per
// process group owns the shim client: it submits ops in call order (so several can be in flight,
// and the agent orders their sends by priority), waits for the oldest, copies results out and
// completes the op's Work and future. Sparse COO tensors go to the agent's sparse allreduce.
// Thread-safety: the collective methods may be called from any thread (they only queue).
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "outrider/outrider.h"
#include "shim/python/outrider_torch/csrc/torch_compat.h"

namespace outrider::torch_backend {

class OutriderWork : public c10d::Work {
 public:
  OutriderWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs);
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  // Completes the work (and its future) with the outputs or `error`.
  void Finish(std::exception_ptr error);
  void set_outputs(std::vector<at::Tensor> outputs) { outputs_ = std::move(outputs); }

 protected:
  virtual void OnFinished() {}

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

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

// A c10d::ProcessGroup in PyTorch 1.13, a c10d::Backend from 2.0 (torch_compat.h).
class ProcessGroupOutrider : public BackendBase {
 public:
  // Connects to this node's agent (socket from $OUTRIDER_SOCKET, job from $OUTRIDER_JOB_ID or
  // $TORCHELASTIC_RUN_ID, local rank/size from $LOCAL_RANK/$LOCAL_WORLD_SIZE); throws a
  // BackendError saying what to check when it cannot.
  ProcessGroupOutrider(int rank, int size, std::chrono::milliseconds timeout);
  // Waits for the ops still in flight (at most 10 s: then they fail), disconnects.
  ~ProcessGroupOutrider() override;

  // The factory torch.distributed.Backend.register_backend gets (the same arguments in 1.13 and 2.x).
  static c10::intrusive_ptr<ProcessGroupOutrider> Create(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                         const std::chrono::duration<float>& timeout);

  const std::string getBackendName() const override { return "outrider"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits, const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

  // Row demand: the row ids (int64) the next forward pass needs; the next sparse allreduce
  // of a table with at least that many rows carries them (once).
  void SetDemand(at::Tensor ids);
  // Sparse allreduce of `t` (COO, one sparse dimension) whose `demand` rows (ids) come first:
  // SparseWork::WaitDemanded returns them, WaitRest the others. `t` is left as it is.
  c10::intrusive_ptr<SparseWork> SparseAllreduce(at::Tensor t, std::optional<at::Tensor> demand);
  // Which algorithm sparse allreduces ask for (outrider_sparse_algo_t; default auto).
  void SetSparseAlgo(uint32_t algo) { sparse_algo_ = algo; }
  // The sparse algorithm the agent ran for the last sparse allreduce (outrider_sparse_algo_t).
  uint32_t last_sparse_algo() const { return last_sparse_algo_; }

 private:
  // Shared memory for one op: arena memory or a pooled region.
  struct Buffer {
    void* ptr = nullptr;
    size_t bytes = 0;
    bool region = false;
  };
  // Runs on the worker: stages inputs and submits (returns the handle), then, once the op
  // succeeded, copies results out.
  struct Request {
    c10::intrusive_ptr<OutriderWork> work;
    std::function<outrider_op_t()> submit;
    std::function<void(const outrider_op_result_t&)> complete;
    // Sparse allreduce with demand through SparseAllreduce: hands over the demanded rows.
    std::function<void(const outrider_op_result_t&)> on_demand;
    std::vector<Buffer> buffers;  // released when the op is done
    outrider_op_t op = 0;
    std::chrono::steady_clock::time_point deadline;
  };

  c10::intrusive_ptr<c10d::Work> Enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                         std::function<void(Request&)> prepare);
  void EnqueueWork(c10::intrusive_ptr<OutriderWork> work, std::function<void(Request&)> prepare);
  // Gathers `in` from every rank into shared memory; `copy_out` gets the gathered bytes (rank order).
  c10::intrusive_ptr<c10d::Work> EnqueueAllgather(c10d::OpType type, at::Tensor in, std::vector<at::Tensor> outputs,
                                                  std::function<void(void*)> copy_out);
  // A sparse result in shared memory: `total` rows, the first `demanded` of them demanded.
  struct SparseResult {
    void* ids;
    void* values;
    at::Tensor like;  // the input (shape, dtype)
    int64_t total, demanded;
    // Rows [begin, end) as a coalesced COO tensor shaped like the input (copied out).
    at::Tensor Rows(int64_t begin, int64_t end) const;
  };
  // Queues a sparse allreduce of `t`; `demanded` (may be null) gets the demanded rows as soon as
  // they are in, `done` the whole result.
  void EnqueueSparse(at::Tensor t, std::optional<at::Tensor> demand, c10::intrusive_ptr<OutriderWork> work,
                     std::function<void(const SparseResult&)> demanded, std::function<void(const SparseResult&)> done);
  void Loop();
  // Completes a finished request (worker thread).
  void Finish(Request& r, int rc, const outrider_op_result_t& res);
  // Worker thread only.
  Buffer Acquire(size_t bytes);
  void Release(const Buffer& b);
  void Check(int rc, const char* what);
  // Priority of the next allreduce. Ops match across ranks by kind and order (so ranks that
  // disagree on a shape get an error, not a hang); their priority follows the agent's default
  // policy, computed here because every allreduce shares one key: within an iteration (which
  // ends when an op of an already seen shape comes again) later allreduces — DDP's buckets of
  // earlier layers, the embedding last — are needed first by the next forward pass and go first.
  int32_t NextPriority(const std::string& signature);

  outrider_client_t* client_ = nullptr;
  std::chrono::milliseconds timeout_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(Request&)>> incoming_prepare_;
  std::deque<c10::intrusive_ptr<OutriderWork>> incoming_work_;
  bool stop_ = false;
  std::optional<at::Tensor> demand_;  // guarded by mu_
  std::set<std::string> iteration_;    // guarded by mu_: allreduce shapes of the current iteration
  std::atomic<uint32_t> sparse_algo_{OUTRIDER_SPARSE_AUTO};
  std::atomic<uint32_t> last_sparse_algo_{0};
  std::multimap<size_t, void*> free_regions_;  // worker only
};

}  // namespace outrider::torch_backend
