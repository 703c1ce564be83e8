// The "outrider" torch.distributed backend: c10d process groups that hand every collective to the
// node's outrider-agent through the shim. Each group is an outrider communicator over the
// process's one connection (Connection). Tensors are copied into memory shared with the agent
// (the client's arena, or pooled regions for large tensors) and back, unless they already lie in
// it (shared_memory.h): then the agent works on them in place. Sparse COO tensors go to
// the agent's sparse allreduce; send/recv to a broadcast in the pair's own communicator.
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
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "outrider/outrider.h"
#include "shim/python/outrider_torch/csrc/any_source.h"
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
  // A receive's sender (group rank), once known; -1 before.
  int sourceRank() const override { return source_rank_.load(); }
  void set_source_rank(int rank) { source_rank_ = rank; }

 protected:
  virtual void OnFinished() {}

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::atomic<int> source_rank_{-1};
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
  outrider_comm_t comm = OUTRIDER_COMM_WORLD;
  std::chrono::milliseconds timeout{0};
  std::function<outrider_op_t()> submit;  // none: the request is done once prepared
  std::function<void(const outrider_op_result_t&)> complete;
  // Sparse allreduce with demand through SparseAllreduce: hands over the demanded rows.
  std::function<void(const outrider_op_result_t&)> on_demand;
  std::vector<Buffer> buffers;  // released when the op is done
  outrider_op_t op = 0;
  std::chrono::steady_clock::time_point deadline;
};

// The process's connection to its node's agent, shared by all its outrider groups: the shim
// client and the one worker thread that owns it. The worker submits every group's ops in call
// order (so several can be in flight, and the agent orders their sends by priority), completes
// them as the agent finishes them, copies results out and completes each op's Work and future.
class Connection {
 public:
  // Connects as `rank` of `size` (socket from $OUTRIDER_SOCKET, job from $OUTRIDER_JOB_ID or
  // $TORCHELASTIC_RUN_ID, local rank/size from $LOCAL_RANK/$LOCAL_WORLD_SIZE); throws a
  // BackendError saying what to check when it cannot.
  Connection(int rank, int size);
  // Waits for the ops still in flight (at most 10 s: then they fail), disconnects.
  ~Connection();
  // The process's connection, if one is open.
  static std::shared_ptr<Connection> Current();
  // The process's connection as `rank` of `size`: the open one if it is that (shared-memory
  // tensors can keep it open past its process groups), else a new one.
  static std::shared_ptr<Connection> Open(int rank, int size);

  void Enqueue(c10::intrusive_ptr<OutriderWork> work, outrider_comm_t comm, std::chrono::milliseconds timeout,
               std::function<void(Request&)> prepare);
  // Runs `f` on the worker thread and waits for it; rethrows what it threw.
  void Call(std::function<void()> f);
  // Leaves `comm` once no op on it is in flight.
  void DropComm(outrider_comm_t comm);
  // Shared memory that outlives ops (shared_memory.h), from any thread: taken and given back on
  // the worker. A failure to allocate throws.
  Buffer AcquireShared(size_t bytes);
  void ReleaseShared(const Buffer& b);
  // Whether the caller is the worker thread.
  bool OnWorker() const { return std::this_thread::get_id() == worker_.get_id(); }
  // Worker thread only.
  Buffer Acquire(size_t bytes);
  void Release(const Buffer& b);
  void Check(int rc, const char* what);
  outrider_client_t* client() const { return client_; }
  int rank() const { return rank_; }

 private:
  void Loop();
  // Completes a finished request (worker thread).
  void Finish(Request& r, int rc, const outrider_op_result_t& res);
  void DropIdleComms(const std::deque<Request>& inflight);
  // Wakes the worker where it waits for completions (outrider_wait_event on wake_fd_).
  void Wake();

  outrider_client_t* client_ = nullptr;
  int wake_fd_ = -1;  // an eventfd
  int rank_;
  int size_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_: requests and how to prepare them (on the worker).
  std::deque<std::pair<Request, std::function<void(Request&)>>> incoming_;
  std::vector<outrider_comm_t> drops_;  // guarded by mu_
  bool stop_ = false;                   // guarded by mu_
  std::multimap<size_t, void*> free_regions_;  // worker only
};

// A c10d::ProcessGroup in PyTorch 1.13, a c10d::Backend from 2.0 (torch_compat.h): one group of
// ranks, an outrider communicator over the process's Connection.
class ProcessGroupOutrider : public BackendBase {
 public:
  // `store` is the group's own store (for receives from any source; may be null).
  ProcessGroupOutrider(std::shared_ptr<Connection> conn, outrider_comm_t comm, c10::intrusive_ptr<c10d::Store> store, int rank,
                       int size, std::chrono::milliseconds timeout);
  // Leaves the group's communicators (its own and its point-to-point pairs) once their ops are done.
  ~ProcessGroupOutrider() override;

  // The factory torch.distributed.Backend.register_backend gets (the same arguments in 1.13 and
  // 2.x), for the default group: the whole job.
  static c10::intrusive_ptr<ProcessGroupOutrider> Create(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                         const std::chrono::duration<float>& timeout);
  // Any other group: `ranks` are its members' ranks in the job (in group rank order); the job has
  // `job_size` ranks of which this process is `job_rank`. Members only.
  static c10::intrusive_ptr<ProcessGroupOutrider> CreateGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                              const std::vector<int>& ranks, int job_rank, int job_size,
                                                              int rank, int size, const std::chrono::duration<float>& timeout);

  const std::string getBackendName() const override { return "outrider"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits, const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  void monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) override;

  // The group's op count (ProcessGroupWrapper, under TORCH_DISTRIBUTED_DEBUG=DETAIL, compares it
  // across ranks before every collective): every rank starts at 0 and counts its collectives
  // (point-to-point ops, which ranks issue unevenly, do not count; gloo counts alike).
  void setSequenceNumberForGroup() override { seq_ = 0; }
  uint64_t getSequenceNumberForGroup() override { return seq_.load(); }

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
  c10::intrusive_ptr<c10d::Work> Enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                         std::function<void(Request&)> prepare);
  void EnqueueWork(c10::intrusive_ptr<OutriderWork> work, std::function<void(Request&)> prepare) {
    conn_->Enqueue(std::move(work), comm_, timeout_, std::move(prepare));
  }
  // Options naming this group's communicator.
  outrider_op_options_t Options(int32_t priority = 0, uint64_t key = 0) const;
  // Gathers `in` from every rank into shared memory; `copy_out` gets the gathered bytes (rank order).
  c10::intrusive_ptr<c10d::Work> EnqueueAllgather(c10d::OpType type, at::Tensor in, std::vector<at::Tensor> outputs,
                                                  std::function<void(void*)> copy_out);
  // Alltoallv of the packed `ins` (send_counts[r] elements to rank r); `outs` unpacked from the
  // received blocks (recv_counts[r] from rank r), in order. Counts in elements of `dtype`.
  c10::intrusive_ptr<c10d::Work> EnqueueAlltoall(c10d::OpType type, std::vector<at::Tensor> ins, std::vector<at::Tensor> outs,
                                                 std::vector<int64_t> send_counts, std::vector<int64_t> recv_counts,
                                                 outrider_dtype_t dtype);
  // Point-to-point: a broadcast in the two-rank communicator of this rank and `peer` (made on
  // first use; the worker thread only), rooted at the sender, keyed by the tag. Checks `t` and
  // `peer`, and returns the op's preparation.
  std::function<void(Request&)> PairOp(at::Tensor t, int peer, int tag, bool sending);
  outrider_comm_t PairComm(int peer);
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
  // Priority of the next allreduce. Ops match across ranks by kind and order (so ranks that
  // disagree on a shape get an error, not a hang); their priority follows the agent's default
  // policy, computed here because every allreduce shares one key: within an iteration (which
  // ends when an op of an already seen shape comes again) later allreduces — DDP's buckets of
  // earlier layers, the embedding last — are needed first by the next forward pass and go first.
  int32_t NextPriority(const std::string& signature);

  std::shared_ptr<Connection> conn_;
  outrider_comm_t comm_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::optional<at::Tensor> demand_;  // guarded by mu_
  std::set<std::string> iteration_;    // guarded by mu_: allreduce shapes of the current iteration
  std::map<int, outrider_comm_t> pairs_;  // worker thread only: point-to-point communicators by peer
  std::unique_ptr<AnySource> any_source_;
  std::atomic<uint32_t> sparse_algo_{OUTRIDER_SPARSE_AUTO};
  std::atomic<uint32_t> last_sparse_algo_{0};
  std::atomic<uint64_t> seq_{0};
};

}  // namespace outrider::torch_backend
