// What a job's generations (reformer.h) need from the rest of the agent, as interfaces handed in
// by whoever builds it: the jobs that run here (the engine's job table), the agents' port
// (PortLink, port_link.h) and a clock. The wing includes nothing of the engine, and the port
// reaches it only through these; tests give fakes (tests/unit/agent/membership/).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/membership/wire.h"
#include "base/status.h"
#include "ipc/event_fd.h"

namespace outrider::agent::membership {

// A generation of a job as it runs on this agent, as the generations see it.
struct GenerationInfo {
  std::string id;    // the generation's own job id (GenerationJobId)
  std::string base;  // the job as its trainers name it
  std::string token;
  uint32_t generation = 0;
  int32_t num_nodes = 1, node_rank = 0, world_size = 1;
  size_t members = 0;               // this node's ranks in it now
  std::vector<bool> gone;           // by node: found without ranks (left, or never came)
  std::vector<std::string> agents;  // every node's agent (host:port), from its rendezvous
  bool node_gone(int node) const {
    return node >= 0 && static_cast<size_t>(node) < gone.size() && gone[static_cast<size_t>(node)];
  }
};

// The jobs that run on this agent. Thread-safety: the loop thread, as the Reformer.
class JobDirectory {
 public:
  virtual ~JobDirectory() = default;
  // Generation `id` when it runs here (with members or without).
  virtual std::optional<GenerationInfo> Generation(const std::string& id) const = 0;
  // The newest generation of job `base` with members here, if any.
  virtual std::optional<GenerationInfo> LiveGeneration(const std::string& base) const = 0;
  // Fails generation `id` here (a rank of this node died before joining it).
  virtual void GiveUp(const std::string& id, const Status& why) = 0;
};

// The connection a request came on, held until it is answered. Destroying it unanswered closes
// the connection.
class Responder {
 public:
  virtual ~Responder() = default;
  virtual void Answer(const ReformDecision& decision) = 0;
  // Tells the asker to ask `agent` instead.
  virtual void Redirect(const std::string& agent) = 0;
  // The asker closed its side: it gave up, died, or is a joiner that left.
  virtual bool Closed() const = 0;
};

// What another agent answered: a decision, or the agent to ask instead.
struct CallAnswer {
  std::string redirect;  // non-empty: ask this agent
  ReformDecision decision;
};

// A request in flight to another agent. Destroying it cancels it: its callback does not run.
class Call {
 public:
  virtual ~Call() = default;
  // Says the request is all there is: the other agent sees its asker closed, and still answers.
  virtual void HalfClose() = 0;
};

// The agents' port. Callbacks run on the loop thread.
class PeerLink {
 public:
  virtual ~PeerLink() = default;
  // This agent's port (what its reports name).
  virtual uint16_t port() const = 0;
  // Sends `request` about job `base` (its token) to `agent`, answered within `timeout_ms`.
  virtual std::unique_ptr<Call> Ask(const std::string& agent, const std::string& base,
                                    const std::string& token, const ReformRequest& request,
                                    uint32_t timeout_ms,
                                    std::function<void(Result<CallAnswer>)> done) = 0;
  // Tells the rendezvous of generation `id` at agent `root` that it cannot complete; `node_left`:
  // the generation's node that has no rank in it (-1: none).
  virtual std::unique_ptr<Call> Withdraw(const std::string& root, const std::string& id,
                                         const std::string& token, const Status& why,
                                         int32_t node_left) = 0;
  // The rendezvous of generation `id` this agent hosts can never complete.
  virtual void Abandon(const std::string& id, const Status& why) = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t NowNs() const = 0;
};

class MonotonicClock final : public Clock {
 public:
  uint64_t NowNs() const override { return ipc::MonotonicNs(); }
};

}  // namespace outrider::agent::membership
