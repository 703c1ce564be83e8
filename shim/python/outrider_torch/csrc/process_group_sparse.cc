// Sparse COO tensors in the "outrider" backend (see process_group.h): allreduce of sparse
// gradients (any number of sparse dimensions, folded into one row index), the Python-facing
// sparse allreduce with row demand, and the demand itself. CPU rows are coalesced into the shared
// heap and go in place, and the result is views of heap tensors (staging buffers where the heap
// cannot be used); CUDA ones go as they lie, ordered on the caller's current stream.
#include <ATen/ATen.h>
#include <ATen/SparseTensorImpl.h>
#include <c10/core/StreamGuard.h>

#include <cstring>
#include <limits>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/process_group.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {
namespace {

// Any COO tensor as one with a single sparse dimension: coalesced (sorted, no repeats), its sparse
// dimensions folded into one row-major row index, which keeps the order. UnfoldSparseDims undoes
// it.
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
  at::Tensor stride =
      at::tensor(strides, at::TensorOptions().dtype(at::kLong)).to(c.device()).view({sd, 1});
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
  return at::_sparse_coo_tensor_unsafe(at::stack(idx), rows._values(), like.sizes(), like.options())
      ._coalesced_(true);
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::AllreduceSparse(at::Tensor t) {
  std::optional<at::Tensor> demand;
  {
    std::lock_guard<std::mutex> l(mu_);
    demand.swap(demand_);
  }
  if (demand && t.sparse_dim() != 1)
    Throw("allreduce: row demand needs a tensor with one sparse dimension (rows)");
  std::optional<c10::Stream> stream;
  if (t.is_cuda()) stream = CurrentStream(t.device());
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::ALLREDUCE,
                                                std::vector<at::Tensor>{t}, stream);
  at::Tensor folded;
  {
    // Coalescing (the one copy of the rows DDP's gradient needs) writes them where the agent
    // reads them in place.
    ScopedSharedAllocation in_shared_memory;
    folded = FoldSparseDims(t);
  }
  // The whole result replaces the tensor (sorted unique ids: demanded rows are merged back in).
  EnqueueSparse(folded, demand, work, nullptr, [t, work](const SparseResult& r) mutable {
    at::Tensor out = r.Rows(0, r.total);
    if (r.demanded > 0) out = out.coalesce();
    out = UnfoldSparseDims(out, t);
    if (t.is_cuda()) {
      t.copy_(out);
      work->set_outputs({out});
      return;
    }
    // On the CPU the tensor takes the result's rows as they lie (views of the shared memory the
    // agent wrote), and is itself the work's result: DDP's copy of the result into the gradient
    // is then a copy onto itself, which copies nothing.
    static_cast<at::SparseTensorImpl*>(t.unsafeGetTensorImpl())
        ->set_indices_and_values_unsafe(out._indices(), out._values());
    t._coalesced_(true);
    work->set_outputs({t});
  });
  return work;
}

at::Tensor ProcessGroupOutrider::SparseResult::Rows(int64_t begin, int64_t end) const {
  int64_t n = end - begin;
  if (out_ids.defined()) {  // views of the result
    at::Tensor idx = out_ids.narrow(0, begin, n).view({1, n});
    return at::_sparse_coo_tensor_unsafe(idx, out_values.narrow(0, begin, n), like.sizes(),
                                         like.options())
        ._coalesced_(true);
  }
  at::Tensor idx = at::from_blob(static_cast<int64_t*>(ids) + begin, {1, n},
                                 at::TensorOptions().dtype(at::kLong))
                       .clone();
  std::vector<int64_t> shape = like.sizes().vec();
  shape.erase(shape.begin());
  int64_t row_elems = 1;
  for (int64_t d : shape) row_elems *= d;
  shape.insert(shape.begin(), n);
  at::Tensor v =
      at::from_blob(static_cast<uint8_t*>(values) + begin * row_elems * like.element_size(), shape,
                    like.options().layout(at::kStrided))
          .clone();
  Copies().bytes_out += idx.nbytes() + v.nbytes();
  // Each part is sorted by id without repeats.
  return at::_sparse_coo_tensor_unsafe(idx, v, like.sizes(), like.options())._coalesced_(true);
}

void ProcessGroupOutrider::EnqueueSparse(at::Tensor t, std::optional<at::Tensor> demand,
                                         c10::intrusive_ptr<OutriderWork> work,
                                         std::function<void(const SparseResult&)> demanded,
                                         std::function<void(const SparseResult&)> done) {
  if (!t.device().is_cpu() && !t.is_cuda())
    Throw("sparse allreduce: tensors must be on the CPU or a CUDA device, not " + t.device().str());
  if (!t.is_sparse()) Throw("sparse allreduce needs a sparse COO tensor");
  if (t.sparse_dim() != 1)
    Throw("sparse allreduce: tensors must have one sparse dimension (rows), got " +
          std::to_string(t.sparse_dim()));
  if (!t.is_coalesced()) t = t.coalesce();  // ids sorted, without repeats
  at::ScalarType st = t.scalar_type();
  if (st != at::kFloat && st != at::kHalf && st != at::kBFloat16)
    Throw("sparse allreduce: values must be float32, float16 or bfloat16");
  if (demand && (demand->is_sparse() ||
                 (demand->scalar_type() != at::kLong && demand->scalar_type() != at::kInt))) {
    Throw("sparse allreduce: demand ids must be a dense int64 or int32 tensor");
  }
  outrider_dtype_t dtype = DType(t);
  uint64_t rows = static_cast<uint64_t>(t.size(0));
  uint64_t dim = 1;
  for (int64_t d = 1; d < t.dim(); ++d) dim *= static_cast<uint64_t>(t.size(d));
  uint32_t algo = sparse_algo_;
  int32_t priority = NextPriority("sparse/" + std::to_string(rows) + "/" + std::to_string(dim) +
                                  "/" + std::to_string(dtype));
  seq_++;
  if (demand)
    demand = demand->to(at::kCPU).to(at::kLong).contiguous();  // demand ids travel in host memory
  // Demand ids into shared memory (worker).
  // The op's description: rows in at ids/values, the result out at out_ids/out_values.
  auto describe = [rows, dim, dtype, algo](void* ids, void* values, uint64_t nnz, void* out_ids,
                                           void* out_values) {
    outrider_sparse_t s;
    outrider_sparse_init(&s);
    s.rows = rows;
    s.dim = dim;
    s.dtype = dtype;
    s.id_dtype = OUTRIDER_I64;
    s.ids = ids;
    s.values = values;
    s.nnz = nnz;
    s.out_ids = out_ids;
    s.out_values = out_values;
    s.capacity = rows;
    s.algo = algo;
    return s;
  };
  auto stage_demand = [this, demand](Request& r, outrider_sparse_t& s) {
    if (!demand || demand->numel() == 0) return;
    size_t bytes = static_cast<size_t>(demand->numel()) * 8;
    Buffer db = conn_->Acquire(bytes);
    r.buffers.push_back(db);
    std::memcpy(db.ptr, demand->data_ptr<int64_t>(), bytes);
    Copies().bytes_in += bytes;
    s.demand_ids = db.ptr;
    s.demand_nnz = static_cast<uint64_t>(demand->numel());
  };
  if (const std::optional<c10::Stream>& stream = work->stream()) {
    // On the GPU: ids and values go as they lie (made contiguous on the caller's stream), the
    // result into tensors of the table's height, which the result rows then view. Demanded rows
    // reach the device with the rest (the stream copies results back once the op is done).
    at::Tensor idx = t._indices().select(0, 0).contiguous();
    at::Tensor vals = t._values().contiguous();
    std::vector<int64_t> shape = vals.sizes().vec();
    shape[0] = static_cast<int64_t>(rows);
    at::Tensor oi = at::empty({static_cast<int64_t>(rows)}, idx.options());
    at::Tensor ov = at::empty(shape, vals.options());
    outrider_sparse_t s =
        describe(idx.data_ptr(), vals.data_ptr(), static_cast<uint64_t>(idx.numel()), oi.data_ptr(),
                 ov.data_ptr());
    outrider_op_options_t o = Options(priority);
    o.cuda_stream = NativeStream(*stream);
    c10::Stream on = *stream;
    CheckGeneration();
    conn_->EnqueueOrdered(
        work, comm_, timeout_,
        [this, s, o, on, t, idx, vals, oi, ov, stage_demand, demanded, done](Request& r) mutable {
          stage_demand(r, s);
          r.submit = [this, s, o] {
            outrider_op_t h = 0;
            conn_->Check(outrider_sparse_allreduce(conn_->client(), &s, &o, &h),
                         "sparse allreduce");
            return h;
          };
          r.complete = [this, on, t, idx, vals, oi, ov, demanded,
                        done](const outrider_op_result_t& res) {
            c10::StreamGuard on_op_stream(on);  // what the result's users queue follows the op
            last_sparse_algo_ = res.algo;
            SparseResult result{oi.data_ptr(),
                                ov.data_ptr(),
                                t,
                                static_cast<int64_t>(res.result_rows),
                                static_cast<int64_t>(res.demand_rows),
                                oi,
                                ov};
            if (demanded) demanded(result);
            done(result);
          };
        });
    return;
  }
  EnqueueWork(work, [this, t, rows, dim, describe, stage_demand, priority, demanded,
                     done](Request& r) mutable {
    at::Tensor idx = t._indices().select(0, 0).contiguous();
    at::Tensor vals = t._values().contiguous();
    uint64_t nnz = static_cast<uint64_t>(idx.numel());
    size_t elem = static_cast<size_t>(vals.element_size());
    // The rows go where they lie if they are in shared memory (coalesced there, as
    // AllreduceSparse does), else through staging buffers.
    void* in_ids = SharedData(*conn_, idx);
    void* in_values = SharedData(*conn_, vals);
    if (in_ids != nullptr && in_values != nullptr) {
      Copies().tensors_in_place++;
      r.in_place = {idx.data_ptr(), vals.data_ptr()};
    } else if (nnz > 0) {
      Buffer ib = conn_->Acquire(nnz * 8), vb = conn_->Acquire(nnz * dim * elem);
      r.buffers = {ib, vb};
      Copies().tensors_staged++;
      Copies().bytes_in += nnz * 8 + nnz * dim * elem;
      std::memcpy(ib.ptr, idx.data_ptr<int64_t>(), nnz * 8);
      std::memcpy(vb.ptr, vals.data_ptr(), nnz * dim * elem);
      in_ids = ib.ptr;
      in_values = vb.ptr;
    }
    // The result: tensors in shared memory, of the table's height, which the result rows view
    // (a staging buffer copied out where shared memory cannot be had).
    at::Tensor out_ids, out_values;
    void *oi = nullptr, *ov = nullptr;
    {
      ScopedSharedAllocation in_shared_memory;
      std::vector<int64_t> shape = vals.sizes().vec();
      shape[0] = static_cast<int64_t>(rows);
      out_ids = at::empty({static_cast<int64_t>(rows)}, idx.options());
      out_values = at::empty(shape, vals.options());
    }
    oi = SharedData(*conn_, out_ids);
    ov = SharedData(*conn_, out_values);
    if (oi != nullptr && ov != nullptr) {
      r.in_place.push_back(out_ids.data_ptr());
      r.in_place.push_back(out_values.data_ptr());
    } else {
      out_ids = at::Tensor();
      out_values = at::Tensor();
      Buffer bi = conn_->Acquire(rows * 8), bv = conn_->Acquire(rows * dim * elem);
      r.buffers.push_back(bi);
      r.buffers.push_back(bv);
      oi = bi.ptr;
      ov = bv.ptr;
    }
    outrider_sparse_t s = describe(in_ids, in_values, nnz, oi, ov);
    stage_demand(r, s);
    r.submit = [this, s, priority] {
      outrider_op_options_t o = Options(priority);
      outrider_op_t h = 0;
      conn_->Check(outrider_sparse_allreduce(conn_->client(), &s, &o, &h), "sparse allreduce");
      return h;
    };
    // The result views, in this process's own mapping (the agent wrote them through the
    // connection's).
    void* ids = out_ids.defined() ? out_ids.data_ptr() : oi;
    void* values = out_values.defined() ? out_values.data_ptr() : ov;
    auto result = [ids, values, t, out_ids, out_values](const outrider_op_result_t& res) {
      return SparseResult{ids,
                          values,
                          t,
                          static_cast<int64_t>(res.result_rows),
                          static_cast<int64_t>(res.demand_rows),
                          out_ids,
                          out_values};
    };
    if (demanded)
      r.on_demand = [demanded, result](const outrider_op_result_t& res) { demanded(result(res)); };
    // The inputs live until the op is done (a failed one abandons their memory).
    r.complete = [this, done, result, idx, vals](const outrider_op_result_t& res) {
      last_sparse_algo_ = res.algo;
      done(result(res));
    };
  });
}

c10::intrusive_ptr<SparseWork> ProcessGroupOutrider::SparseAllreduce(
    at::Tensor t, std::optional<at::Tensor> demand) {
  std::optional<c10::Stream> stream;
  if (t.is_cuda()) stream = CurrentStream(t.device());
  auto work = c10::make_intrusive<SparseWork>(getRank(), c10d::OpType::ALLREDUCE,
                                              std::vector<at::Tensor>{}, stream);
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
  }
  if (stream())
    wait();  // on the GPU they come with the rest: the caller's stream waits for its copy back
  {
    std::lock_guard<std::mutex> l(m_);
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

void ProcessGroupOutrider::SetDemand(at::Tensor ids) {
  if (ids.is_sparse() || !ids.device().is_cpu()) Throw("demand ids must be a dense CPU tensor");
  if (ids.scalar_type() != at::kLong && ids.scalar_type() != at::kInt)
    Throw("demand ids must be int64 or int32");
  std::lock_guard<std::mutex> l(mu_);
  demand_ = ids.flatten().to(at::kLong).clone();
}

}  // namespace outrider::torch_backend
