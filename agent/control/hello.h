// The hello a client opens its connection with, checked before the agent creates anything for
// it: header, protocol version, job identity and ring size. Everything in it is untrusted; a
// refusal names the field and its value, and is what the client reads in its hello reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "agent/control/control_options.h"
#include "agent/engine/member.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

struct Hello {
  // Job, ranks, root address and token; client_id and peer are the caller's to fill in.
  ClientIdentity identity;
  uint32_t sq_entries = 0;  // ring entries the client gets: a power of two in [8, 65536]
  uint16_t version = 0;     // the client's protocol version, one the agent serves
  // A client back after its agent went away: how long it was without one, and whether that agent
  // said goodbye (stopped) or vanished (killed).
  struct Reconnect {
    uint32_t away_ms = 0;
    bool after_goodbye = false;
  };
  std::optional<Reconnect> reconnect;
  // ipc::kHelloFences: the memfd of an earlier agent's control segment comes with the hello, and
  // the client's fences are there.
  bool fences = false;
};

// A job id as it may appear anywhere, metrics labels included: 1..63 bytes of printable ASCII
// without spaces. `what` names where it came from in the error.
Status CheckJobId(std::string_view job_id, std::string_view what = "job id");

// Rank, world size and local layout of a job or communicator member: every node runs
// local_world_size ranks, rank = node * local_world_size + local_rank.
Status CheckRankLayout(const ClientIdentity& id, const ControlServerOptions& options);

// A member of one of the job's communicators, from a kCommCreate of a client of `job`: the
// communicator's job id (a prefix of the job's and the key in hex), its ranks, and the job's root
// address, token and credentials.
Result<ClientIdentity> ParseCommCreate(const ipc::CommCreate& msg, const ClientIdentity& job,
                                       const ControlServerOptions& options);

// `msg`: the first message of a connection, `len` bytes as received. Thread-safety: a pure
// function.
Result<Hello> ParseHello(const uint8_t* msg, size_t len, const ControlServerOptions& options);

}  // namespace outrider::agent
