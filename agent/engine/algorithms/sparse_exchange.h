// Sparse collectives across nodes, as an adapter over agent/engine/sparse/: every node announces
// its contribution (or why its local part failed) with the fingerprint; once all agree, every node
// runs the same exchange (the cost model picks it from the same announcements), whose messages
// travel in chunks, a few at a time, and are reassembled here; the node's result then goes to its
// local clients. With row demand the demanded rows run first as their own exchange.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "agent/engine/algorithm.h"
#include "agent/engine/sparse/exchange.h"
#include "metrics/registry.h"

namespace outrider::agent {

class AgentMetrics;

// What the sparse exchanges of one node group learn across instances and share.
struct SparseShared {
  struct History {
    double union_ratio = -1, block_union_ratio = -1;
  };
  std::map<uint64_t, History> history;  // by key: union growth seen so far
  double link_estimate = 0;             // bytes/s measured on large exchanges; 0: none yet
  // The demanded rows of instance (key, seq) are in every local client's output.
  std::function<void(uint64_t key, uint64_t seq, const std::vector<OpReport>& reports)> partial;
  AgentMetrics* metrics = nullptr;    // not owned; null: nothing counted
  metrics::Gauge* density = nullptr;  // created on first use; owned by the registry
  metrics::Gauge* efficiency = nullptr;
};

// Sparse messages of the demanded rows' exchange carry their phase + kDemandPhase.
inline constexpr uint32_t kDemandPhase = 2;

// Thread-safety: loop thread only.
class SparseExchange final : public Algorithm {
 public:
  SparseExchange(Collective& c, const AlgorithmDeps& deps)
      : Algorithm(c, deps), shared_(*deps.sparse) {}
  std::string_view label() const override;
  void Prepare(std::function<void()> ready) override;
  BufferSpan Contribution(int node) const override;
  void Agreed() override;
  void OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) override;
  void OnSent(const PeerHeader& h, bool ok) override;
  std::string WaitingFor() const override { return exchange_ ? "sparse exchange messages" : ""; }
  std::vector<OpReport> Reports() const override;

 private:
  struct Chunk {
    int node;
    uint32_t phase;
    uint64_t index;  // messages of this phase queued for `node` before this one
    uint64_t offset, len;
    std::shared_ptr<const std::vector<uint8_t>> msg;  // held by the send until it is done
  };
  // Checks the announcements, picks the exchange and starts it.
  Status Choose(std::vector<uint64_t>* demand);
  void Queue(std::vector<sparse::Outgoing> out, bool demanded);
  void PumpSends();
  void Deliver(int from, uint32_t phase, const uint8_t* msg, size_t len);
  void MaybeFinish();
  // Sparse allreduce without demand: the rows the exchange holds final go to the clients now.
  void DeliverReady();
  bool Streams() const;
  // The exchange is an owner algorithm (balanced, block): shares, then owners' returns.
  bool Owners() const {
    return algo_ == ipc::SparseAlgo::kBalanced || algo_ == ipc::SparseAlgo::kBlock;
  }
  void Learn(const sparse::Rows& result);

  SparseShared& shared_;  // The node group's; outlives this.
  sparse::Context ctx_;
  sparse::Rows mine_;  // the node's contribution until the exchange takes it
  std::unique_ptr<sparse::Exchange> exchange_;
  // Row demand: the union of demanded ids; their rows run as `first_`, delivered before the rest.
  std::vector<uint64_t> demand_;
  std::unique_ptr<sparse::Exchange> first_;
  size_t first_rows_ = 0;
  bool first_delivered_ = false;
  std::vector<OpReport> first_reports_;
  ipc::SparseAlgo algo_ = ipc::SparseAlgo::kAuto;
  uint64_t predicted_bytes_ = 0;
  uint64_t sum_nnz_ = 0, sum_blocks_ = 0;
  uint64_t local_done_ns_ = 0;  // for the debug timeline
  // A message arriving in chunks: `chunks` hold the `got` bytes received so far (at most total).
  struct Assembly {
    uint64_t total = 0;  // the message's length, as its first chunk announced it
    uint64_t got = 0;
    std::unique_ptr<uint8_t[]>
        whole;                   // `total` bytes, each chunk copied in at its offset as it arrives
    std::set<uint64_t> offsets;  // of the chunks so far
  };
  std::map<std::tuple<int, uint32_t, uint64_t>, Assembly>
      assembling_;                                                // (from, phase, message index)
  std::map<std::pair<int, uint32_t>, uint64_t> queued_messages_;  // (to, phase): messages queued
  std::vector<OpReport> reports_;                                 // by local rank, once delivered
  size_t delivered_ = 0;         // DeliverReady: leading result rows in the clients' outputs
  std::vector<Status> written_;  // DeliverReady: by local rank, how writing them went
  // Chunks go out a few at a time. The chunks of one batch of messages take turns (the first chunk
  // of every message, destinations in ring order from the next node, then every second chunk...):
  // nodes drift apart, and one message after another would then leave some receivers idle while
  // others hear from several senders; taking turns keeps every link busy until the batch is out.
  // (4 nodes at 2 Gbit/s, 1 % of 1M x 128: balanced 95.7 -> 90.6 ms, allgather 87.5 -> 89.1 ms,
  // medians of 3 runs.)
  std::deque<Chunk> queue_;
  std::deque<Chunk> urgent_;  // chunks of the demanded rows: sent before any of queue_
  // balanced and block: owners' returns (phase 1), sent once no share (phase 0) waits in queue_.
  // A late share holds up its owner's sum of a range, and with it that range's returns to every
  // node; a late return holds up only its own range at its receiver.
  std::deque<Chunk> returns_;
  int chunks_in_flight_ = 0;
  bool pumping_ = false;
};

}  // namespace outrider::agent
