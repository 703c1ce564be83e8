// Agent metrics.
#include "agent/observability.h"

#include "ipc/event_fd.h"

#ifndef OUTRIDER_VERSION
#define OUTRIDER_VERSION "0.0.0"
#endif

namespace outrider::agent {

AgentMetrics::AgentMetrics(uint16_t protocol) {
  auto& build = registry_.AddGauge("outrider_build_info", "Build of the running agent (value 1).",
                                   {"version", "protocol"});
  build.Get({OUTRIDER_VERSION, std::to_string(protocol)})->Set(1);
  ops_ = &registry_.AddCounter(
      "outrider_ops_total", "Ops completed per client, by job, op kind, algorithm and result code.",
      {kJobLabel, "op", "algo", "result"});
  bytes_ = &registry_.AddCounter(
      "outrider_bytes_total",
      "Bytes this agent sent to and received from peer agents (payload and headers).",
      {kJobLabel, "direction", "transport"});
  auto& duration_family =
      registry_.AddHistogram("outrider_op_duration_seconds",
                             "Time from a collective's first local submission to its completion.",
                             {"op"}, metrics::ExponentialBuckets(10e-6, 4, 12));
  for (uint32_t k = 0; k < ipc::kNumOpKinds; ++k)
    duration[k] = duration_family.Get({std::string(ipc::OpKindName(static_cast<ipc::OpKind>(k)))});
  auto& errors_family =
      registry_.AddCounter("outrider_errors_total", "Ops that failed, by result code.", {"code"});
  for (int32_t c = 1; c <= kMaxCode; ++c)
    errors[c] = errors_family.Get({std::string(CodeName(static_cast<Code>(c)))});
  errors[0] = nullptr;
  queue_wait = registry_
                   .AddHistogram("outrider_queue_wait_seconds",
                                 "Time a collective waited for all local ranks before it started.",
                                 {"priority_class"}, metrics::ExponentialBuckets(10e-6, 4, 12))
                   .Get({"default"});
  agent_port_dropped = &registry_.AddCounter(
      "outrider_agent_port_dropped_total",
      "Connections to the agent port closed without serving them, by why: `timeout` (the request "
      "did not arrive whole in time), `capacity` (the oldest of too many waiting), `malformed`, "
      "`fd_limit` (the agent ran out of file descriptors), `write` (the reply was not taken).",
      {"reason"});
  reconfigurations = &registry_.AddCounter(
      "outrider_reconfigurations_total",
      "New generations of jobs this node's ranks asked for, by how they ended for them: `ok` "
      "(they went on in it), `left_out`, `failed`.",
      {"result"});
  reconfiguration_duration =
      registry_
          .AddHistogram("outrider_reconfiguration_seconds",
                        "Time from a node's first rank asking for a job's next generation to the "
                        "agents' decision reaching it.",
                        {}, metrics::ExponentialBuckets(1e-3, 2, 16))
          .Get({});
  reconnects = &registry_.AddCounter(
      "outrider_client_reconnects_total",
      "Trainers that connected again after their agent went away, by how it went: `stop` (it said "
      "goodbye: a restart or upgrade) or `crash` (it vanished).",
      {"after"});
  reconnect_pause =
      registry_
          .AddHistogram("outrider_reconnect_pause_seconds",
                        "Time a reconnecting trainer was without an agent, from noticing its "
                        "previous agent gone to its hello here (the pause its job saw).",
                        {}, metrics::ExponentialBuckets(1e-3, 2, 16))
          .Get({});
  hand_over_in_progress =
      registry_
          .AddGauge("outrider_hand_over_in_progress",
                    "1 while this agent hands its jobs over to the next one (after SIGTERM).", {})
          .Get({});
  hand_over_ops = &registry_.AddCounter(
      "outrider_hand_over_ops_total",
      "Ops of this agent's hand-over, by fate: `given_back` (not started; the trainer submits it "
      "at the next agent) or `finished` (started here, let finish).",
      {"fate"});
  pending_ops = registry_
                    .AddGauge("outrider_queue_depth",
                              "Collectives pending on this agent (waiting for ranks or running).",
                              {"priority_class"})
                    .Get({"default"});
  sparse_density_ =
      &registry_.AddGauge("outrider_sparse_density_ratio",
                          "Rows in the last sparse allreduce result / table rows.", {kJobLabel});
  wire_efficiency_ = &registry_.AddGauge("outrider_wire_efficiency_ratio",
                                         "Predicted / measured inter-node bytes of the last sparse "
                                         "op (1 = as the cost model expected).",
                                         {kJobLabel});
  gpu_mode_ = &registry_.AddGauge(
      "outrider_job_gpu_mode",
      "How a job's trainers hand over device buffers (1 for the job's mode, 0 otherwise).",
      {kJobLabel, "mode"});
  job_class = &registry_.AddGauge(
      "outrider_job_class",
      "A job's class (1 for the job's class, 0 otherwise) and, as `weight`, its weight in it.",
      {kJobLabel, "class"});
  job_sched_sent_bytes = &registry_.AddGauge(
      "outrider_job_scheduled_bytes",
      "Bytes of a job's bulk chunks the send scheduler released since the job started here.",
      {kJobLabel});
  job_sched_wait = &registry_.AddGauge(
      "outrider_job_scheduler_wait_seconds",
      "Total time a job's released chunks waited in the send scheduler.", {kJobLabel});
  job_sched_queued =
      &registry_.AddGauge("outrider_job_scheduler_queued_chunks",
                          "A job's chunks waiting in the send scheduler.", {kJobLabel});
  job_link_share = &registry_.AddGauge(
      "outrider_job_link_share_ratio",
      "A job's share of the bytes of the send scheduler's last 4096 chunks, on all links.",
      {kJobLabel});
  gpu_nccl = &registry_.AddGauge(
      "outrider_gpu_nccl_enabled",
      "1 if the agent runs dense GPU collectives on its own NCCL communicators, 0 if on the "
      "host engine; `mode` is the gpu_nccl setting.",
      {"mode"});
  auto& gpu_sparse =
      registry_.AddCounter("outrider_gpu_sparse_rows_total",
                           "Rows of sparse allreduce and shard ops (f32 rows) in GPU memory, by "
                           "how they were staged to host memory: "
                           "`as_is` copied as submitted; `coalesced_in` coalesced on the GPU, and "
                           "`coalesced_out` the unique rows that were copied for them.",
                           {"stage"});
  gpu_sparse_as_is = gpu_sparse.Get({"as_is"});
  gpu_sparse_coalesced_in = gpu_sparse.Get({"coalesced_in"});
  gpu_sparse_coalesced_out = gpu_sparse.Get({"coalesced_out"});
  const std::vector<std::string> nccl_labels = {kJobLabel, "comm", "op", "source"};
  nccl_calls_ = &registry_.AddCounter(
      "outrider_nccl_calls_total",
      "NCCL calls of trainers on this node, by job, communicator, kind and source "
      "(`interposer`: liboutrider_nccl.so; `profiler`: the NCCL profiler plugin).",
      nccl_labels);
  nccl_bytes_ = &registry_.AddCounter("outrider_nccl_bytes_total",
                                      "Bytes of those calls' send buffers.", nccl_labels);
  nccl_timed_ = &registry_.AddCounter(
      "outrider_nccl_timed_calls_total",
      "Those calls whose GPU time is in outrider_nccl_gpu_seconds_total.", nccl_labels);
  nccl_seconds_ = &registry_.AddCounter("outrider_nccl_gpu_seconds_total",
                                        "GPU time of the timed calls.", nccl_labels);
  nccl_telemetry = &registry_.AddCounter(
      "outrider_nccl_telemetry_datagrams_total",
      "NCCL telemetry datagrams from trainers, by result: `accepted` (counted whole) or "
      "`rejected` (malformed, a job name that is not printable ASCII, or a sender "
      "that is not allowed; nothing of it counted).",
      {"result"});
  nccl_telemetry->Get({"accepted"});
  nccl_telemetry->Get({"rejected"});
  clients = registry_.AddGauge("outrider_clients", "Connected trainer processes.").Get({});
  jobs = registry_.AddGauge("outrider_jobs", "Jobs with at least one connected client.").Get({});
  memory_registered =
      registry_
          .AddGauge("outrider_memory_registered_bytes",
                    "Size of the trainers' shared-memory regions the agent has mapped: address "
                    "space reserved for them, not memory in use (a region's pages take memory "
                    "once written; the agent's own is process_resident_memory_bytes).")
          .Get({});
  gpu_pinned = &registry_.AddGauge(
      "outrider_gpu_pinned_bytes",
      "Host memory the agent pinned to stage GPU regions: `in_use` by ops, `idle` kept for "
      "reuse until gpu_pinned_idle_ms passes (bounded by gpu_pinned_max_bytes together).",
      {"state"});
  scheduler_queued = &registry_.AddGauge(
      "outrider_scheduler_queued_chunks",
      "Bulk chunks waiting in the send scheduler, by priority class.", {"priority_class"});
  scheduler_sent =
      &registry_.AddGauge("outrider_scheduler_sent_chunks",
                          "Bulk chunks the send scheduler released since start, by priority class.",
                          {"priority_class"});
  scheduler_wait = &registry_.AddGauge(
      "outrider_scheduler_wait_seconds",
      "Total time released chunks waited in the send scheduler, by priority class.",
      {"priority_class"});
  peers = &registry_.AddGauge("outrider_peers", "Peer agents by state.", {"state"});
  peers->Get({"up"});
  peers->Get({"lost"});
  metrics::AddProcessCollector(&registry_);
}

std::string AgentMetrics::LabelLocked(const std::string& job, int hold) {
  auto it = job_labels_.find(job);
  if (it == job_labels_.end()) {
    if (job_labels_.size() >= kMaxJobLabels) {
      // A job that runs now gets a label of its own: the label of the job that ended longest ago
      // goes first, before its retirement is due, if it must.
      auto oldest = job_labels_.end();
      for (auto l = job_labels_.begin(); l != job_labels_.end(); ++l) {
        if (l->second.holders == 0 &&
            (oldest == job_labels_.end() || l->second.idle_since_ns < oldest->second.idle_since_ns))
          oldest = l;
      }
      if (oldest == job_labels_.end()) return "_other";  // kMaxJobLabels jobs run at once
      registry_.RemoveSeries(kJobLabel, oldest->first);
      job_labels_.erase(oldest);
    }
    it = job_labels_.emplace(job, LabelUse{}).first;
  }
  it->second.holders += hold;
  it->second.idle_since_ns = ipc::MonotonicNs();
  return job;
}

std::string AgentMetrics::JobLabel(const std::string& job) {
  MutexLock lock(&mu_);
  return LabelLocked(job, 0);
}

std::string AgentMetrics::AcquireJobLabel(const std::string& job) {
  MutexLock lock(&mu_);
  return LabelLocked(job, 1);
}

void AgentMetrics::ReleaseJobLabel(const std::string& label) {
  MutexLock lock(&mu_);
  auto it = job_labels_.find(label);
  if (it == job_labels_.end() || it->second.holders == 0) return;
  --it->second.holders;
  it->second.idle_since_ns = ipc::MonotonicNs();
}

size_t AgentMetrics::RetireJobLabels(uint64_t now_ns, uint64_t after_ns) {
  // Under mu_: no job takes the label while its series go. One that takes it later starts fresh
  // series from zero, a counter reset that Prometheus' rate() handles.
  MutexLock lock(&mu_);
  size_t n = 0;
  for (auto it = job_labels_.begin(); it != job_labels_.end();) {
    if (it->second.holders == 0 && it->second.idle_since_ns <= now_ns &&
        now_ns - it->second.idle_since_ns >= after_ns) {
      registry_.RemoveSeries(kJobLabel, it->first);
      it = job_labels_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

size_t AgentMetrics::job_label_count() const {
  MutexLock lock(&mu_);
  return job_labels_.size();
}

metrics::Counter* AgentMetrics::OpsCounter(const std::string& job_label, ipc::OpKind kind,
                                           const char* algo, Code code) {
  return ops_->Get(
      {job_label, std::string(ipc::OpKindName(kind)), algo, std::string(CodeName(code))});
}

metrics::Counter* AgentMetrics::BytesCounter(const std::string& job_label, const char* direction) {
  return bytes_->Get({job_label, direction, "ucx"});
}

AgentMetrics::NcclCounters AgentMetrics::Nccl(const std::string& job_label,
                                              const std::string& comm_label, const char* op,
                                              const char* source) {
  std::vector<std::string> labels = {job_label, comm_label, op, source};
  return NcclCounters{nccl_calls_->Get(labels), nccl_bytes_->Get(labels), nccl_timed_->Get(labels),
                      nccl_seconds_->Get(labels)};
}

metrics::Gauge* AgentMetrics::SparseDensity(const std::string& job_label) {
  return sparse_density_->Get({job_label});
}
metrics::Gauge* AgentMetrics::WireEfficiency(const std::string& job_label) {
  return wire_efficiency_->Get({job_label});
}
metrics::Gauge* AgentMetrics::GpuMode(const std::string& job_label, ipc::GpuMode mode) {
  return gpu_mode_->Get({job_label, std::string(ipc::GpuModeName(mode))});
}

}  // namespace outrider::agent
