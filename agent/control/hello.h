// The hello a client opens its connection with, checked before the agent creates anything for
// it: header, protocol version, job identity and ring size. Everything in it is untrusted; a
// refusal names the field and its value, and is what the client reads in its hello reply.
#pragma once

#include <cstddef>
#include <cstdint>

#include "agent/control/control_options.h"
#include "agent/engine/member.h"
#include "ipc/status.h"

namespace outrider::agent {

struct Hello {
  // Job, ranks, root address and token; client_id and peer are the caller's to fill in.
  ClientIdentity identity;
  uint32_t sq_entries = 0;  // ring entries the client gets: a power of two in [8, 65536]
};

// `msg`: the first message of a connection, `len` bytes as received. Thread-safety: a pure
// function.
Result<Hello> ParseHello(const uint8_t* msg, size_t len, const ControlServerOptions& options);

}  // namespace outrider::agent
