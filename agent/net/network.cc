// Peer liveness and message routing.
#include "agent/net/network.h"

#include <sys/epoll.h>

#include <cstdio>
#include <cstring>

#include "agent/log.h"
#include "agent/net/peer_protocol.h"
#include "ipc/protocol.h"

namespace outrider::agent {

Result<std::unique_ptr<Network>> Network::Create(EventLoop* loop, PeerEvents* events,
                                                 const NetworkOptions& options,
                                                 TransportFactory make, Clock clock) {
  auto net = std::unique_ptr<Network>(new Network(loop, events, options, std::move(clock)));
  net->scheduler_ = std::make_unique<SendScheduler>(options.scheduler, net->clock_);
  Network* n = net.get();
  Transport::Callbacks cb;
  cb.on_message = [n](Lane, const uint8_t* h, size_t hl, const uint8_t* d, size_t dl) {
    n->OnMessage(h, hl, d, dl);
  };
  cb.on_peer_error = [n](PeerId p, const Status& why) { n->OnPeerError(p, why); };
  cb.recv_buffer = [n](const uint8_t* h, size_t hl, size_t len) -> RecvTarget {
    if (hl != sizeof(PeerHeader)) return {};
    PeerHeader header;
    std::memcpy(&header, h, sizeof(header));
    if (header.magic != kPeerMagic) return {};
    return n->events_->RecvBuffer(header, len);
  };
  OUTRIDER_ASSIGN_OR_RETURN(net->transport_, make(std::move(cb)));
  net->self_hash_ =
      ipc::Fnv1a(net->transport_->address().data(), net->transport_->address().size());
  OUTRIDER_RETURN_IF_ERROR(loop->Add(net->transport_->event_fd(), EPOLLIN, [](uint32_t) {}));
  net->rendezvous_ = std::make_unique<RendezvousServer>(loop, options.rendezvous_timeout_ms);
  OUTRIDER_RETURN_IF_ERROR(net->rendezvous_->Listen(options.listen_address, options.port));
  Logger("network")->info("agent port {}:{} (rendezvous), data plane ready", options.listen_address,
                          net->rendezvous_->port());
  return net;
}

Network::~Network() {
  if (transport_) loop_->Remove(transport_->event_fd());
}

Result<std::vector<PeerId>> Network::ConnectNodes(const NodeTable& table, int self,
                                                  int* failed_node) {
  std::vector<PeerId> peers(table.size(), 0);
  uint64_t now = clock_();
  for (size_t n = 0; n < table.size(); ++n) {
    if (static_cast<int>(n) == self) continue;
    Result<PeerId> peer = transport_->Connect(table[n]);
    if (!peer.ok()) {
      peers.resize(n);  // the nodes before n were acquired
      Release(peers, self);
      if (failed_node != nullptr) *failed_node = static_cast<int>(n);
      return peer.status();
    }
    peers[n] = *peer;
    PeerState& st = peers_[peers[n]];
    if (st.uses++ == 0) st.last_seen_ns = now;
    st.hash = ipc::Fnv1a(table[n].data(), table[n].size());
    peer_by_hash_[st.hash] = peers[n];
  }
  return peers;
}

Result<PeerId> Network::Connect(const std::string& address) {
  NodeTable table{address};
  OUTRIDER_ASSIGN_OR_RETURN(std::vector<PeerId> peers, ConnectNodes(table, -1));
  return peers[0];
}

void Network::Retire(PeerId peer) {
  auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  if (it->second.uses > 0) --it->second.uses;
  if (it->second.uses != 0) return;
  peer_by_hash_.erase(it->second.hash);
  peers_.erase(it);
  scheduler_->Drain(peer);
  transport_->Close(peer);
}

void Network::Release(PeerId peer) {
  auto it = peers_.find(peer);
  if (it != peers_.end() && it->second.uses > 0) --it->second.uses;
}

void Network::Release(const std::vector<PeerId>& peers, int self) {
  for (size_t n = 0; n < peers.size(); ++n) {
    if (static_cast<int>(n) == self) continue;
    auto it = peers_.find(peers[n]);
    if (it != peers_.end() && it->second.uses > 0) --it->second.uses;
  }
}

void Network::OnMessage(const uint8_t* header, size_t header_len, const uint8_t* data, size_t len) {
  if (header_len != sizeof(PeerHeader)) {
    Logger("network")->warn("dropped a peer message with a {}-byte header", header_len);
    return;
  }
  PeerHeader h;
  std::memcpy(&h, header, sizeof(h));
  if (h.magic != kPeerMagic || h.version != kPeerVersion) {
    Logger("network")->warn("dropped a peer message with bad magic or version {}", h.version);
    return;
  }
  auto p = peer_by_hash_.find(h.sender);
  if (p != peer_by_hash_.end()) peers_[p->second].last_seen_ns = clock_();
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kHeartbeat) return;
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kCredit) {
    if (p != peer_by_hash_.end()) scheduler_->Done(p->second, h.credit_bytes);
    return;
  }
  // Credits count what reached this agent, not what left the sender's socket: bulk data then
  // cannot pile up in kernel and switch queues ahead of an urgent chunk. They go on the express
  // lane, so they do not wait behind this agent's own chunks to the sender.
  if (IsScheduledChunk(h.type) && p != peer_by_hash_.end()) {
    PeerHeader c{};
    c.magic = kPeerMagic;
    c.version = kPeerVersion;
    c.type = static_cast<uint16_t>(PeerMsg::kCredit);
    c.sender = self_hash_;
    c.credit_bytes = sizeof(PeerHeader) + len;
    (void)transport_->Send(p->second, scheduler_->control_lane(), &c, sizeof(c), nullptr, 0,
                           nullptr);
  }
  if (!events_->OnPeerMessage(h, data, len)) {
    Logger("network")->debug("dropped a message for a job this agent does not serve");
  }
}

void Network::OnPeerError(PeerId peer, const Status& why) { LosePeer(peer, why); }

void Network::LosePeer(PeerId peer, const Status& why) {
  auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  Logger("network")->warn("peer agent lost: {}", why.ToString());
  ++peers_lost_;
  peer_by_hash_.erase(it->second.hash);
  peers_.erase(it);
  transport_->Disconnect(peer);
  events_->OnPeerLost(peer, why);
  scheduler_->Drain(peer);  // the jobs failed first: their queued chunks are dropped
}

bool Network::Progress() { return transport_->Progress(); }
bool Network::Arm() { return transport_->Arm(); }

void Network::Tick(uint64_t now) {
  rendezvous_->Expire(now);
  if (now < next_heartbeat_ns_) return;
  next_heartbeat_ns_ = now + uint64_t{options_.heartbeat_ms} * 1'000'000;
  uint64_t timeout = uint64_t{options_.peer_timeout_ms} * 1'000'000;
  std::vector<PeerId> silent;
  for (auto& [id, st] : peers_) {
    if (st.uses == 0) continue;
    if (now - st.last_seen_ns > timeout) {
      silent.push_back(id);
      continue;
    }
    PeerHeader h{};
    h.magic = kPeerMagic;
    h.version = kPeerVersion;
    h.type = static_cast<uint16_t>(PeerMsg::kHeartbeat);
    h.sender = self_hash_;
    (void)transport_->Send(id, scheduler_->control_lane(), &h, sizeof(h), nullptr, 0, nullptr);
  }
  for (PeerId id : silent) {
    LosePeer(id, PeerLost("no message for " + std::to_string(options_.peer_timeout_ms) + " ms"));
  }
}

int Network::TimeoutMs(uint64_t now) const {
  bool any = false;
  for (const auto& [id, st] : peers_) any |= st.uses > 0;
  uint64_t next = next_heartbeat_ns_;
  if (!any) next = now + 1'000'000'000ull;  // rendezvous expiry only
  return next <= now ? 0 : static_cast<int>((next - now) / 1'000'000 + 1);
}

}  // namespace outrider::agent

namespace outrider::agent {

nlohmann::json Network::PeersJson(uint64_t now_ns) const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [peer, st] : peers_) {
    char hash[24];
    std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(st.hash));
    out.push_back(
        {{"agent", hash},
         {"state", "up"},
         {"jobs_using", st.uses},
         {"last_heard_ms", st.last_seen_ns == 0 ? -1.0 : (now_ns - st.last_seen_ns) / 1e6}});
  }
  return out;
}

}  // namespace outrider::agent
