// A job's GPU side: its NCCL path (made on first use, linked to node 0's messages) and where its
// local ranks keep their GPU buffers, which decides whether its GPU collectives can run on NCCL.
#include <algorithm>
#include <cstring>

#include "agent/engine/job.h"
#include "agent/engine/nccl_path.h"
#include "agent/engine/nccl_policy.h"
#include "agent/log.h"

namespace outrider::agent {

NcclPath* Job::Nccl() {
  if (nccl_ != nullptr) return nccl_.get();
  MarkActive();
  NcclPath::Options options;
  options.init_timeout_ns = uint64_t{engine_.nccl_init_timeout_ms} * 1'000'000;
  options.chunk_bytes = engine_.nccl_chunk_bytes;
  options.aging_ns = engine_.aging_ns;
  NcclPath::Links links;
  int node = 0;
  if (group_ != nullptr) {
    node = group_->node_rank();
    NodeGroup* g = group_.get();
    links.send_id = [g](const std::string& id) { g->SendToOthers(PeerMsg::kNcclId, 0, 0, id); };
    links.send_ticket = [g](uint64_t key, uint64_t seq, const NcclTicket& t) {
      g->SendToOthers(PeerMsg::kNcclTicket, key, seq, std::string(reinterpret_cast<const char*>(&t), sizeof(t)));
    };
  }
  nccl_ = std::make_unique<NcclPath>(id_, node, world_size_, options, std::move(links));
  if (group_ != nullptr) group_->set_nccl(nccl_.get());
  return nccl_.get();
}

void Job::OnNcclMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!lost_.ok()) return;
  NcclPath* nccl = Nccl();
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kNcclId) return nccl->OnId(data, len);
  if (len != sizeof(NcclTicket)) {
    return Lose(ProtocolError("job '" + id_ + "': node 0's agent sent an NCCL launch ticket of " + std::to_string(len) + " bytes"));
  }
  NcclTicket t;
  std::memcpy(&t, data, sizeof(t));
  nccl->OnTicket(h.key, h.seq, t);
}

void Job::NoteFirstMemory(int local_rank, int device) {
  if (device < 0 || local_rank < 0 || local_rank >= local_size_ || first_memory_[static_cast<size_t>(local_rank)] != -2) {
    return;
  }
  first_memory_[static_cast<size_t>(local_rank)] = device;
  if (std::count(first_memory_.begin(), first_memory_.end(), -2) != 0) return;
  sharing_ = GpuSharing::kOwn;
  for (size_t a = 0; a < first_memory_.size(); ++a) {
    for (size_t b = a + 1; b < first_memory_.size(); ++b) {
      if (first_memory_[a] != first_memory_[b]) continue;
      sharing_ = GpuSharing::kShared;
      if (!GpuNcclPolicy::Current().on) return;  // nothing would run on NCCL anyway
      Logger("engine")->info("job '{}': local ranks {} and {} keep their buffers on GPU {}: its GPU collectives run on the "
                             "host engine through the agent's pinned buffers (the agent's NCCL runs one rank per GPU)",
                             id_, a, b, first_memory_[a]);
      return;
    }
  }
}

std::string Job::RanksNotYetSeen() const {
  std::string out;
  for (size_t r = 0; r < first_memory_.size(); ++r) {
    if (first_memory_[r] == -2) out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return (out.find(',') == std::string::npos ? "local rank " : "local ranks ") + out;
}

}  // namespace outrider::agent
