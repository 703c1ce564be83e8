// The "outrider" backend's alltoall and the ops built on it (see process_group.h): alltoall_base
// with split sizes, alltoall of tensor lists, and gather and scatter as alltoallvs in which only
// the root's blocks are not empty.
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/process_group.h"
#include "shim/python/outrider_torch/csrc/staging.h"

namespace outrider::torch_backend {

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

}  // namespace outrider::torch_backend
