// Hello checks: header, version, size, job identity and rank layout, ring size.
#include "agent/control/hello.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "ipc/protocol.h"

namespace outrider::agent {
namespace {

uint32_t RoundUpPow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

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
  if (h.version != ipc::kProtocolVersion) {
    return ProtocolError("protocol version " + std::to_string(h.version) +
                         " is not supported: this agent speaks version " +
                         std::to_string(ipc::kProtocolVersion) + " (upgrade the shim or the agent)");
  }
  if (h.type != static_cast<uint16_t>(ipc::MsgType::kHello) || len != sizeof(hello)) {
    return ProtocolError("first message must be a hello of " + std::to_string(sizeof(hello)) + " bytes");
  }
  Hello out;
  ClientIdentity& id = out.identity;
  size_t job_len = strnlen(hello.job_id, sizeof(hello.job_id));
  if (job_len == 0 || job_len == sizeof(hello.job_id)) {
    return InvalidArgument("job id must be 1.." + std::to_string(sizeof(hello.job_id) - 1) + " characters");
  }
  id.job_id.assign(hello.job_id, job_len);
  for (char c : id.job_id) {
    if (c < 0x21 || c > 0x7e) return InvalidArgument("job id must be printable ASCII without spaces");
  }
  id.rank = hello.rank;
  id.world_size = hello.world_size;
  id.local_rank = hello.local_rank;
  id.local_world_size = hello.local_world_size;
  if (id.world_size > 0 && static_cast<uint32_t>(id.world_size) > options.max_world_size) {
    return ResourceExhausted("world_size " + std::to_string(id.world_size) + " exceeds this agent's max_world_size " +
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
    return InvalidArgument("rank " + std::to_string(id.rank) + " / world_size " + std::to_string(id.world_size) +
                           " do not fit local rank " + std::to_string(id.local_rank) + " / local_world_size " +
                           std::to_string(id.local_world_size) +
                           ": every node must run LOCAL_WORLD_SIZE ranks, rank = node * LOCAL_WORLD_SIZE + LOCAL_RANK");
  }
  id.root_addr.assign(hello.root_addr, strnlen(hello.root_addr, sizeof(hello.root_addr)));
  id.token.assign(hello.token, strnlen(hello.token, sizeof(hello.token)));
  out.sq_entries = options.sq_entries;
  if (hello.requested_sq_entries != 0) {
    // Clamped before rounding: rounding 2^32 - 1 up would overflow (and never end).
    out.sq_entries = std::max<uint32_t>(RoundUpPow2(std::min<uint32_t>(hello.requested_sq_entries, 65536)), 8);
  }
  return out;
}

}  // namespace outrider::agent
