// UCX implementation of Transport: one worker per agent, one endpoint per peer agent and lane
// (created from the peer's worker address; on TCP each is a connection of its own), one active
// message id per lane (eager or rendezvous, pulled with ucp_am_recv_data_nbx), peer error
// handling mode, event-driven progress (efd + arm).
#pragma once

#include <ucp/api/ucp.h>

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "agent/transport/transport.h"

namespace outrider::agent {

// Sets the UCX_* environment the agent's UCX runs with (before ucp_config_read): segment and
// socket sizes, one socket event per progress call, and no zero-copy sends (UCX's TCP transport
// aborts, or corrupts memory, when a socket fails under a partly written zero-copy send). Users'
// own values win where the agent's are tuning only; the zero-copy ones are forced unless
// `zero_copy` (the agent's ucx_zero_copy: for a UCX with the fix). Create()
// calls it; tests that drive UCX directly call it to run UCX as the agent does.
void ConfigureUcxEnvironment(bool zero_copy = false);

// Thread-safety: loop thread only.
class UcxTransport : public Transport {
 public:
  // `tcp_congestion_control`: the algorithm of its TCP connections, or "system" (the kernel's
  // default). An algorithm the kernel lacks is an error; one it does not permit the agent is
  // logged, and the connections keep the kernel's default.
  static Result<std::unique_ptr<UcxTransport>> Create(
      Callbacks callbacks,
      std::string tcp_congestion_control = std::string(kKernelCongestionControl),
      bool zero_copy = false);
  ~UcxTransport() override;

  const std::string& address() const override { return address_; }
  Result<PeerId> Connect(const std::string& remote_address) override;
  Status Send(PeerId peer, Lane lane, const void* header, size_t header_len, const void* data,
              size_t len, SendDone done) override;
  void Disconnect(PeerId peer) override;
  void Close(PeerId peer) override;
  int event_fd() const override { return efd_; }
  bool Progress() override;
  bool Arm() override;
  std::string tcp_congestion_control() const override { return congestion_; }

 private:
  struct Peer;
  struct SendRequest;
  struct RecvRequest;
  struct Delivery {
    Lane lane = Lane::kBulk;
    std::vector<uint8_t> header;
    std::unique_ptr<uint8_t[]> owned;  // payload buffer when the engine gave none
    std::shared_ptr<const void> keep;  // keeps the engine's buffer alive until delivered
    uint8_t* data = nullptr;
    size_t len = 0;
  };

  // What an active-message handler is registered with: its lane's messages.
  struct LaneHandler {
    UcxTransport* owner;
    Lane lane;
  };

  explicit UcxTransport(Callbacks callbacks);
  static ucs_status_t OnActiveMessage(void* arg, const void* header, size_t header_length,
                                      void* data, size_t length, const ucp_am_recv_param_t* param);
  static void OnSendDone(void* request, ucs_status_t status, void* user_data);
  static void OnRecvDone(void* request, ucs_status_t status, size_t length, void* user_data);
  static void OnEndpointError(void* arg, ucp_ep_h ep, ucs_status_t status);
  void RunDeferred();
  // Gives every TCP socket of the agent congestion_ (a no-op for "system").
  Status ApplyCongestionControl();

  Callbacks callbacks_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1;
  std::string address_;
  LaneHandler handlers_[kLanes] = {{this, Lane::kBulk}, {this, Lane::kExpress}};
  std::string congestion_{kKernelCongestionControl};
  std::map<std::string, PeerId> peer_by_address_;
  std::map<PeerId, std::unique_ptr<Peer>> peers_;
  // Disconnected peers stay allocated: UCX may still run their error callback while it closes
  // the endpoint, and that callback's argument must not dangle.
  std::vector<std::unique_ptr<Peer>> closed_peers_;
  // Orderly closes under way (Close may run inside a callback, where progressing is not allowed):
  // freed by Progress once done, and waited for by the destructor.
  std::vector<ucs_status_ptr_t> closing_;
  PeerId next_peer_ = 1;
  // Work that must not run inside UCX callbacks: message deliveries, send completions, errors.
  std::deque<Delivery> deliveries_;
  std::deque<std::pair<SendDone, Status>> send_done_;
  std::deque<std::pair<PeerId, Status>> peer_errors_;
};

// Converts a UCX status (the one place UCX codes become Status values).
Status UcxStatus(const std::string& what, ucs_status_t status);

}  // namespace outrider::agent
