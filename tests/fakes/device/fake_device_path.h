// A device path that records what the engine asks of it (engine/device_path.h): jobs' device sides
// that hold every instance they are given until the test completes it, and no session gates. For
// tests of the seam between the engine core and the GPU path, with no GPU library linked.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/engine/device_path.h"

namespace outrider::agent {

// Thread-safety: one thread.
class FakeJobDevice final : public JobDevice {
 public:
  struct Instance {
    uint64_t key, seq;
    std::vector<const ValidatedOp*> ops;
    int32_t priority;
    Done done;
  };
  void Attach(DeviceLinks* links) override { this->links = links; }
  void NoteFirstMemory(int local_rank, int device) override {
    noted.emplace_back(local_rank, device);
  }
  DeviceRoute RouteOf(const ValidatedOp&, ipc::GpuMode) const override { return route; }
  std::string RanksNotYetSeen() const override { return "local rank 1"; }
  bool started() const override { return !ranks.empty(); }
  void SetRanks(const std::vector<int>& r) override {
    if (ranks.empty()) ranks = r;
  }
  void Run(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops, int32_t priority,
           Done done) override {
    runs.push_back({key, seq, std::move(ops), priority, std::move(done)});
  }
  std::unique_ptr<Algorithm> MakeAlgorithm(Collective&, const AlgorithmDeps&) override {
    return nullptr;
  }
  Status OnMessage(const PeerHeader&, const uint8_t*, size_t) override { return Status::Ok(); }
  bool Pump() override { return false; }
  bool busy() const override {
    for (const Instance& i : runs) {
      if (i.done) return true;
    }
    return false;
  }
  void Fail(const Status& why) override {
    failed = why;
    for (Instance& i : runs) {
      if (i.done) std::exchange(i.done, nullptr)(why);
    }
  }
  void Abandon() override { abandoned = true; }
  nlohmann::json StatusJson() const override { return {{"runs", runs.size()}}; }

  // Completes the instance run `i`-th with `st`.
  void Complete(size_t i, const Status& st) { std::exchange(runs.at(i).done, nullptr)(st); }

  DeviceRoute route = DeviceRoute::kNccl;
  DeviceLinks* links = nullptr;
  std::vector<std::pair<int, int>> noted;  // (local rank, device)
  std::vector<int> ranks;
  std::vector<Instance> runs;
  Status failed;
  bool abandoned = false;
};

// Thread-safety: one thread.
class FakeDevicePath final : public DevicePath {
 public:
  std::unique_ptr<JobDevice> MakeJobDevice(const std::string& job_id, int, int,
                                           const EngineOptions&) override {
    auto d = std::make_unique<FakeJobDevice>();
    jobs.emplace_back(job_id, d.get());
    return d;
  }
  std::unique_ptr<DeviceGate> MakeGate(ipc::GpuMode) override { return nullptr; }
  int CompletionFd() const override { return -1; }
  bool busy() const override { return false; }
  void Tick(uint64_t) override {}
  std::optional<PinnedUse> pinned() const override { return std::nullopt; }
  GpuMemory* memory() override { return nullptr; }

  // The device sides made, by job id (owned by their jobs).
  std::vector<std::pair<std::string, FakeJobDevice*>> jobs;
};

}  // namespace outrider::agent
