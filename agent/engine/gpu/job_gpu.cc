// A job's GPU side (see job_gpu.h).
#include "agent/engine/gpu/job_gpu.h"

#include <algorithm>
#include <cstring>

#include "agent/engine/gpu/nccl_collective.h"
#include "agent/engine/gpu/nccl_path.h"
#include "agent/log.h"

namespace outrider::agent {

JobGpu::JobGpu(const std::string& job_id, int world_size, int local_size,
               const EngineOptions& engine, int* busy_paths, GpuMemory* memory)
    : job_id_(job_id),
      world_size_(world_size),
      engine_(engine),
      busy_paths_(busy_paths),
      memory_(memory),
      first_memory_(static_cast<size_t>(local_size), -2) {}

JobGpu::~JobGpu() { Abandon(); }

void JobGpu::Abandon() {
  if (nccl_ != nullptr) nccl_->Abandon();
}

NcclPath* JobGpu::Path() {
  if (nccl_ != nullptr) return nccl_.get();
  NcclPath::Options options;
  options.init_timeout_ns = uint64_t{engine_.nccl_init_timeout_ms} * 1'000'000;
  options.chunk_bytes = engine_.nccl_chunk_bytes;
  options.aging_ns = engine_.aging_ns;
  options.busy_paths = busy_paths_;
  options.memory = memory_;
  NcclPath::Links links;
  int node = 0;
  if (DeviceLinks* group = links_; group != nullptr) {
    node = group->node_rank();
    links.send_id = [group](const std::string& id) {
      group->SendToOthers(PeerMsg::kNcclId, 0, 0, id);
    };
    links.send_ticket = [group](uint64_t key, uint64_t seq, const NcclTicket& t) {
      group->SendToOthers(PeerMsg::kNcclTicket, key, seq,
                          std::string(reinterpret_cast<const char*>(&t), sizeof(t)));
    };
  }
  nccl_ = std::make_unique<NcclPath>(job_id_, node, world_size_, options, std::move(links));
  return nccl_.get();
}

void JobGpu::SetRanks(const std::vector<int>& ranks) {
  if (!Path()->has_ranks()) nccl_->SetRanks(ranks);
}

void JobGpu::Run(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops, int32_t priority,
                 Done done) {
  NcclPath* path = Path();
  path->Add(key, seq, std::move(ops), priority, std::move(done));
  path->Agreed(key, seq);  // a single node agrees with itself
}

std::unique_ptr<Algorithm> JobGpu::MakeAlgorithm(Collective& c, const AlgorithmDeps& deps) {
  return std::make_unique<NcclCollective>(c, deps, Path());
}

bool JobGpu::Pump() { return nccl_ != nullptr && nccl_->Pump(); }

bool JobGpu::busy() const { return nccl_ != nullptr && nccl_->busy(); }

void JobGpu::Fail(const Status& why) {
  if (nccl_ != nullptr) nccl_->Fail(why);
}

nlohmann::json JobGpu::StatusJson() const {
  return nccl_ != nullptr ? nccl_->StatusJson() : nlohmann::json();
}

Status JobGpu::OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  NcclPath* nccl = Path();
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kNcclId) {
    nccl->OnId(data, len);
    return Status::Ok();
  }
  if (len != sizeof(NcclTicket)) {
    return ProtocolError("job '" + job_id_ + "': node 0's agent sent an NCCL launch ticket of " +
                         std::to_string(len) + " bytes");
  }
  NcclTicket t;
  std::memcpy(&t, data, sizeof(t));
  nccl->OnTicket(h.key, h.seq, t);
  return Status::Ok();
}

void JobGpu::NoteFirstMemory(int local_rank, int device) {
  if (device < 0 || local_rank < 0 || local_rank >= static_cast<int>(first_memory_.size()) ||
      first_memory_[static_cast<size_t>(local_rank)] != -2) {
    return;
  }
  first_memory_[static_cast<size_t>(local_rank)] = device;
  if (std::count(first_memory_.begin(), first_memory_.end(), -2) != 0) return;
  sharing_ = Sharing::kOwn;
  for (size_t a = 0; a < first_memory_.size(); ++a) {
    for (size_t b = a + 1; b < first_memory_.size(); ++b) {
      if (first_memory_[a] != first_memory_[b]) continue;
      sharing_ = Sharing::kShared;
      if (!engine_.gpu_nccl) return;  // nothing would run on NCCL anyway
      Logger("engine")->info(
          "job '{}': local ranks {} and {} keep their buffers on GPU {}: its GPU collectives run "
          "on the "
          "host engine through the agent's pinned buffers (the agent's NCCL runs one rank per GPU)",
          job_id_, a, b, first_memory_[a]);
      return;
    }
  }
}

DeviceRoute JobGpu::RouteOf(const ValidatedOp& op, ipc::GpuMode mode) const {
  if (!engine_.gpu_nccl || mode != ipc::GpuMode::kIpc || !NcclEligible(op))
    return DeviceRoute::kHost;
  switch (sharing_) {
    case Sharing::kUnknown:
      return DeviceRoute::kNotYet;
    case Sharing::kShared:
      return DeviceRoute::kHost;
    case Sharing::kOwn:
      return DeviceRoute::kNccl;
  }
  return DeviceRoute::kHost;
}

std::string JobGpu::RanksNotYetSeen() const {
  std::string out;
  for (size_t r = 0; r < first_memory_.size(); ++r) {
    if (first_memory_[r] == -2) out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return (out.find(',') == std::string::npos ? "local rank " : "local ranks ") + out;
}

}  // namespace outrider::agent
