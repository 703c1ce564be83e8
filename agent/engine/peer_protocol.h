// Agent-to-agent message header carried with every transport message (heartbeats, op
// contributions, ring chunks, goodbyes). Peers are other agents, not clients, but they are still
// checked: unknown jobs or malformed headers are dropped and logged.
#pragma once

#include <cstdint>

namespace outrider::agent {

inline constexpr uint32_t kPeerMagic = 0x52454550;  // "PEER"
inline constexpr uint16_t kPeerVersion = 3;

enum class PeerMsg : uint16_t {
  kHeartbeat = 1,  // liveness only
  kContrib = 2,    // a node's fingerprint for one collective instance, with data for direct algorithms
  kRing = 3,       // one chunk of a ring reduce-scatter / allgather step
  kJobLeft = 4,    // the sender's clients of this job are gone; `offset` = messages it sent us before
  kSparse = 5,     // a chunk of a sparse-collective message: `step` = phase, `offset` = chunk
                   // offset, `fp.count` = the whole message's length (fp is otherwise unused)
  kCredit = 6,     // the receiver took a scheduled chunk: `offset` = its bytes (header included)
};

// Chunks the sender's scheduler paces; their receiver returns a kCredit for each.
inline bool IsScheduledChunk(uint16_t type) {
  return type == static_cast<uint16_t>(PeerMsg::kRing) || type == static_cast<uint16_t>(PeerMsg::kSparse);
}

// A kContrib whose fingerprint has this kind aborts the instance: the sender's ranks disagree
// among themselves; the payload is the error text.
inline constexpr uint32_t kAbortKind = 0xffffffffu;

// Fingerprint of one collective instance: every node must send the same one.
struct Fingerprint {
  uint32_t kind;
  uint32_t dtype;
  uint32_t reduce_op;
  int32_t root;
  uint64_t count;
};
static_assert(sizeof(Fingerprint) == 24);

struct PeerHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t type;       // PeerMsg
  uint64_t sender;     // hash of the sender agent's transport address
  uint64_t job_hash;   // hash of the job id
  uint64_t key;
  uint64_t seq;
  int32_t from_node;
  uint32_t step;       // ring step: reduce-scatter 0..N-2, allgather N-1..2N-3
  uint64_t offset;     // byte offset of the payload in the node buffer
  Fingerprint fp;
};
static_assert(sizeof(PeerHeader) == 80);

// Payload of a sparse collective's kContrib: what the node brings, so every node can check the
// op and run the same cost model on the same numbers.
struct SparseAnnounce {
  int32_t code;         // outrider::Code: non-zero if the node's local part failed
  uint32_t reserved;
  uint64_t rows;        // table rows
  uint64_t nnz;         // rows in the node's contribution (lookup: ids it asks for)
  uint64_t blocks;      // non-zero blocks of block_rows rows
  uint64_t block_rows;
  double union_ratio;       // the sender's view of this key's history (node 0's is used)
  double block_union_ratio;
  double link_bytes_per_s;  // the sender's bandwidth estimate (the minimum is used)
  uint64_t demand_n;    // demanded row ids (u64) that follow this struct in the payload
  char message[184];    // why the local part failed
};
static_assert(sizeof(SparseAnnounce) == 256);

}  // namespace outrider::agent
