// Communicators: the agents' node-by-node numbering of a member list, the keys every member
// derives alike, and the create / split / destroy requests.
#include "shim/communicators.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>

#include "ipc/protocol.h"
#include "shim/connection.h"

namespace outrider::shim {
namespace {

uint64_t Mix(uint64_t h, const void* data, size_t len) {
  uint64_t part = ipc::Fnv1a(data, len);
  uint64_t both[2] = {h, part};
  return ipc::Fnv1a(both, sizeof(both));
}

}  // namespace

Communicators::Communicators(Connection* conn, const ConnectConfig& config) : conn_(conn) {
  Reset(config);
}

void Communicators::Reset(const ConnectConfig& config) {
  comms_.clear();
  job_nodes_ = Status::Ok();
  if (config.joiner) return;  // in no job until it re-forms
  Comm job;
  job.rank = config.rank;
  job.size = config.world_size;
  for (int r = 0; r < job.size; ++r) {
    job.node.push_back(r / config.local_world_size);
    job.agent_rank.push_back(r);
  }
  comms_.emplace(kJob, std::move(job));
}

void Communicators::SetJobNodes(const std::vector<int32_t>& first_ranks) {
  auto job = comms_.find(kJob);
  if (job == comms_.end() || first_ranks.size() != job->second.node.size()) return;
  std::vector<int32_t> firsts = first_ranks;
  std::sort(firsts.begin(), firsts.end());
  firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
  for (size_t r = 0; r < first_ranks.size(); ++r) {
    job->second.node[r] = static_cast<int32_t>(
        std::lower_bound(firsts.begin(), firsts.end(), first_ranks[r]) - firsts.begin());
  }
}

Result<const Communicators::Comm*> Communicators::Find(uint32_t comm) const {
  if (comms_.empty() && comm == kJob) {
    return FailedPrecondition(
        "this client joins its job at the next generation (outrider_reconfigure); it is in no "
        "job yet");
  }
  auto it = comms_.find(comm);
  if (it == comms_.end())
    return InvalidArgument("no communicator " + std::to_string(comm) + " on this client");
  return &it->second;
}

Result<int> Communicators::Rank(uint32_t comm) const {
  OUTRIDER_ASSIGN_OR_RETURN(const Comm* c, Find(comm));
  return c->rank;
}

Result<int> Communicators::Size(uint32_t comm) const {
  OUTRIDER_ASSIGN_OR_RETURN(const Comm* c, Find(comm));
  return c->size;
}

Result<uint32_t> Communicators::Join(const Comm& parent, const std::vector<int32_t>& members,
                                     uint64_t key) {
  OUTRIDER_RETURN_IF_ERROR(job_nodes_);
  Comm c;
  c.key = key;
  c.size = static_cast<int>(members.size());
  c.rank = -1;
  c.node.resize(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    c.node[i] = parent.node[static_cast<size_t>(members[i])];
    if (members[i] == parent.rank) c.rank = static_cast<int>(i);
  }
  if (c.rank < 0) {
    return InvalidArgument("rank " + std::to_string(parent.rank) +
                           " is not in the member list of the communicator it creates");
  }
  // The agents number ranks node by node, nodes in job order, and need as many on every node.
  std::vector<int32_t> order(members.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return c.node[static_cast<size_t>(a)] < c.node[static_cast<size_t>(b)];
  });
  std::map<int32_t, int> per_node;
  for (int32_t n : c.node) ++per_node[n];
  int local = per_node.begin()->second;
  for (const auto& [n, count] : per_node) {
    if (count != local) {
      std::string counts;
      for (const auto& [m, k] : per_node)
        counts +=
            (counts.empty() ? "" : ", ") + ("node " + std::to_string(m) + ": " + std::to_string(k));
      return FailedPrecondition("a communicator must have as many ranks on every node it spans (" +
                                counts + ")");
    }
  }
  c.agent_rank.resize(members.size());
  for (size_t e = 0; e < order.size(); ++e) {
    c.agent_rank[static_cast<size_t>(order[e])] = static_cast<int32_t>(e);
    c.node_order = c.node_order && order[e] == static_cast<int32_t>(e);
  }
  c.local_size = local;
  OUTRIDER_ASSIGN_OR_RETURN(c.agent_id, Request(c));
  uint32_t handle = next_handle_++;
  comms_.emplace(handle, std::move(c));
  return handle;
}

Result<uint32_t> Communicators::Request(const Comm& c) {
  int32_t agent_rank = c.agent_rank[static_cast<size_t>(c.rank)];
  ipc::CommCreate msg{};
  uint32_t rid = conn_->NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kCommCreate, sizeof(msg) - sizeof(msg.header), rid);
  msg.key = c.key;
  msg.rank = agent_rank;
  msg.world_size = c.size;
  msg.local_rank = agent_rank % c.local_size;
  msg.local_world_size = c.local_size;
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply,
                            conn_->Request(&msg, sizeof(msg), nullptr, 0, rid));
  OUTRIDER_RETURN_IF_ERROR(
      FromReply(reply.code, reply.message).Annotate("creating a communicator"));
  bool known = std::any_of(comms_.begin(), comms_.end(),
                           [&](const auto& h) { return h.second.agent_id == reply.region_id; });
  if (reply.region_id == kJob || known) {
    return ProtocolError("the agent answered a communicator request with id " +
                         std::to_string(reply.region_id));
  }
  return reply.region_id;
}

uint32_t Communicators::AgentId(uint32_t comm) const {
  auto it = comms_.find(comm);
  return it != comms_.end() ? it->second.agent_id : comm;
}

Status Communicators::Rejoin() {
  // Forgotten first: the new agent's ids are checked against each other only.
  for (auto& [handle, c] : comms_) {
    if (handle != kJob) c.agent_id = kJob;
  }
  for (auto& [handle, c] : comms_) {  // handles grow in the order they were made
    if (handle == kJob) continue;
    Result<uint32_t> id = Request(c);
    if (!id.ok()) {
      return id.status().Annotate("joining communicator " + std::to_string(handle) +
                                  " at the agent again");
    }
    c.agent_id = *id;
  }
  return Status::Ok();
}

Result<uint32_t> Communicators::Create(uint32_t parent, const std::vector<int32_t>& ranks) {
  OUTRIDER_ASSIGN_OR_RETURN(const Comm* p, Find(parent));
  if (ranks.empty()) return InvalidArgument("a communicator needs at least one rank");
  std::vector<bool> seen(static_cast<size_t>(p->size), false);
  for (int32_t r : ranks) {
    if (r < 0 || r >= p->size) {
      return InvalidArgument("rank " + std::to_string(r) +
                             " is outside the parent communicator of " + std::to_string(p->size) +
                             " ranks");
    }
    if (seen[static_cast<size_t>(r)])
      return InvalidArgument("rank " + std::to_string(r) + " appears twice in the member list");
    seen[static_cast<size_t>(r)] = true;
  }
  // Named by the parent, the member list and how many communicators of that list came before.
  uint64_t list = ipc::Fnv1a(ranks.data(), ranks.size() * sizeof(int32_t));
  uint32_t nth = comms_.at(parent).created[list];
  static constexpr char kTag[] = "create";
  uint64_t key = Mix(Mix(Mix(p->key, kTag, sizeof(kTag)), &list, sizeof(list)), &nth, sizeof(nth));
  OUTRIDER_ASSIGN_OR_RETURN(uint32_t comm, Join(*p, ranks, key));
  ++comms_.at(parent).created[list];
  return comm;
}

Result<std::optional<uint32_t>> Communicators::Split(uint32_t parent, int32_t color, int32_t key,
                                                     const Exchange& exchange) {
  OUTRIDER_ASSIGN_OR_RETURN(const Comm* p, Find(parent));
  // Every rank learns every rank's (color, key) through an allgather over the parent.
  OUTRIDER_ASSIGN_OR_RETURN(SplitExchange x, exchange(*p, color, key));
  size_t n = static_cast<size_t>(p->size);
  uint64_t nth = comms_.at(parent).splits++;
  std::vector<std::pair<int32_t, int32_t>> members;  // (key, parent rank) with my color
  if (x.status.ok() && color >= 0) {
    // Blocks arrive in the agents' order: rank r's block is block agent_rank[r].
    for (size_t r = 0; r < n; ++r) {
      size_t e = static_cast<size_t>(p->agent_rank[r]);
      if (x.pairs[2 * e] == color)
        members.emplace_back(x.pairs[2 * e + 1], static_cast<int32_t>(r));
    }
  }
  OUTRIDER_RETURN_IF_ERROR(x.status.Annotate("exchanging colors for a communicator split"));
  if (color < 0) return std::optional<uint32_t>();
  std::sort(members.begin(), members.end());
  std::vector<int32_t> ranks;
  for (const auto& m : members) ranks.push_back(m.second);
  static constexpr char kTag[] = "split";
  uint64_t name =
      Mix(Mix(Mix(p->key, kTag, sizeof(kTag)), &nth, sizeof(nth)), &color, sizeof(color));
  OUTRIDER_ASSIGN_OR_RETURN(uint32_t comm, Join(*p, ranks, name));
  return std::optional<uint32_t>(comm);
}

Status Communicators::Destroy(uint32_t comm, size_t pending) {
  if (comm == kJob)
    return InvalidArgument("the job's own communicator cannot be destroyed; disconnect instead");
  OUTRIDER_RETURN_IF_ERROR(Find(comm).status());
  if (pending > 0) {
    return FailedPrecondition(std::to_string(pending) + " ops on communicator " +
                              std::to_string(comm) + " have not been waited for");
  }
  ipc::CommDestroy msg{};
  uint32_t rid = conn_->NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kCommDestroy, sizeof(msg) - sizeof(msg.header),
                     rid);
  msg.comm = AgentId(comm);
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply,
                            conn_->Request(&msg, sizeof(msg), nullptr, 0, rid));
  OUTRIDER_RETURN_IF_ERROR(
      FromReply(reply.code, reply.message).Annotate("destroying a communicator"));
  comms_.erase(comm);
  return Status::Ok();
}

}  // namespace outrider::shim
