// Pipelined ring allreduce.
#include "agent/engine/algorithms/ring_allreduce.h"

namespace outrider::agent {

void RingAllreduce::Prepare(std::function<void()> ready) {
  buf_ = op().recv;
  slice_ = ChunkBytes(options_, op().dtype);
  if (local() == 1) {
    // A single local client needs no local reduction: the ring reads its input directly
    // (recv + input gives the same bits as recv + a copy of the input).
    input_ = op().send;
  } else {
    slices_.assign((buf_.length + slice_ - 1) / slice_, kIdle);
    slices_left_ = slices_.size();
    input_ = buf_;
  }
  ready();
}

void RingAllreduce::Agreed() {
  size_t N = static_cast<size_t>(topo_.nodes), r = static_cast<size_t>(topo_.me);
  uint64_t elem = ipc::DTypeSize(op().dtype);
  seg_.resize(N + 1);
  for (size_t k = 0; k <= N; ++k) seg_[k] = (op().count * k / N) * elem;
  // While the job yields to a higher class on the link to the next node, smaller chunks: what a
  // higher class's chunk may find ahead of it on the wire is one of them.
  uint64_t chunk = std::max(elem, std::min(slice_, links_.ChunkCap(topo_.next())) / elem * elem);
  // Reduce-scatter receives every segment but our own, allgather every one but r + 1.
  bytes_left_ = 0;
  for (size_t k = 0; k < N; ++k) {
    if (k != r) bytes_left_ += seg_[k + 1] - seg_[k];
    if (k != (r + 1) % N) bytes_left_ += seg_[k + 1] - seg_[k];
  }
  cursor_ = seg_[r] / slice_;
  for (uint64_t off = seg_[r]; off < seg_[r + 1] && !c_.done; off += chunk) {
    uint64_t len = std::min(chunk, seg_[r + 1] - off);
    EnsureLocal(off, len,
                [this, off, len] { Send(topo_.next(), {.offset = off}, input_.Sub(off, len)); });
  }
  if (!c_.done && bytes_left_ == 0) Complete(Status::Ok());
}

void RingAllreduce::OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) {
  uint32_t N = static_cast<uint32_t>(topo_.nodes), step = h.step;
  uint64_t offset = h.offset;
  if (h.type != static_cast<uint16_t>(PeerMsg::kRing) || step >= 2 * (N - 1) ||
      offset > buf_.length || len > buf_.length - offset) {
    return Complete(ProtocolError("peer sent a ring chunk outside the buffer"));
  }
  if (Status st = CheckRingChunk(offset, len, op().dtype); !st.ok()) return Complete(st);
  BufferSpan dst = buf_.Sub(offset, len), in = BufferSpan::Host(data, len);
  auto forward = [this, step, offset, dst, N] {
    if (step < 2 * (N - 1) - 1) Send(topo_.next(), {.step = step + 1, .offset = offset}, dst);
    // From the last reduce-scatter step on, the chunk is final: the other local ranks get it now,
    // while the rest is still on the wire.
    if (step < N - 2) return Arrived(dst.length);
    std::vector<CopyPair> out;
    for (size_t l = 1; l < local(); ++l)
      out.push_back({c_.ops[l]->recv.Sub(offset, dst.length), dst});
    if (out.empty()) return Arrived(dst.length);
    Copy(
        std::move(out), [this, len = dst.length] { Arrived(len); }, OpTrace::kWriteBack);
  };
  if (step >= N - 1) return Copy({{dst, in}}, forward);  // allgather: the chunk is final
  EnsureLocal(offset, len, [this, dst, in, offset, len, step, N, forward] {
    Reduce({dst}, {in, input_.Sub(offset, len)}, PartialOp(op().reduce_op),
           [this, dst, step, N, forward] {
             if (step != N - 2 || op().reduce_op != ipc::ReduceOp::kAvg) return forward();
             Divide(dst, topo_.ranks.world(), forward);
           });
  });
}

void RingAllreduce::Arrived(uint64_t len) {
  if (c_.done) return;
  if (len > bytes_left_)
    return Complete(ProtocolError("peer sent more ring chunks than the op has"));
  bytes_left_ -= len;
  if (bytes_left_ > 0) return;
  Complete(Status::Ok());  // every chunk reached every local rank as it became final
}

BufferSpan RingAllreduce::RecvBuffer(const PeerHeader& h, size_t len) {
  // Allgather-phase chunks are final: they land in the node buffer directly.
  uint32_t N = static_cast<uint32_t>(topo_.nodes);
  if (h.step < N - 1 || h.step >= 2 * (N - 1) || h.offset > buf_.length ||
      len > buf_.length - h.offset || !CheckRingChunk(h.offset, len, op().dtype).ok()) {
    return {};
  }
  return buf_.Sub(h.offset, len);
}

void RingAllreduce::ReduceSlice(uint64_t s, Then then) {
  if (s >= slices_.size() || slices_[s] == kReduced) {
    if (then) then();
    return;
  }
  if (slices_[s] == kRunning) {
    if (then) waiting_[s].push_back(std::move(then));
    return;
  }
  slices_[s] = kRunning;
  uint64_t off = s * slice_, len = std::min(slice_, buf_.length - off);
  std::vector<BufferSpan> in;
  for (const ValidatedOp* x : c_.ops) in.push_back(x->send.Sub(off, len));
  Reduce(
      {buf_.Sub(off, len)}, std::move(in), PartialOp(op().reduce_op),
      [this, s, then = std::move(then)] {
        slices_[s] = kReduced;
        --slices_left_;
        if (then) then();
        auto waiters = waiting_.extract(s);
        if (!waiters.empty()) {
          for (Then& w : waiters.mapped()) w();
        }
      },
      OpTrace::kLocalReduce);
}

void RingAllreduce::EnsureLocal(uint64_t offset, uint64_t len, Then then) {
  if (slices_left_ == 0 || len == 0) return then();
  auto join = Join::Make(std::move(then));
  for (uint64_t s = offset / slice_; s * slice_ < offset + len; ++s) ReduceSlice(s, join->Add());
  join->Seal();
}

bool RingAllreduce::Pump() {
  if (slices_left_ == 0 || c_.done) return false;
  size_t n = slices_.size();
  for (size_t k = 0; k < n; ++k) {
    size_t s = (cursor_ + n - k) % n;
    if (slices_[s] == kIdle) {
      cursor_ = s;
      ReduceSlice(s, nullptr);
      return true;
    }
  }
  return false;
}

std::string RingAllreduce::WaitingFor() const {
  return bytes_left_ > 0 ? std::to_string(bytes_left_) + " bytes of ring chunks" : "";
}

}  // namespace outrider::agent
