// The agent's metrics (docs/design.md#observability): one registry, the families an operator reads,
// and cached children for the hot paths. Label values are bounded: at most kMaxJobLabels job
// labels exist at once. A job holds its label while it runs; once no job holds it, its series
// retire after job_metrics_retire_s (RetireJobLabels), or sooner, longest idle first, when a new
// job needs the place. Only past kMaxJobLabels jobs running at once do jobs share "_other". Op
// kinds, algorithms, result codes, directions and peer states are fixed sets. The agent makes one
// and hands it to whoever counts (a null AgentMetrics* means: count nothing). Thread-safety:
// updates from any thread (relaxed atomics); Serialize() from the HTTP threads.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "base/mutex.h"
#include "base/status.h"
#include "ipc/protocol.h"
#include "metrics/registry.h"

namespace outrider::agent {

// The label naming a training job on every per-job series. Not "job": Prometheus gives every scrape
// target that label, and would store ours as "exported_job".
inline constexpr const char* kJobLabel = "training_job";

// Most of its ~45 members are the metric families an operator reads, one pointer each: a table,
// not behaviour; the behaviour is the job labels' lifetime.
class AgentMetrics {
 public:
  static constexpr size_t kMaxJobLabels = 64;
  // `protocol`: the shim protocol version the agent speaks (build_info says it).
  explicit AgentMetrics(uint16_t protocol = ipc::kProtocolVersion);
  metrics::Registry& registry() { return registry_; }
  // Metrics off: updates are skipped (the registry still serves build_info and process_*).
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  std::string JobLabel(const std::string& job);
  // The same, held by a job until Release: a held label is never retired.
  std::string AcquireJobLabel(const std::string& job);
  void ReleaseJobLabel(const std::string& label);
  // Removes every series of the job labels no job has held or named for `after_ns`, and frees
  // their places; returns how many labels went.
  size_t RetireJobLabels(uint64_t now_ns, uint64_t after_ns);
  size_t job_label_count() const;
  // Children for the hot paths: callers create them once (this locks) and keep the pointers.
  metrics::Counter* OpsCounter(const std::string& job_label, ipc::OpKind kind, const char* algo,
                               Code code);
  metrics::Counter* BytesCounter(const std::string& job_label, const char* direction);
  metrics::Gauge* SparseDensity(const std::string& job_label);
  metrics::Gauge* WireEfficiency(const std::string& job_label);
  metrics::Gauge* GpuMode(const std::string& job_label, ipc::GpuMode mode);
  // NCCL calls of trainers on this node, as their interposer or profiler plugin reported them.
  struct NcclCounters {
    metrics::Counter *calls, *bytes, *timed_calls, *gpu_seconds;
  };
  NcclCounters Nccl(const std::string& job_label, const std::string& comm_label, const char* op,
                    const char* source);
  // Telemetry datagrams by result (accepted, rejected: malformed, a bad job name, a sender not
  // allowed).
  metrics::Family<metrics::Counter>* nccl_telemetry;
  metrics::Histogram* duration[ipc::kNumOpKinds];  // by op kind
  metrics::Counter* errors[kMaxCode + 1];          // by code
  metrics::Histogram* queue_wait;
  // A job's next generation, as this node's ranks saw it: `ok` (moved on), `left_out`, `failed`.
  metrics::Family<metrics::Counter>* reconfigurations;
  metrics::Family<metrics::Counter>* agent_port_dropped;  // {reason}
  metrics::Histogram* reconfiguration_duration;           // from the first local ask to the answer
  // Trainers back after their agent went away ({after}: `stop`, `crash`), and how long each was
  // without an agent; this agent's own hand-over while it runs (docs/operations.md).
  metrics::Family<metrics::Counter>* reconnects;
  metrics::Histogram* reconnect_pause;
  metrics::Gauge* hand_over_in_progress;
  metrics::Family<metrics::Counter>* hand_over_ops;  // {fate}: `given_back`, `finished`

  metrics::Counter* gpu_sparse_as_is;  // sparse rows in GPU memory, staged as submitted
  metrics::Counter* gpu_sparse_coalesced_in;
  metrics::Counter* gpu_sparse_coalesced_out;
  metrics::Gauge* clients;
  metrics::Gauge* jobs;
  metrics::Gauge* memory_registered;
  metrics::Family<metrics::Gauge>* gpu_pinned;  // {state}: in_use, idle
  metrics::Gauge* pending_ops;                  // collectives waiting for ranks or in progress
  metrics::Family<metrics::Gauge>* gpu_nccl;    // {mode}: 1 if the agent runs NCCL collectives
  metrics::Family<metrics::Gauge>* peers;       // {state}
  // Per job, refreshed each tick (JobTable::RefreshGauges): its class ({job, class}: 1 for the
  // job's, and {job, "weight"}), and its chunks in the send scheduler.
  metrics::Family<metrics::Gauge>* job_class;
  metrics::Family<metrics::Gauge>* job_sched_sent_bytes;
  metrics::Family<metrics::Gauge>* job_sched_wait;
  metrics::Family<metrics::Gauge>* job_sched_queued;
  metrics::Family<metrics::Gauge>* job_link_share;
  // Send scheduler by priority class (urgent < 0 <= normal < 1000 <= bulk), refreshed each tick.
  metrics::Family<metrics::Gauge>* scheduler_queued;
  metrics::Family<metrics::Gauge>* scheduler_wait;
  metrics::Family<metrics::Gauge>* scheduler_sent;

 private:
  metrics::Registry registry_;
  bool enabled_ = true;
  mutable Mutex mu_;
  struct LabelUse {
    int holders = 0;
    uint64_t idle_since_ns = 0;  // last held or named
  };
  std::map<std::string, LabelUse> job_labels_ OUTRIDER_GUARDED_BY(mu_);
  // Registers `job` (if there is room) and returns its label.
  std::string LabelLocked(const std::string& job, int hold) OUTRIDER_REQUIRES(mu_);
  metrics::Family<metrics::Counter>* ops_;
  metrics::Family<metrics::Counter>* bytes_;
  metrics::Family<metrics::Gauge>* sparse_density_;
  metrics::Family<metrics::Gauge>* wire_efficiency_;
  metrics::Family<metrics::Gauge>* gpu_mode_;
  metrics::Family<metrics::Counter>* nccl_calls_;
  metrics::Family<metrics::Counter>* nccl_bytes_;
  metrics::Family<metrics::Counter>* nccl_timed_;
  metrics::Family<metrics::Counter>* nccl_seconds_;
};

// Where a part counts: `metrics` when there are metrics and they are on, else null.
inline AgentMetrics* Counting(AgentMetrics* metrics) {
  return metrics != nullptr && metrics->enabled() ? metrics : nullptr;
}

}  // namespace outrider::agent
