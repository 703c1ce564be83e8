// The "outrider" torch.distributed backend (see process_group.h).
#include "shim/python/outrider_torch/csrc/process_group.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "ipc/defaults.h"
#include "shim/python/outrider_torch/csrc/gil.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {
namespace {

[[noreturn]] void Throw(const std::string& what) { throw std::runtime_error("outrider: " + what); }

outrider_dtype_t DType(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return OUTRIDER_F32;
    case at::kDouble: return OUTRIDER_F64;
    case at::kHalf: return OUTRIDER_F16;
    case at::kBFloat16: return OUTRIDER_BF16;
    case at::kInt: return OUTRIDER_I32;
    case at::kLong: return OUTRIDER_I64;
    case at::kByte: return OUTRIDER_U8;
    case at::kChar: return OUTRIDER_I8;
    case at::kShort: return OUTRIDER_I16;
    case at::kBool: return OUTRIDER_BOOL;
    case at::kComplexFloat: return OUTRIDER_C64;
    case at::kComplexDouble: return OUTRIDER_C128;
    default:
      Throw(std::string("tensors of dtype ") + c10::toString(t.scalar_type()) +
            " are not supported (float32, float64, float16, bfloat16, int8/16/32/64, uint8, bool, complex64 and complex128 are)");
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
  Copies().tensors_staged++;
  Copies().bytes_in += t.nbytes();
  if (t.numel() > 0) View(p, t).copy_(t);
}

// Copies the contiguous result at shared memory `p` into `t`.
void CopyBack(const void* p, at::Tensor& t) {
  Copies().bytes_out += t.nbytes();
  if (t.numel() > 0) t.copy_(View(const_cast<void*>(p), t));
}

// Copies `ts` one after another into shared memory at `p` (each contiguous).
void PackIn(const std::vector<at::Tensor>& ts, void* p) {
  size_t off = 0;
  for (const at::Tensor& t : ts) {
    CopyIn(t, static_cast<uint8_t*>(p) + off);
    off += t.nbytes();
  }
}

// The inverse of PackIn: fills `ts` from consecutive blocks of shared memory at `p`.
void UnpackOut(const void* p, std::vector<at::Tensor>& ts) {
  size_t at = 0;
  for (at::Tensor& t : ts) {
    CopyBack(static_cast<const uint8_t*>(p) + at, t);
    at += t.nbytes();
  }
}

// Any COO tensor as one with a single sparse dimension: coalesced (sorted, no repeats), its sparse
// dimensions folded into one row-major row index, which keeps the order. UnfoldSparseDims undoes it.
at::Tensor FoldSparseDims(const at::Tensor& t) {
  at::Tensor c = t.is_coalesced() ? t : t.coalesce();
  int64_t sd = c.sparse_dim();
  if (sd == 1) return c;
  int64_t rows = 1;
  std::vector<int64_t> strides(static_cast<size_t>(sd));
  for (int64_t d = sd - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = rows;
    if (c.size(d) != 0 && rows > std::numeric_limits<int64_t>::max() / c.size(d)) {
      Throw("sparse allreduce: the sparse dimensions' sizes multiply past 2^63");
    }
    rows *= c.size(d);
  }
  at::Tensor stride = at::tensor(strides, at::TensorOptions().dtype(at::kLong)).view({sd, 1});
  at::Tensor row = (c._indices() * stride).sum(0, /*keepdim=*/true);
  std::vector<int64_t> shape{rows};
  for (int64_t d = sd; d < c.dim(); ++d) shape.push_back(c.size(d));
  return at::_sparse_coo_tensor_unsafe(row, c._values(), shape, c.options())._coalesced_(true);
}

// `rows` (one sparse dimension, from FoldSparseDims(like)) with like's sparse dimensions again.
at::Tensor UnfoldSparseDims(const at::Tensor& rows, const at::Tensor& like) {
  int64_t sd = like.sparse_dim();
  if (sd == 1) return rows;
  at::Tensor row = rows._indices().select(0, 0);
  std::vector<at::Tensor> idx(static_cast<size_t>(sd));
  for (int64_t d = sd - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = row.remainder(like.size(d));
    row = row.div(like.size(d), "floor");
  }
  return at::_sparse_coo_tensor_unsafe(at::stack(idx), rows._values(), like.sizes(), like.options())._coalesced_(true);
}

// A completion that copies the result at `p` (shared memory, contiguous) back into `t`.
std::function<void(const outrider_op_result_t&)> CopyOut(void* p, at::Tensor t) {
  return [p, t](const outrider_op_result_t&) mutable { CopyBack(p, t); };
}

// Where an op on `t` reads and writes its data.
struct Staged {
  void* ptr;
  bool in_place;  // `t`'s own memory
};

// `t` itself when it lies in the connection's shared memory: the agent works on it in place.
// Otherwise a staging buffer (released with the request) holding a copy of `t`; then
// `*copy_back`, if given, becomes a completion copying the result back into `t`.
Staged Stage(Connection& conn, Request& r, const at::Tensor& t, std::function<void(const outrider_op_result_t&)>* copy_back) {
  if (void* p = SharedData(conn, t)) {
    Copies().tensors_in_place++;
    r.in_place.push_back(p);
    return {p, true};
  }
  Buffer b = conn.Acquire(t.nbytes());
  r.buffers.push_back(b);
  CopyIn(t, b.ptr);
  if (copy_back != nullptr) *copy_back = CopyOut(b.ptr, t);
  return {b.ptr, false};
}

}  // namespace

ProcessGroupOutrider::ProcessGroupOutrider(std::shared_ptr<Connection> conn, outrider_comm_t comm,
                                           c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                                           std::chrono::milliseconds timeout)
    : BackendBase(rank, size), conn_(std::move(conn)), comm_(comm), timeout_(timeout),
      any_source_(std::make_unique<AnySource>(std::move(store), rank, size, timeout)) {
  InitBackend();
}

ProcessGroupOutrider::~ProcessGroupOutrider() {
  any_source_.reset();  // fails any-source receives still looking for a sender
  // The pair map is the worker's: read it there.
  std::vector<outrider_comm_t> comms;
  try {
    conn_->Call([&] {
      for (const auto& [peer, c] : pairs_) comms.push_back(c);
    });
  } catch (...) {  // the connection is closing: it drops every communicator anyway
  }
  if (comm_ != OUTRIDER_COMM_WORLD) comms.push_back(comm_);
  for (outrider_comm_t c : comms) conn_->DropComm(c);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::Create(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                                      const std::chrono::duration<float>& timeout) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(Connection::Open(rank, size), OUTRIDER_COMM_WORLD, store, rank, size, ms);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::CreateGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                                           const std::vector<int>& ranks, int job_rank,
                                                                           int job_size, int rank, int size,
                                                                           const std::chrono::duration<float>& timeout) {
  if (static_cast<int>(ranks.size()) != size || rank < 0 || rank >= size || ranks[static_cast<size_t>(rank)] != job_rank) {
    Throw("new group: rank " + std::to_string(rank) + " of " + std::to_string(size) + " does not match its member list");
  }
  std::shared_ptr<Connection> conn = Connection::Current();
  if (!conn || conn->rank() != job_rank) conn = Connection::Open(job_rank, job_size);
  outrider_comm_t comm = OUTRIDER_COMM_NULL;
  conn->Call([&] {
    conn->Check(outrider_comm_create(conn->client(), OUTRIDER_COMM_WORLD, ranks.data(), size, &comm), "creating the group");
  });
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(conn, comm, store, rank, size, ms);
}

outrider_op_options_t ProcessGroupOutrider::Options(int32_t priority, uint64_t key) const {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.comm = comm_;
  o.priority = priority;
  o.key = key;
  return o;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::Enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                             std::function<void(Request&)> prepare) {
  auto work = c10::make_intrusive<OutriderWork>(getRank(), type, std::move(outputs));
  if (type != c10d::OpType::SEND) seq_++;  // collectives only (receives do not come here)
  EnqueueWork(work, std::move(prepare));
  return work;
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
  Copies().bytes_out += idx.nbytes() + v.nbytes();
  // Each part is sorted by id without repeats.
  return at::_sparse_coo_tensor_unsafe(idx, v, like.sizes(), like.options())._coalesced_(true);
}

void ProcessGroupOutrider::EnqueueSparse(at::Tensor t, std::optional<at::Tensor> demand, c10::intrusive_ptr<OutriderWork> work,
                                         std::function<void(const SparseResult&)> demanded,
                                         std::function<void(const SparseResult&)> done) {
  if (!t.device().is_cpu()) Throw("sparse allreduce: only CPU tensors are supported");
  if (!t.is_sparse()) Throw("sparse allreduce needs a sparse COO tensor");
  if (t.sparse_dim() != 1) Throw("sparse allreduce: tensors must have one sparse dimension (rows), got " + std::to_string(t.sparse_dim()));
  if (!t.is_coalesced()) t = t.coalesce();  // ids sorted, without repeats
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
  seq_++;
  EnqueueWork(work, [this, t, dtype, rows, dim, demand, algo, priority, demanded, done](Request& r) mutable {
    at::Tensor idx = t._indices().select(0, 0).contiguous();
    at::Tensor vals = t._values().contiguous();
    uint64_t nnz = static_cast<uint64_t>(idx.numel());
    size_t elem = static_cast<size_t>(vals.element_size());
    Buffer ib = conn_->Acquire(nnz * 8), vb = conn_->Acquire(nnz * dim * elem), oi = conn_->Acquire(rows * 8), ov = conn_->Acquire(rows * dim * elem);
    r.buffers = {ib, vb, oi, ov};
    Copies().tensors_staged++;
    Copies().bytes_in += nnz * 8 + nnz * dim * elem;
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
      Buffer db = conn_->Acquire(static_cast<size_t>(d.numel()) * 8);
      r.buffers.push_back(db);
      std::memcpy(db.ptr, d.data_ptr<int64_t>(), static_cast<size_t>(d.numel()) * 8);
      Copies().bytes_in += static_cast<size_t>(d.numel()) * 8;
      s.demand_ids = db.ptr;
      s.demand_nnz = static_cast<uint64_t>(d.numel());
    }
    r.submit = [this, s, priority] {
      outrider_op_options_t o = Options(priority);
      outrider_op_t h = 0;
      conn_->Check(outrider_sparse_allreduce(conn_->client(), &s, &o, &h), "sparse allreduce");
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
    void* p = Stage(*conn_, r, t, &r.complete).ptr;
    r.submit = [this, p, t, dtype, root] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_broadcast(conn_->client(), p, static_cast<uint64_t>(t.numel()), dtype, root, &o, &h), "broadcast");
      return h;
    };
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
    if (demand && t.sparse_dim() != 1) Throw("allreduce: row demand needs a tensor with one sparse dimension (rows)");
    auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::ALLREDUCE, std::vector<at::Tensor>{t});
    // The whole result replaces the tensor (sorted unique ids: demanded rows are merged back in).
    EnqueueSparse(FoldSparseDims(t), demand, work, nullptr, [t, work](const SparseResult& r) mutable {
      at::Tensor out = r.Rows(0, r.total);
      if (r.demanded > 0) out = out.coalesce();
      out = UnfoldSparseDims(out, t);
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
    void* p = Stage(*conn_, r, t, &r.complete).ptr;
    r.submit = [this, p, t, dtype, redop, priority] {
      outrider_op_options_t o = Options(priority);
      outrider_op_t h = 0;
      conn_->Check(outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(t.numel()), dtype, redop, &o, &h), "allreduce");
      return h;
    };
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
      CopyBack(static_cast<uint8_t*>(gathered) + k * n, outs[k]);
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
    CopyBack(gathered, out);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueAllgather(c10d::OpType type, at::Tensor in,
                                                                      std::vector<at::Tensor> outputs,
                                                                      std::function<void(void*)> copy_out) {
  outrider_dtype_t dtype = DType(in);
  return Enqueue(type, std::move(outputs), [this, in, dtype, copy_out](Request& r) {
    Buffer s = conn_->Acquire(in.nbytes()), g = conn_->Acquire(in.nbytes() * static_cast<size_t>(getSize()));
    r.buffers = {s, g};
    CopyIn(in, s.ptr);
    r.submit = [this, s, g, in, dtype] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_allgather(conn_->client(), s.ptr, g.ptr, static_cast<uint64_t>(in.numel()), dtype, &o, &h), "allgather");
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
    Buffer s = conn_->Acquire(n * ins.size()), g = conn_->Acquire(n);
    r.buffers = {s, g};
    for (size_t k = 0; k < ins.size(); ++k) CopyIn(ins[k], static_cast<uint8_t*>(s.ptr) + k * n);
    r.submit = [this, s, g, out, dtype, redop] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_reduce_scatter(conn_->client(), s.ptr, g.ptr, static_cast<uint64_t>(out.numel()), dtype, redop, &o, &h),
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
  return EnqueueAlltoall(c10d::OpType::ALLTOALL_BASE, {input}, {output}, send_counts, recv_counts, dtype);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueAlltoall(c10d::OpType type, std::vector<at::Tensor> ins,
                                                                     std::vector<at::Tensor> outs, std::vector<int64_t> send_counts,
                                                                     std::vector<int64_t> recv_counts, outrider_dtype_t dtype) {
  return Enqueue(type, outs, [this, ins, outs, dtype, send_counts, recv_counts](Request& r) {
    size_t in_bytes = 0, out_bytes = 0;
    for (const at::Tensor& t : ins) in_bytes += t.nbytes();
    for (const at::Tensor& t : outs) out_bytes += t.nbytes();
    Buffer s = conn_->Acquire(in_bytes), g = conn_->Acquire(out_bytes);
    r.buffers = {s, g};
    PackIn(ins, s.ptr);
    r.submit = [this, s, g, dtype, send_counts, recv_counts] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_alltoallv(conn_->client(), s.ptr, send_counts.data(), g.ptr, recv_counts.data(), dtype, &o, &h),
                   "alltoall");
      return h;
    };
    r.complete = [g, outs](const outrider_op_result_t&) mutable { UnpackOut(g.ptr, outs); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                                              const c10d::AllToAllOptions&) {
  const size_t world = static_cast<size_t>(getSize());
  if (inputs.size() != world || outputs.size() != world) {
    Throw("alltoall needs " + std::to_string(world) + " input and output tensors, got " + std::to_string(inputs.size()) +
          " and " + std::to_string(outputs.size()));
  }
  outrider_dtype_t dtype = DType(inputs[0]);
  std::vector<int64_t> send_counts, recv_counts;
  for (size_t k = 0; k < world; ++k) {
    CheckDenseCpu(inputs[k], "alltoall");
    CheckDenseCpu(outputs[k], "alltoall");
    if (inputs[k].scalar_type() != inputs[0].scalar_type() || outputs[k].scalar_type() != inputs[0].scalar_type()) {
      Throw("alltoall: every input and output tensor must have one dtype");
    }
    send_counts.push_back(inputs[k].numel());
    recv_counts.push_back(outputs[k].numel());
  }
  return EnqueueAlltoall(c10d::OpType::ALLTOALL, inputs, outputs, send_counts, recv_counts, dtype);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                            std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) {
  CheckOne(inputs, "gather");
  at::Tensor in = inputs[0];
  CheckDenseCpu(in, "gather");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world) Throw("gather: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> outs;
  if (getRank() == root) {
    if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(world)) {
      Throw("gather needs one list of " + std::to_string(world) + " output tensors on the root");
    }
    outs = outputs[0];
    for (const at::Tensor& o : outs) {
      CheckDenseCpu(o, "gather");
      if (o.numel() != in.numel() || o.scalar_type() != in.scalar_type()) Throw("gather: output tensors must match the input's size and dtype");
    }
  } else if (!outputs.empty() && !outputs[0].empty()) {
    Throw("gather: only the root passes output tensors");
  }
  // Every rank sends its tensor to the root only.
  std::vector<int64_t> send(static_cast<size_t>(world), 0), recv(static_cast<size_t>(world), 0);
  send[static_cast<size_t>(root)] = in.numel();
  if (getRank() == root) recv.assign(static_cast<size_t>(world), in.numel());
  return EnqueueAlltoall(c10d::OpType::GATHER, {in}, outs, send, recv, DType(in));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::scatter(std::vector<at::Tensor>& outputs,
                                                             std::vector<std::vector<at::Tensor>>& inputs,
                                                             const c10d::ScatterOptions& opts) {
  CheckOne(outputs, "scatter");
  at::Tensor out = outputs[0];
  CheckDenseCpu(out, "scatter");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world) Throw("scatter: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> ins;
  if (getRank() == root) {
    if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(world)) {
      Throw("scatter needs one list of " + std::to_string(world) + " input tensors on the root");
    }
    ins = inputs[0];
    for (const at::Tensor& i : ins) {
      CheckDenseCpu(i, "scatter");
      if (i.numel() != out.numel() || i.scalar_type() != out.scalar_type()) Throw("scatter: input tensors must match the output's size and dtype");
    }
  } else if (!inputs.empty() && !inputs[0].empty()) {
    Throw("scatter: only the root passes input tensors");
  }
  // The root sends block r to rank r; every rank receives from the root only.
  std::vector<int64_t> send(static_cast<size_t>(world), 0), recv(static_cast<size_t>(world), 0);
  if (getRank() == root) send.assign(static_cast<size_t>(world), out.numel());
  recv[static_cast<size_t>(root)] = out.numel();
  return EnqueueAlltoall(c10d::OpType::SCATTER, ins, {out}, send, recv, DType(out));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  CheckOne(tensors, "reduce");
  at::Tensor t = tensors[0];
  CheckDenseCpu(t, "reduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  const int root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= getSize()) Throw("reduce: root rank " + std::to_string(root) + " is not in the group");
  bool is_root = getRank() == root;
  return Enqueue(c10d::OpType::REDUCE, {t}, [this, t, dtype, redop, is_root](Request& r) {
    // Only the root's tensor gets the result; the others' stay as they were.
    Staged in = Stage(*conn_, r, t, is_root ? &r.complete : nullptr);
    void* out = in.ptr;
    if (in.in_place && !is_root) {
      Buffer scratch = conn_->Acquire(t.nbytes());
      r.buffers.push_back(scratch);
      out = scratch.ptr;
    }
    r.submit = [this, in, out, t, dtype, redop] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_allreduce(conn_->client(), in.ptr, out, static_cast<uint64_t>(t.numel()), dtype, redop, &o, &h), "reduce");
      return h;
    };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                         const c10d::AllreduceCoalescedOptions& opts) {
  if (tensors.empty()) Throw("allreduce_coalesced needs at least one tensor");
  for (const at::Tensor& t : tensors) {
    CheckDenseCpu(t, "allreduce_coalesced");
    if (t.scalar_type() != tensors[0].scalar_type()) Throw("allreduce_coalesced: every tensor must have one dtype");
  }
  outrider_dtype_t dtype = DType(tensors[0]);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  std::vector<at::Tensor> ts = tensors;
  return Enqueue(c10d::OpType::ALLREDUCE_COALESCED, ts, [this, ts, dtype, redop](Request& r) {
    size_t bytes = 0;
    uint64_t count = 0;
    for (const at::Tensor& t : ts) {
      bytes += t.nbytes();
      count += static_cast<uint64_t>(t.numel());
    }
    Buffer b = conn_->Acquire(bytes);
    r.buffers.push_back(b);
    PackIn(ts, b.ptr);
    r.submit = [this, b, count, dtype, redop] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_allreduce(conn_->client(), b.ptr, b.ptr, count, dtype, redop, &o, &h), "allreduce_coalesced");
      return h;
    };
    r.complete = [b, ts](const outrider_op_result_t&) mutable { UnpackOut(b.ptr, ts); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                                         std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions&) {
  const size_t world = static_cast<size_t>(getSize());
  if (inputs.empty()) Throw("allgather_coalesced needs at least one input tensor");
  if (outputs.size() != world) Throw("allgather_coalesced needs " + std::to_string(world) + " output lists");
  for (const at::Tensor& t : inputs) {
    CheckDenseCpu(t, "allgather_coalesced");
    if (t.scalar_type() != inputs[0].scalar_type()) Throw("allgather_coalesced: every tensor must have one dtype");
  }
  for (const auto& list : outputs) {
    if (list.size() != inputs.size()) Throw("allgather_coalesced: each output list must match the inputs");
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].numel() != inputs[i].numel() || list[i].scalar_type() != inputs[i].scalar_type()) {
        Throw("allgather_coalesced: output tensors must match the inputs' sizes and dtype");
      }
    }
  }
  std::vector<at::Tensor> flat;
  for (const at::Tensor& t : inputs) flat.push_back(t.reshape({-1}));
  at::Tensor packed = at::cat(flat);
  std::vector<std::vector<at::Tensor>> outs = outputs;
  std::vector<at::Tensor> all;
  for (const auto& list : outs) all.insert(all.end(), list.begin(), list.end());
  size_t n = packed.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER_COALESCED, packed, all, [outs, n](void* gathered) mutable {
    for (size_t r = 0; r < outs.size(); ++r) UnpackOut(static_cast<uint8_t*>(gathered) + r * n, outs[r]);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                          const c10d::ReduceScatterOptions& opts) {
  CheckDenseCpu(input, "_reduce_scatter_base");
  CheckDenseCpu(output, "_reduce_scatter_base");
  if (input.numel() != output.numel() * getSize() || input.scalar_type() != output.scalar_type()) {
    Throw("_reduce_scatter_base: input must hold world_size x output elements of the output's dtype");
  }
  std::vector<at::Tensor> outs = {output};
  std::vector<std::vector<at::Tensor>> ins = {input.reshape({-1}).chunk(getSize())};
  return reduce_scatter(outs, ins, opts);
}

outrider_comm_t ProcessGroupOutrider::PairComm(int peer) {
  auto it = pairs_.find(peer);
  if (it != pairs_.end()) return it->second;
  int ranks[2] = {std::min(getRank(), peer), std::max(getRank(), peer)};
  outrider_comm_t c = OUTRIDER_COMM_NULL;
  conn_->Check(outrider_comm_create(conn_->client(), comm_, ranks, 2, &c), "connecting the pair for send/recv");
  pairs_.emplace(peer, c);
  return c;
}

std::function<void(Request&)> ProcessGroupOutrider::PairOp(at::Tensor t, int peer, int tag, bool sending) {
  const char* what = sending ? "send" : "recv";
  CheckDenseCpu(t, what);
  if (peer < 0 || peer >= getSize()) Throw(std::string(what) + ": rank " + std::to_string(peer) + " is not in the group");
  if (peer == getRank()) Throw(std::string(what) + ": a rank cannot " + what + " to itself");
  outrider_dtype_t dtype = DType(t);
  // The sender's rank in the pair is the root; the key names the direction and the tag, so
  // messages each way and of each tag match in the order they were sent.
  int root = sending ? (getRank() < peer ? 0 : 1) : (peer < getRank() ? 0 : 1);
  uint64_t key = outrider_key(("outrider.p2p/" + std::to_string(root) + "/" + std::to_string(tag)).c_str());
  return [this, t, dtype, peer, key, root, sending](Request& r) {
    outrider_comm_t pair = PairComm(peer);
    Buffer b = conn_->Acquire(t.nbytes());
    r.buffers.push_back(b);
    if (sending) CopyIn(t, b.ptr);
    r.submit = [this, b, t, dtype, pair, key, root] {
      outrider_op_options_t o = Options(0, key);
      o.comm = pair;
      outrider_op_t h = 0;
      conn_->Check(outrider_broadcast(conn_->client(), b.ptr, static_cast<uint64_t>(t.numel()), dtype, root, &o, &h),
                   "send/recv");
      return h;
    };
    if (!sending) r.complete = CopyOut(b.ptr, t);
  };
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::send(std::vector<at::Tensor>& tensors, int dst, int tag) {
  CheckOne(tensors, "send");
  auto work = Enqueue(c10d::OpType::SEND, {tensors[0]}, PairOp(tensors[0], dst, tag, true));
  any_source_->Sent(dst, tag);
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recv(std::vector<at::Tensor>& tensors, int src, int tag) {
  CheckOne(tensors, "recv");
  auto prepare = PairOp(tensors[0], src, tag, false);
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECV, std::vector<at::Tensor>{tensors[0]});
  work->set_source_rank(src);
  any_source_->Recv(src, tag, [this, work, prepare] {
    try {
      EnqueueWork(work, prepare);
    } catch (...) {
      work->Finish(std::current_exception());
    }
  });
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recvAnysource(std::vector<at::Tensor>& tensors, int tag) {
  CheckOne(tensors, "recv");
  at::Tensor t = tensors[0];
  CheckDenseCpu(t, "recv");
  (void)DType(t);
  if (!any_source_->enabled()) {
    Throw("recv without a source rank is turned off (OUTRIDER_TORCH_ANY_SOURCE=0): name the sender (src=...)");
  }
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECVANYSOURCE, std::vector<at::Tensor>{t});
  any_source_->RecvAny(
      tag,
      [this, work, t, tag](int src) {
        try {
          work->set_source_rank(src);
          EnqueueWork(work, PairOp(t, src, tag, false));
        } catch (...) {
          work->Finish(std::current_exception());
        }
      },
      [work](std::exception_ptr error) { work->Finish(error); });
  return work;
}

void ProcessGroupOutrider::monitoredBarrier(const c10d::BarrierOptions& opts, bool) {
  auto work = barrier(opts);
  auto limit = opts.timeout.count() > 0 ? opts.timeout : timeout_;
  if (!work->wait(std::chrono::duration_cast<std::chrono::milliseconds>(limit))) {
    Throw("monitored barrier: not every rank arrived within " + std::to_string(limit.count()) + " ms");
  }
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::barrier(const c10d::BarrierOptions&) {
  return Enqueue(c10d::OpType::BARRIER, {}, [this](Request& r) {
    r.submit = [this] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_barrier(conn_->client(), &o, &h), "barrier");
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
