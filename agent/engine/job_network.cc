// A job across nodes: its node group and rendezvous, and the messages of the other nodes'
// agents (the device side's among them).
#include <algorithm>

#include "agent/engine/job.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

Status Job::StartNetwork(const Member* first) {
  const ClientIdentity& id = first->identity();
  int num_nodes = ranks_.nodes();
  int node = ranks_.node_of(id.rank);
  if (net_ == nullptr) {
    return FailedPrecondition("job '" + id_ + "' spans " + std::to_string(num_nodes) +
                              " nodes, but this agent runs without an agent port (--port 0)");
  }
  // The job's node 0 hosts the rendezvous: a job's own, and also each of its communicators'. A
  // communicator whose node 0 is another node joins there like its other nodes.
  bool host = node == 0 && (!id.comm || id.job_node == 0);
  if (!host && id.root_addr.empty()) {
    return FailedPrecondition(
        "job '" + id_ + "' spans " + std::to_string(num_nodes) +
        " nodes: set OUTRIDER_ROOT_ADDR (host:port of node 0's agent) or MASTER_ADDR");
  }
  token_ = id.token;
  if (token_.empty())
    Logger("engine")->warn(
        "job '{}' has no OUTRIDER_JOB_TOKEN: any agent that knows its id may join", id_);
  group_ = std::make_unique<NodeGroup>(
      Topology{id_, num_nodes, node, ranks_, id.job_base}, hash_, net_->self_hash(),
      net_->transport(), &host_plane_,
      [this](uint64_t key, uint64_t seq, const Status& st, std::string_view algo,
             const std::vector<OpReport>* reports, const OpTrace& trace) {
        auto it = pending_.find({key, seq});
        if (it != pending_.end())
          Finish(it, st, algo, reports, &trace);  // else: already failed here
      },
      engine_);
  group_->set_scheduler(net_->scheduler(), id.job_class, id.job_weight);
  if (device_ != nullptr) {
    device_->Attach(group_.get());
    group_->set_device(device_.get());
  }
  group_->set_device_message([this](const PeerHeader& h, const uint8_t* data, size_t len) {
    OnDeviceMessage(h, data, len);
  });
  // Another node's rank died (or left): nothing that node still owes will come.
  group_->set_failed([this](int node, const Status& why) { Lose(why); });
  group_->set_partial([this](uint64_t key, uint64_t seq, const std::vector<OpReport>& reports) {
    auto it = pending_.find({key, seq});
    if (it == pending_.end()) return;
    Pending& p = it->second;
    uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
    for (size_t r = 0; r < p.op_ids.size() && r < reports.size(); ++r) {
      if (p.op_ids[r] == 0 || members_[r] == nullptr || !reports[r].status.ok()) continue;
      members_[r]->Partial(p.op_ids[r], seq, elapsed, reports[r]);
    }
  });
  std::vector<int32_t> counts = ranks_.counts();
  uint32_t layout =
      ranks_.even()
          ? 0
          : static_cast<uint32_t>(ipc::Fnv1a(counts.data(), counts.size() * sizeof(int32_t)));
  JobShape shape{id_, token_, num_nodes, local_size_, layout};
  auto done = [this](Result<NodeTable> table) { OnRendezvous(std::move(table)); };
  in_rendezvous_ = true;
  MarkActive();
  if (host) {
    net_->rendezvous()->Offer(shape, net_->transport()->address(), done);
  } else {
    rdv_client_ = std::make_unique<RendezvousClient>(
        net_->loop(), shape, node, id.root_addr, net_->transport()->address(),
        net_->options().rendezvous_timeout_ms, done, net_->rendezvous()->port());
  }
  Logger("engine")->info("job '{}': node {} of {}, rendezvous {}", id_, node, num_nodes,
                         host ? "hosted here" : "with " + id.root_addr);
  return Status::Ok();
}

void Job::OnRendezvous(Result<NodeTable> table) {
  in_rendezvous_ = false;
  if (!table.ok()) {
    Logger("engine")->error("job '{}': rendezvous failed: {}", id_, table.status().ToString());
    // A root agent that closed the connection is a lost peer (node 0), not a busy service.
    Status why = table.status();
    if (why.code() == Code::kUnavailable) why = PeerLost(why.message());
    Lose(why.Annotate("job '" + id_ + "' rendezvous " +
                      (group_->node_rank() == 0 ? std::string("hosted here")
                                                : "with the agent of " + group_->DescribeNode(0)) +
                      " failed"));
    return;
  }
  agent_addrs_ = table->agents;
  // The root's own entry: the address its members reached it at, when the joiners did not say.
  if (group_->node_rank() != 0 && !agent_addrs_.empty() && agent_addrs_[0].empty() &&
      !members_.empty()) {
    for (Member* m : members_) {
      if (m != nullptr) agent_addrs_[0] = m->identity().root_addr;
    }
  }
  int unreachable = -1;
  auto peers = net_->ConnectNodes(*table, group_->node_rank(), &unreachable);
  if (!peers.ok()) {
    Lose(PeerLost(group_->DescribeNode(unreachable) + " of job '" + id_ +
                  "' is unreachable: " + peers.status().message()));
    return;
  }
  group_->SetPeers(std::move(*peers));
  Logger("engine")->info("job '{}': connected to {} peer agents", id_, group_->num_nodes() - 1);
  std::vector<InstanceId> waiting = std::move(waiting_for_network_);
  for (const InstanceId& inst : waiting) {
    auto it = pending_.find(inst);
    if (it != pending_.end()) Run(inst, it->second);
  }
}

void Job::MarkNodeGone(int node) {
  if (group_ == nullptr || node < 0 || node >= group_->num_nodes()) return;
  gone_nodes_.resize(static_cast<size_t>(group_->num_nodes()), false);
  if (gone_nodes_[static_cast<size_t>(node)]) return;
  gone_nodes_[static_cast<size_t>(node)] = true;
  if (on_node_gone_) on_node_gone_();
}

void Job::OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  // Who has no member left is news even once the job failed here: a new generation must not wait
  // for those nodes.
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kJobLeft) MarkNodeGone(h.from_node);
  if (group_ != nullptr && lost_.ok()) {
    MarkActive();
    group_->OnMessage(h, data, len);
  }
}

RecvTarget Job::RecvBuffer(const PeerHeader& h, size_t len) {
  return group_ != nullptr && lost_.ok() ? group_->RecvBuffer(h, len) : RecvTarget{};
}

void Job::OnPeerLost(PeerId peer, const Status& why) {
  if (group_ == nullptr || !group_->ready()) return;
  int node = group_->NodeOfPeer(peer);
  if (node < 0) return;
  MarkNodeGone(node);
  std::string lost = group_->DescribeNode(node) + " of job '" + id_ + "' is lost";
  if (lost_.ok()) {
    lost_node_ = node;
    // The other nodes may still reach that node, or notice its silence only later: they fail the
    // job now too, whatever their instances wait for.
    group_->SayJobFailed(
        PeerLost(lost + " (reported by " + group_->DescribeNode(group_->node_rank()) +
                 "): " + why.message()),
        node);
  }
  Lose(PeerLost(lost + ": " + why.message()));
}

void Job::OnDeviceMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!lost_.ok()) return;
  if (device() == nullptr) {
    return Lose(FailedPrecondition("job '" + id_ +
                                   "': node 0's agent runs it on NCCL, but this agent has no GPU "
                                   "path"));
  }
  if (Status st = ActiveDevice()->OnMessage(h, data, len); !st.ok()) Lose(st);
}

}  // namespace outrider::agent
