// Ring allgather.
#include "agent/engine/algorithms/gather_ring.h"

namespace outrider::agent {

void GatherRing::Prepare(std::function<void()> ready) {
  // Gather the node's share into every local output first; that share then travels the ring.
  Copy(GatherLocalBlocks(), std::move(ready));
}

uint64_t GatherRing::Share(int node) const {
  return static_cast<uint64_t>(topo_.ranks.ranks_on(node)) * op().send.length;
}

uint64_t GatherRing::At(int node) const {
  return static_cast<uint64_t>(topo_.ranks.first_rank(node)) * op().send.length;
}

void GatherRing::Agreed() {
  uint64_t chunk = ChunkBytes(options_, op().dtype);
  chunks_left_ = 0;
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n != topo_.me) chunks_left_ += (Share(n) + chunk - 1) / chunk;
  }
  uint64_t base = At(topo_.me), share = Share(topo_.me);
  for (uint64_t off = 0; off < share && !c_.done; off += chunk) {
    Send(topo_.next(), {.offset = base + off},
         op().recv.Sub(base + off, std::min(chunk, share - off)));
  }
}

bool GatherRing::Inside(uint64_t offset, uint64_t len) const {
  uint64_t total = static_cast<uint64_t>(topo_.ranks.world()) * op().send.length,
           own = At(topo_.me), share = Share(topo_.me);
  return offset <= total && len <= total - offset && !(offset < own + share && offset + len > own);
}

void GatherRing::OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) {
  uint32_t N = static_cast<uint32_t>(topo_.nodes), step = h.step;
  if (h.type != static_cast<uint16_t>(PeerMsg::kRing) || step >= N - 1) {
    return Complete(ProtocolError("peer sent a bad allgather chunk"));
  }
  if (!Inside(h.offset, len))
    return Complete(ProtocolError("peer sent an allgather chunk outside the buffer"));
  if (Status st = CheckRingChunk(h.offset, len, op().dtype); !st.ok()) return Complete(st);
  BufferSpan dst = op().recv.Sub(h.offset, len);
  uint64_t offset = h.offset;
  Copy({{dst, BufferSpan::Host(data, len)}}, [this, dst, offset, step, N] {
    if (step + 2 < N) Send(topo_.next(), {.step = step + 1, .offset = offset}, dst);
    Arrived();
  });
}

void GatherRing::Arrived() {
  if (c_.done) return;
  if (chunks_left_ == 0)
    return Complete(ProtocolError("peer sent more allgather chunks than expected"));
  if (--chunks_left_ > 0) return;
  std::vector<CopyPair> rest;
  for (size_t l = 1; l < local(); ++l) {
    for (int n = 0; n < topo_.nodes; ++n) {
      if (n == topo_.me) continue;
      rest.push_back({c_.ops[l]->recv.Sub(At(n), Share(n)), op().recv.Sub(At(n), Share(n))});
    }
  }
  CompleteAfter(std::move(rest));
}

BufferSpan GatherRing::RecvBuffer(const PeerHeader& h, size_t len) {
  if (!Inside(h.offset, len) || !CheckRingChunk(h.offset, len, op().dtype).ok()) return {};
  return op().recv.Sub(h.offset, len);
}

std::string GatherRing::WaitingFor() const {
  return chunks_left_ > 0 ? std::to_string(chunks_left_) + " ring chunks" : "";
}

}  // namespace outrider::agent
