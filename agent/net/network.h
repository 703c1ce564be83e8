// The agent's view of other agents: owns the data-plane transport and the rendezvous server,
// keeps every peer in use alive with heartbeats (a peer silent past the deadline, or one the
// transport gives up on, is lost and its jobs fail), checks incoming headers and hands the
// messages up to the jobs (PeerEvents), returning a credit for every scheduled chunk.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "agent/bootstrap/rendezvous.h"
#include "agent/event_loop.h"
#include "agent/net/network_options.h"
#include "agent/net/peer_events.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/transport.h"
#include "agent/transport/transport_factory.h"
#include "agent/transport/ucx/ucx_transport_factory.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

// Thread-safety: loop thread only. The transport comes from a factory and the clock is
// injected, so tests run it over a fake transport on a fake clock.
class Network {
 public:
  using Clock = std::function<uint64_t()>;
  // `events` receives routed messages and lost peers; not owned, it outlives the network. The
  // rendezvous server listens on options.listen_address:options.port (port 0: any free port).
  static Result<std::unique_ptr<Network>> Create(EventLoop* loop, PeerEvents* events,
                                                 const NetworkOptions& options,
                                                 TransportFactory make = UcxTransportFactory(),
                                                 Clock clock = ipc::MonotonicNs);
  ~Network();

  Transport* transport() { return transport_.get(); }
  SendScheduler* scheduler() { return scheduler_.get(); }
  RendezvousServer* rendezvous() { return rendezvous_.get(); }
  EventLoop* loop() { return loop_; }
  const NetworkOptions& options() const { return options_; }
  uint64_t self_hash() const { return self_hash_; }
  // Connects to every node's agent but `self`; returns peers by node (entry `self` is 0). On
  // failure nothing stays acquired and `*failed_node` (if given) is the node it could not reach.
  Result<std::vector<PeerId>> ConnectNodes(const NodeTable& table, int self,
                                           int* failed_node = nullptr);
  // A job stops using these peers; unused peers get no more heartbeats.
  void Release(const std::vector<PeerId>& peers, int self);
  // One more agent for a job that runs already (a node's next agent after a hand-over), and its
  // release.
  Result<PeerId> Connect(const std::string& address);
  void Release(PeerId peer);
  // A job lets go of a peer whose agent is leaving in order (it handed its part over): once no
  // job uses it, the connection is closed from this side, before that agent exits.
  void Retire(PeerId peer);

  bool Progress();
  bool Arm();
  // Heartbeats, liveness deadlines, rendezvous expiry. Call at least every heartbeat interval.
  void Tick(uint64_t now_ns);
  int TimeoutMs(uint64_t now_ns) const;
  // For /status and metrics: peers in use and lost so far.
  nlohmann::json PeersJson(uint64_t now_ns) const;
  size_t peers_up() const { return peers_.size(); }
  uint64_t peers_lost() const { return peers_lost_; }

 private:
  Network(EventLoop* loop, PeerEvents* events, const NetworkOptions& options, Clock clock)
      : loop_(loop), events_(events), options_(options), clock_(std::move(clock)) {}
  void OnMessage(const uint8_t* header, size_t header_len, const uint8_t* data, size_t len);
  void OnPeerError(PeerId peer, const Status& why);
  void LosePeer(PeerId peer, const Status& why);

  struct PeerState {
    uint64_t hash = 0;
    uint64_t last_seen_ns = 0;
    int uses = 0;
  };
  EventLoop* loop_;     // Not owned; outlives the network.
  PeerEvents* events_;  // Not owned; outlives the network.
  NetworkOptions options_;
  Clock clock_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<SendScheduler> scheduler_;  // bulk sends of every job
  std::unique_ptr<RendezvousServer> rendezvous_;
  uint64_t self_hash_ = 0;
  std::map<PeerId, PeerState> peers_;
  std::map<uint64_t, PeerId> peer_by_hash_;
  uint64_t next_heartbeat_ns_ = 0;
  uint64_t peers_lost_ = 0;
};

}  // namespace outrider::agent
