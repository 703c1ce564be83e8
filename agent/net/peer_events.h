// What the network hands up to the jobs it serves: messages from other agents, already checked
// for a well-formed header, and the loss of a peer agent. JobTable implements it in the agent;
// tests implement it to watch the network alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include "agent/net/peer_protocol.h"
#include "agent/transport/transport.h"
#include "base/status.h"

namespace outrider::agent {

// Thread-safety: called on the loop thread only (from inside Transport::Progress() or
// Network::Tick()).
class PeerEvents {
 public:
  virtual ~PeerEvents() = default;
  // Where the `len`-byte payload of a message with header `h` should land, so it needs no copy,
  // and what keeps it alive until it has (a null target lets the transport use a buffer of its
  // own; also for a job not served here).
  virtual RecvTarget RecvBuffer(const PeerHeader& h, size_t len) = 0;
  // A message for the job `h.job_hash`. False if no job here has that hash: it is dropped.
  virtual bool OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) = 0;
  // The agent behind `peer` is gone (silent past the deadline, or the transport gave up on it).
  virtual void OnPeerLost(PeerId peer, const Status& why) = 0;
};

}  // namespace outrider::agent
