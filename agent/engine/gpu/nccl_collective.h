// Dense collectives on GPU memory across nodes: the job's NCCL communicator carries the data
// (agent/engine/gpu/nccl_path.h), so this node sends no data of its own, only the fingerprint (and,
// for alltoallv, its ranks' counts with every node: NCCL must not launch on counts that disagree,
// so every node checks every pair first, as the host alltoallv does). The instance joins the job's
// NCCL path once this node's ranks submitted it; node 0's agent gives it its place in the launch
// order once every node did, alike.
#pragma once

#include <memory>

#include "agent/engine/algorithm.h"
#include "agent/engine/algorithms/alltoallv.h"

namespace outrider::agent {

class NcclPath;

// Thread-safety: loop thread only.
class NcclCollective final : public Algorithm {
 public:
  NcclCollective(Collective& c, const AlgorithmDeps& deps, NcclPath* path)
      : Algorithm(c, deps), path_(path) {}
  ~NcclCollective() override;  // an instance that never ran leaves the path
  std::string_view label() const override { return "nccl"; }
  void Prepare(std::function<void()> ready) override;
  BufferSpan Contribution(int node) const override;
  void Agreed() override;

 private:
  NcclPath* path_;                              // the job's; outlives its instances
  std::unique_ptr<AlltoallvAgreement> counts_;  // alltoallv only
};

}  // namespace outrider::agent
