// What an agent that hands a job across nodes over leaves for the next agent at its socket: the
// job, this node's place in it, where the other nodes' agents listen and the stop point. Kept in
// one file beside the socket (`<socket>.hand-over`, mode 0600 in the agent's private directory),
// written when the agent stops and read by the next one when the job's trainers come back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/engine/job_hand_over.h"
#include "base/status.h"

namespace outrider::agent {

struct HandOverRecord {
  std::string job_id;  // the generation's own id (Job::id)
  std::string token;
  int32_t node_rank = 0;
  std::vector<std::string> transports;  // by node: each node's transport address (binary)
  std::vector<std::string> agents;      // by node: where each node's agent port listens
  JobHandOver::SeqMap stop;             // per key, the first sequence number the next agent runs
  uint64_t written_unix_s = 0;          // when the previous agent wrote it
};

// The path of the records of the agent listening at `socket_path`.
std::string HandOverRecordPath(const std::string& socket_path);
// Replaces the file at `path` with `records` (an empty list removes it).
Status WriteHandOverRecords(const std::string& path, const std::vector<HandOverRecord>& records);
// The records at `path` no older than `max_age_s` (none if there is no file). A file that does
// not parse is an error naming it.
Result<std::vector<HandOverRecord>> ReadHandOverRecords(const std::string& path,
                                                        uint64_t max_age_s);

}  // namespace outrider::agent
