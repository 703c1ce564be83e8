// Dense collectives on GPU memory across nodes: the job's NCCL communicator carries the data
// (agent/engine/nccl_path.h), so this node sends no data of its own, only the fingerprint. The
// instance joins the job's NCCL path once this node's ranks submitted it; node 0's agent gives
// it its place in the launch order once every node did, alike.
#pragma once

#include "agent/engine/algorithm.h"

namespace outrider::agent {

class NcclPath;

// Thread-safety: loop thread only.
class NcclCollective final : public Algorithm {
 public:
  NcclCollective(Collective& c, const AlgorithmDeps& deps, NcclPath* path) : Algorithm(c, deps), path_(path) {}
  ~NcclCollective() override;  // an instance that never ran leaves the path
  std::string_view label() const override { return "nccl"; }
  void Prepare(std::function<void()> ready) override;
  void Agreed() override;

 private:
  NcclPath* path_;  // the job's; outlives its instances
};

}  // namespace outrider::agent
