// The client's communicators: groups of the job's ranks, each with collectives of its own. The
// agents run each as a job of its own, named from the job id and a key every member derives the
// same way, with its ranks numbered node by node; the client keeps the caller's numbering.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "base/status.h"
#include "shim/connect_config.h"

namespace outrider::shim {

class Connection;

// Thread-safety: one thread at a time (the owning Client's).
class Communicators {
 public:
  // Handle 0 is the job itself.
  static constexpr uint32_t kJob = 0;

  struct Comm {
    uint64_t key = 0;  // names it within the job: the agents derive its job id from it
    int rank = 0, size = 1;
    std::vector<int32_t> node;             // by rank: the rank's node in the job
    std::vector<int32_t> agent_rank;       // by rank: the agents' node-by-node number for it
    bool node_order = true;                // agent_rank[r] == r for every rank
    std::map<uint64_t, uint32_t> created;  // communicators made from it, by member list hash
    uint64_t splits = 0;
    // The agent's id for it (the job's: kJob). The caller's handle stays when the client joins
    // it again at a new agent (Rejoin), whose id for it may differ.
    uint32_t agent_id = kJob;
    int local_size = 1;  // its ranks per node
  };

  // Holds the job's communicator: the config's ranks, local_world_size of them per node.
  Communicators(Connection* conn, const ConnectConfig& config);
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  // The job re-formed (`config` has the client's place in its new generation): every
  // communicator but the job's is gone.
  void Reset(const ConnectConfig& config);
  // The job's nodes run different numbers of ranks: rank r's node is the place of
  // `first_ranks[r]` (the first rank of r's node) among them.
  void SetJobNodes(const std::vector<int32_t>& first_ranks);
  // They could not be learned: communicators of this generation fail with `why`.
  void ForgetJobNodes(const Status& why) { job_nodes_ = why; }

  Result<const Comm*> Find(uint32_t comm) const;
  Result<int> Rank(uint32_t comm) const;
  Result<int> Size(uint32_t comm) const;

  // Called by every member of the new communicator (and by no one else): its rank i is rank
  // ranks[i] of `parent`. Members must create communicators from the same list in the same order.
  Result<uint32_t> Create(uint32_t parent, const std::vector<int32_t>& ranks);

  // Every rank's (color, key), exchanged over a split's parent: `status` says whether the exchange
  // worked; rank r's pair is at pairs[2 * agent_rank[r]] (the agents' order). An error instead
  // means the exchange never started (the split is not counted).
  struct SplitExchange {
    Status status;
    std::vector<int32_t> pairs;
  };
  using Exchange =
      std::function<Result<SplitExchange>(const Comm& parent, int32_t color, int32_t key)>;
  // Called by every rank of `parent`: those with the same color >= 0 form a communicator, ranked
  // by (key, rank in parent). A negative color joins none: the result is nullopt.
  Result<std::optional<uint32_t>> Split(uint32_t parent, int32_t color, int32_t key,
                                        const Exchange& exchange);

  // Leaves a communicator; `pending` ops on it have not been waited for (then it stays).
  Status Destroy(uint32_t comm, size_t pending);

  // The agent's id for the communicator with handle `comm` (`comm` itself if there is none).
  uint32_t AgentId(uint32_t comm) const;
  // The client is connected to a new agent: joins every communicator there again, in the order
  // they were made (every member does the same), keeping their handles.
  Status Rejoin();

 private:
  // Joins the communicator of `members` (ranks of `parent`) named `key` at the agent.
  Result<uint32_t> Join(const Comm& parent, const std::vector<int32_t>& members, uint64_t key);
  // Asks the agent to let this client into `c`: the agent's id for it.
  Result<uint32_t> Request(const Comm& c);

  Connection* conn_;                // Not owned; outlives this.
  std::map<uint32_t, Comm> comms_;  // by handle; 0 is the job
  uint32_t next_handle_ = 1;        // handles are the client's, never the agent's ids
  Status job_nodes_;                // not OK: the job's nodes are unknown in this generation
};

}  // namespace outrider::shim
