// The "outrider" backend's point-to-point ops (see process_group.h): send, recv and recv from any
// source, each a broadcast in the two-rank communicator of the sender and the receiver. Receives
// of one tag are posted in the order they were made (AnySource, any_source.h, finds the sender of
// an any-source receive and holds the named receives behind it).
#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/process_group.h"
#include "shim/python/outrider_torch/csrc/staging.h"

namespace outrider::torch_backend {

outrider_comm_t ProcessGroupOutrider::PairComm(int peer) {
  auto it = pairs_.find(peer);
  if (it != pairs_.end()) return it->second;
  int ranks[2] = {std::min(getRank(), peer), std::max(getRank(), peer)};
  outrider_comm_t c = OUTRIDER_COMM_NULL;
  conn_->Check(outrider_comm_create(conn_->client(), comm_, ranks, 2, &c),
               "connecting the pair for send/recv");
  pairs_.emplace(peer, c);
  return c;
}

ProcessGroupOutrider::PairRoute ProcessGroupOutrider::Route(const at::Tensor& t, int peer, int tag,
                                                            bool sending) {
  const char* what = sending ? "send" : "recv";
  CheckDense(t, what);
  if (peer < 0 || peer >= getSize())
    Throw(std::string(what) + ": rank " + std::to_string(peer) + " is not in the group");
  if (peer == getRank()) Throw(std::string(what) + ": a rank cannot " + what + " to itself");
  // The sender's rank in the pair is the root; the key names the direction and the tag, so
  // messages each way and of each tag match in the order they were sent.
  int root = sending ? (getRank() < peer ? 0 : 1) : (peer < getRank() ? 0 : 1);
  uint64_t key =
      outrider_key(("outrider.p2p/" + std::to_string(root) + "/" + std::to_string(tag)).c_str());
  return PairRoute{DType(t), root, key};
}

void ProcessGroupOutrider::PairOnStream(const c10::intrusive_ptr<OutriderWork>& work, at::Tensor t,
                                        int peer, int tag, bool sending) {
  c10::StreamGuard on_stream(*work->stream());  // a receive may be posted from another thread
  PairRoute route = Route(t, peer, tag, sending);
  at::Tensor buf = Dense(t);
  SubmitOnStream(
      work, Options(0, route.key), sending ? "send" : "recv",
      [this, buf, peer, route](outrider_op_options_t* o, outrider_op_t* h) {
        o->comm = PairComm(peer);  // on the worker, which owns the pair map
        return outrider_broadcast(conn_->client(), buf.data_ptr(),
                                  static_cast<uint64_t>(buf.numel()), route.dtype, route.root, o,
                                  h);
      },
      sending ? nullptr : CopyInto(buf, t));
}

std::function<void(Request&)> ProcessGroupOutrider::PairOp(at::Tensor t, int peer, int tag,
                                                           bool sending) {
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
      conn_->Check(outrider_broadcast(conn_->client(), b.ptr, static_cast<uint64_t>(t.numel()),
                                      dtype, root, &o, &h),
                   "send/recv");
      return h;
    };
    if (!sending) r.complete = CopyOut(b.ptr, t);
  };
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::send(std::vector<at::Tensor>& tensors, int dst,
                                                          int tag) {
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

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recv(std::vector<at::Tensor>& tensors, int src,
                                                          int tag) {
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
  auto work =
      c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECV, std::vector<at::Tensor>{t});
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

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::recvAnysource(std::vector<at::Tensor>& tensors,
                                                                   int tag) {
  CheckOne(tensors, "recv");
  at::Tensor t = tensors[0];
  CheckDense(t, "recv");
  (void)DType(t);
  if (t.is_cuda())
    Throw(
        "recv without a source rank takes CPU tensors only: name the sender (src=...) of a CUDA "
        "tensor");
  if (!any_source_->enabled()) {
    Throw(
        "recv without a source rank is turned off (OUTRIDER_TORCH_ANY_SOURCE=0): name the sender "
        "(src=...)");
  }
  auto work = c10::make_intrusive<OutriderWork>(getRank(), c10d::OpType::RECVANYSOURCE,
                                                std::vector<at::Tensor>{t});
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

}  // namespace outrider::torch_backend
