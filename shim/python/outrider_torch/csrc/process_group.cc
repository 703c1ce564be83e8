// The "outrider" torch.distributed backend (see process_group.h).
#include "shim/python/outrider_torch/csrc/process_group.h"

#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>

#include <algorithm>
#include <stdexcept>

#include "ipc/defaults.h"
#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/gil.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {

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

namespace {

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

void CheckDense(const at::Tensor& t, const char* what) {
  if (t.is_sparse()) Throw(std::string(what) + ": sparse tensors are supported by allreduce only");
  if (!t.device().is_cpu() && !t.device().is_cuda()) {
    Throw(std::string(what) + ": tensors must be on the CPU or a CUDA device, not " + t.device().str());
  }
}

// The CUDA device of an op's tensors, or none when they are on the CPU. All must be on one.
std::optional<c10::Device> CudaDevice(const std::vector<at::Tensor>& ts, const char* what) {
  std::optional<c10::Device> dev;
  for (const at::Tensor& t : ts) {
    if (!dev) {
      dev = t.device();
    } else if (t.device() != *dev) {
      Throw(std::string(what) + ": tensors must all be on the CPU or all on one CUDA device (got " + dev->str() + " and " +
            t.device().str() + ")");
    }
  }
  if (dev && dev->is_cuda()) return dev;
  return std::nullopt;
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
      any_source_(AnySource::Create(std::move(store), rank, size, timeout)) {
  InitBackend();
}

ProcessGroupOutrider::~ProcessGroupOutrider() {
  // Fails any-source receives still looking for a sender, and waits for the threads that complete
  // this group's works: the exit hook may still hold the AnySource after this group is gone.
  any_source_->Stop();
  any_source_.reset();
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

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  CheckOne(tensors, "broadcast");
  at::Tensor t = tensors[0];
  CheckDense(t, "broadcast");
  outrider_dtype_t dtype = DType(t);
  if (opts.rootTensor != 0) Throw("broadcast: rootTensor must be 0");
  if (opts.rootRank < 0 || opts.rootRank >= getSize()) Throw("broadcast: root rank " + std::to_string(opts.rootRank) + " is not in the group");
  int root = static_cast<int>(opts.rootRank);
  if (auto dev = CudaDevice({t}, "broadcast")) {
    at::Tensor buf = Dense(t);
    return EnqueueOnStream(
        c10d::OpType::BROADCAST, {t}, *dev, Options(), "broadcast",
        [this, buf, dtype, root](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_broadcast(conn_->client(), buf.data_ptr(), static_cast<uint64_t>(buf.numel()), dtype, root, o, h);
        },
        CopyInto(buf, t));
  }
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
  if (t.is_sparse()) {
    if (RedOp(opts.reduceOp) != OUTRIDER_SUM) Throw("allreduce of sparse tensors sums only");
    return AllreduceSparse(t);
  }
  CheckDense(t, "allreduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  int32_t priority = NextPriority("allreduce/" + std::to_string(t.numel()) + "/" + std::to_string(dtype));
  if (auto dev = CudaDevice({t}, "allreduce")) {
    at::Tensor buf = Dense(t);
    return EnqueueOnStream(
        c10d::OpType::ALLREDUCE, {t}, *dev, Options(priority), "allreduce",
        [this, buf, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          void* p = buf.data_ptr();
          return outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(buf.numel()), dtype, redop, o, h);
        },
        CopyInto(buf, t));
  }
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
  CheckDense(in, "allgather");
  if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("allgather needs one list of " + std::to_string(getSize()) + " output tensors");
  }
  std::vector<at::Tensor> outs = outputs[0];
  for (const at::Tensor& o : outs) {
    CheckDense(o, "allgather");
    if (o.numel() != in.numel() || o.scalar_type() != in.scalar_type()) Throw("allgather: output tensors must match the input's size and dtype");
  }
  std::vector<at::Tensor> all = outs;
  all.push_back(in);
  if (auto dev = CudaDevice(all, "allgather")) return AllgatherOnStream(c10d::OpType::ALLGATHER, *dev, in, DType(in), outs);
  size_t n = in.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER, in, outs, [outs, n](void* gathered) mutable {
    for (size_t k = 0; k < outs.size(); ++k) {
      CopyBack(static_cast<uint8_t*>(gathered) + k * n, outs[k]);
    }
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                     const c10d::AllgatherOptions&) {
  CheckDense(input, "_allgather_base");
  CheckDense(output, "_allgather_base");
  if (output.numel() != input.numel() * getSize() || output.scalar_type() != input.scalar_type()) {
    Throw("_allgather_base: output must hold world_size x input elements of the input's dtype");
  }
  at::Tensor out = output;
  if (auto dev = CudaDevice({input, output}, "_allgather_base")) {
    return AllgatherOnStream(c10d::OpType::_ALLGATHER_BASE, *dev, input, DType(input), {out});
  }
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
  CheckDense(out, "reduce_scatter");
  outrider_dtype_t dtype = DType(out);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(getSize())) {
    Throw("reduce_scatter needs one list of " + std::to_string(getSize()) + " input tensors");
  }
  std::vector<at::Tensor> ins = inputs[0];
  for (const at::Tensor& i : ins) {
    CheckDense(i, "reduce_scatter");
    if (i.numel() != out.numel() || i.scalar_type() != out.scalar_type()) Throw("reduce_scatter: input tensors must match the output's size and dtype");
  }
  std::vector<at::Tensor> all = ins;
  all.push_back(out);
  if (auto dev = CudaDevice(all, "reduce_scatter")) {
    at::Tensor send = Pack(ins, out), recv = Dense(out);
    return EnqueueOnStream(
        c10d::OpType::REDUCE_SCATTER, {out}, *dev, Options(), "reduce_scatter",
        [this, send, recv, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_reduce_scatter(conn_->client(), send.data_ptr(), recv.data_ptr(), static_cast<uint64_t>(recv.numel()),
                                         dtype, redop, o, h);
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
  CheckDense(input, "alltoall_base");
  CheckDense(output, "alltoall_base");
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
    CheckDense(inputs[k], "alltoall");
    CheckDense(outputs[k], "alltoall");
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
  CheckDense(in, "gather");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world) Throw("gather: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> outs;
  if (getRank() == root) {
    if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(world)) {
      Throw("gather needs one list of " + std::to_string(world) + " output tensors on the root");
    }
    outs = outputs[0];
    for (const at::Tensor& o : outs) {
      CheckDense(o, "gather");
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
  CheckDense(out, "scatter");
  const int world = getSize(), root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= world) Throw("scatter: root rank " + std::to_string(root) + " is not in the group");
  std::vector<at::Tensor> ins;
  if (getRank() == root) {
    if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(world)) {
      Throw("scatter needs one list of " + std::to_string(world) + " input tensors on the root");
    }
    ins = inputs[0];
    for (const at::Tensor& i : ins) {
      CheckDense(i, "scatter");
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
  CheckDense(t, "reduce");
  outrider_dtype_t dtype = DType(t);
  outrider_redop_t redop = RedOp(opts.reduceOp);
  const int root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= getSize()) Throw("reduce: root rank " + std::to_string(root) + " is not in the group");
  bool is_root = getRank() == root;
  if (auto dev = CudaDevice({t}, "reduce")) {
    at::Tensor in = Dense(t);
    at::Tensor out = is_root ? in : at::empty_like(in);  // only the root's tensor gets the result
    return EnqueueOnStream(
        c10d::OpType::REDUCE, {t}, *dev, Options(), "reduce",
        [this, in, out, dtype, redop](outrider_op_options_t* o, outrider_op_t* h) {
          return outrider_allreduce(conn_->client(), in.data_ptr(), out.data_ptr(), static_cast<uint64_t>(in.numel()), dtype, redop, o, h);
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
      conn_->Check(outrider_allreduce(conn_->client(), in.ptr, out, static_cast<uint64_t>(t.numel()), dtype, redop, &o, &h), "reduce");
      return h;
    };
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                         const c10d::AllreduceCoalescedOptions& opts) {
  if (tensors.empty()) Throw("allreduce_coalesced needs at least one tensor");
  for (const at::Tensor& t : tensors) {
    CheckDense(t, "allreduce_coalesced");
    if (t.scalar_type() != tensors[0].scalar_type()) Throw("allreduce_coalesced: every tensor must have one dtype");
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
          return outrider_allreduce(conn_->client(), p, p, static_cast<uint64_t>(packed.numel()), dtype, redop, o, h);
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
    CheckDense(t, "allgather_coalesced");
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
  std::vector<at::Tensor> every = all;
  every.insert(every.end(), inputs.begin(), inputs.end());
  if (auto dev = CudaDevice(every, "allgather_coalesced")) {
    // Rank r's packed inputs land in rank order: its output list's tensors, one after another.
    return AllgatherOnStream(c10d::OpType::ALLGATHER_COALESCED, *dev, packed, DType(packed), all);
  }
  size_t n = packed.nbytes();
  return EnqueueAllgather(c10d::OpType::ALLGATHER_COALESCED, packed, all, [outs, n](void* gathered) mutable {
    for (size_t r = 0; r < outs.size(); ++r) UnpackOut(static_cast<uint8_t*>(gathered) + r * n, outs[r]);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                          const c10d::ReduceScatterOptions& opts) {
  CheckDense(input, "_reduce_scatter_base");
  CheckDense(output, "_reduce_scatter_base");
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

ProcessGroupOutrider::PairRoute ProcessGroupOutrider::Route(const at::Tensor& t, int peer, int tag, bool sending) {
  const char* what = sending ? "send" : "recv";
  CheckDense(t, what);
  if (peer < 0 || peer >= getSize()) Throw(std::string(what) + ": rank " + std::to_string(peer) + " is not in the group");
  if (peer == getRank()) Throw(std::string(what) + ": a rank cannot " + what + " to itself");
  // The sender's rank in the pair is the root; the key names the direction and the tag, so
  // messages each way and of each tag match in the order they were sent.
  int root = sending ? (getRank() < peer ? 0 : 1) : (peer < getRank() ? 0 : 1);
  uint64_t key = outrider_key(("outrider.p2p/" + std::to_string(root) + "/" + std::to_string(tag)).c_str());
  return PairRoute{DType(t), root, key};
}

void ProcessGroupOutrider::PairOnStream(const c10::intrusive_ptr<OutriderWork>& work, at::Tensor t, int peer, int tag, bool sending) {
  c10::StreamGuard on_stream(*work->stream());  // a receive may be posted from another thread
  PairRoute route = Route(t, peer, tag, sending);
  at::Tensor buf = Dense(t);
  SubmitOnStream(
      work, Options(0, route.key), sending ? "send" : "recv",
      [this, buf, peer, route](outrider_op_options_t* o, outrider_op_t* h) {
        o->comm = PairComm(peer);  // on the worker, which owns the pair map
        return outrider_broadcast(conn_->client(), buf.data_ptr(), static_cast<uint64_t>(buf.numel()), route.dtype, route.root, o, h);
      },
      sending ? nullptr : CopyInto(buf, t));
}

std::function<void(Request&)> ProcessGroupOutrider::PairOp(at::Tensor t, int peer, int tag, bool sending) {
  auto [dtype, root, key] = Route(t, peer, tag, sending);
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
  c10::intrusive_ptr<c10d::Work> work;
  if (tensors[0].is_cuda()) {
    auto w = StreamWork(c10d::OpType::SEND, {tensors[0]}, tensors[0].device());
    PairOnStream(w, tensors[0], dst, tag, true);
    work = w;
  } else {
    work = Enqueue(c10d::OpType::SEND, {tensors[0]}, PairOp(tensors[0], dst, tag, true));
  }
  any_source_->Sent(dst, tag);
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recv(std::vector<at::Tensor>& tensors, int src, int tag) {
  CheckOne(tensors, "recv");
  at::Tensor t = tensors[0];
  if (t.is_cuda()) {
    // Posted in the stream's order, unless an any-source receive of the tag still looks for its
    // sender: then once that one is posted (the stream then waits from there).
    (void)Route(t, src, tag, false);
    auto work = StreamWork(c10d::OpType::RECV, {t}, t.device());
    work->set_source_rank(src);
    any_source_->Recv(src, tag, [this, work, t, src, tag] {
      try {
        PairOnStream(work, t, src, tag, false);
      } catch (...) {
        work->Finish(std::current_exception());  // a no-op where the submission already finished it
      }
    });
    return work;
  }
  auto prepare = PairOp(t, src, tag, false);
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECV, std::vector<at::Tensor>{t});
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
  CheckDense(t, "recv");
  (void)DType(t);
  if (t.is_cuda()) Throw("recv without a source rank takes CPU tensors only: name the sender (src=...) of a CUDA tensor");
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

}  // namespace outrider::torch_backend
