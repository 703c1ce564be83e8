// What a job reports: per-op metrics and its /status entry.
#include "agent/engine/job.h"
#include "agent/net/network.h"
#include "agent/observability.h"

namespace outrider::agent {

void Job::Account(const ValidatedOp& op, const Status& st, uint64_t elapsed_ns,
                  std::string_view algo) {
  AgentMetrics& m = Metrics();
  if (!m.enabled()) return;
  uint64_t key = reinterpret_cast<uintptr_t>(algo.data()) << 16 |
                 static_cast<uint64_t>(op.kind) << 8 | static_cast<uint64_t>(st.code());
  auto it = op_counters_.find(key);
  if (it == op_counters_.end()) {
    it = op_counters_
             .emplace(key,
                      m.OpsCounter(MetricsLabel(), op.kind, std::string(algo).c_str(), st.code()))
             .first;
  }
  it->second->Inc();
  m.duration[static_cast<size_t>(op.kind)]->Observe(static_cast<double>(elapsed_ns) * 1e-9);
  if (!st.ok()) m.errors[static_cast<int>(st.code())]->Inc();
}

const std::string& Job::MetricsLabel() {
  // Every generation of a job is the same job to its users: one label.
  // Held until the job goes: a job's series are never retired under it.
  if (job_label_.empty()) job_label_ = Metrics().AcquireJobLabel(base_id_.empty() ? id_ : base_id_);
  return job_label_;
}

const SendScheduler* Job::scheduler() const {
  return net_ != nullptr ? net_->scheduler() : nullptr;
}

void Job::AddGauges(const std::map<uint64_t, double>& shares,
                    std::map<std::string, Gauges>* by_label) {
  Gauges& g = (*by_label)[MetricsLabel()];
  g.job_class = job_class_;
  g.weight = job_weight_;
  const SendScheduler* sched = scheduler();
  const SendScheduler::JobStats* js = sched != nullptr ? sched->job_stats(hash_) : nullptr;
  if (js == nullptr) return;
  g.sent_bytes += static_cast<double>(js->sent_bytes);
  g.wait_s += js->wait_s;
  g.queued += static_cast<double>(js->queued);
  if (auto it = shares.find(hash_); it != shares.end()) g.share += it->second;
}

nlohmann::json Job::StatusJson() const {
  nlohmann::json j = {{"id", id_},
                      {"job", base_id_},
                      {"generation", generation_},
                      {"world_size", world_size_},
                      {"local_size", local_size_},
                      {"members", member_count()},
                      {"pending", pending_.size()},
                      {"gpu_mode", ipc::GpuModeName(gpu_mode_)},
                      {"class", ipc::JobClassName(job_class_)},
                      {"weight", job_weight_},
                      {"state", lost_.ok() ? "ok" : "failed"}};
  if (!lost_.ok()) j["failure"] = lost_.ToString();
  if (group_ != nullptr) {
    j["nodes"] = group_->num_nodes();
    j["node_rank"] = group_->node_rank();
    j["network"] = group_->ready() ? "connected" : "rendezvous";
    // Its chunks in the send scheduler: share of the agent's last sends, and queueing delay.
    if (const SendScheduler* sched = scheduler()) {
      const SendScheduler::JobStats* js = sched->job_stats(hash_);
      SendScheduler::JobStats none;
      if (js == nullptr) js = &none;
      j["scheduler"] = {
          {"queued_chunks", js->queued},
          {"sent_chunks", js->sent},
          {"sent_bytes", js->sent_bytes},
          {"mean_wait_ms", js->sent ? js->wait_s * 1e3 / static_cast<double>(js->sent) : 0.0},
          {"recent_share", sched->RecentShare(hash_)}};
    }
  } else {
    j["nodes"] = 1;
  }
  if (device_ != nullptr && device_->started()) j["nccl"] = device_->StatusJson();
  j["recent_ops"] = recorder_.Json([this](uint64_t key, uint64_t seq) {
    return group_ != nullptr ? group_->WaitingFor(key, seq) : std::string();
  });
  return j;
}

}  // namespace outrider::agent
