// The agent-to-agent data plane as a small interface, so a UCX transport (host memory, TCP or
// RDMA) and later an NCCL transport (GPU memory) can sit side by side. Messages are a short
// header (routing, owned by the engine) plus a payload; delivery is reliable and ordered per
// peer and lane. Every arriving message is accepted and handed over: local scheduling only orders
// sends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "agent/transport/tcp_congestion.h"
#include "base/status.h"

namespace outrider::agent {

// Where a payload should land so it needs no copy, and what keeps that memory alive until the
// transport has written it and handed the message over: a transfer may still be landing after
// the op that offered the memory has ended (a peer failed it), and the client may release the
// memory then.
struct RecvTarget {
  uint8_t* data = nullptr;  // nullptr: the transport uses a buffer of its own
  std::shared_ptr<const void> keep;
};

using PeerId = uint32_t;

// Each peer is reached over two connections, so that what must overtake does not queue behind
// bulk bytes already handed to the other: the bulk lane carries the scheduler's chunks, the
// express lane what bypasses the scheduler (fingerprints with small ops' data, aborts, goodbyes,
// credits, heartbeats). Each lane is ordered; the two are not ordered with each other.
enum class Lane : uint8_t { kBulk = 0, kExpress = 1 };
inline constexpr size_t kLanes = 2;

// Thread-safety: loop thread only.
class Transport {
 public:
  struct Callbacks {
    // A message arrived on `lane`. Both spans are valid only during the call. It may run inside
    // Progress() while the transport is delivering, so it may send but must not destroy the
    // transport.
    std::function<void(Lane lane, const uint8_t* header, size_t header_len, const uint8_t* data,
                       size_t len)>
        on_message;
    // The transport gave up on a peer (it died, or the connection broke).
    std::function<void(PeerId peer, const Status& why)> on_peer_error;
    // Optional: where a large payload should land (`len` bytes), so it needs no copy (a null
    // target lets the transport use a buffer of its own). on_message then gets that same pointer;
    // the transport holds the target's `keep` until on_message has returned (or the transfer
    // failed).
    std::function<RecvTarget(const uint8_t* header, size_t header_len, size_t len)> recv_buffer;
  };
  using SendDone = std::function<void(const Status&)>;

  virtual ~Transport() = default;
  // Opaque blob other agents pass to Connect() to reach this one.
  virtual const std::string& address() const = 0;
  // Returns the peer for `remote_address`, connecting on first use.
  virtual Result<PeerId> Connect(const std::string& remote_address) = 0;
  // Sends header + payload on `lane`. The header is copied; the payload must stay valid until
  // `done` runs (always later, from Progress(), never inside Send()).
  virtual Status Send(PeerId peer, Lane lane, const void* header, size_t header_len,
                      const void* data, size_t len, SendDone done) = 0;
  // Drops the connection to `peer` (no callbacks follow for it).
  virtual void Disconnect(PeerId peer) = 0;
  // Closes the connection to a live `peer` in order, both sides done with it (no callbacks
  // follow for it): the peer's agent is about to go, and this side lets go first.
  virtual void Close(PeerId peer) { Disconnect(peer); }
  // Readable when Progress() may have work after Arm() returned true.
  virtual int event_fd() const = 0;
  // Advances sends and receives, runs callbacks. True if anything happened.
  virtual bool Progress() = 0;
  // Prepares event_fd() for sleeping. False means work is pending: progress instead of sleeping.
  virtual bool Arm() = 0;
  // The TCP congestion control of its connections: an algorithm's name, or "system" (the
  // kernel's default, also for transports without TCP).
  virtual std::string tcp_congestion_control() const {
    return std::string(kKernelCongestionControl);
  }
};

}  // namespace outrider::agent
