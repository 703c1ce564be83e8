// The agent's parameter table: one row per parameter, naming where its value comes from and
// which field of AgentOptions (or of a part's options inside it) it sets. Defaults are not
// written here: DefaultText reads them from a default-constructed AgentOptions.
#include "agent/config_params.h"

#include <charconv>
#include <limits>
#include <vector>

#include "base/text.h"

namespace outrider::agent {
namespace {

template <typename T>
Status ParseUnsigned(std::string_view text, T* out) {
  const char* end = text.data() + text.size();
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgument("out of range, at most " +
                           std::to_string(std::numeric_limits<T>::max()));
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgument("not an unsigned decimal integer");
  }
  *out = value;
  return Status::Ok();
}

// "1000, 1001" -> {1000, 1001}; "" -> {}.
Status ParseUidList(std::string_view text, std::vector<uint32_t>* out) {
  std::vector<uint32_t> uids;
  if (!text.empty()) {
    for (std::string_view item : SplitList(text)) {
      uint32_t uid = 0;
      Status st = ParseUnsigned(item, &uid);
      if (!st.ok()) return st.Annotate("uid '" + std::string(item) + "'");
      uids.push_back(uid);
    }
  }
  *out = std::move(uids);
  return Status::Ok();
}

std::string JoinUids(const std::vector<uint32_t>& uids) {
  std::string s;
  for (uint32_t uid : uids) s += (s.empty() ? "" : ",") + std::to_string(uid);
  return s;
}

// Field setters/getters for the table: text in, text out. `f` may be a nested field.
#define OUTRIDER_STRING_FIELD(f)            \
  [](AgentOptions& o, std::string_view t) { \
    o.f = std::string(t);                   \
    return Status::Ok();                    \
  },                                        \
      [](const AgentOptions& o) { return o.f; }
#define OUTRIDER_UINT_FIELD(f)                                                \
  [](AgentOptions& o, std::string_view t) { return ParseUnsigned(t, &o.f); }, \
      [](const AgentOptions& o) { return std::to_string(o.f); }
// A bool field given as one of two words: `on` sets it, `off` clears it, anything else is refused.
#define OUTRIDER_TWO_WORD_FIELD(f, key, on, off)                                              \
  [](AgentOptions& o, std::string_view t) {                                                   \
    if (t != on && t != off)                                                                  \
      return InvalidArgument(key " must be " on " or " off ", got '" + std::string(t) + "'"); \
    o.f = t == on;                                                                            \
    return Status::Ok();                                                                      \
  },                                                                                          \
      [](const AgentOptions& o) { return std::string(o.f ? on : off); }
// A parameter given in ms for a field kept in ns.
#define OUTRIDER_MS_AS_NS_FIELD(f)                   \
  [](AgentOptions& o, std::string_view t) {          \
    uint32_t ms = 0;                                 \
    OUTRIDER_RETURN_IF_ERROR(ParseUnsigned(t, &ms)); \
    o.f = uint64_t{ms} * 1'000'000;                  \
    return Status::Ok();                             \
  },                                                 \
      [](const AgentOptions& o) { return std::to_string(o.f / 1'000'000); }

const Param kParams[] = {
    {"socket_path", "--socket", "OUTRIDER_SOCKET", "socket", "PATH",
     "$XDG_RUNTIME_DIR/outrider/agent.sock, else /run/outrider/agent.sock", "",
     "Unix-domain socket the trainers' shim connects to.", true, ParamKind::kString,
     OUTRIDER_STRING_FIELD(control.socket_path)},
    {"socket_group", "--socket-group", "OUTRIDER_SOCKET_GROUP", "socket_group", "GROUP", "", "",
     "Group whose members may connect: socket directory 0750 and socket 0660 owned by it. "
     "Empty: directory 0700, socket 0600.",
     true, ParamKind::kString, OUTRIDER_STRING_FIELD(control.socket_group)},
    {"allowed_uids", "--allowed-uids", "OUTRIDER_ALLOWED_UIDS", "allowed_uids", "UID,...", "", "",
     "Comma-separated uids (a TOML array of integers in the file) that may connect besides the "
     "agent's own uid; root always may.",
     true, ParamKind::kUintList,
     [](AgentOptions& o, std::string_view t) { return ParseUidList(t, &o.control.allowed_uids); },
     [](const AgentOptions& o) { return JoinUids(o.control.allowed_uids); }},
    {"job_class_ceiling", "--job-class-ceiling", "OUTRIDER_JOB_CLASS_CEILING", "job_class_ceiling",
     "CLASS|UID=CLASS,...", "", "",
     "The highest job class (high, normal, low) a user's jobs may declare with "
     "OUTRIDER_JOB_PRIORITY: one class for everyone, or per uid with `*` for the others "
     "(\"1000=high,*=normal\"). A job above its owner's ceiling is refused.",
     true, ParamKind::kString,
     [](AgentOptions& o, std::string_view t) {
       Result<JobClassCeiling> c = JobClassCeiling::Parse(t);
       if (!c.ok()) return c.status();
       o.control.job_class_ceiling = *c;
       return Status::Ok();
     },
     [](const AgentOptions& o) { return o.control.job_class_ceiling.ToString(); }},
    {"log_level", "--log-level", "OUTRIDER_LOG_LEVEL", "log_level", "LEVEL", "", "",
     "One of trace, debug, info, warn, error, critical, off.", true, ParamKind::kString,
     OUTRIDER_STRING_FIELD(log_level)},
    {"sq_entries", "--sq-entries", "OUTRIDER_SQ_ENTRIES", "sq_entries", "N", "", "entries",
     "Submission-ring entries per client; a power of two in [8, 65536].", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(control.sq_entries)},
    {"max_clients", "--max-clients", "OUTRIDER_MAX_CLIENTS", "max_clients", "N", "", "clients",
     "Most trainer processes connected at once.", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(control.max_clients)},
    {"max_communicators", "--max-communicators", "OUTRIDER_MAX_COMMUNICATORS", "max_communicators",
     "N", "", "memberships",
     "Most communicator memberships (process groups a trainer creates beside its job's, e.g. "
     "torch.distributed.new_group) of all clients together; one client may hold at most 4096.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(control.max_communicators)},
    {"handshake_timeout_ms", "--handshake-timeout-ms", "OUTRIDER_HANDSHAKE_TIMEOUT_MS",
     "handshake_timeout_ms", "MS", "", "ms",
     "A connection to the control socket that has not said hello this long after it was accepted "
     "is closed; at most 128 connections wait for their hello at once (a new one closes the "
     "oldest).",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(control.handshake_timeout_ms)},
    {"max_world_size", "--max-world-size", "OUTRIDER_MAX_WORLD_SIZE", "max_world_size", "N", "",
     "ranks", "Largest job (WORLD_SIZE) a client may join; larger ones are refused at the hello.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(control.max_world_size)},
    {"max_regions_per_client", "--max-regions-per-client", "OUTRIDER_MAX_REGIONS_PER_CLIENT",
     "max_regions_per_client", "N", "", "regions",
     "Most memory regions one client may have registered at once.", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(control.limits.max_regions)},
    {"max_region_bytes", "--max-region-bytes", "OUTRIDER_MAX_REGION_BYTES", "max_region_bytes",
     "BYTES", "", "bytes", "Largest memory region a client may register.", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(control.limits.max_region_bytes)},
    {"op_timeout_ms", "--op-timeout-ms", "OUTRIDER_OP_TIMEOUT_MS", "op_timeout_ms", "MS", "", "ms",
     "How long a collective may wait for all local ranks to submit before it fails with "
     "DEADLINE_EXCEEDED on every node of its job; 0 = never.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(op_timeout_ms)},
    {"drain_timeout_ms", "--drain-timeout-ms", "OUTRIDER_DRAIN_TIMEOUT_MS", "drain_timeout_ms",
     "MS", "", "ms",
     "On SIGTERM, how long the agent hands its jobs over before it exits: ops that have not "
     "started are given back to their trainers, which submit them again at the next agent on the "
     "same socket, and started ones finish here (a job across nodes first agrees with its other "
     "nodes where this node stops); a second SIGTERM exits at once. 0 = exit at once, failing "
     "what is pending.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(drain_timeout_ms)},
    {"hand_over_wait_ms", "--hand-over-wait-ms", "OUTRIDER_HAND_OVER_WAIT_MS", "hand_over_wait_ms",
     "MS", "", "ms",
     "How long a job across nodes waits for a node whose agent handed it over (a drain, SIGTERM) "
     "to come back with its next agent, which takes the node's ranks over as themselves; then the "
     "job fails with PEER_LOST. 0 = the job fails when the node's agent stops.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(engine.hand_over_wait_ms)},
    {"job_metrics_retire_s", "--job-metrics-retire-s", "OUTRIDER_JOB_METRICS_RETIRE_S",
     "job_metrics_retire_s", "S", "", "s",
     "How long a job's metric series (training_job=\"...\") stay after its last rank on this node "
     "left; a scrape in that time still reads their last values. Then they go, and a new job may "
     "take the label's place; 0 = at the next tick.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(job_metrics_retire_s)},
    {"spin_us", "--spin-us", "OUTRIDER_SPIN_US", "spin_us", "US", "", "us",
     "How long the progress loop polls the rings before sleeping in epoll; at most 1000000.", true,
     ParamKind::kUint, OUTRIDER_UINT_FIELD(spin_us)},
    {"gpu_spin_us", "--gpu-spin-us", "OUTRIDER_GPU_SPIN_US", "gpu_spin_us", "US", "", "us",
     "While GPU work the agent waits for is in flight (a stream's ready fence, its own copies, its "
     "NCCL launches), how long the progress loop polls without progress before sleeping until a "
     "host function wakes it (a wake-up costs tens to hundreds of microseconds per GPU step); "
     "0 = spin_us alone; at most 1000000.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(gpu_spin_us)},
    {"gpu_nccl", "--gpu-nccl", "OUTRIDER_GPU_NCCL", "gpu_nccl", "MODE", "", "",
     "Who runs dense GPU collectives of gpu_mode ipc jobs: `auto` (the agent's own NCCL "
     "communicators when MPS runs, else the host engine through pinned buffers), `force` (NCCL "
     "even "
     "without MPS: its kernels are then time-sliced with training's) or `off` (the host engine).",
     true, ParamKind::kString,
     [](AgentOptions& o, std::string_view t) {
       if (t != "auto" && t != "force" && t != "off") {
         return InvalidArgument("gpu_nccl must be auto, force or off, got '" + std::string(t) +
                                "'");
       }
       o.gpu_nccl = std::string(t);
       return Status::Ok();
     },
     [](const AgentOptions& o) { return o.gpu_nccl; }},
    {"gpu_pinned_max_bytes", "--gpu-pinned-max-bytes", "OUTRIDER_GPU_PINNED_MAX_BYTES",
     "gpu_pinned_max_bytes", "BYTES", "0 (an eighth of host memory)", "bytes",
     "Most host memory the agent pins to stage GPU regions of gpu_mode ipc clients, in use and "
     "kept for reuse together; an op that would need more fails with RESOURCE_EXHAUSTED. 0: an "
     "eighth of the host's memory, between 256 MiB and 64 GiB.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(gpu_pinned_max_bytes)},
    {"gpu_pinned_idle_ms", "--gpu-pinned-idle-ms", "OUTRIDER_GPU_PINNED_IDLE_MS",
     "gpu_pinned_idle_ms", "MS", "", "ms",
     "A pinned staging buffer unused this long is unpinned and given back to the system; 0: at "
     "once "
     "(no reuse).",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(gpu_pinned_idle_ms)},
    {"port", "--port", "OUTRIDER_PORT", "port", "PORT", "", "",
     "TCP port of the agent-to-agent rendezvous (the root agent of a job hosts it; the others "
     "connect to OUTRIDER_ROOT_ADDR or MASTER_ADDR at this port). 0 = no multi-node service.",
     true, ParamKind::kUint,
     [](AgentOptions& o, std::string_view t) {
       uint32_t port = 0;
       OUTRIDER_RETURN_IF_ERROR(ParseUnsigned(t, &port));
       if (port > 65535) {
         return InvalidArgument("port must be in [0, 65535], got " + std::to_string(port));
       }
       o.network.port = static_cast<uint16_t>(port);
       return Status::Ok();
     },
     [](const AgentOptions& o) { return std::to_string(o.network.port); }},
    {"listen_address", "--listen-address", "OUTRIDER_LISTEN_ADDRESS", "listen_address", "ADDR", "",
     "", "IPv4 address the rendezvous port binds to.", true, ParamKind::kString,
     OUTRIDER_STRING_FIELD(network.listen_address)},
    {"heartbeat_ms", "--heartbeat-ms", "OUTRIDER_HEARTBEAT_MS", "heartbeat_ms", "MS", "", "ms",
     "Interval of heartbeats to peer agents.", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(network.heartbeat_ms)},
    {"peer_timeout_ms", "--peer-timeout-ms", "OUTRIDER_PEER_TIMEOUT_MS", "peer_timeout_ms", "MS",
     "", "ms",
     "A peer agent silent this long is declared lost: its jobs' ops fail on every survivor.", true,
     ParamKind::kUint, OUTRIDER_UINT_FIELD(network.peer_timeout_ms)},
    {"rendezvous_timeout_ms", "--rendezvous-timeout-ms", "OUTRIDER_RENDEZVOUS_TIMEOUT_MS",
     "rendezvous_timeout_ms", "MS", "", "ms",
     "How long a multi-node job may take to find all its nodes' agents before its ops fail.", true,
     ParamKind::kUint, OUTRIDER_UINT_FIELD(network.rendezvous_timeout_ms)},
    {"tcp_congestion_control", "--tcp-congestion-control", "OUTRIDER_TCP_CONGESTION_CONTROL",
     "tcp_congestion_control", "NAME", "", "",
     "Congestion control of the agent's TCP connections to other agents (a name from "
     "net.ipv4.tcp_available_congestion_control), or `system` for the kernel's default. Where that "
     "is bbr, `cubic` avoids BBR's 200 ms pauses on connections busy for over 10 s, which stall a "
     "whole ring (512 MiB-1 GiB allreduces 2-4 % faster), but queues more in front of urgent "
     "chunks (docs/benchmarks.md: \"TCP congestion control\"). Needs CAP_NET_ADMIN unless the name "
     "is in net.ipv4.tcp_allowed_congestion_control; refused, the agent logs it and keeps the "
     "default.",
     true, ParamKind::kString, OUTRIDER_STRING_FIELD(network.tcp_congestion_control)},
    {"ucx_zero_copy", "--ucx-zero-copy", "OUTRIDER_UCX_ZERO_COPY", "ucx_zero_copy", "0|1", "", "",
     "1: let UCX send zero-copy. Faster where the CPU and not the link limits (64 MiB allreduces "
     "took 1.4-1.7x as long without it on 4 unshaped namespaces of 2 cores, as long on 2 Gbit/s "
     "links), but UCX's TCP transport (1.10 to at least 1.22) can then abort this agent when a "
     "peer "
     "agent dies mid-transfer: only with a UCX that has the fix. 0: sends are copied.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(network.ucx_zero_copy)},
    {"ring_chunk_bytes", "--ring-chunk-bytes", "OUTRIDER_RING_CHUNK_BYTES", "ring_chunk_bytes",
     "BYTES", "", "bytes",
     "Unit of pipelining in the inter-node ring: each chunk is forwarded as soon as it is reduced.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(engine.chunk_bytes)},
    {"direct_max_bytes", "--direct-max-bytes", "OUTRIDER_DIRECT_MAX_BYTES", "direct_max_bytes",
     "BYTES", "", "bytes",
     "Inter-node allreduces up to this size send the node's whole buffer to every other node (one "
     "round, lowest latency); larger ones use the ring (least bandwidth). Raise it on links much "
     "faster than 10 Gbit/s, where rounds cost more than bytes. Every agent of a job needs the "
     "same "
     "value: where two pick differently, the op fails naming this setting.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(engine.direct_max_bytes)},
    {"nccl_chunk_bytes", "--nccl-chunk-bytes", "OUTRIDER_NCCL_CHUNK_BYTES", "nccl_chunk_bytes",
     "BYTES", "", "bytes",
     "GPU allreduces and broadcasts on the agent's NCCL (gpu_nccl) are launched in pieces of at "
     "most this size, so a more urgent op waits behind at most two of them. Node 0's agent of a "
     "job decides for the job.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(engine.nccl_chunk_bytes)},
    {"sparse_block_rows", "--sparse-block-rows", "OUTRIDER_SPARSE_BLOCK_ROWS", "sparse_block_rows",
     "ROWS", "", "rows",
     "Rows per block of the sparse `block` algorithm (only non-zero blocks travel). Every agent of "
     "a job must use the same value.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(engine.sparse_block_rows)},
    {"scheduler", "--scheduler", "OUTRIDER_SCHEDULER", "scheduler", "POLICY", "", "",
     "How bulk chunks of all jobs share each peer link: `priority` (job classes, then weighted "
     "fair sharing between jobs, then op priority, each aged) or `fifo` (submission order).",
     true, ParamKind::kString,
     OUTRIDER_TWO_WORD_FIELD(network.scheduler.priority, "scheduler", "priority", "fifo")},
    {"credit_window_bytes", "--credit-window-bytes", "OUTRIDER_CREDIT_WINDOW_BYTES",
     "credit_window_bytes", "BYTES", "", "bytes",
     "Bytes of bulk chunks in flight per peer link that carries chunks of more than one priority: "
     "an urgent chunk waits behind at most this much (behind solo_window_bytes if it arrives on a "
     "link that carried one priority).",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(network.scheduler.window_bytes)},
    {"solo_window_bytes", "--solo-window-bytes", "OUTRIDER_SOLO_WINDOW_BYTES", "solo_window_bytes",
     "BYTES", "", "bytes",
     "The credit window of a peer link whose queued and in-flight chunks all have one priority "
     "(one "
     "op, or ops nobody ranks apart): nothing there can be overtaken, and the deeper window keeps "
     "the link busy while the receiving agent waits for a core. As soon as a chunk of another "
     "priority shows up, the link is back to credit_window_bytes.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(network.scheduler.solo_window_bytes)},
    {"aging_ms", "--aging-ms", "OUTRIDER_AGING_MS", "aging_ms", "MS", "", "ms",
     "A waiting chunk (or an op waiting for its launch on the agents' NCCL) gains one priority "
     "level "
     "per this many ms, so no op starves; 0 = no aging.",
     true, ParamKind::kUint, OUTRIDER_MS_AS_NS_FIELD(network.scheduler.aging_ns)},
    {"yield_window_bytes", "--yield-window-bytes", "OUTRIDER_YIELD_WINDOW_BYTES",
     "yield_window_bytes", "BYTES", "", "bytes",
     "Bytes in flight on a peer link up to which a lower job class may still send while a higher "
     "class is active there (a job of it running an op that may send there, or a chunk of it "
     "queued or in flight, or either in the last job_class_hold_ms): what a higher-class chunk "
     "can find ahead of it on the wire. A larger chunk still goes, alone.",
     true, ParamKind::kUint, OUTRIDER_UINT_FIELD(network.scheduler.yield_window_bytes)},
    {"job_class_hold_ms", "--job-class-hold-ms", "OUTRIDER_JOB_CLASS_HOLD_MS", "job_class_hold_ms",
     "MS", "", "ms",
     "How long after its last op or chunk a job class still counts as active on a link, so that "
     "lower classes keep to yield_window_bytes between its ops.",
     true, ParamKind::kUint, OUTRIDER_MS_AS_NS_FIELD(network.scheduler.class_hold_ns)},
    {"job_class_aging_ms", "--job-class-aging-ms", "OUTRIDER_JOB_CLASS_AGING_MS",
     "job_class_aging_ms", "MS", "", "ms",
     "A waiting chunk rises one job class per this many ms, up to high, where it shares the link "
     "with the high class by weight: no job starves; 0 = classes are strict.",
     true, ParamKind::kUint, OUTRIDER_MS_AS_NS_FIELD(network.scheduler.class_aging_ns)},
    {"express_lane", "--express-lane", "OUTRIDER_EXPRESS_LANE", "express_lane", "0|1", "", "",
     "1: what the send scheduler does not queue (fingerprints with small ops' data, aborts, "
     "goodbyes, credits, heartbeats) goes to each peer agent on a connection of its own, so it "
     "does not wait behind the chunks already handed to the connection that carries them. 0: one "
     "connection carries everything this agent sends, in one order. Agents of a job may differ.",
     true, ParamKind::kUint,
     OUTRIDER_TWO_WORD_FIELD(network.scheduler.express_lane, "express_lane", "1", "0")},
    {"op_yield", "--op-yield", "OUTRIDER_OP_YIELD", "op_yield", "0|1", "", "",
     "1: while an op of a job runs on this node (from its start to its end, agreement included), "
     "the job's chunks of a lower op priority keep to yield_window_bytes on every link, as a "
     "lower job class does, and ring chunks queued before go in pieces of half of it. 0: op "
     "priorities only order the queue. No effect with scheduler = fifo.",
     true, ParamKind::kUint,
     OUTRIDER_TWO_WORD_FIELD(network.scheduler.op_yield, "op_yield", "1", "0")},
    {"http_address", "--http-address", "OUTRIDER_HTTP_ADDRESS", "http_address", "ADDR", "", "",
     "Address of the HTTP listener (/metrics, /healthz, /readyz, /status). Anything but loopback "
     "exposes job names and peer addresses to that network.",
     true, ParamKind::kString, OUTRIDER_STRING_FIELD(http_address)},
    {"http_port", "--http-port", "OUTRIDER_HTTP_PORT", "http_port", "PORT", "", "",
     "TCP port of the HTTP listener; 0 = none.", true, ParamKind::kUint,
     OUTRIDER_UINT_FIELD(http_port)},
    {"metrics", "--metrics", "OUTRIDER_METRICS", "metrics", "0|1", "", "",
     "1: keep Prometheus metrics; 0: skip metric updates (the endpoints still answer).", true,
     ParamKind::kUint, OUTRIDER_UINT_FIELD(metrics)},
    {"config_file", "--config", "OUTRIDER_CONFIG", "", "PATH", "(none)", "",
     "TOML file to read; its keys are the config keys of this table.", true, ParamKind::kString,
     OUTRIDER_STRING_FIELD(config_file)},
    {"ready_fd", "--ready-fd", "", "", "FD", "(none)", "",
     "Write one byte to this file descriptor once listening, then close it (for supervisors).",
     false, ParamKind::kUint,
     [](AgentOptions& o, std::string_view t) {
       uint32_t fd = 0;
       OUTRIDER_RETURN_IF_ERROR(ParseUnsigned(t, &fd));
       if (fd > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
         return InvalidArgument("out of range for a file descriptor");
       }
       o.ready_fd = static_cast<int>(fd);
       return Status::Ok();
     },
     [](const AgentOptions& o) { return std::to_string(o.ready_fd); }},
};
#undef OUTRIDER_STRING_FIELD
#undef OUTRIDER_UINT_FIELD
#undef OUTRIDER_MS_AS_NS_FIELD
#undef OUTRIDER_TWO_WORD_FIELD

}  // namespace

std::span<const Param> Params() { return kParams; }

std::string DefaultText(const Param& p) {
  if (!p.fixed_default.empty()) return std::string(p.fixed_default);
  std::string text = p.get(AgentOptions{});
  if (text.empty()) return "(empty)";
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  uint64_t bytes = 0;
  if (p.unit == "bytes" && ParseUnsigned(text, &bytes).ok() && bytes >= kGiB && bytes % kGiB == 0) {
    text += " (" + std::to_string(bytes / kGiB) + " GiB)";
  }
  return text;
}

}  // namespace outrider::agent
