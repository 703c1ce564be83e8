// The process's one connection to its node's agent, which all its outrider process groups share:
// the shim client, the worker thread that owns it, and the Work the worker completes.
// Thread-safety: Enqueue, Call and DropComm from any thread; the rest on the worker only.
#pragma once

#include <c10/core/Stream.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "outrider/outrider.h"
#include "shim/python/outrider_torch/csrc/shared_heap.h"
#include "shim/python/outrider_torch/csrc/torch_compat.h"

namespace outrider::torch_backend {

class OutriderWork : public c10d::Work {
 public:
  // `stream`: the GPU stream an op on device tensors is ordered on (the caller's current one).
  OutriderWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs,
               std::optional<c10::Stream> stream = std::nullopt);
  std::vector<at::Tensor> result() override { return outputs_; }
  // Waits for the op; for one on a GPU stream, the caller's current stream then also waits for
  // everything the op queued on its stream (the result's copy back included).
  bool wait(std::chrono::milliseconds timeout = ::kNoTimeout) override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  // Completes the work (and its future) with the outputs or `error`, once (later calls do
  // nothing); never throws (a future that refuses its value gets the error instead).
  void Finish(std::exception_ptr error);
  void set_outputs(std::vector<at::Tensor> outputs) { outputs_ = std::move(outputs); }
  const std::optional<c10::Stream>& stream() const { return stream_; }
  // A receive's sender (group rank), once known; -1 before.
  int sourceRank() const override { return source_rank_.load(); }
  void set_source_rank(int rank) { source_rank_ = rank; }

 protected:
  virtual void OnFinished() {}

 private:
  std::vector<at::Tensor> outputs_;
  std::optional<c10::Stream> stream_;
  std::atomic<bool> finished_{false};
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::atomic<int> source_rank_{-1};
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
  std::vector<void*> in_place;  // data of shared-memory tensors the agent works on where they lie
  std::shared_ptr<std::promise<void>> submitted;  // EnqueueOrdered: set once submitted (or failed)
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
  // A joiner's connection (OUTRIDER_CONNECT_JOINER): in no job until Reconfigure.
  struct Joiner {};
  explicit Connection(Joiner);
  // Waits for the ops still in flight (at most 10 s: then they fail), disconnects.
  ~Connection();
  // Stops the worker and waits for it: ops in flight fail after the shutdown grace, later ones at
  // once. Runs at interpreter exit, before finalization: afterwards a worker that completed a
  // future with a Python callback would be killed taking the GIL, which aborts the process.
  void Stop();
  // The process's connection, if one is open.
  static std::shared_ptr<Connection> Current();
  // The process's connection as `rank` of `size`: the open one if it is that, else a new one.
  static std::shared_ptr<Connection> Open(int rank, int size);
  // A new connection that joins its job at the next generation; it becomes the process's.
  static std::shared_ptr<Connection> OpenJoiner();

  // The job's generations (outrider_membership, outrider_reconfigure).
  struct Membership {
    uint32_t generation = 0;
    int rank = -1, size = 0, local_rank = -1, local_size = 0;
    uint32_t joiners_waiting = 0;
    std::string root_addr;
    std::string error;  // why the generation cannot go on ("" while it can)
  };
  Membership GetMembership();
  // Moves the connection into the job's next generation (waiting first, up to `timeout`, for the
  // ops still in flight to finish: after a failure they fail at once). Throws if it cannot.
  Membership Reconfigure(std::chrono::milliseconds timeout);
  // Bumped by every Reconfigure: groups made in an earlier one refuse ops.
  uint32_t generation() const { return generation_.load(); }

  void Enqueue(c10::intrusive_ptr<OutriderWork> work, outrider_comm_t comm,
               std::chrono::milliseconds timeout, std::function<void(Request&)> prepare);
  // Enqueue, then waits until the worker has submitted the op (rethrows why it could not): an op
  // on a GPU stream must take its place on the stream before the caller queues more work there.
  // From the worker itself (a future's callback) the op is prepared and submitted inline.
  void EnqueueOrdered(c10::intrusive_ptr<OutriderWork> work, outrider_comm_t comm,
                      std::chrono::milliseconds timeout, std::function<void(Request&)> prepare);
  // Runs `f` on the worker thread and waits for it; rethrows what it threw.
  void Call(std::function<void()> f);
  // Leaves `comm` once no op on it is in flight.
  void DropComm(outrider_comm_t comm);
  // Whether the caller is the worker thread.
  bool OnWorker() const { return std::this_thread::get_id() == worker_.get_id(); }
  // Worker thread only.
  Buffer Acquire(size_t bytes);
  void Release(const Buffer& b);
  // This client's mapping of a segment of the shared heap (shared_heap.h), registered with the
  // agent on first use; null if the agent refused it (its region limits: then ops on tensors
  // there are staged, and the refusal is said once on stderr).
  uint8_t* HeapSegment(const SharedHeap::Segment& seg);
  void Check(int rc, const char* what);
  outrider_client_t* client() const { return client_; }
  int rank() const { return rank_.load(); }

 private:
  // Connects with `o` and starts the worker (constructors); throws if it cannot.
  void ConnectAndRun(const outrider_connect_options_t& o);
  void Loop();
  // Prepares and submits a request (worker thread); false when it is done already (nothing to
  // submit, or it failed and was completed).
  bool Start(Request& r, const std::function<void(Request&)>& prepare);
  // Completes a finished request (worker thread).
  void Finish(Request& r, int rc, const outrider_op_result_t& res);
  void DropIdleComms(const std::deque<Request>& inflight);
  // Wakes the worker where it waits for completions (outrider_wait_event on wake_fd_).
  void Wake();

  outrider_client_t* client_ = nullptr;
  int wake_fd_ = -1;  // an eventfd
  std::atomic<int> rank_;
  std::atomic<int> size_;
  std::atomic<uint32_t> generation_{0};
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_: requests and how to prepare them (on the worker).
  std::deque<std::pair<Request, std::function<void(Request&)>>> incoming_;
  std::vector<outrider_comm_t> drops_;          // guarded by mu_
  bool stop_ = false;                           // guarded by mu_
  std::multimap<size_t, void*> free_regions_;   // worker only
  std::map<uint64_t, uint8_t*> heap_segments_;  // worker only: by segment id; null: refused
  std::vector<Request>
      started_inline_;  // worker only: submitted from a callback, not yet in flight
};

}  // namespace outrider::torch_backend
