// One collective instance on this node, (key, seq) of a job: the state its node group and its
// algorithm share. The node group owns it; the algorithm reads it and acts through
// CollectiveLinks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/bootstrap/rank_layout.h"
#include "agent/engine/op.h"
#include "agent/engine/op_trace.h"
#include "agent/memory/buffer_span.h"
#include "agent/net/peer_protocol.h"
#include "base/status.h"

namespace outrider::agent {

class Algorithm;

// The job's nodes as one node sees them.
struct Topology {
  std::string job_id;
  int nodes = 1;
  int me = 0;           // this node
  RankLayout ranks{};   // which ranks run on which node (nodes may run different numbers)
  std::string label{};  // the job in metrics (every generation of a job is one); "" : job_id
  const std::string& metrics_job() const { return label.empty() ? job_id : label; }
  int next() const { return (me + 1) % nodes; }
  int local_size() const { return ranks.ranks_on(me); }
  int first_local_rank() const { return ranks.first_rank(me); }
  // "ranks 4-7 (node 1)".
  std::string DescribeNode(int node) const;
};

struct Collective {
  uint64_t key = 0, seq = 0;
  int32_t priority = 0;    // orders the instance's bulk sends (lower = sooner)
  bool started = false;    // this node's ranks all submitted it
  bool prepared = false;   // its algorithm's local step is done and its contributions are sent
  bool agreed = false;     // every node sent the same fingerprint
  bool done = false;       // finished here (result holds how)
  bool notified = false;   // the job heard of it (or never will: an aborted instance)
  bool forgotten = false;  // finished here ahead of an earlier seq of its key: kept, empty, only so
                           // that late messages for it are dropped until the earlier seqs finish
  Status result;
  std::vector<const ValidatedOp*> ops;  // by local rank; valid while !notified
  Fingerprint fp{};
  std::vector<std::optional<Fingerprint>> fps;  // by node
  std::vector<std::vector<uint8_t>> data;       // by node: what it sent with its fingerprint
  struct Early {
    PeerHeader h;
    std::vector<uint8_t> bytes;
  };
  std::vector<Early> early;  // chunks that arrived before agreement
  int sends_in_flight = 0;
  uint64_t wire_sent = 0, wire_recv = 0;  // bytes to / from peers, headers included
  uint64_t started_ns = 0, agreed_ns = 0;
  OpTrace trace;  // where its time went here
  // Why the instance failed here, as sent to the other nodes (kAbort: its code, its text as the
  // payload); kept while those sends run.
  Code told_code = Code::kOk;
  std::string told_text;
  std::unique_ptr<Algorithm> algorithm;

  const ValidatedOp& op() const { return *ops[0]; }
  // "key 0x... seq 3": names the instance in errors and logs.
  std::string Name() const;
  Collective();
  ~Collective();
};

// What an algorithm asks of its node group.
// Thread-safety: loop thread only.
class CollectiveLinks {
 public:
  struct SendArgs {
    PeerMsg type = PeerMsg::kRing;
    uint32_t step = 0;
    uint64_t offset = 0;
    uint64_t message_bytes = 0;  // kSparse
    uint64_t message_index = 0;  // kSparse: messages of this phase sent to the node before this one
    bool urgent = false;         // scheduled ahead of the instance's other chunks (demanded rows)
    // Owns the payload's memory, if anything does: held until the send is done (or dropped).
    std::shared_ptr<const void> keep{};
  };
  virtual ~CollectiveLinks() = default;
  // Sends `payload` to `node`: bulk chunks through the scheduler, the rest at once. The payload
  // must stay unchanged until the instance is notified, or until the send is done when
  // `args.keep` owns it. A failed instance sends nothing more.
  virtual void Send(Collective& c, int node, const SendArgs& args, const BufferSpan& payload) = 0;
  // The largest chunk an instance starting now should cut for `node`: smaller while the job
  // yields to a higher class on that link (UINT64_MAX: no bound).
  virtual uint64_t ChunkCap(int node) const { return UINT64_MAX; }
  // Finishes the instance here: failures are reported at once, success once its sends are done. A
  // failure is also sent to every other node, which fails the instance too: none of them waits for
  // what this node will no longer send.
  virtual void Complete(Collective& c, const Status& result) = 0;
};

// "key 0x... seq N": names one collective instance in errors and logs.
std::string InstanceName(uint64_t key, uint64_t seq);

}  // namespace outrider::agent
