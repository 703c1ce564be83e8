// How the control server meets clients: its socket and who may connect, the submission ring's
// size, and how many clients and regions it takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/control/job_class_ceiling.h"
#include "agent/control/session_limits.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

// The shim protocol versions the agent serves: its own and the one before (ipc/protocol.h), so that
// an agent is upgraded under trainers that run the previous release's shim.
struct ProtocolWindow {
  uint16_t newest = ipc::kProtocolVersion;
  uint16_t oldest = ipc::kOldestProtocolVersion;
  bool Serves(uint16_t version) const { return version >= oldest && version <= newest; }
};

struct ControlServerOptions {
  // Empty until LoadConfig fills in ipc::DefaultSocketPath, which depends on XDG_RUNTIME_DIR.
  std::string socket_path;
  // Empty: socket directory 0700 and socket 0600. Set: 0750 / 0660 owned by this group, and its
  // members may connect.
  std::string socket_group;
  // Uids allowed to connect besides the agent's own (root always may). Empty: own uid only.
  std::vector<uint32_t> allowed_uids;
  uint32_t sq_entries = 256;  // power of two in [8, 65536]
  uint32_t max_clients = 256;
  // Most communicator memberships (kCommCreate) of all clients together; each client may hold
  // Session::kMaxComms at most.
  uint32_t max_communicators = 16384;
  // A connection that has not sent its hello this long after it was accepted is closed.
  uint32_t handshake_timeout_ms = 5000;
  // Largest job a client may name: the agent keeps per-rank and per-node state for it.
  uint32_t max_world_size = 65536;
  SessionLimits limits;  // per client: max_regions_per_client, max_region_bytes
  JobClassCeiling job_class_ceiling;
  ProtocolWindow protocol;

  // The first bad field, named by its agent parameter with its value. Access: the socket and
  // who may use it; Capacity: rings, clients and their regions.
  Status ValidateAccess() const;
  Status ValidateCapacity() const;
  Status Validate() const {
    OUTRIDER_RETURN_IF_ERROR(ValidateAccess());
    return ValidateCapacity();
  }
};

}  // namespace outrider::agent
