// UCX active-message transport with event-driven progress.
#include "agent/transport/ucx/ucx_transport.h"

#include <cstdlib>
#include <cstring>

#include "agent/log.h"
#include "agent/transport/ucx/ucx_transport_factory.h"

namespace outrider::agent {
namespace {
// Active-message id of each lane's messages.
constexpr unsigned kAmId[kLanes] = {17, 18};
}  // namespace

struct UcxTransport::Peer {
  PeerId id;
  ucp_ep_h ep[kLanes] = {nullptr, nullptr};  // by lane
  UcxTransport* owner;
  bool failed = false;
  bool closed = false;  // Disconnect()ed: no more callbacks for it
};

struct UcxTransport::SendRequest {
  UcxTransport* owner;
  std::vector<uint8_t> header;  // UCX reads the header until the send completes
  SendDone done;
};

struct UcxTransport::RecvRequest {
  UcxTransport* owner;
  Delivery delivery;
};

UcxTransport::UcxTransport(Callbacks callbacks) : callbacks_(std::move(callbacks)) {}

Status UcxStatus(const std::string& what, ucs_status_t status) {
  std::string m = what + ": " + ucs_status_string(status);
  switch (status) {
    case UCS_OK:
      return Status::Ok();
    case UCS_ERR_NO_MEMORY:
      return ResourceExhausted(m);
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
      return PeerLost(m);
    case UCS_ERR_TIMED_OUT:
      return DeadlineExceeded(m);
    case UCS_ERR_CANCELED:
      return Cancelled(m);
    default:
      return Unavailable(m);
  }
}

void ConfigureUcxEnvironment(bool zero_copy) {
  // Larger TCP segments than UCX's defaults (8K send, 64K receive) cut the syscalls per byte:
  // 64 MiB allreduces across 4 unshaped namespaces went from ~290 to ~240 ms here. Users'
  // own UCX_* settings win.
  ::setenv("UCX_TCP_TX_SEG_SIZE", "64K", 0);
  ::setenv("UCX_TCP_RX_SEG_SIZE", "256K", 0);
  // The kernel's send buffer is a FIFO below the scheduler: autotuned to megabytes, it kept an
  // urgent chunk 10-30 ms behind bulk data on 2 Gbit/s links. 256 KiB holds far more than one
  // bandwidth-delay product of a data-center link and cut that to a few ms (outrider-bench
  // schedule, 4 emulated nodes: first-layer gradients ready after 18 ms instead of 46 ms).
  ::setenv("UCX_TCP_SNDBUF", "256K", 0);
  // One socket event per TCP progress call. With UCX 1.13's default batch (16), a surviving
  // agent aborted in UCX (tcp_iface.c: "conn_state != CLOSED", an event of an endpoint closed
  // earlier in the same batch) in 3 of 32 agent kills of outrider-chaos; with 1, in none of 300.
  ::setenv("UCX_TCP_MAX_POLL", "1", 0);
  // No zero-copy sends. UCX's TCP transport (1.10 through at least 1.22) completes a partly
  // written zero-copy send twice when the socket fails under it: once when it purges the failed
  // endpoint, again on return (uct_tcp_ep_sendv). A surviving agent then aborted on the assertion
  // `comp->count > 0` (uct_iface.h) when a peer agent was killed mid-transfer, or would corrupt
  // memory in a build without assertions (fault_test's UcxPeerDeathTest). Eager sends copy into the
  // transport's segments instead (UCX_ZCOPY_THRESH=inf), and rendezvous data on TCP goes as
  // copied active messages rather than zero-copy puts (UCX_TCP_PUT_ENABLE=n); RDMA transports
  // keep zero-copy rendezvous. Forced, unless the agent's ucx_zero_copy asks for zero-copy (for a
  // UCX with the fix): where the CPU and not the link limits, copies cost time (64 MiB allreduces
  // across 4 unshaped namespaces on 2 cores took 1.4-1.7x as long; on 2 Gbit/s links, as long).
  // (UCX_TCP_MAX_IOV=0 would switch TCP zero-copy off alone, but UCX 1.13 then refuses its own
  // short sends that carry a header.)
  for (auto [name, value] :
       {std::pair{"UCX_ZCOPY_THRESH", "inf"}, std::pair{"UCX_TCP_PUT_ENABLE", "n"}}) {
    if (zero_copy) break;
    if (const char* own = std::getenv(name); own != nullptr && std::string(own) != value) {
      Logger("transport")
          ->warn(
              "{}={} ignored: the agent sends without zero-copy ({}={}), whose error path in UCX's "
              "TCP transport can abort the agent when a peer dies",
              name, own, name, value);
    }
    ::setenv(name, value, 1);
  }
  // On a TCP-only data plane, eager messages (no rendezvous handshake per chunk) cost the least
  // CPU. RDMA setups keep UCX's rendezvous defaults.
  if (const char* tls = std::getenv("UCX_TLS"); tls != nullptr && std::string(tls) == "tcp") {
    ::setenv("UCX_RNDV_THRESH", "inf", 0);
    if (zero_copy) ::setenv("UCX_ZCOPY_THRESH", "32K", 0);  // zero-copy from 32 KiB: the least CPU
  }
}

Result<std::unique_ptr<UcxTransport>> UcxTransport::Create(Callbacks callbacks,
                                                           std::string tcp_congestion_control,
                                                           bool zero_copy) {
  OUTRIDER_RETURN_IF_ERROR(ValidateCongestionControlName(tcp_congestion_control));
  auto t = std::unique_ptr<UcxTransport>(new UcxTransport(std::move(callbacks)));
  ConfigureUcxEnvironment(zero_copy);
  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return UcxStatus("reading UCX configuration", st);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  st = ucp_init(&params, config, &t->context_);
  ucp_config_release(config);
  if (st != UCS_OK) return UcxStatus("ucp_init", st);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  st = ucp_worker_create(t->context_, &wp, &t->worker_);
  if (st != UCS_OK) return UcxStatus("ucp_worker_create", st);
  st = ucp_worker_get_efd(t->worker_, &t->efd_);
  if (st != UCS_OK) return UcxStatus("ucp_worker_get_efd", st);
  ucp_address_t* addr = nullptr;
  size_t addr_len = 0;
  st = ucp_worker_get_address(t->worker_, &addr, &addr_len);
  if (st != UCS_OK) return UcxStatus("ucp_worker_get_address", st);
  t->address_.assign(reinterpret_cast<const char*>(addr), addr_len);
  ucp_worker_release_address(t->worker_, addr);
  for (size_t lane = 0; lane < kLanes; ++lane) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = kAmId[lane];
    hp.cb = &UcxTransport::OnActiveMessage;
    hp.arg = &t->handlers_[lane];
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    st = ucp_worker_set_am_recv_handler(t->worker_, &hp);
    if (st != UCS_OK) return UcxStatus("ucp_worker_set_am_recv_handler", st);
  }
  // The worker's TCP listeners exist now; connections accepted there inherit their algorithm.
  t->congestion_ = std::move(tcp_congestion_control);
  if (Status cc = t->ApplyCongestionControl(); !cc.ok()) {
    if (cc.code() != Code::kPermissionDenied) return cc;
    Logger("transport")->warn("{}", cc.message());
    t->congestion_ = std::string(kKernelCongestionControl);
  }
  return t;
}

Status UcxTransport::ApplyCongestionControl() {
  if (congestion_ == kKernelCongestionControl) return Status::Ok();
  Result<int> changed = SetTcpCongestionControlOnOwnSockets(congestion_);
  return changed.ok() ? Status::Ok() : changed.status();
}

UcxTransport::~UcxTransport() {
  // Healthy endpoints are closed; those of failed or dropped peers go with the worker.
  for (auto& [id, peer] : peers_) {
    if (peer->failed) continue;
    for (ucp_ep_h ep : peer->ep) {
      if (ep == nullptr) continue;
      ucp_request_param_t p{};
      p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      p.flags = UCP_EP_CLOSE_FLAG_FORCE;
      ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
      if (UCS_PTR_IS_PTR(r)) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_worker_progress(worker_);
        ucp_request_free(r);
      }
    }
  }
  peers_.clear();
  for (ucs_status_ptr_t r : closing_) {
    while (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_worker_progress(worker_);
    ucp_request_free(r);
  }
  closing_.clear();
  if (worker_) ucp_worker_destroy(worker_);
  if (context_) ucp_cleanup(context_);
}

void UcxTransport::OnEndpointError(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* peer = static_cast<Peer*>(arg);
  if (peer->failed || peer->closed) return;
  peer->failed = true;
  peer->owner->peer_errors_.emplace_back(peer->id, UcxStatus("connection to peer agent", status));
}

Result<PeerId> UcxTransport::Connect(const std::string& remote_address) {
  auto it = peer_by_address_.find(remote_address);
  if (it != peer_by_address_.end()) {
    auto p = peers_.find(it->second);
    if (p != peers_.end() && !p->second->failed) return it->second;
    peer_by_address_.erase(it);  // reconnect after a failure
  }
  auto peer = std::make_unique<Peer>();
  peer->id = next_peer_++;
  peer->owner = this;
  // One endpoint per lane: an error on either loses the peer.
  for (ucp_ep_h& lane_ep : peer->ep) {
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t*>(remote_address.data());
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &UcxTransport::OnEndpointError;
    ep.err_handler.arg = peer.get();
    ucs_status_t st = ucp_ep_create(worker_, &ep, &lane_ep);
    if (st != UCS_OK) {
      // An endpoint already made goes with the worker, as a disconnected peer's does.
      peer->closed = true;
      closed_peers_.push_back(std::move(peer));
      return UcxStatus("connecting to a peer agent", st);
    }
  }
  // The endpoints' sockets are open (connecting) now. The kernel allowed the algorithm on the
  // listeners, so a failure here is a socket closed meanwhile at worst: the connection would then
  // keep the kernel's default, which is worth a line in the log, not a failed connect.
  if (Status cc = ApplyCongestionControl(); !cc.ok()) Logger("transport")->warn("{}", cc.message());
  PeerId id = peer->id;
  peers_.emplace(id, std::move(peer));
  peer_by_address_[remote_address] = id;
  return id;
}

void UcxTransport::Close(PeerId id) {
  auto it = peers_.find(id);
  if (it == peers_.end() || it->second->failed) return Disconnect(id);
  // Flushed and closed while the peer is alive: its agent sees an orderly close, not an error,
  // and nothing of the endpoint is left for late events of its socket to find.
  for (ucp_ep_h& ep : it->second->ep) {
    if (ep == nullptr) continue;
    ucp_request_param_t p{};
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
    if (UCS_PTR_IS_PTR(r)) closing_.push_back(r);
    ep = nullptr;
  }
  it->second->closed = true;
  for (auto a = peer_by_address_.begin(); a != peer_by_address_.end();) {
    a = a->second == id ? peer_by_address_.erase(a) : std::next(a);
  }
  closed_peers_.push_back(std::move(it->second));
  peers_.erase(it);
}

void UcxTransport::Disconnect(PeerId id) {
  auto it = peers_.find(id);
  if (it == peers_.end()) return;
  for (auto a = peer_by_address_.begin(); a != peer_by_address_.end();) {
    a = a->second == id ? peer_by_address_.erase(a) : std::next(a);
  }
  // The endpoint is only marked closed here and really closed with the worker: force-closing a
  // TCP endpoint of a peer that just died trips an assertion in UCX 1.13's TCP progress
  // (tcp_iface.c: conn_state != CLOSED) when the dead socket's last events arrive afterwards.
  it->second->closed = true;
  closed_peers_.push_back(std::move(it->second));
  peers_.erase(it);
}

void UcxTransport::OnSendDone(void* request, ucs_status_t status, void* user_data) {
  auto* req = static_cast<SendRequest*>(user_data);
  req->owner->send_done_.emplace_back(std::move(req->done),
                                      UcxStatus("sending to a peer agent", status));
  delete req;
  ucp_request_free(request);
}

Status UcxTransport::Send(PeerId peer_id, Lane lane, const void* header, size_t header_len,
                          const void* data, size_t len, SendDone done) {
  auto it = peers_.find(peer_id);
  if (it == peers_.end() || it->second->failed) return PeerLost("peer agent is not connected");
  auto* req =
      new SendRequest{this,
                      std::vector<uint8_t>(static_cast<const uint8_t*>(header),
                                           static_cast<const uint8_t*>(header) + header_len),
                      std::move(done)};
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = &UcxTransport::OnSendDone;
  p.user_data = req;
  auto l = static_cast<size_t>(lane);
  ucs_status_ptr_t r =
      ucp_am_send_nbx(it->second->ep[l], kAmId[l], req->header.data(), header_len, data, len, &p);
  if (r == nullptr) {  // completed in place; the callback does not run
    send_done_.emplace_back(std::move(req->done), Status::Ok());
    delete req;
    return Status::Ok();
  }
  if (UCS_PTR_IS_ERR(r)) {
    Status st = UcxStatus("ucp_am_send_nbx", UCS_PTR_STATUS(r));
    delete req;
    return st;
  }
  return Status::Ok();
}

ucs_status_t UcxTransport::OnActiveMessage(void* arg, const void* header, size_t header_length,
                                           void* data, size_t length,
                                           const ucp_am_recv_param_t* param) {
  auto* handler = static_cast<LaneHandler*>(arg);
  UcxTransport* self = handler->owner;
  auto* h = static_cast<const uint8_t*>(header);
  if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
    // Eager: the payload is valid during this call, so the engine reads it in place.
    self->callbacks_.on_message(handler->lane, h, header_length, static_cast<const uint8_t*>(data),
                                length);
    return UCS_OK;
  }
  // Rendezvous: pull the payload straight to where the engine wants it, or into our own buffer.
  auto* req = new RecvRequest{self, Delivery{}};
  req->delivery.lane = handler->lane;
  req->delivery.header.assign(h, h + header_length);
  req->delivery.len = length;
  RecvTarget target = self->callbacks_.recv_buffer
                          ? self->callbacks_.recv_buffer(h, header_length, length)
                          : RecvTarget{};
  uint8_t* dst = target.data;
  req->delivery.keep = std::move(target.keep);
  if (dst == nullptr) {
    req->delivery.owned.reset(new uint8_t[length]);  // uninitialized: it is overwritten at once
    dst = req->delivery.owned.get();
  }
  req->delivery.data = dst;
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv_am = &UcxTransport::OnRecvDone;
  p.user_data = req;
  ucs_status_ptr_t r = ucp_am_recv_data_nbx(self->worker_, data, dst, length, &p);
  if (r == nullptr) {
    self->deliveries_.push_back(std::move(req->delivery));
    delete req;
  } else if (UCS_PTR_IS_ERR(r)) {
    Logger("transport")
        ->error("receiving a rendezvous message failed: {}", ucs_status_string(UCS_PTR_STATUS(r)));
    delete req;
  }
  return UCS_OK;
}

void UcxTransport::OnRecvDone(void* request, ucs_status_t status, size_t, void* user_data) {
  auto* req = static_cast<RecvRequest*>(user_data);
  if (status == UCS_OK) {
    req->owner->deliveries_.push_back(std::move(req->delivery));
  } else {
    Logger("transport")
        ->error("receiving a rendezvous message failed: {}", ucs_status_string(status));
  }
  delete req;
  ucp_request_free(request);
}

void UcxTransport::RunDeferred() {
  while (!deliveries_.empty() || !send_done_.empty() || !peer_errors_.empty()) {
    while (!peer_errors_.empty()) {
      auto [id, st] = std::move(peer_errors_.front());
      peer_errors_.pop_front();
      callbacks_.on_peer_error(id, st);
    }
    while (!send_done_.empty()) {
      auto [done, st] = std::move(send_done_.front());
      send_done_.pop_front();
      if (done) done(st);
    }
    while (!deliveries_.empty()) {
      Delivery d = std::move(deliveries_.front());
      deliveries_.pop_front();
      callbacks_.on_message(d.lane, d.header.data(), d.header.size(), d.data, d.len);
    }
  }
}

bool UcxTransport::Progress() {
  bool any = false;
  while (ucp_worker_progress(worker_) != 0) any = true;
  for (auto it = closing_.begin(); it != closing_.end();) {
    if (ucp_request_check_status(*it) == UCS_INPROGRESS) {
      ++it;
      continue;
    }
    ucp_request_free(*it);
    it = closing_.erase(it);
  }
  any |= !deliveries_.empty() || !send_done_.empty() || !peer_errors_.empty();
  RunDeferred();
  return any;
}

bool UcxTransport::Arm() {
  if (!deliveries_.empty() || !send_done_.empty() || !peer_errors_.empty()) return false;
  return ucp_worker_arm(worker_) == UCS_OK;
}

TransportFactory UcxTransportFactory(std::string tcp_congestion_control, bool zero_copy) {
  return [tcp_congestion_control,
          zero_copy](Transport::Callbacks callbacks) -> Result<std::unique_ptr<Transport>> {
    OUTRIDER_ASSIGN_OR_RETURN(
        auto ucx, UcxTransport::Create(std::move(callbacks), tcp_congestion_control, zero_copy));
    return std::unique_ptr<Transport>(std::move(ucx));
  };
}

}  // namespace outrider::agent
