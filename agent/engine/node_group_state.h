// Per-instance state of the node group's collectives (shared by node_group.cc and
// node_group_sparse.cc only).
#pragma once

#include <algorithm>
#include <climits>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <tuple>
#include <vector>

#include "agent/engine/node_group.h"
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent {

// Sparse messages of the demanded rows' exchange carry their phase + kDemandPhase.
inline constexpr uint32_t kDemandPhase = 2;
// Chunks of demanded rows go in the scheduler's urgent class, ahead of the op's other chunks and
// of every op at the default priorities.
inline int32_t DemandPriority(int32_t priority) {
  int32_t p = std::min<int32_t>(priority, 0);
  return p < INT32_MIN + 1000 ? INT32_MIN : p - 1000;
}

struct NodeGroup::SparseState {
  bool started = false;
  sparse::Context ctx;
  sparse::Rows mine;  // the node's contribution until the exchange takes it
  std::unique_ptr<sparse::Exchange> exchange;
  // Row demand (sparse allreduce): this node's demanded ids until agreement, then the union over
  // all nodes. The demanded rows run as a second exchange (phases + kDemandPhase) whose chunks go
  // first and whose result the local clients get before the rest.
  std::vector<uint64_t> demand;
  std::unique_ptr<sparse::Exchange> first;
  size_t first_rows = 0;
  bool first_delivered = false;
  std::vector<OpReport> first_reports;
  ipc::SparseAlgo algo = ipc::SparseAlgo::kAuto;
  uint64_t predicted_bytes = 0;
  uint64_t sum_nnz = 0, sum_blocks = 0;
  uint64_t local_done_ns = 0;  // for the debug timeline
  struct Assembly {
    std::vector<uint8_t> bytes;
    uint64_t got = 0;
  };
  std::map<std::pair<int, uint32_t>, Assembly> assembling;                 // (from, phase)
  std::vector<std::tuple<int, uint32_t, std::vector<uint8_t>>> ready;      // whole, before the exchange
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> outbox;  // being sent; kept until the instance goes
  std::vector<OpReport> reports;             // by local rank, once delivered
  // Chunks wait here and go out a few at a time, destinations in ring order (next node first):
  // when every node does the same, each receiver hears from one sender at a time instead of all
  // of them at once (incast overflows switch queues and makes TCP back off).
  struct Chunk {
    int node;
    uint32_t phase;
    uint64_t offset, len;
    const std::vector<uint8_t>* msg;  // in outbox
  };
  std::deque<Chunk> queue;
  std::deque<Chunk> urgent;  // chunks of the demanded rows: sent before any of `queue`
  int chunks_in_flight = 0;
  bool pumping = false;
};

struct NodeGroup::Instance {
  uint64_t key = 0, seq = 0;
  int32_t priority = 0;  // orders the instance's bulk sends
  bool started = false, agreed = false, done = false;
  std::vector<const ValidatedOp*> ops;  // by local rank; valid while !done
  Fingerprint fp{};
  std::vector<std::optional<Fingerprint>> fps;  // by node
  std::vector<std::vector<uint8_t>> data;       // by node: direct payloads (own copy included)
  struct Early {
    uint32_t step;
    uint64_t offset;
    std::vector<uint8_t> bytes;
  };
  std::vector<Early> early;  // ring chunks that arrived before agreement
  uint8_t* buf = nullptr;    // node buffer (allreduce: local rank 0's recv)
  const uint8_t* input = nullptr;  // ring allreduce: this node's contribution (buf once reduced)
  uint64_t bytes = 0;
  std::vector<uint8_t> temp;  // reduce-scatter: the locally reduced send buffers
  std::vector<std::vector<uint8_t>> outgoing;  // alltoallv: payload for each node
  Status local_error;                          // alltoallv: counts disagree inside this node
  std::vector<uint64_t> seg;  // ring segment boundaries in bytes (N + 1 entries)
  uint64_t ring_chunks_left = 0;
  int sends_in_flight = 0;
  // Deferred local reduction (ring allreduce): one flag per slice of the node buffer.
  std::vector<uint8_t> local_ready;
  uint64_t local_left = 0;
  uint64_t local_cursor = 0;
  uint64_t started_ns = 0, agreed_ns = 0;  // for the debug timeline
  bool notified = false;  // Done ran (or the instance was never started)
  Status result;
  uint64_t wire_sent = 0, wire_recv = 0;  // bytes to / from peers for this instance, headers included
  std::string abort_text;                 // sent to the peers when this node's ranks disagreed
  std::unique_ptr<SparseState> sparse;    // sparse collectives only
};

}  // namespace outrider::agent
