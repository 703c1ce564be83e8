// The "outrider" torch.distributed backend (see process_group.h).
#include "shim/python/outrider_torch/csrc/process_group.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ipc/defaults.h"

namespace outrider::torch_backend {
namespace {

constexpr size_t kArenaMaxBytes = 16 << 20;  // larger buffers come from pooled regions
constexpr size_t kRegionAlign = 1 << 20;
// After the process group is destroyed, ops still in flight get this long to finish.
constexpr std::chrono::milliseconds kShutdownGrace{10000};

[[noreturn]] void Throw(const std::string& what) { throw std::runtime_error("outrider: " + what); }

outrider_dtype_t DType(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return OUTRIDER_F32;
    case at::kDouble: return OUTRIDER_F64;
    case at::kHalf: return OUTRIDER_F16;
    case at::kBFloat16: return OUTRIDER_BF16;
    case at::kInt: return OUTRIDER_I32;
    case at::kLong: return OUTRIDER_I64;
    default: Throw(std::string("tensors of dtype ") + c10::toString(t.scalar_type()) + " are not supported (float32, float64, float16, bfloat16, int32, int64 are)");
  }
}

outrider_redop_t RedOp(const c10d::ReduceOp& op) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(op)) {
    case c10d::ReduceOp::SUM: return OUTRIDER_SUM;
    case c10d::ReduceOp::AVG: return OUTRIDER_AVG;
    case c10d::ReduceOp::PRODUCT: return OUTRIDER_PROD;
    case c10d::ReduceOp::MIN: return OUTRIDER_MIN;
    case c10d::ReduceOp::MAX: return OUTRIDER_MAX;
    default: Throw("reduce op " + std::to_string(static_cast<int>(static_cast<c10d::ReduceOp::RedOpType>(op))) + " is not supported (SUM, AVG, PRODUCT, MIN, MAX are)");
  }
}

void CheckDenseCpu(const at::Tensor& t, const char* what) {
  if (!t.device().is_cpu()) Throw(std::string(what) + ": only CPU tensors are supported");
  if (t.is_sparse()) Throw(std::string(what) + ": sparse tensors are supported by allreduce only");
}

void CheckOne(const std::vector<at::Tensor>& tensors, const char* what) {
  if (tensors.size() != 1) Throw(std::string(what) + " takes one tensor per process, got " + std::to_string(tensors.size()));
}

// A view of shared memory shaped like `like` (contiguous).
at::Tensor View(void* p, const at::Tensor& like) { return at::from_blob(p, like.sizes(), like.options().layout(at::kStrided)); }

// Copies `t` into shared memory at `p` (contiguous).
void CopyIn(const at::Tensor& t, void* p) {
  if (t.numel() > 0) View(p, t).copy_(t);
}

// A completion that copies the result at `p` (shared memory, contiguous) back into `t`.
std::function<void(const outrider_op_result_t&)> CopyOut(void* p, at::Tensor t) {
  return [p, t](const outrider_op_result_t&) mutable {
    if (t.numel() > 0) t.copy_(View(p, t));
  };
}

}  // namespace

OutriderWork::OutriderWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs)
    : Work(rank, type), outputs_(std::move(outputs)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

void OutriderWork::Finish(std::exception_ptr error) {
  if (error) {
    future_->setError(error);
  } else {
    future_->markCompleted(c10::IValue(outputs_));
  }
  finish(error);
  OnFinished();
}

ProcessGroupOutrider::ProcessGroupOutrider(int rank, int size, std::chrono::milliseconds timeout)
    : BackendBase(rank, size), timeout_(timeout) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.rank = rank;
  o.world_size = size;
  int rc = outrider_connect(&o, &client_);
  if (rc != OUTRIDER_OK) {
    ThrowBackendError(std::string("outrider: cannot reach this node's agent: ") + outrider_last_error(nullptr));
  }
  worker_ = std::thread([this] { Loop(); });
  InitBackend();
}

ProcessGroupOutrider::~ProcessGroupOutrider() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  outrider_disconnect(client_);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::Create(const c10::intrusive_ptr<c10d::Store>&, int rank, int size,
                                                                      const std::chrono::duration<float>& timeout) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(rank, size, ms);
}

void ProcessGroupOutrider::Check(int rc, const char* what) {
  if (rc != OUTRIDER_OK) {
    ThrowBackendError(std::string("outrider: ") + what + " failed (" + outrider_error_string(rc) + "): " + outrider_last_error(client_));
  }
}

ProcessGroupOutrider::Buffer ProcessGroupOutrider::Acquire(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
  if (bytes <= kArenaMaxBytes) {
    if (void* p = outrider_alloc(client_, bytes)) return Buffer{p, bytes, false};
  }
  auto it = free_regions_.lower_bound(bytes);
  if (it != free_regions_.end() && it->first <= 2 * bytes) {
    Buffer b{it->second, it->first, true};
    free_regions_.erase(it);
    return b;
  }
  size_t size = (bytes + kRegionAlign - 1) / kRegionAlign * kRegionAlign;
  void* base = nullptr;
  int rc = outrider_region_create(client_, size, &base);
  if (rc != OUTRIDER_OK && !free_regions_.empty()) {
    // Out of region space: give back the pooled ones and try once more.
    for (auto& [n, p] : free_regions_) outrider_region_release(client_, p);
    free_regions_.clear();
    rc = outrider_region_create(client_, size, &base);
  }
  Check(rc, "allocating shared memory");
  return Buffer{base, size, true};
}

void ProcessGroupOutrider::Release(const Buffer& b) {
  if (b.ptr == nullptr) return;
  if (b.region) {
    free_regions_.emplace(b.bytes, b.ptr);
  } else {
    outrider_free(client_, b.ptr);
  }
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::Enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                             std::function<void(Request&)> prepare) {
  auto work = c10::make_intrusive<OutriderWork>(getRank(), type, std::move(outputs));
  EnqueueWork(work, std::move(prepare));
  return work;
}

void ProcessGroupOutrider::EnqueueWork(c10::intrusive_ptr<OutriderWork> work, std::function<void(Request&)> prepare) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_) ThrowBackendError("outrider: the process group is shutting down");
    incoming_prepare_.push_back(std::move(prepare));
    incoming_work_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void ProcessGroupOutrider::Loop() {
  std::deque<Request> inflight;
  std::optional<std::chrono::steady_clock::time_point> shutdown_at;
  for (;;) {
    std::deque<std::function<void(Request&)>> prepares;
    std::deque<c10::intrusive_ptr<OutriderWork>> works;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> l(mu_);
      if (inflight.empty()) cv_.wait(l, [&] { return stop_ || !incoming_prepare_.empty(); });
      if (stop_ && incoming_prepare_.empty() && inflight.empty()) return;
      prepares.swap(incoming_prepare_);
      works.swap(incoming_work_);
      stopping = stop_;
    }
    if (stopping) {
      if (!shutdown_at) shutdown_at = std::chrono::steady_clock::now() + kShutdownGrace;
      for (Request& r : inflight) r.deadline = std::min(r.deadline, *shutdown_at);
    }
    // Submit everything new at once: the agent then has the whole backlog to order.
    for (size_t i = 0; i < prepares.size(); ++i) {
      Request r;
      r.work = works[i];
      try {
        prepares[i](r);
        r.op = r.submit();
        r.deadline = timeout_.count() > 0 ? std::chrono::steady_clock::now() + timeout_
                                          : std::chrono::steady_clock::time_point::max();
        inflight.push_back(std::move(r));
      } catch (...) {
        for (const Buffer& b : r.buffers) Release(b);
        r.work->Finish(std::current_exception());
      }
    }
    if (inflight.empty()) continue;
    // Every op in flight makes progress: finished ones complete now, in whatever order the agent
    // finishes them, and demanded rows are handed over as soon as they are in.
    bool progressed = false;
    for (auto it = inflight.begin(); it != inflight.end();) {
      outrider_op_result_t res{};
      res.size = sizeof(res);
      if (it->on_demand) {
        int rc = outrider_wait_demand(client_, it->op, 0, &res);
        if (rc == OUTRIDER_OK) {
          progressed = true;
          auto deliver = std::move(it->on_demand);
          it->on_demand = nullptr;
          try {
            deliver(res);
          } catch (...) {  // the op's own completion reports it
          }
        } else if (rc != OUTRIDER_ERR_DEADLINE_EXCEEDED) {
          it->on_demand = nullptr;  // failed: outrider_test_result below reports it
        }
      }
      int done = 0;
      int rc = outrider_test_result(client_, it->op, &done, &res);
      if (done) {
        progressed = true;
        Finish(*it, rc, res);
        it = inflight.erase(it);
      } else if (rc != OUTRIDER_OK || std::chrono::steady_clock::now() > it->deadline) {
        // A timeout (the agent may still read the buffers: they are never reused) or a handle
        // the shim no longer knows.
        progressed = true;
        std::string why = rc != OUTRIDER_OK ? std::string("outrider: collective failed: ") + outrider_last_error(client_)
                          : stopping        ? std::string("outrider: the process group was destroyed while the collective ran")
                                            : "outrider: collective timed out after " + std::to_string(timeout_.count()) + " ms";
        it->work->Finish(BackendError(why));
        it = inflight.erase(it);
      } else {
        ++it;
      }
    }
    if (!progressed && !inflight.empty()) {
      // Nothing moved: sleep until a completion may have arrived, at most a millisecond (ops
      // queued meanwhile are submitted that soon).
      Request& r = inflight.front();
      outrider_op_result_t res{};
      res.size = sizeof(res);
      int rc = outrider_wait_result(client_, r.op, 1, &res);
      if (rc != OUTRIDER_ERR_DEADLINE_EXCEEDED) {
        Finish(r, rc, res);  // hands over demanded rows not yet handed over, too
        inflight.pop_front();
      }
    }
  }
}

void ProcessGroupOutrider::Finish(Request& r, int rc, const outrider_op_result_t& res) {
  std::exception_ptr error;
  if (rc != OUTRIDER_OK) {
    error = BackendError(std::string("outrider: collective failed (") + outrider_error_string(rc) + "): " + outrider_last_error(client_));
  } else {
    try {
      if (r.on_demand) r.on_demand(res);  // finished before its demanded rows were noticed
      if (r.complete) r.complete(res);
    } catch (...) {
      error = std::current_exception();
    }
  }
  for (const Buffer& b : r.buffers) Release(b);
  r.work->Finish(error);
}

at::Tensor ProcessGroupOutrider::SparseResult::Rows(int64_t begin, int64_t end) const {
  int64_t n = end - begin;
  at::Tensor idx = at::from_blob(static_cast<int64_t*>(ids) + begin, {1, n}, at::TensorOptions().dtype(at::kLong)).clone();
  std::vector<int64_t> shape = like.sizes().vec();
  shape.erase(shape.begin());
  int64_t row_elems = 1;
  for (int64_t d : shape) row_elems *= d;
  shape.insert(shape.begin(), n);
  at::Tensor v = at::from_blob(static_cast<uint8_t*>(values) + begin * row_elems * like.element_size(), shape,
                               like.options().layout(at::kStrided)).clone();
  // Each part is sorted by id without repeats.
  return at::_sparse_coo_tensor_unsafe(idx, v, like.sizes(), like.options())._coalesced_(true);
}

void ProcessGroupOutrider::EnqueueSparse(at::Tensor t, std::optional<at::Tensor> demand, c10::intrusive_ptr<OutriderWork> work,
                                         std::function<void(const SparseResult&)> demanded,
                                         std::function<void(const SparseResult&)> done) {
  if (!t.device().is_cpu()) Throw("sparse allreduce: only CPU tensors are supported");
  if (!t.is_sparse()) Throw("sparse allreduce needs a sparse COO tensor");
  if (t.sparse_dim() != 1) Throw("sparse allreduce: tensors must have one sparse dimension (rows), got " + std::to_string(t.sparse_dim()));
  at::ScalarType st = t.scalar_type();
  if (st != at::kFloat && st != at::kHalf && st != at::kBFloat16) Throw("sparse allreduce: values must be float32, float16 or bfloat16");
  if (demand && (demand->is_sparse() || (demand->scalar_type() != at::kLong && demand->scalar_type() != at::kInt))) {
    Throw("sparse allreduce: demand ids must be a dense int64 or int32 tensor");
  }
  outrider_dtype_t dtype = DType(t);
  uint64_t rows = static_cast<uint64_t>(t.size(0));
  uint64_t dim = 1;
  for (int64_t d = 1; d < t.dim(); ++d) dim *= static_cast<uint64_t>(t.size(d));
  uint32_t algo = sparse_algo_;
  int32_t priority = NextPriority("sparse/" + std::to_string(rows) + "/" + std::to_string(dim) + "/" + std::to_string(dtype));
  EnqueueWork(work, [this, t, dtype, rows, dim, demand, algo, priority, demanded, done](Request& r) mutable {
    at::Tensor idx = t._indices().select(0, 0).contiguous();
    at::Tensor vals = t._values().contiguous();
    uint64_t nnz = static_cast<uint64_t>(idx.numel());
    size_t elem = static_cast<size_t>(vals.element_size());
    Buffer ib = Acquire(nnz * 8), vb = Acquire(nnz * dim * elem), oi = Acquire(rows * 8), ov = Acquire(rows * dim * elem);
    r.buffers = {ib, vb, oi, ov};
    if (nnz > 0) {
      std::memcpy(ib.ptr, idx.data_ptr<int64_t>(), nnz * 8);
      std::memcpy(vb.ptr, vals.data_ptr(), nnz * dim * elem);
    }
    outrider_sparse_t s;
    outrider_sparse_init(&s);
    s.rows = rows;
    s.dim = dim;
    s.dtype = dtype;
    s.id_dtype = OUTRIDER_I64;
    s.ids = ib.ptr;
    s.values = vb.ptr;
    s.nnz = nnz;
    s.out_ids = oi.ptr;
    s.out_values = ov.ptr;
    s.capacity = rows;
    s.algo = algo;
    if (demand && demand->numel() > 0) {
      at::Tensor d = demand->to(at::kLong).contiguous();
      Buffer db = Acquire(static_cast<size_t>(d.numel()) * 8);
      r.buffers.push_back(db);
      std::memcpy(db.ptr, d.data_ptr<int64_t>(), static_cast<size_t>(d.numel()) * 8);
      s.demand_ids = db.ptr;
      s.demand_nnz = static_cast<uint64_t>(d.numel());
    }
    r.submit = [this, s, priority] {
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.priority = priority;
      outrider_op_t h = 0;
      Check(outrider_sparse_allreduce(client_, &s, &o, &h), "sparse allreduce");
      return h;
    };
    auto result = [oi, ov, t](const outrider_op_result_t& res) {
      return SparseResult{oi.ptr, ov.ptr, t, static_cast<int64_t>(res.result_rows), static_cast<int64_t>(res.demand_rows)};
    };
    if (demanded) r.on_demand = [demanded, result](const outrider_op_result_t& res) { demanded(result(res)); };
    r.complete = [this, done, result](const outrider_op_result_t& res) {
      last_sparse_algo_ = res.algo;
      done(result(res));
    };
  });
}

c10::intrusive_ptr<SparseWork> ProcessGroupOutrider::SparseAllreduce(at::Tensor t, std::optional<at::Tensor> demand) {
  auto work = c10::make_intrusive<SparseWork>(getRank(), c10d::OpType::ALLREDUCE, std::vector<at::Tensor>{});
  SparseWork* w = work.get();
  EnqueueSparse(
      t, demand, work, [w](const SparseResult& r) { w->SetDemanded(r.Rows(0, r.demanded)); },
      [w](const SparseResult& r) {
        at::Tensor rest = r.Rows(r.demanded, r.total);
        w->SetRest(rest);
        w->set_outputs({rest});
      });
  return work;
}

void SparseWork::SetDemanded(at::Tensor rows) {
  std::lock_guard<std::mutex> l(m_);
  demanded_ = std::move(rows);
  c_.notify_all();
}

void SparseWork::OnFinished() {
  std::lock_guard<std::mutex> l(m_);
  finished_ = true;
  c_.notify_all();
}

at::Tensor SparseWork::WaitDemanded() {
  {
    std::unique_lock<std::mutex> l(m_);
    c_.wait(l, [&] { return demanded_.has_value() || finished_; });
    if (demanded_) return *demanded_;
  }
  wait();  // the op failed: rethrows why
  Throw("sparse allreduce finished without its demanded rows");
}

at::Tensor SparseWork::WaitRest() {
  wait();
  std::lock_guard<std::mutex> l(m_);
  return rest_;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  CheckOne(tensors, "broadcast");
  at::Tensor t = tensors[0];
  CheckDenseCpu(t, "broadcast");
  outrider_dtype_t dtype = DType(t);
  if (opts.rootTensor != 0) Throw("broadcast: rootTensor must be 0");
  if (opts.rootRank < 0 || opts.rootRank >= getSize()) Throw("broadcast: root rank " + std::to_string(opts.rootRank) + " is not in the group");
  int root = static_cast<int>(opts.rootRank);
  return Enqueue(c10d::OpType::BROADCAST, {t}, [this, t, dtype, root](Request& r) {
    Buffer b = Acquire(t.nbytes());
    r.buffers.push_back(b);
    CopyIn(t, b.ptr);
    r.submit = [this, b, t, dtype, root] {
      outrider_op_t h = 0;
      Check(outrider_broadcast(client_, b.ptr, static_cast<uint64_t>(t.numel()), dtype, root, nullptr, &h), "broadcast");
      return h;
    };
    r.complete = CopyOut(b.ptr, t);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  CheckOne(tensors, "allreduce");
  at::Tensor t = tensors[0];
  if (!t.device().is_cpu()) Throw("allreduce: only CPU tensors are supported");
  if (t.is_sparse()) {
    if (RedOp(opts.reduceOp) != OUTRIDER_SUM) Throw("allreduce of sparse tensors sums only");
    std::optional<at::Tensor> demand;
    {
      std::lock_guard<std::mutex> l(mu_);
      demand.swap(demand_);
    }
    auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::ALLREDUCE, std::vector<at::Tensor>{t});
    // The whole result replaces the tensor (sorted unique ids: demanded rows are merged back in).
    EnqueueSparse(t, demand, work, nullptr, [this, t, work](const SparseResult& r) mutable {
      at::Tensor out = r.Rows(0, r.total);
      if (r.demanded > 0) out = out.coalesce();
      t.copy_(out);
      work->set_outputs({out});
    });
    return work;
  }
  CheckDenseCpu(t, "allreduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  int32_t priority = NextPriority("allreduce/" + std::to_string(t.numel()) + "/" + std::to_string(dtype));
  return Enqueue(c10d::OpType::ALLREDUCE, {t}, [this, t, dtype, redop, priority](Request& r) {
    Buffer b = Acquire(t.nbytes());
    r.buffers.push_back(b);
    CopyIn(t, b.ptr);
    r.submit = [this, b, t, dtype, redop, priority] {
      outrider_op_options_t o;
      outrider_op_options_init(&o);
      o.priority = priority;
      outrider_op_t h = 0;
      Check(outrider_allreduce(client_, b.ptr, b.ptr, static_cast<uint64_t>(t.numel()), dtype, redop, &o, &h), "allreduce");
      return h;
    };
    r.complete = CopyOut(b.ptr, t);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                               std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions&) {
  CheckOne(inputs, "allgather");
  at::Tensor in = inputs[0];
  CheckDenseCpu(in, "allgather");
  if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("allgather needs one list of " + std::to_string(getSize()) + " output tensors");
  }
  std::vector<at::Tensor> outs = outputs[0];
  for (const at::Tensor& o : outs) {
    CheckDenseCpu(o, "allgather");
    if (o.numel() != in.numel() || o.scalar_type() != in.scalar_type()) Throw("allgather: output tensors must match the input's size and dtype");
  }
  size_t n = in.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER, in, outs, [outs, n](void* gathered) mutable {
    for (size_t k = 0; k < outs.size(); ++k) {
      if (n > 0) outs[k].copy_(View(static_cast<uint8_t*>(gathered) + k * n, outs[k]));
    }
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                     const c10d::AllgatherOptions&) {
  CheckDenseCpu(input, "_allgather_base");
  CheckDenseCpu(output, "_allgather_base");
  if (output.numel() != input.numel() * getSize() || output.scalar_type() != input.scalar_type()) {
    Throw("_allgather_base: output must hold world_size x input elements of the input's dtype");
  }
  at::Tensor out = output;
  return EnqueueAllgather(c10d::OpType::_ALLGATHER_BASE, input, {out}, [out](void* gathered) mutable {
    if (out.numel() > 0) out.copy_(View(gathered, out));
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueAllgather(c10d::OpType type, at::Tensor in,
                                                                      std::vector<at::Tensor> outputs,
                                                                      std::function<void(void*)> copy_out) {
  outrider_dtype_t dtype = DType(in);
  return Enqueue(type, std::move(outputs), [this, in, dtype, copy_out](Request& r) {
    Buffer s = Acquire(in.nbytes()), g = Acquire(in.nbytes() * static_cast<size_t>(getSize()));
    r.buffers = {s, g};
    CopyIn(in, s.ptr);
    r.submit = [this, s, g, in, dtype] {
      outrider_op_t h = 0;
      Check(outrider_allgather(client_, s.ptr, g.ptr, static_cast<uint64_t>(in.numel()), dtype, nullptr, &h), "allgather");
      return h;
    };
    r.complete = [g, copy_out](const outrider_op_result_t&) { copy_out(g.ptr); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                    std::vector<std::vector<at::Tensor>>& inputs,
                                                                    const c10d::ReduceScatterOptions& opts) {
  CheckOne(outputs, "reduce_scatter");
  at::Tensor out = outputs[0];
  CheckDenseCpu(out, "reduce_scatter");
  outrider_dtype_t dtype = DType(out);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("reduce_scatter needs one list of " + std::to_string(getSize()) + " input tensors");
  }
  std::vector<at::Tensor> ins = inputs[0];
  for (const at::Tensor& i : ins) {
    CheckDenseCpu(i, "reduce_scatter");
    if (i.numel() != out.numel() || i.scalar_type() != out.scalar_type()) Throw("reduce_scatter: input tensors must match the output's size and dtype");
  }
  return Enqueue(c10d::OpType::REDUCE_SCATTER, {out}, [this, out, ins, dtype, redop](Request& r) {
    size_t n = out.nbytes();
    Buffer s = Acquire(n * ins.size()), g = Acquire(n);
    r.buffers = {s, g};
    for (size_t k = 0; k < ins.size(); ++k) CopyIn(ins[k], static_cast<uint8_t*>(s.ptr) + k * n);
    r.submit = [this, s, g, out, dtype, redop] {
      outrider_op_t h = 0;
      Check(outrider_reduce_scatter(client_, s.ptr, g.ptr, static_cast<uint64_t>(out.numel()), dtype, redop, nullptr, &h),
            "reduce_scatter");
      return h;
    };
    r.complete = CopyOut(g.ptr, out);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                   std::vector<int64_t>& output_splits,
                                                                   std::vector<int64_t>& input_splits, const c10d::AllToAllOptions&) {
  CheckDenseCpu(input, "alltoall_base");
  CheckDenseCpu(output, "alltoall_base");
  outrider_dtype_t dtype = DType(input);
  if (output.scalar_type() != input.scalar_type()) Throw("alltoall_base: input and output dtypes differ");
  if (input.dim() == 0 || output.dim() == 0) Throw("alltoall_base: tensors need at least one dimension");
  const int world = getSize();
  auto splits = [&](std::vector<int64_t> s, const at::Tensor& t, const char* which) {
    int64_t rows = t.size(0);
    if (s.empty()) {
      if (rows % world != 0) Throw(std::string("alltoall_base: ") + which + " has " + std::to_string(rows) + " rows, not divisible by " + std::to_string(world));
      s.assign(static_cast<size_t>(world), rows / world);
    }
    if (s.size() != static_cast<size_t>(world)) Throw(std::string("alltoall_base: ") + which + " split sizes need " + std::to_string(world) + " entries");
    int64_t sum = 0;
    for (int64_t x : s) {
      if (x < 0) Throw(std::string("alltoall_base: negative ") + which + " split size");
      sum += x;
    }
    if (sum != rows) Throw(std::string("alltoall_base: ") + which + " split sizes add up to " + std::to_string(sum) + ", not " + std::to_string(rows));
    int64_t row_elems = rows > 0 ? t.numel() / rows : 0;
    for (int64_t& x : s) x *= row_elems;
    return s;
  };
  std::vector<int64_t> send_counts = splits(input_splits, input, "input");
  std::vector<int64_t> recv_counts = splits(output_splits, output, "output");
  at::Tensor in = input, out = output;
  return Enqueue(c10d::OpType::ALLTOALL_BASE, {out}, [this, in, out, dtype, send_counts, recv_counts](Request& r) {
    Buffer s = Acquire(in.nbytes()), g = Acquire(out.nbytes());
    r.buffers = {s, g};
    CopyIn(in, s.ptr);
    r.submit = [this, s, g, dtype, send_counts, recv_counts] {
      outrider_op_t h = 0;
      Check(outrider_alltoallv(client_, s.ptr, send_counts.data(), g.ptr, recv_counts.data(), dtype, nullptr, &h), "alltoall");
      return h;
    };
    r.complete = CopyOut(g.ptr, out);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::barrier(const c10d::BarrierOptions&) {
  return Enqueue(c10d::OpType::BARRIER, {}, [this](Request& r) {
    r.submit = [this] {
      outrider_op_t h = 0;
      Check(outrider_barrier(client_, nullptr, &h), "barrier");
      return h;
    };
  });
}

int32_t ProcessGroupOutrider::NextPriority(const std::string& signature) {
  std::lock_guard<std::mutex> l(mu_);
  if (!iteration_.insert(signature).second) {  // seen in this iteration: a new one starts
    iteration_.clear();
    iteration_.insert(signature);
  }
  int32_t i = static_cast<int32_t>(iteration_.size()) - 1;
  return ipc::DefaultPriority(i);
}

void ProcessGroupOutrider::SetDemand(at::Tensor ids) {
  if (ids.is_sparse() || !ids.device().is_cpu()) Throw("demand ids must be a dense CPU tensor");
  if (ids.scalar_type() != at::kLong && ids.scalar_type() != at::kInt) Throw("demand ids must be int64 or int32");
  std::lock_guard<std::mutex> l(mu_);
  demand_ = ids.flatten().to(at::kLong).clone();
}

}  // namespace outrider::torch_backend
