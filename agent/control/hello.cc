// Hello checks: header, version, size, job identity and rank layout, ring size.
#include "agent/control/hello.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/bootstrap/rank_layout.h"
#include "agent/membership/generation_id.h"
#include "ipc/protocol.h"

namespace outrider::agent {
namespace {

uint32_t RoundUpPow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

Status CheckRankLayout(const ClientIdentity& id, const ControlServerOptions& options) {
  if (id.world_size > 0 && static_cast<uint32_t>(id.world_size) > options.max_world_size) {
    return ResourceExhausted("world_size " + std::to_string(id.world_size) +
                             " exceeds this agent's max_world_size " +
                             std::to_string(options.max_world_size));
  }
  if (id.world_size < 1 || id.rank < 0 || id.rank >= id.world_size) {
    return InvalidArgument("rank " + std::to_string(id.rank) + " is outside world_size " +
                           std::to_string(id.world_size));
  }
  if (id.local_world_size < 1 || id.local_world_size > 64 || id.local_rank < 0 ||
      id.local_rank >= id.local_world_size) {
    return InvalidArgument("local rank " + std::to_string(id.local_rank) +
                           " is outside local_world_size " + std::to_string(id.local_world_size) +
                           " (at most 64 clients of one job per node)");
  }
  if (id.world_size % id.local_world_size != 0 || id.rank % id.local_world_size != id.local_rank) {
    return InvalidArgument("rank " + std::to_string(id.rank) + " / world_size " +
                           std::to_string(id.world_size) + " do not fit local rank " +
                           std::to_string(id.local_rank) + " / local_world_size " +
                           std::to_string(id.local_world_size) +
                           ": every node must run LOCAL_WORLD_SIZE ranks, rank = node * "
                           "LOCAL_WORLD_SIZE + LOCAL_RANK");
  }
  return Status::Ok();
}

Status CheckJobId(std::string_view job_id, std::string_view what) {
  if (job_id.empty() || job_id.size() >= ipc::kJobIdBytes) {
    return InvalidArgument(std::string(what) + " must be 1.." +
                           std::to_string(ipc::kJobIdBytes - 1) + " characters");
  }
  for (char c : job_id) {
    if (c < 0x21 || c > 0x7e)
      return InvalidArgument(std::string(what) + " must be printable ASCII without spaces");
  }
  return Status::Ok();
}

Result<ClientIdentity> ParseCommCreate(const ipc::CommCreate& msg, const ClientIdentity& job,
                                       const ControlServerOptions& options) {
  if (msg.reserved != 0) return InvalidArgument("communicator request: reserved must be 0");
  ClientIdentity id = job;
  id.rank = msg.rank;
  id.world_size = msg.world_size;
  id.local_rank = msg.local_rank;
  id.local_world_size = msg.local_world_size;
  OUTRIDER_RETURN_IF_ERROR(CheckRankLayout(id, options));
  if (id.world_size > job.world_size || id.local_world_size > job.local_world_size) {
    return InvalidArgument("a communicator of " + std::to_string(id.world_size) + " ranks, " +
                           std::to_string(id.local_world_size) +
                           " per node, does not fit in job '" + job.job_id + "' of " +
                           std::to_string(job.world_size) + " ranks, " +
                           std::to_string(job.local_world_size) + " per node");
  }
  // Its nodes are some of the job's: a communicator claiming more would make this agent host a
  // rendezvous for nodes that do not exist, and its ops wait for them.
  RankLayout job_ranks = RankLayout::Of(job.world_size, job.local_world_size, job.node_ranks);
  int comm_nodes = id.world_size / id.local_world_size;
  int job_nodes = job_ranks.nodes();
  if (comm_nodes > job_nodes) {
    return InvalidArgument("a communicator of " + std::to_string(id.world_size) + " ranks, " +
                           std::to_string(id.local_world_size) + " per node, spans " +
                           std::to_string(comm_nodes) + " nodes; job '" + job.job_id + "' spans " +
                           std::to_string(job_nodes));
  }
  // Named within the job: a prefix of the job id and the key, 63 characters at most.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string suffix = "/";
  for (int shift = 60; shift >= 0; shift -= 4) suffix += kHex[(msg.key >> shift) & 0xf];
  id.job_id = job.job_id.substr(0, ipc::kJobIdBytes - 1 - suffix.size()) + suffix;
  id.comm = true;
  // A communicator runs as many ranks on each of its nodes (the shim checks): no node_ranks.
  id.node_ranks.clear();
  id.job_node = job_ranks.node_of(job.rank);
  return id;
}

Result<Hello> ParseHello(const uint8_t* msg, size_t len, const ControlServerOptions& options) {
  if (len < sizeof(ipc::MsgHeader)) return ProtocolError("hello shorter than a message header");
  ipc::HelloRequest hello{};
  std::memcpy(&hello, msg, std::min(len, sizeof(hello)));
  const ipc::MsgHeader& h = hello.header;
  if (h.magic != ipc::kMagic) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%08x", h.magic);
    return ProtocolError("bad magic 0x" + std::string(hex) + ": not an outrider client");
  }
  if (!options.protocol.Serves(h.version)) {
    const ProtocolWindow& w = options.protocol;
    return ProtocolError(
        "protocol version " + std::to_string(h.version) + " is not supported: this agent speaks " +
        "version " + std::to_string(w.newest) + " and serves shims of versions " +
        std::to_string(w.oldest) + " to " + std::to_string(w.newest) +
        (h.version < w.oldest ? " (restart the trainer with the shim installed with this agent)"
                              : " (upgrade the agent before the trainers)"));
  }
  // Version 12's hello ends before away_ms (and has no reconnect flags).
  size_t size = ipc::HelloBytes(h.version);
  bool v12 = size == ipc::kHelloRequestV12Bytes;
  if (h.type != static_cast<uint16_t>(ipc::MsgType::kHello) || len != size) {
    return ProtocolError("first message must be a hello of " + std::to_string(size) +
                         " bytes (protocol version " + std::to_string(h.version) + ")");
  }
  if (h.body_bytes != size - sizeof(h)) {
    return ProtocolError("hello says body_bytes=" + std::to_string(h.body_bytes) + " but " +
                         std::to_string(size - sizeof(h)) + " followed its header");
  }
  Hello out;
  out.version = h.version;
  ClientIdentity& id = out.identity;
  size_t job_len = strnlen(hello.job_id, sizeof(hello.job_id));
  if (job_len == sizeof(hello.job_id)) {
    return InvalidArgument("job id must be 1.." + std::to_string(sizeof(hello.job_id) - 1) +
                           " characters");
  }
  id.job_id.assign(hello.job_id, job_len);
  OUTRIDER_RETURN_IF_ERROR(CheckJobId(id.job_id));
  if (membership::IsGenerationId(id.job_id)) {
    return InvalidArgument("job id '" + id.job_id +
                           "' ends in ~g<N>, which names a generation of a job (the agent moves "
                           "ranks there itself): choose another job id");
  }
  id.rank = hello.rank;
  id.world_size = hello.world_size;
  id.local_rank = hello.local_rank;
  id.local_world_size = hello.local_world_size;
  OUTRIDER_RETURN_IF_ERROR(CheckRankLayout(id, options));
  id.root_addr.assign(hello.root_addr, strnlen(hello.root_addr, sizeof(hello.root_addr)));
  id.token.assign(hello.token, strnlen(hello.token, sizeof(hello.token)));
  uint32_t known = v12 ? ipc::kHelloJoiner
                       : ipc::kHelloJoiner | ipc::kHelloReconnect | ipc::kHelloAfterGoodbye |
                             ipc::kHelloHandedOver | ipc::kHelloFences;
  if ((hello.flags & ~known) != 0) {
    return InvalidArgument("hello: unknown flags " + std::to_string(hello.flags));
  }
  if ((hello.flags & ipc::kHelloReconnect) == 0 && (hello.flags & ipc::kHelloAfterGoodbye) != 0) {
    return InvalidArgument("hello: flag kHelloAfterGoodbye without kHelloReconnect");
  }
  if ((hello.flags & ipc::kHelloHandedOver) != 0 && (hello.flags & ipc::kHelloAfterGoodbye) == 0) {
    return InvalidArgument("hello: flag kHelloHandedOver without kHelloAfterGoodbye");
  }
  if ((hello.flags & ipc::kHelloFences) != 0 &&
      ((hello.flags & ipc::kHelloAfterGoodbye) == 0 ||
       hello.gpu_mode != static_cast<uint32_t>(ipc::GpuMode::kStaging))) {
    return InvalidArgument(
        "hello: flag kHelloFences without kHelloAfterGoodbye, or in a gpu_mode other than staging");
  }
  out.fences = (hello.flags & ipc::kHelloFences) != 0;
  id.handed_over = (hello.flags & ipc::kHelloHandedOver) != 0;
  id.job_base = id.job_id;
  id.joiner = (hello.flags & ipc::kHelloJoiner) != 0;
  if ((hello.flags & ipc::kHelloReconnect) != 0) {
    out.reconnect = Hello::Reconnect{.away_ms = hello.away_ms,
                                     .after_goodbye = (hello.flags & ipc::kHelloAfterGoodbye) != 0};
  }
  if (hello.gpu_mode >= ipc::kNumGpuModes) {
    return InvalidArgument("gpu_mode " + std::to_string(hello.gpu_mode) +
                           " is not staging (0) or ipc (1)");
  }
  id.gpu_mode = static_cast<ipc::GpuMode>(hello.gpu_mode);
  // 0 is the default of each: normal, weight 1.
  if (hello.job_class > static_cast<uint32_t>(ipc::JobClass::kLow)) {
    return InvalidArgument("job class " + std::to_string(hello.job_class) +
                           " is not high (1), normal (2) or low (3)");
  }
  if (hello.job_class != 0) id.job_class = static_cast<ipc::JobClass>(hello.job_class);
  if (hello.job_weight > ipc::kMaxJobWeight) {
    return InvalidArgument("job weight " + std::to_string(hello.job_weight) + " is outside 1.." +
                           std::to_string(ipc::kMaxJobWeight));
  }
  if (hello.job_weight != 0) id.job_weight = hello.job_weight;
  out.sq_entries = options.sq_entries;
  if (hello.requested_sq_entries != 0) {
    // Clamped before rounding: rounding 2^32 - 1 up would overflow (and never end).
    out.sq_entries =
        std::max<uint32_t>(RoundUpPow2(std::min<uint32_t>(hello.requested_sq_entries, 65536)), 8);
  }
  return out;
}

}  // namespace outrider::agent
