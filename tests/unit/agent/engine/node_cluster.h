// The node groups of one job, one per node, in one process and joined by a FakeNetwork: messages
// move only when the test steps the network. Each node's endpoint does what the agent's network
// and job do with it: decodes the peer header and hands the message to the group, offers the
// group's landing buffer for payloads, and fails the group's instances when a link to a peer
// breaks. Every Done is recorded by node and instance.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/node_group.h"
#include "agent/transport/fake/fake_transport.h"

namespace outrider::agent {

// How one instance ended on one node.
struct NodeDone {
  Status status;
  std::string algo;
  OpTrace trace;
  int calls = 0;  // Done must run once
};

// Thread-safety: the test's thread only.
class NodeCluster {
 public:
  NodeCluster(int nodes, int local_size, EngineOptions options = {})
      : NodeCluster(local_size, std::vector<EngineOptions>(static_cast<size_t>(nodes), options)) {}
  // One node per entry of `options`, each with its own (agents configured apart).
  NodeCluster(int local_size, const std::vector<EngineOptions>& options)
      : NodeCluster(RankLayout::Even(static_cast<int>(options.size()), local_size), options) {}
  // Nodes with the ranks `ranks` gives each (they may differ).
  NodeCluster(const RankLayout& ranks, EngineOptions options = {})
      : NodeCluster(ranks,
                    std::vector<EngineOptions>(static_cast<size_t>(ranks.nodes()), options)) {}
  NodeCluster(const RankLayout& ranks, const std::vector<EngineOptions>& options) {
    int nodes = static_cast<int>(options.size());
    for (int n = 0; n < nodes; ++n) nodes_.push_back(std::make_unique<Node>());
    for (int n = 0; n < nodes; ++n) {
      Node& x = *nodes_[static_cast<size_t>(n)];
      x.port = net_.Attach(Callbacks(n));
      x.group = std::make_unique<NodeGroup>(
          Topology{"job", nodes, n, ranks}, /*job_hash=*/7,
          /*self_hash=*/static_cast<uint64_t>(100 + n), x.port.get(), &x.plane,
          [&x](uint64_t key, uint64_t seq, const Status& st, std::string_view algo,
               const std::vector<OpReport>*, const OpTrace& trace) {
            NodeDone& d = x.done[{key, seq}];
            d.status = st;
            d.algo = std::string(algo);
            d.trace = trace;
            ++d.calls;
          },
          options[static_cast<size_t>(n)]);
    }
    std::vector<PeerId> peers;
    for (int n = 0; n < nodes; ++n) peers.push_back(static_cast<PeerId>(n));
    for (int n = 0; n < nodes; ++n) {
      for (int m = 0; m < nodes; ++m) {
        if (m == n) continue;
        Result<PeerId> peer =
            nodes_[static_cast<size_t>(n)]->port->Connect(FakeNetwork::Address(m));
        EXPECT_TRUE(peer.ok() && *peer == static_cast<PeerId>(m)) << peer.status().ToString();
      }
      group(n).SetPeers(peers);
    }
  }

  int nodes() const { return static_cast<int>(nodes_.size()); }
  FakeNetwork& net() { return net_; }
  NodeGroup& group(int n) { return *nodes_[static_cast<size_t>(n)]->group; }
  // How (key, seq) ended on node n, or nullptr while it has not.
  const NodeDone* done(int n, uint64_t key, uint64_t seq) const {
    const auto& m = nodes_[static_cast<size_t>(n)]->done;
    auto it = m.find({key, seq});
    return it == m.end() ? nullptr : &it->second;
  }
  // Delivers until nothing is queued.
  void Run() { net_.RunUntilIdle(); }

 private:
  struct Node {
    std::unique_ptr<FakeTransport> port;
    HostDataPlane plane;
    std::unique_ptr<NodeGroup> group;
    std::map<std::pair<uint64_t, uint64_t>, NodeDone> done;
  };

  static PeerHeader Decode(const uint8_t* header, size_t header_len) {
    PeerHeader h{};
    EXPECT_EQ(header_len, sizeof(PeerHeader));
    std::memcpy(&h, header, std::min(header_len, sizeof(h)));
    return h;
  }

  Transport::Callbacks Callbacks(int me) {
    Transport::Callbacks cb;
    cb.on_message = [this, me](Lane, const uint8_t* header, size_t header_len, const uint8_t* data,
                               size_t len) {
      group(me).OnMessage(Decode(header, header_len), data, len);
    };
    cb.recv_buffer = [this, me](const uint8_t* header, size_t header_len, size_t len) {
      return group(me).RecvBuffer(Decode(header, header_len), len);
    };
    // What a job does when its network loses a peer it uses.
    cb.on_peer_error = [this, me](PeerId peer, const Status& why) {
      NodeGroup& g = group(me);
      int node = g.NodeOfPeer(peer);
      if (node >= 0)
        g.FailAll(PeerLost(g.DescribeNode(node) + " of job 'job' is lost: " + why.message()));
    };
    return cb;
  }

  FakeNetwork net_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace outrider::agent
