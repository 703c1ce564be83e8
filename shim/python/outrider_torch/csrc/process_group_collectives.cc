// The "outrider" backend's dense collectives (see process_group.h): broadcast, the reductions,
// the allgathers and reduce-scatters, and barriers. CPU tensors are staged through shared memory
// (staging.h) unless they lie in it; CUDA ones go on the caller's stream (process_group_cuda.cc).
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/process_group.h"
#include "shim/python/outrider_torch/csrc/staging.h"

namespace outrider::torch_backend {

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::broadcast(std::vector<at::Tensor>& tensors,
                                                               const c10d::BroadcastOptions& opts) {
  CheckOne(tensors, "broadcast");
  at::Tensor t = tensors[0];
  CheckDense(t, "broadcast");
  outrider_dtype_t dtype = DType(t);
  if (opts.rootTensor != 0) Throw("broadcast: rootTensor must be 0");
  if (opts.rootRank < 0 || opts.rootRank >= getSize())
    Throw("broadcast: root rank " + std::to_string(opts.rootRank) + " is not in the group");
  int root = static_cast<int>(opts.rootRank);
  if (auto dev = CudaDevice({t}, "broadcast")) {
    at::Tensor buf = Dense(t);
    return EnqueueOnStream(
        c10d::OpType::BROADCAST, {t}, *dev, Options(), "broadcast",
        [this, buf, dtype, root](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_broadcast(conn_->client(), buf.data_ptr(),
                                    static_cast<uint64_t>(buf.numel()), dtype, root, o, h);
        },
        CopyInto(buf, t));
  }
  return Enqueue(c10d::OpType::BROADCAST, {t}, [this, t, dtype, root](Request& r) {
    void* p = Stage(*conn_, r, t, &r.complete).ptr;
    r.submit = [this, p, t, dtype, root] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_broadcast(conn_->client(), p, static_cast<uint64_t>(t.numel()), dtype,
                                      root, &o, &h),
                   "broadcast");
      return h;
    };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allreduce(std::vector<at::Tensor>& tensors,
                                                               const c10d::AllreduceOptions& opts) {
  CheckOne(tensors, "allreduce");
  at::Tensor t = tensors[0];
  if (t.is_sparse()) {
    if (RedOp(opts.reduceOp) != OUTRIDER_SUM) Throw("allreduce of sparse tensors sums only");
    return AllreduceSparse(t);
  }
  CheckDense(t, "allreduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  int32_t priority =
      NextPriority("allreduce/" + std::to_string(t.numel()) + "/" + std::to_string(dtype));
  if (auto dev = CudaDevice({t}, "allreduce")) {
    at::Tensor buf = Dense(t);
    return EnqueueOnStream(
        c10d::OpType::ALLREDUCE, {t}, *dev, Options(priority), "allreduce",
        [this, buf, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          void* p = buf.data_ptr();
          return outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(buf.numel()),
                                    dtype, redop, o, h);
        },
        CopyInto(buf, t));
  }
  return Enqueue(c10d::OpType::ALLREDUCE, {t}, [this, t, dtype, redop, priority](Request& r) {
    void* p = Stage(*conn_, r, t, &r.complete).ptr;
    r.submit = [this, p, t, dtype, redop, priority] {
      outrider_op_options_t o = Options(priority);
      outrider_op_t h = 0;
      conn_->Check(outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(t.numel()),
                                      dtype, redop, &o, &h),
                   "allreduce");
      return h;
    };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions&) {
  CheckOne(inputs, "allgather");
  at::Tensor in = inputs[0];
  CheckDense(in, "allgather");
  if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("allgather needs one list of " + std::to_string(getSize()) + " output tensors");
  }
  std::vector<at::Tensor> outs = outputs[0];
  for (const at::Tensor& o : outs) {
    CheckDense(o, "allgather");
    if (o.numel() != in.numel() || o.scalar_type() != in.scalar_type())
      Throw("allgather: output tensors must match the input's size and dtype");
  }
  std::vector<at::Tensor> all = outs;
  all.push_back(in);
  if (auto dev = CudaDevice(all, "allgather"))
    return AllgatherOnStream(c10d::OpType::ALLGATHER, *dev, in, DType(in), outs);
  size_t n = in.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER, in, outs, [outs, n](void* gathered) mutable {
    for (size_t k = 0; k < outs.size(); ++k) {
      CopyBack(static_cast<uint8_t*>(gathered) + k * n, outs[k]);
    }
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_allgather_base(
    at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions&) {
  CheckDense(input, "_allgather_base");
  CheckDense(output, "_allgather_base");
  if (output.numel() != input.numel() * getSize() || output.scalar_type() != input.scalar_type()) {
    Throw("_allgather_base: output must hold world_size x input elements of the input's dtype");
  }
  at::Tensor out = output;
  if (auto dev = CudaDevice({input, output}, "_allgather_base")) {
    return AllgatherOnStream(c10d::OpType::_ALLGATHER_BASE, *dev, input, DType(input), {out});
  }
  return EnqueueAllgather(c10d::OpType::_ALLGATHER_BASE, input, {out},
                          [out](void* gathered) mutable { CopyBack(gathered, out); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueAllgather(
    c10d::OpType type, at::Tensor in, std::vector<at::Tensor> outputs,
    std::function<void(void*)> copy_out) {
  outrider_dtype_t dtype = DType(in);
  return Enqueue(type, std::move(outputs), [this, in, dtype, copy_out](Request& r) {
    Buffer s = conn_->Acquire(in.nbytes()),
           g = conn_->Acquire(in.nbytes() * static_cast<size_t>(getSize()));
    r.buffers = {s, g};
    CopyIn(in, s.ptr);
    r.submit = [this, s, g, in, dtype] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(outrider_allgather(conn_->client(), s.ptr, g.ptr,
                                      static_cast<uint64_t>(in.numel()), dtype, &o, &h),
                   "allgather");
      return h;
    };
    r.complete = [g, copy_out](const outrider_op_result_t&) { copy_out(g.ptr); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  CheckOne(outputs, "reduce_scatter");
  at::Tensor out = outputs[0];
  CheckDense(out, "reduce_scatter");
  outrider_dtype_t dtype = DType(out);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("reduce_scatter needs one list of " + std::to_string(getSize()) + " input tensors");
  }
  std::vector<at::Tensor> ins = inputs[0];
  for (const at::Tensor& i : ins) {
    CheckDense(i, "reduce_scatter");
    if (i.numel() != out.numel() || i.scalar_type() != out.scalar_type())
      Throw("reduce_scatter: input tensors must match the output's size and dtype");
  }
  std::vector<at::Tensor> all = ins;
  all.push_back(out);
  if (auto dev = CudaDevice(all, "reduce_scatter")) {
    at::Tensor send = Pack(ins, out), recv = Dense(out);
    return EnqueueOnStream(
        c10d::OpType::REDUCE_SCATTER, {out}, *dev, Options(), "reduce_scatter",
        [this, send, recv, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_reduce_scatter(conn_->client(), send.data_ptr(), recv.data_ptr(),
                                         static_cast<uint64_t>(recv.numel()), dtype, redop, o, h);
        },
        CopyInto(recv, out));
  }
  return Enqueue(c10d::OpType::REDUCE_SCATTER, {out}, [this, out, ins, dtype, redop](Request& r) {
    size_t n = out.nbytes();
    Buffer s = conn_->Acquire(n * ins.size()), g = conn_->Acquire(n);
    r.buffers = {s, g};
    for (size_t k = 0; k < ins.size(); ++k) CopyIn(ins[k], static_cast<uint8_t*>(s.ptr) + k * n);
    r.submit = [this, s, g, out, dtype, redop] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(
          outrider_reduce_scatter(conn_->client(), s.ptr, g.ptr, static_cast<uint64_t>(out.numel()),
                                  dtype, redop, &o, &h),
          "reduce_scatter");
      return h;
    };
    r.complete = CopyOut(g.ptr, out);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::reduce(std::vector<at::Tensor>& tensors,
                                                            const c10d::ReduceOptions& opts) {
  CheckOne(tensors, "reduce");
  at::Tensor t = tensors[0];
  CheckDense(t, "reduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  const int root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= getSize())
    Throw("reduce: root rank " + std::to_string(root) + " is not in the group");
  bool is_root = getRank() == root;
  if (auto dev = CudaDevice({t}, "reduce")) {
    at::Tensor in = Dense(t);
    at::Tensor out = is_root ? in : at::empty_like(in);  // only the root's tensor gets the result
    return EnqueueOnStream(
        c10d::OpType::REDUCE, {t}, *dev, Options(), "reduce",
        [this, in, out, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_allreduce(conn_->client(), in.data_ptr(), out.data_ptr(),
                                    static_cast<uint64_t>(in.numel()), dtype, redop, o, h);
        },
        is_root ? CopyInto(in, t) : nullptr);
  }
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
      conn_->Check(outrider_allreduce(conn_->client(), in.ptr, out,
                                      static_cast<uint64_t>(t.numel()), dtype, redop, &o, &h),
                   "reduce");
      return h;
    };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allreduce_coalesced(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  if (tensors.empty()) Throw("allreduce_coalesced needs at least one tensor");
  for (const at::Tensor& t : tensors) {
    CheckDense(t, "allreduce_coalesced");
    if (t.scalar_type() != tensors[0].scalar_type())
      Throw("allreduce_coalesced: every tensor must have one dtype");
  }
  outrider_dtype_t dtype = DType(tensors[0]);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  std::vector<at::Tensor> ts = tensors;
  if (auto dev = CudaDevice(ts, "allreduce_coalesced")) {
    at::Tensor packed = Pack(ts, ts[0]);
    return EnqueueOnStream(
        c10d::OpType::ALLREDUCE_COALESCED, ts, *dev, Options(), "allreduce_coalesced",
        [this, packed, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          void* p = packed.data_ptr();
          return outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(packed.numel()),
                                    dtype, redop, o, h);
        },
        [packed, ts]() mutable { Unpack(packed, ts); });
  }
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
      conn_->Check(outrider_allreduce(conn_->client(), b.ptr, b.ptr, count, dtype, redop, &o, &h),
                   "allreduce_coalesced");
      return h;
    };
    r.complete = [b, ts](const outrider_op_result_t&) mutable { UnpackOut(b.ptr, ts); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions&) {
  const size_t world = static_cast<size_t>(getSize());
  if (inputs.empty()) Throw("allgather_coalesced needs at least one input tensor");
  if (outputs.size() != world)
    Throw("allgather_coalesced needs " + std::to_string(world) + " output lists");
  for (const at::Tensor& t : inputs) {
    CheckDense(t, "allgather_coalesced");
    if (t.scalar_type() != inputs[0].scalar_type())
      Throw("allgather_coalesced: every tensor must have one dtype");
  }
  for (const auto& list : outputs) {
    if (list.size() != inputs.size())
      Throw("allgather_coalesced: each output list must match the inputs");
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].numel() != inputs[i].numel() ||
          list[i].scalar_type() != inputs[i].scalar_type()) {
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
  std::vector<at::Tensor> every = all;
  every.insert(every.end(), inputs.begin(), inputs.end());
  if (auto dev = CudaDevice(every, "allgather_coalesced")) {
    // Rank r's packed inputs land in rank order: its output list's tensors, one after another.
    return AllgatherOnStream(c10d::OpType::ALLGATHER_COALESCED, *dev, packed, DType(packed), all);
  }
  size_t n = packed.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER_COALESCED, packed, all,
                          [outs, n](void* gathered) mutable {
                            for (size_t r = 0; r < outs.size(); ++r)
                              UnpackOut(static_cast<uint8_t*>(gathered) + r * n, outs[r]);
                          });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  CheckDense(input, "_reduce_scatter_base");
  CheckDense(output, "_reduce_scatter_base");
  if (input.numel() != output.numel() * getSize() || input.scalar_type() != output.scalar_type()) {
    Throw(
        "_reduce_scatter_base: input must hold world_size x output elements of the output's dtype");
  }
  std::vector<at::Tensor> outs = {output};
  std::vector<std::vector<at::Tensor>> ins = {input.reshape({-1}).chunk(getSize())};
  return reduce_scatter(outs, ins, opts);
}

void ProcessGroupOutrider::monitoredBarrier(const c10d::BarrierOptions& opts, bool) {
  auto work = barrier(opts);
  auto limit = opts.timeout.count() > 0 ? opts.timeout : timeout_;
  if (!work->wait(std::chrono::duration_cast<std::chrono::milliseconds>(limit))) {
    Throw("monitored barrier: not every rank arrived within " + std::to_string(limit.count()) +
          " ms");
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

}  // namespace outrider::torch_backend
