// Ops on CUDA tensors (see process_group.h): everything an op queues on the GPU (packing its
// inputs, the shim's fences and copies, unpacking its result) goes on the caller's current stream
// before the call returns, so the op takes its place in the stream's order and the host never
// waits for the communication.
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <stdexcept>
#include <string>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/process_group.h"

namespace outrider::torch_backend {

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

}  // namespace outrider::torch_backend
