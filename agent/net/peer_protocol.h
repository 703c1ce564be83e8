// Agent-to-agent message header carried with every transport message (heartbeats, op
// contributions, ring chunks, goodbyes). Peers are other agents, not clients, but they are still
// checked: unknown jobs or malformed headers are dropped and logged.
#pragma once

#include <cstdint>

namespace outrider::agent {

inline constexpr uint32_t kPeerMagic = 0x52454550;  // "PEER"
// Bump on any change to a struct or an enum value here, to the lanes the messages take, or to
// what a message's payload means (a sparse algorithm's messages, say); agents of different
// versions drop each other's messages (and so fail jobs that span them) rather than misread them.
// 13: balanced and block stream by id ranges, block's owners are hashed blocks.
// 14: point-to-point messages (kPoint, kPointChunk).
inline constexpr uint16_t kPeerVersion = 14;

enum class PeerMsg : uint16_t {
  // Liveness only.
  kHeartbeat = 1,
  // A node's fingerprint for one collective instance, with data for direct algorithms.
  kContrib = 2,
  // One chunk of a ring or chain step (`step`, `offset`).
  kRing = 3,
  // The sender's clients of this job are gone (`sent_before`, `lost_node`); if the job failed
  // there, `code` and the payload (the error text) say why, and `step` is 1 if it gave up with
  // instances half done (0: its ranks left in order after an earlier failure, every instance they
  // contributed to finished).
  kJobLeft = 4,
  // A chunk of a sparse-collective message (`step` = phase, `offset`, `message_bytes`).
  kSparse = 5,
  // The receiver took a scheduled chunk of `credit_bytes`.
  kCredit = 6,
  // The instance failed at the sender for a reason the other nodes cannot see (its ranks
  // disagreed, an op or a peer's data it could not use, a send that failed): every node fails it
  // alike; `code` and the payload (the error text) say how.
  kAbort = 7,
  // The job failed at the sender for a reason of its own (a local rank died or left with
  // collectives unfinished, a node the sender lost): every node fails it at once, whatever it
  // still waits for, and tells nobody in turn; the payload is the reason.
  kJobFailed = 8,
  // Node 0's agent: the unique id of the job's NCCL communicator (the payload).
  kNcclId = 9,
  // Node 0's agent: a chunk of instance (key, seq) has its place in the job's NCCL launch order
  // (the payload: an NcclTicket).
  kNcclTicket = 10,
  // The job's hand-over across nodes (engine/job_hand_over.h): `key` is the JobHandOver::Step,
  // `lost_node` the node whose agent hands over; a kMark's payload is its EncodeSeqMap.
  kHandOver = 11,
  // A point-to-point message from rank `fp.root` to rank `step` with tag `key` (its low 32 bits),
  // the `seq`-th on that (sender, receiver, tag); `message_bytes` long. kPoint: the whole message,
  // sent at once; kPointChunk: the bytes at `offset`, paced by the sender's scheduler.
  kPoint = 12,
  kPointChunk = 13,
  // The receiver's agent took the point-to-point message (`key`, `seq`, `fp.root`, `step` as in
  // it) into a receive: a send larger than kEagerPointBytes completes then.
  kPointTaken = 14,
};
// Point-to-point messages up to this many bytes complete their send once sent; larger ones once
// the receiver took them (kPointTaken), so that a sender cannot run ahead of its receiver by more
// than its own sends in flight.
inline constexpr uint64_t kEagerPointBytes = 64 << 10;

// Messages of the point-to-point engine (engine/point_to_point.h), not of a collective.
inline bool IsPointToPointMessage(uint16_t type) {
  return type == static_cast<uint16_t>(PeerMsg::kPoint) ||
         type == static_cast<uint16_t>(PeerMsg::kPointChunk) ||
         type == static_cast<uint16_t>(PeerMsg::kPointTaken);
}

// Chunks the sender's scheduler paces; their receiver returns a kCredit for each.
inline bool IsScheduledChunk(uint16_t type) {
  return type == static_cast<uint16_t>(PeerMsg::kRing) ||
         type == static_cast<uint16_t>(PeerMsg::kSparse) ||
         type == static_cast<uint16_t>(PeerMsg::kPointChunk);
}

// Fingerprint::algo of a dense op: one round to every node, or a ring or chain of steps. Nodes
// pick by size against their own direct_max_bytes, so agents that differ there disagree here.
inline constexpr uint32_t kDirectAlgo = 0, kStagedAlgo = 1;

// Fingerprint of one collective instance: every node must send the same one. Fields that do not
// apply to the kind are zero, so they never disagree.
struct Fingerprint {
  uint32_t kind;       // ipc::OpKind
  uint32_t dtype;      // ipc::DType (sparse: the value dtype)
  uint32_t reduce_op;  // ipc::ReduceOp (allreduce, reduce-scatter)
  int32_t root;        // broadcast: the root's rank in the job
  uint64_t count;      // elements (sparse: dim)
  uint64_t rows;       // sparse: table rows
  uint32_t
      algo;      // sparse allreduce: ipc::SparseAlgo requested; shard and lookup: ipc::ShardScheme;
                 // other ops: the host algorithm the node picked (kDirectAlgo or kStagedAlgo)
  uint32_t gpu;  // 1: the op is on GPU memory, run on the agents' NCCL; 0: the host engine runs it
};
static_assert(sizeof(Fingerprint) == 40);

struct PeerHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t type;      // PeerMsg
  uint64_t sender;    // hash of the sender agent's transport address
  uint64_t job_hash;  // hash of the job id
  uint64_t key;       // instance: (key, seq)
  uint64_t seq;
  int32_t from_node;
  uint32_t step;    // kRing: reduce-scatter 0..N-2, allgather N-1..2N-3; kSparse: message phase;
                    // kJobLeft: 1 if the sender gave up
  uint64_t offset;  // kRing: byte offset in the node buffer; kSparse: byte offset in the message
  uint64_t message_bytes;  // kSparse: length of the whole message the chunk belongs to
  uint64_t credit_bytes;   // kCredit: bytes of the chunk taken, header included
  uint64_t
      sent_before;    // kJobLeft, kHandOver: messages of the job the sender sent this node before
                      // this one;
                      // kSparse: messages of this phase the sender sent this node before this one
  int32_t lost_node;  // kJobLeft: node whose loss made the sender give up, or -1; kHandOver: the
                      // node whose agent hands over
  int32_t
      code;  // kAbort, kJobLeft: the outrider::Code the instance or job failed with at the sender
  Fingerprint fp;  // kContrib
};
static_assert(sizeof(PeerHeader) == 128);

// Payload of a sparse collective's kContrib: what the node brings, so every node can check the
// op and run the same cost model on the same numbers.
struct SparseAnnounce {
  int32_t code;         // outrider::Code: non-zero if the node's local part failed
  uint32_t quantile_n;  // sparse allreduce: id quantiles of the node's rows (u64, increasing),
                        // after the demand ids
  uint64_t rows;        // table rows
  uint64_t nnz;         // rows in the node's contribution (lookup: ids it asks for)
  uint64_t blocks;      // non-zero blocks of block_rows rows
  uint64_t block_rows;
  double union_ratio;  // the sender's view of this key's history (node 0's is used)
  double block_union_ratio;
  double link_bytes_per_s;  // the sender's bandwidth estimate (the minimum is used)
  uint64_t demand_n;        // demanded row ids (u64) that follow this struct in the payload
  char message[184];        // why the local part failed
};
static_assert(sizeof(SparseAnnounce) == 256);

// Payload of an alltoallv kContrib: one of these per node of the job, by node, the sender's view
// of its ranks' counts with that node (the same table goes to every node), then the blocks the
// sender's ranks send the receiver's. Every node so checks every pair of nodes, each with itself
// included, and all fail alike when any pair disagrees.
struct AlltoallvCounts {
  uint64_t sent;           // elements the sender's ranks send that node's ranks
  uint64_t expected;       // elements the sender's ranks expect from that node's ranks
  uint64_t sent_hash;      // FNV-1a of the int64 counts sent, by sending rank, then receiving rank
  uint64_t expected_hash;  // FNV-1a of the int64 counts expected, in the same order
};
static_assert(sizeof(AlltoallvCounts) == 32);

}  // namespace outrider::agent
