// Chain broadcast.
#include "agent/engine/algorithms/chain_broadcast.h"

namespace outrider::agent {

void ChainBroadcast::Prepare(std::function<void()> ready) {
  buf_ = op().recv;
  if (root_node() != topo_.me) return ready();
  // The root node's clients hold the data; its other local clients get it now.
  Copy(CopyRootLocally(), std::move(ready));
}

void ChainBroadcast::Agreed() {
  uint64_t chunk = ChunkBytes(options_, op().dtype);
  if (topo_.me == root_node()) {
    for (uint64_t off = 0; off < buf_.length && !c_.done; off += chunk) {
      Send(topo_.next(), {.offset = off}, buf_.Sub(off, std::min(chunk, buf_.length - off)));
    }
    if (!c_.done) Complete(Status::Ok());  // reported once the sends are done
    return;
  }
  chunks_left_ = (buf_.length + chunk - 1) / chunk;
}

void ChainBroadcast::OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) {
  uint32_t N = static_cast<uint32_t>(topo_.nodes);
  uint64_t offset = h.offset;
  if (h.type != static_cast<uint16_t>(PeerMsg::kRing) || h.step >= 2 * (N - 1) ||
      offset > buf_.length || len > buf_.length - offset) {
    return Complete(ProtocolError("peer sent a ring chunk outside the buffer"));
  }
  if (Status st = CheckRingChunk(offset, len, op().dtype); !st.ok()) return Complete(st);
  BufferSpan dst = buf_.Sub(offset, len);
  Copy({{dst, BufferSpan::Host(data, len)}}, [this, dst, offset] {
    if (topo_.next() != root_node()) Send(topo_.next(), {.offset = offset}, dst);
    Arrived();
  });
}

void ChainBroadcast::Arrived() {
  if (c_.done) return;
  if (chunks_left_ == 0)
    return Complete(ProtocolError("peer sent more broadcast chunks than the buffer holds"));
  if (--chunks_left_ > 0) return;
  std::vector<CopyPair> rest;
  for (size_t l = 1; l < local(); ++l) rest.push_back({c_.ops[l]->recv, buf_});
  CompleteAfter(std::move(rest));
}

BufferSpan ChainBroadcast::RecvBuffer(const PeerHeader& h, size_t len) {
  if (h.offset > buf_.length || len > buf_.length - h.offset ||
      !CheckRingChunk(h.offset, len, op().dtype).ok())
    return {};
  return buf_.Sub(h.offset, len);
}

std::string ChainBroadcast::WaitingFor() const {
  return chunks_left_ > 0 ? std::to_string(chunks_left_) + " ring chunks" : "";
}

}  // namespace outrider::agent
