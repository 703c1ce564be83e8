// The "outrider" torch.distributed backend (see process_group.h): a group's construction and
// teardown, its factories, and what every op shares (options, queueing, priorities); then its
// ops, by family: the dense collectives, alltoall and what is built on it, point to point, ops on
// CUDA tensors, sparse tensors.
#include "shim/python/outrider_torch/csrc/process_group.h"

#include <ATen/ATen.h>
#include <ATen/SparseTensorImpl.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipc/defaults.h"
#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"
#include "shim/python/outrider_torch/csrc/staging.h"

namespace outrider::torch_backend {

ProcessGroupOutrider::ProcessGroupOutrider(std::shared_ptr<Connection> conn, outrider_comm_t comm,
                                           int rank, int size, std::chrono::milliseconds timeout)
    : BackendBase(rank, size), conn_(std::move(conn)), comm_(comm), timeout_(timeout) {
  generation_ = conn_->generation();
  InitBackend();
  // From now on the buffers collectives work on (DDP's buckets, gradients) are born in memory
  // the agent can use in place.
  EnableSharedAllocationFromEnv();
}

ProcessGroupOutrider::~ProcessGroupOutrider() {
  if (comm_ != OUTRIDER_COMM_WORLD) conn_->DropComm(comm_);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::Create(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
    const std::chrono::duration<float>& timeout) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(Connection::Open(rank, size),
                                                   OUTRIDER_COMM_WORLD, rank, size, ms);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::CreateGroup(
    const c10::intrusive_ptr<c10d::Store>& store, const std::vector<int>& ranks, int job_rank,
    int job_size, int rank, int size, const std::chrono::duration<float>& timeout) {
  if (static_cast<int>(ranks.size()) != size || rank < 0 || rank >= size ||
      ranks[static_cast<size_t>(rank)] != job_rank) {
    Throw("new group: rank " + std::to_string(rank) + " of " + std::to_string(size) +
          " does not match its member list");
  }
  std::shared_ptr<Connection> conn = Connection::Current();
  if (!conn || conn->rank() != job_rank) conn = Connection::Open(job_rank, job_size);
  outrider_comm_t comm = OUTRIDER_COMM_NULL;
  conn->Call([&] {
    conn->Check(
        outrider_comm_create(conn->client(), OUTRIDER_COMM_WORLD, ranks.data(), size, &comm),
        "creating the group");
  });
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(conn, comm, rank, size, ms);
}

void ProcessGroupOutrider::CheckGeneration() const {
  if (conn_->generation() != generation_) {
    Throw(
        "this process group belongs to an earlier generation of the job, which re-formed "
        "since (outrider_torch.reconfigure): use the new default group");
  }
}

outrider_op_options_t ProcessGroupOutrider::Options(int32_t priority, uint64_t key) const {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.comm = comm_;
  o.priority = priority != 0 ? priority : priority_.load();
  o.key = key;
  return o;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::Enqueue(
    c10d::OpType type, std::vector<at::Tensor> outputs, std::function<void(Request&)> prepare) {
  auto work = c10::make_intrusive<OutriderWork>(getRank(), type, std::move(outputs));
  if (type != c10d::OpType::SEND) seq_++;  // collectives only (receives do not come here)
  EnqueueWork(work, std::move(prepare));
  return work;
}

int32_t ProcessGroupOutrider::NextPriority(const std::string& signature, uint64_t bytes) {
  if (int32_t p = priority_.load(); p != 0) return p;
  std::lock_guard<std::mutex> l(mu_);
  if (!iteration_.insert(signature).second) {  // seen in this iteration: a new one starts
    iteration_.clear();
    iteration_.insert(signature);
  }
  int32_t i = static_cast<int32_t>(iteration_.size()) - 1;
  return ipc::DefaultPriority(i, bytes);
}

// ---- The "outrider" backend's dense collectives (see process_group.h): broadcast, the reductions,
// the allgathers and reduce-scatters, and barriers. CPU tensors are staged through shared memory
// (staging.h) unless they lie in it; CUDA ones go on the caller's stream (below).

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
      NextPriority("allreduce/" + std::to_string(t.numel()) + "/" + std::to_string(dtype),
                   static_cast<uint64_t>(t.nbytes()));
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

// ---- The "outrider" backend's alltoall and the ops built on it (see process_group.h):
// alltoall_base with split sizes, alltoall of tensor lists, and gather and scatter as alltoallvs in
// which only the root's blocks are not empty.

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::alltoall_base(
    at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
    std::vector<int64_t>& input_splits, const c10d::AllToAllOptions&) {
  CheckDense(input, "alltoall_base");
  CheckDense(output, "alltoall_base");
  outrider_dtype_t dtype = DType(input);
  if (output.scalar_type() != input.scalar_type())
    Throw("alltoall_base: input and output dtypes differ");
  if (input.dim() == 0 || output.dim() == 0)
    Throw("alltoall_base: tensors need at least one dimension");
  const int world = getSize();
  auto splits = [&](std::vector<int64_t> s, const at::Tensor& t, const char* which) {
    int64_t rows = t.size(0);
    if (s.empty()) {
      if (rows % world != 0)
        Throw(std::string("alltoall_base: ") + which + " has " + std::to_string(rows) +
              " rows, not divisible by " + std::to_string(world));
      s.assign(static_cast<size_t>(world), rows / world);
    }
    if (s.size() != static_cast<size_t>(world))
      Throw(std::string("alltoall_base: ") + which + " split sizes need " + std::to_string(world) +
            " entries");
    int64_t sum = 0;
    for (int64_t x : s) {
      if (x < 0) Throw(std::string("alltoall_base: negative ") + which + " split size");
      sum += x;
    }
    if (sum != rows)
      Throw(std::string("alltoall_base: ") + which + " split sizes add up to " +
            std::to_string(sum) + ", not " + std::to_string(rows));
    int64_t row_elems = rows > 0 ? t.numel() / rows : 0;
    for (int64_t& x : s) x *= row_elems;
    return s;
  };
  std::vector<int64_t> send_counts = splits(input_splits, input, "input");
  std::vector<int64_t> recv_counts = splits(output_splits, output, "output");
  return EnqueueAlltoall(c10d::OpType::ALLTOALL_BASE, {input}, {output}, send_counts, recv_counts,
                         dtype);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueAlltoall(
    c10d::OpType type, std::vector<at::Tensor> ins, std::vector<at::Tensor> outs,
    std::vector<int64_t> send_counts, std::vector<int64_t> recv_counts, outrider_dtype_t dtype) {
  std::vector<at::Tensor> all = ins;
  all.insert(all.end(), outs.begin(), outs.end());
  if (auto dev = CudaDevice(all, c10d::opTypeToString(type).c_str())) {
    return AlltoallOnStream(type, *dev, ins, outs, send_counts, recv_counts, dtype);
  }
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
      conn_->Check(outrider_alltoallv(conn_->client(), s.ptr, send_counts.data(), g.ptr,
                                      recv_counts.data(), dtype, &o, &h),
                   "alltoall");
      return h;
    };
    r.complete = [g, outs](const outrider_op_result_t&) mutable { UnpackOut(g.ptr, outs); };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::alltoall(std::vector<at::Tensor>& outputs,
                                                              std::vector<at::Tensor>& inputs,
                                                              const c10d::AllToAllOptions&) {
  const size_t world = static_cast<size_t>(getSize());
  if (inputs.size() != world || outputs.size() != world) {
    Throw("alltoall needs " + std::to_string(world) + " input and output tensors, got " +
          std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  }
  outrider_dtype_t dtype = DType(inputs[0]);
  std::vector<int64_t> send_counts, recv_counts;
  for (size_t k = 0; k < world; ++k) {
    CheckDense(inputs[k], "alltoall");
    CheckDense(outputs[k], "alltoall");
    if (inputs[k].scalar_type() != inputs[0].scalar_type() ||
        outputs[k].scalar_type() != inputs[0].scalar_type()) {
      Throw("alltoall: every input and output tensor must have one dtype");
    }
    send_counts.push_back(inputs[k].numel());
    recv_counts.push_back(outputs[k].numel());
  }
  return EnqueueAlltoall(c10d::OpType::ALLTOALL, inputs, outputs, send_counts, recv_counts, dtype);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  CheckOne(inputs, "gather");
  at::Tensor in = inputs[0];
  CheckDense(in, "gather");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world)
    Throw("gather: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> outs;
  if (getRank() == root) {
    if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(world)) {
      Throw("gather needs one list of " + std::to_string(world) + " output tensors on the root");
    }
    outs = outputs[0];
    for (const at::Tensor& o : outs) {
      CheckDense(o, "gather");
      if (o.numel() != in.numel() || o.scalar_type() != in.scalar_type())
        Throw("gather: output tensors must match the input's size and dtype");
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

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  CheckOne(outputs, "scatter");
  at::Tensor out = outputs[0];
  CheckDense(out, "scatter");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world)
    Throw("scatter: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> ins;
  if (getRank() == root) {
    if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(world)) {
      Throw("scatter needs one list of " + std::to_string(world) + " input tensors on the root");
    }
    ins = inputs[0];
    for (const at::Tensor& i : ins) {
      CheckDense(i, "scatter");
      if (i.numel() != out.numel() || i.scalar_type() != out.scalar_type())
        Throw("scatter: input tensors must match the output's size and dtype");
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

// ---- The "outrider" backend's point-to-point ops (see process_group.h): send, recv and recv from
// any source go from agent to agent in the group's own communicator, matched there per (sender,
// receiver, tag) in the order each side posted them.

outrider_dtype_t ProcessGroupOutrider::CheckPeer(const at::Tensor& t, int peer, bool sending) {
  const char* what = sending ? "send" : "recv";
  CheckDense(t, what);
  if (peer < 0 || peer >= getSize())
    Throw(std::string(what) + ": rank " + std::to_string(peer) + " is not in the group");
  if (peer == getRank()) Throw(std::string(what) + ": a rank cannot " + what + " to itself");
  return DType(t);
}

int ProcessGroupOutrider::PointOp(outrider_op_options_t* o, void* buf, const at::Tensor& t,
                                  outrider_dtype_t dtype, int peer, int tag, bool sending,
                                  outrider_op_t* h) {
  auto n = static_cast<uint64_t>(t.numel());
  return sending ? outrider_send(conn_->client(), buf, n, dtype, peer, tag, o, h)
                 : outrider_recv(conn_->client(), buf, n, dtype, peer, tag, o, h);
}

void ProcessGroupOutrider::PointOnStream(const c10::intrusive_ptr<OutriderWork>& work, at::Tensor t,
                                         int peer, int tag, bool sending) {
  c10::StreamGuard on_stream(*work->stream());
  outrider_dtype_t dtype = CheckPeer(t, peer, sending);
  at::Tensor buf = Dense(t);
  SubmitOnStream(
      work, Options(), sending ? "send" : "recv",
      [this, buf, dtype, peer, tag, sending](outrider_op_options_t* o, outrider_op_t* h) {
        return PointOp(o, buf.data_ptr(), buf, dtype, peer, tag, sending, h);
      },
      sending ? nullptr : CopyInto(buf, t));
}

std::function<void(Request&)> ProcessGroupOutrider::Point(at::Tensor t, int peer, int tag,
                                                          bool sending) {
  outrider_dtype_t dtype = peer == OUTRIDER_ANY_SOURCE ? DType(t) : CheckPeer(t, peer, sending);
  return [this, t, dtype, peer, tag, sending](Request& r) {
    Buffer b = conn_->Acquire(t.nbytes());
    r.buffers.push_back(b);
    if (sending) CopyIn(t, b.ptr);
    r.submit = [this, b, t, dtype, peer, tag, sending] {
      outrider_op_options_t o = Options();
      outrider_op_t h = 0;
      conn_->Check(PointOp(&o, b.ptr, t, dtype, peer, tag, sending, &h), "send/recv");
      return h;
    };
    if (sending) return;
    std::function<void(const outrider_op_result_t&)> out = CopyOut(b.ptr, t);
    r.complete = [work = r.work, out](const outrider_op_result_t& res) {
      work->set_source_rank(res.source);
      if (out) out(res);
    };
  };
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::send(std::vector<at::Tensor>& tensors, int dst,
                                                          int tag) {
  CheckOne(tensors, "send");
  if (tensors[0].is_cuda()) {
    auto w = StreamWork(c10d::OpType::SEND, {tensors[0]}, tensors[0].device());
    PointOnStream(w, tensors[0], dst, tag, true);
    return w;
  }
  return Enqueue(c10d::OpType::SEND, {tensors[0]}, Point(tensors[0], dst, tag, true));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recv(std::vector<at::Tensor>& tensors, int src,
                                                          int tag) {
  CheckOne(tensors, "recv");
  at::Tensor t = tensors[0];
  if (t.is_cuda()) {
    auto work = StreamWork(c10d::OpType::RECV, {t}, t.device());
    work->set_source_rank(src);
    PointOnStream(work, t, src, tag, false);
    return work;
  }
  auto prepare = Point(t, src, tag, false);
  auto work =
      c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECV, std::vector<at::Tensor>{t});
  work->set_source_rank(src);
  EnqueueWork(work, prepare);
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recvAnysource(std::vector<at::Tensor>& tensors,
                                                                   int tag) {
  CheckOne(tensors, "recv");
  at::Tensor t = tensors[0];
  CheckDense(t, "recv");
  if (t.is_cuda())
    Throw(
        "recv without a source rank takes CPU tensors only: name the sender (src=...) of a CUDA "
        "tensor");
  auto prepare = Point(t, OUTRIDER_ANY_SOURCE, tag, false);
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECVANYSOURCE,
                                                std::vector<at::Tensor>{t});
  EnqueueWork(work, prepare);
  return work;
}

// ---- Ops on CUDA tensors (see process_group.h): everything an op queues on the GPU (packing its
// inputs, the shim's fences and copies, unpacking its result) goes on the caller's current stream
// before the call returns, so the op takes its place in the stream's order and the host never waits
// for the communication.

c10::Stream CurrentStream(c10::Device device) {
  return c10::impl::VirtualGuardImpl(device.type()).getStream(device);
}

#if !OUTRIDER_TORCH_CUDA
// A PyTorch without CUDA has no CUDA tensors to get here with.
void* NativeStream(const c10::Stream& stream) {
  throw std::runtime_error("outrider: this PyTorch has no CUDA (stream " +
                           std::to_string(stream.id()) + ")");
}
bool HookCudaAllocator() { return false; }
#endif

at::Tensor Dense(const at::Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

std::function<void()> CopyInto(at::Tensor result, at::Tensor t) {
  if (result.is_same(t)) return nullptr;
  return [result, t]() mutable { t.copy_(result.view(t.sizes())); };
}

at::Tensor Pack(const std::vector<at::Tensor>& ts, const at::Tensor& like) {
  if (ts.empty()) return at::empty({0}, like.options());
  std::vector<at::Tensor> flat;
  flat.reserve(ts.size());
  for (const at::Tensor& t : ts) flat.push_back(t.reshape({-1}));
  return at::cat(flat);
}

void Unpack(const at::Tensor& flat, std::vector<at::Tensor>& ts) {
  int64_t at = 0;
  for (at::Tensor& t : ts) {
    t.copy_(flat.narrow(0, at, t.numel()).view(t.sizes()));
    at += t.numel();
  }
}

c10::intrusive_ptr<OutriderWork> ProcessGroupOutrider::StreamWork(c10d::OpType type,
                                                                  std::vector<at::Tensor> outputs,
                                                                  c10::Device device) {
  static const bool hooked = HookCudaAllocator();  // once, before the first op registers GPU memory
  (void)hooked;
  return c10::make_intrusive<OutriderWork>(getRank(), type, std::move(outputs),
                                           CurrentStream(device));
}

void ProcessGroupOutrider::SubmitOnStream(const c10::intrusive_ptr<OutriderWork>& work,
                                          outrider_op_options_t opts, const char* what,
                                          StreamCall call, std::function<void()> copy_out) {
  c10::Stream stream = *work->stream();
  opts.cuda_stream = NativeStream(stream);
  std::string name = what;
  CheckGeneration();
  conn_->EnqueueOrdered(work, comm_, timeout_,
                        [this, stream, opts, name, call = std::move(call),
                         copy_out = std::move(copy_out)](Request& r) {
                          // The result's copies are queued right behind the op, before anything can
                          // complete it (its future records where it is ready on the stream); one
                          // that fails fails the op once done.
                          auto late = std::make_shared<std::exception_ptr>();
                          r.submit = [this, stream, opts, name, call, copy_out, late]() mutable {
                            outrider_op_t h = 0;
                            conn_->Check(call(&opts, &h), name.c_str());
                            if (copy_out) {
                              try {
                                c10::StreamGuard on_stream(stream);
                                copy_out();
                              } catch (...) {
                                *late = std::current_exception();
                              }
                            }
                            return h;
                          };
                          r.complete = [late](const outrider_op_result_t&) {
                            if (*late) std::rethrow_exception(*late);
                          };
                        });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::EnqueueOnStream(
    c10d::OpType type, std::vector<at::Tensor> outputs, c10::Device device,
    outrider_op_options_t opts, const char* what, StreamCall call, std::function<void()> copy_out) {
  auto work = StreamWork(type, std::move(outputs), device);
  if (type != c10d::OpType::SEND) seq_++;  // collectives only (receives do not come here)
  SubmitOnStream(work, opts, what, std::move(call), std::move(copy_out));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::AllgatherOnStream(
    c10d::OpType type, c10::Device device, at::Tensor in, outrider_dtype_t dtype,
    std::vector<at::Tensor> outputs) {
  at::Tensor send = Dense(in);
  const int64_t total = send.numel() * getSize();
  // One contiguous output that holds it all takes the result where it lies.
  bool direct = outputs.size() == 1 && outputs[0].is_contiguous() && outputs[0].numel() == total;
  at::Tensor gathered = direct ? outputs[0].view({-1}) : at::empty({total}, send.options());
  std::function<void()> copy_out;
  if (!direct) copy_out = [gathered, outputs]() mutable { Unpack(gathered, outputs); };
  auto n = static_cast<uint64_t>(send.numel());
  return EnqueueOnStream(
      type, outputs, device, Options(), "allgather",
      [this, send, gathered, n, dtype](outrider_op_options_t* o, outrider_op_t* h) {
        return outrider_allgather(conn_->client(), send.data_ptr(), gathered.data_ptr(), n, dtype,
                                  o, h);
      },
      copy_out);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::AlltoallOnStream(
    c10d::OpType type, c10::Device device, std::vector<at::Tensor> ins,
    std::vector<at::Tensor> outs, std::vector<int64_t> send_counts,
    std::vector<int64_t> recv_counts, outrider_dtype_t dtype) {
  const at::Tensor& like = !ins.empty() ? ins[0] : outs[0];
  at::Tensor send = ins.size() == 1 ? Dense(ins[0]).view({-1}) : Pack(ins, like);
  int64_t total = 0;
  for (const at::Tensor& t : outs) total += t.numel();
  bool direct = outs.size() == 1 && outs[0].is_contiguous();
  at::Tensor recv = direct ? outs[0].view({-1}) : at::empty({total}, like.options());
  std::function<void()> copy_out;
  if (!direct) copy_out = [recv, outs]() mutable { Unpack(recv, outs); };
  return EnqueueOnStream(
      type, outs, device, Options(), "alltoall",
      [this, send, recv, send_counts, recv_counts, dtype](outrider_op_options_t* o,
                                                          outrider_op_t* h) {
        return outrider_alltoallv(conn_->client(), send.data_ptr(), send_counts.data(),
                                  recv.data_ptr(), recv_counts.data(), dtype, o, h);
      },
      copy_out);
}

// ---- Sparse COO tensors in the "outrider" backend (see process_group.h): allreduce of sparse
// gradients (any number of sparse dimensions, folded into one row index), the Python-facing sparse
// allreduce with row demand, and the demand itself. CPU rows are coalesced into the shared heap and
// go in place, and the result is views of heap tensors (staging buffers where the heap cannot be
// used); CUDA ones go as they lie, ordered on the caller's current stream.

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
  // A gradient, however few its rows: bulk.
  int32_t priority = NextPriority(
      "sparse/" + std::to_string(rows) + "/" + std::to_string(dim) + "/" + std::to_string(dtype),
      UINT64_MAX);
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
