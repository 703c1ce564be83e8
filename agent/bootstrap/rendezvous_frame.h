// The rendezvous wire format: a frame is a u32 body length, then the body: a fixed header (job id,
// token, job shape, node rank) and length-prefixed blobs (transport addresses, or a refusal's
// reason). Frames come from the network and are untrusted: Decode checks every length first.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace outrider::agent {

// A job as its rendezvous sees it: the frame header's fields.
struct JobShape {
  std::string job_id;
  std::string token;
  int32_t num_nodes = 1;
  int32_t local_size = 1;  // ranks on the sender's node (on every node where `layout` is 0)
  // Where nodes run different numbers of ranks: a hash of the ranks per node, in node order, the
  // same on every node of the job; 0 where every node runs local_size.
  uint32_t layout = 0;
};

}  // namespace outrider::agent

namespace outrider::agent::rendezvous {

inline constexpr uint32_t kMagic = 0x56445251;  // "QRDV"
inline constexpr uint16_t kVersion = 2;
inline constexpr uint32_t kMaxFrame = 1 << 20;  // largest body
// kJoin: blobs transport address, agent address. kTable: every node's transport address, then
// every node's agent address. kRefuse: the reason, then its Code as decimal text (absent: a
// wrong token or shape). kReform, kReformResult: a job's next
// generation (agent/membership/reformer.h), one blob each (agent/membership/wire.h). kRedirect: the
// agent to ask instead.
enum FrameType : uint16_t {
  kJoin = 1,
  kTable = 2,
  kRefuse = 3,
  kReform = 4,
  kReformResult = 5,
  kRedirect = 6,
  kWithdraw = 7  // a job's rendezvous cannot complete: the reason, then (if any) the node of it
                 // left with no rank, as decimal text
};

struct FrameHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t type;  // FrameType
  char job_id[64];
  char token[64];
  int32_t node_rank;
  int32_t num_nodes;
  int32_t local_size;
  uint32_t layout;
};
static_assert(sizeof(FrameHeader) == 152);

struct Frame {
  FrameHeader header;  // job_id and token NUL-terminated
  std::vector<std::string> blobs;
};

// One whole frame, length included.
std::string Encode(FrameType type, const JobShape& shape, int32_t node_rank,
                   const std::vector<std::string>& blobs);
// A frame's body (what follows its length).
Result<Frame> Decode(std::string_view body);

}  // namespace outrider::agent::rendezvous
