// TCP rendezvous: length-prefixed frames, one join per non-root node, one reply per join.
#include "agent/bootstrap/rendezvous.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "agent/bootstrap/frame_io.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/log.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

using frame_io::ConnectOnce;
using frame_io::LocalHost;
using frame_io::PeerHost;
using frame_io::ReadFrame;
using frame_io::Resolve;
using frame_io::WaitFd;
using frame_io::WriteAll;
bool TokensEqual(const std::string& a, const std::string& b) {
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = static_cast<unsigned char>(a.size() != b.size());
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

RendezvousServer::RendezvousServer(EventLoop* loop, uint32_t timeout_ms,
                                   PortConnections::Limits limits)
    : timeout_ms_(timeout_ms),
      conns_(
          loop, limits,
          [this](rendezvous::Frame frame, UniqueFd fd) {
            OnFrame(std::move(frame), std::move(fd));
          },
          [this](PortConnections::Drop why) {
            if (on_drop_) on_drop_(PortConnections::DropName(why));
          }) {}

Status RendezvousServer::Listen(const std::string& address, uint16_t port) {
  return conns_.Listen(address, port);
}

void RendezvousServer::OnFrame(rendezvous::Frame frame, UniqueFd fd) {
  auto& [h, blobs] = frame;
  if (h.type == rendezvous::kWithdraw) {
    // Only from an agent that knows the job's token: the rendezvous's own, once offered, or one
    // this agent's jobs vouch for (a generation decided elsewhere, not offered here yet).
    auto p = pending_.find(h.job_id);
    bool offered = p != pending_.end() && p->second.offered;
    bool trusted = offered ? TokensEqual(h.token, p->second.shape.token)
                           : generations_ != nullptr && generations_->Vouches(h.job_id, h.token);
    if (trusted && (blobs.size() == 1 || blobs.size() == 2)) {
      // The second blob, if any: the node (of the generation) left with no rank.
      int node = -1;
      if (blobs.size() == 2) {
        auto [end, ec] = std::from_chars(blobs[1].data(), blobs[1].data() + blobs[1].size(), node);
        if (ec != std::errc() || end != blobs[1].data() + blobs[1].size()) node = -1;
      }
      if (node >= 0 && node < kMaxNodes && generations_ != nullptr)
        generations_->OnNodeLeft(h.job_id, node);
      Abandon(h.job_id, PeerLost(blobs[0]));
    } else {
      Logger("rendezvous")
          ->warn("ignored a withdrawal of job '{}' from {}: {}", h.job_id, PeerHost(fd.get()),
                 trusted ? "malformed" : "not vouched for by its token");
    }
    return;
  }
  if (h.type == rendezvous::kReform) {
    std::string local = LocalHost(fd.get()) + ":" + std::to_string(port());
    std::string peer = PeerHost(fd.get());
    if (generations_ == nullptr || blobs.size() != 1) {
      JobShape none;
      Reply(std::move(fd), rendezvous::Encode(rendezvous::kRefuse, none, 0,
                                              {"malformed request for a new generation"}));
      return;
    }
    generations_->OnReformFrame(h.job_id, h.token, std::move(blobs[0]), std::move(fd), local, peer);
    return;
  }
  Join join{std::move(fd),
            h.node_rank,
            h.num_nodes,
            h.local_size,
            h.layout,
            h.token,
            blobs.empty() ? std::string() : blobs[0],
            ipc::MonotonicNs(),
            blobs.size() > 1 ? blobs[1] : std::string()};
  if (h.type != rendezvous::kJoin || blobs.empty() || blobs.size() > 2) {
    Refuse(join, "malformed join", Code::kProtocol);
    return;
  }
  // Joins for rendezvous not offered here are held for a relay or a root that is late: a bounded
  // number, the oldest refused first.
  std::string job_id = h.job_id;
  if (auto q = pending_.find(job_id); q == pending_.end() || !q->second.offered) {
    bool refused = false;
    for (size_t held = UnofferedJoins(); held >= kMaxUnofferedJoins; --held) {
      Join* oldest = nullptr;
      for (auto& [id, pend] : pending_) {
        if (pend.offered) continue;
        for (Join& j : pend.joins) {
          if (j.fd.valid() && (oldest == nullptr || j.arrived_ns < oldest->arrived_ns)) oldest = &j;
        }
      }
      if (oldest == nullptr) break;
      Refuse(*oldest, "too many joins wait at this agent for rendezvous it does not host",
             Code::kResourceExhausted);
      refused = true;
    }
    for (auto it = pending_.begin(); refused && it != pending_.end();) {
      DropRefused(it->second.joins);
      it = !it->second.offered && it->second.joins.empty() ? pending_.erase(it) : std::next(it);
    }
  }
  Pending& p = pending_[job_id];
  p.joins.push_back(std::move(join));
  TryComplete(job_id);
}

void RendezvousServer::DropRefused(std::vector<Join>& joins) {
  joins.erase(
      std::remove_if(joins.begin(), joins.end(), [](const Join& j) { return !j.fd.valid(); }),
      joins.end());
}

size_t RendezvousServer::joins_waiting() const {
  size_t n = 0;
  for (const auto& [id, p] : pending_) n += p.joins.size();
  return n;
}

size_t RendezvousServer::UnofferedJoins() const {
  size_t n = 0;
  for (const auto& [id, p] : pending_) n += p.offered ? 0 : p.joins.size();
  return n;
}

void RendezvousServer::Reply(UniqueFd fd, const std::string& frame) {
  conns_.Send(std::move(fd), frame);
}

void RendezvousServer::Refuse(Join& join, const std::string& why, Code code) {
  JobShape none;
  Reply(std::move(join.fd), rendezvous::Encode(rendezvous::kRefuse, none, join.node_rank,
                                               {why, std::to_string(static_cast<int>(code))}));
}

void RendezvousServer::Offer(const JobShape& shape, const std::string& own_address,
                             RendezvousDone done) {
  Pending& p = pending_[shape.job_id];
  p.offered = true;
  p.shape = shape;
  p.own_address = own_address;
  p.done = std::move(done);
  p.offered_ns = ipc::MonotonicNs();
  TryComplete(shape.job_id);
}

void RendezvousServer::Abandon(const std::string& job_id, const Status& why) {
  if (abandoned_.emplace(job_id, why.message()).second) {
    abandoned_order_.push_back(job_id);
    if (abandoned_order_.size() > 1024) {
      abandoned_.erase(abandoned_order_.front());
      abandoned_order_.pop_front();
    }
  }
  TryComplete(job_id);
}

bool RendezvousServer::AcceptJoins(const std::string& job_id, Pending& p, const JobShape& shape,
                                   bool relay) {
  // Checks the waiting joins against `shape`; refuses the ones that differ. A relay only looks at
  // the joins with the shape's token (the others may be another token's rendezvous).
  std::vector<bool> seen(static_cast<size_t>(shape.num_nodes), false);
  if (!relay) seen[0] = true;
  int32_t count = relay ? 0 : 1;
  for (Join& j : p.joins) {
    if (!j.fd.valid()) continue;
    bool same_token = TokensEqual(j.token, shape.token);
    if (relay && !same_token) continue;
    std::string why;
    if (!same_token) {
      why = "wrong job token";
    } else if (j.num_nodes != shape.num_nodes || j.layout != shape.layout ||
               (shape.layout == 0 && j.local_size != shape.local_size)) {
      auto ranks = [](int32_t nodes, int32_t local, uint32_t layout) {
        return std::to_string(nodes) + " nodes" +
               (layout == 0 ? " x " + std::to_string(local) + " ranks"
                            : " with ranks per node hashed " + std::to_string(layout));
      };
      why = "job shape differs: root has " +
            ranks(shape.num_nodes, shape.local_size, shape.layout) + ", joiner " +
            ranks(j.num_nodes, j.local_size, j.layout);
    } else if (j.node_rank < (relay ? 0 : 1) || j.node_rank >= shape.num_nodes) {
      why = "node rank " + std::to_string(j.node_rank) + " is outside the job";
    } else if (seen[static_cast<size_t>(j.node_rank)]) {
      why = "node rank " + std::to_string(j.node_rank) + " joined twice";
    }
    if (!why.empty()) {
      Logger("rendezvous")
          ->warn("refused a join for job '{}' (node rank {}): {}", job_id, j.node_rank, why);
      Refuse(j, why);
      continue;
    }
    seen[static_cast<size_t>(j.node_rank)] = true;
    ++count;
  }
  return count >= shape.num_nodes;
}

void RendezvousServer::TryComplete(const std::string& job_id) {
  auto it = pending_.find(job_id);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  if (auto a = abandoned_.find(job_id); a != abandoned_.end()) {
    for (Join& j : p.joins) Refuse(j, a->second, Code::kPeerLost);
    RendezvousDone done = std::move(p.done);
    bool offered = p.offered;
    pending_.erase(it);
    Logger("rendezvous")->warn("job '{}': rendezvous abandoned: {}", job_id, a->second);
    if (offered && done) done(PeerLost(a->second));
    return;
  }
  // A communicator without members on this node: its node 0 joins like every other node, and
  // this agent only relays the table. Node 0's join then stands for the offer. Anyone may send a
  // join, so coming first takes nothing over: the joins of each token are a rendezvous of their
  // own, the first to be whole is the communicator's, and the others are refused then.
  bool relay = !p.offered;
  if (relay) {
    for (size_t z = 0; z < p.joins.size(); ++z) {
      Join& zero = p.joins[z];
      if (zero.node_rank != 0) continue;
      if (zero.num_nodes < 2 || zero.num_nodes > kMaxNodes || zero.local_size < 1) {
        Refuse(zero, "a communicator of " + std::to_string(zero.num_nodes) + " nodes x " +
                         std::to_string(zero.local_size) + " ranks cannot meet here");
        continue;
      }
      JobShape shape{job_id, zero.token, zero.num_nodes, zero.local_size, zero.layout};
      if (AcceptJoins(job_id, p, shape, true)) {
        p.shape = shape;
        break;
      }
    }
    if (!p.shape.job_id.empty()) {
      // The joins of other tokens lost.
      for (Join& j : p.joins) {
        if (j.fd.valid() && !TokensEqual(j.token, p.shape.token)) Refuse(j, "wrong job token");
      }
    }
  } else {
    AcceptJoins(job_id, p, p.shape, false);
  }
  DropRefused(p.joins);
  if (p.shape.job_id.empty()) return;  // a relay: no token's joins are whole yet
  if (static_cast<int32_t>(p.joins.size()) + (relay ? 0 : 1) < p.shape.num_nodes) return;
  NodeTable table(static_cast<size_t>(p.shape.num_nodes));
  table.agents.assign(table.size(), "");
  if (!relay) {
    table[0] = p.own_address;
    // Where the joiners reached this agent (they all came to the same address).
    if (!p.joins.empty())
      table.agents[0] = LocalHost(p.joins[0].fd.get()) + ":" + std::to_string(port());
  }
  for (const Join& j : p.joins) {
    table[static_cast<size_t>(j.node_rank)] = j.address;
    table.agents[static_cast<size_t>(j.node_rank)] = j.agent_address;
  }
  std::vector<std::string> blobs(table.begin(), table.end());
  blobs.insert(blobs.end(), table.agents.begin(), table.agents.end());
  for (Join& j : p.joins)
    Reply(std::move(j.fd), rendezvous::Encode(rendezvous::kTable, p.shape, j.node_rank, blobs));
  RendezvousDone done = std::move(p.done);
  pending_.erase(it);
  Logger("rendezvous")
      ->info("job '{}': all {} nodes joined{}", job_id, table.size(), relay ? " (relayed)" : "");
  if (done) done(std::move(table));
}

void RendezvousServer::Withdraw(const std::string& job_id, const Status& why) {
  auto it = pending_.find(job_id);
  if (it == pending_.end()) return;
  for (Join& j : it->second.joins) Refuse(j, why.message(), why.code());
  pending_.erase(it);
}

void RendezvousServer::Expire(uint64_t now_ns) {
  conns_.Expire(now_ns);
  uint64_t timeout = uint64_t{timeout_ms_} * 1'000'000;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    for (auto j = p.joins.begin(); j != p.joins.end();) {
      if (!p.offered && now_ns - j->arrived_ns > timeout) {
        Refuse(*j,
               "neither a local rank of this job nor node 0 of the communicator reached the root "
               "agent in time",
               Code::kDeadlineExceeded);
        j = p.joins.erase(j);
      } else {
        ++j;
      }
    }
    if (p.offered && now_ns - p.offered_ns > timeout) {
      std::string missing;
      std::vector<bool> seen(static_cast<size_t>(p.shape.num_nodes), false);
      seen[0] = true;
      for (const Join& j : p.joins) seen[static_cast<size_t>(j.node_rank)] = true;
      for (size_t n = 0; n < seen.size(); ++n) {
        if (!seen[n]) missing += (missing.empty() ? "" : ", ") + std::to_string(n);
      }
      for (Join& j : p.joins) Refuse(j, "rendezvous timed out", Code::kDeadlineExceeded);
      RendezvousDone done = std::move(p.done);
      it = pending_.erase(it);
      done(DeadlineExceeded("rendezvous timed out after " + std::to_string(timeout_ms_) +
                            " ms waiting for node(s) " + missing));
      continue;
    }
    if (!p.offered && p.joins.empty()) {
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

RendezvousClient::RendezvousClient(EventLoop* loop, const JobShape& shape, int32_t node_rank,
                                   const std::string& root_addr, const std::string& own_address,
                                   uint32_t timeout_ms, RendezvousDone done, uint16_t agent_port)
    : alive_(std::make_shared<bool>(true)) {
  auto efd = ipc::CreateEventFd();
  if (efd.ok()) cancel_fd_ = std::move(*efd);
  std::weak_ptr<bool> alive = alive_;
  thread_ = std::thread(
      [this, loop, shape, node_rank, root_addr, own_address, timeout_ms, done, alive, agent_port] {
        Result<NodeTable> r = Run(shape, node_rank, root_addr, own_address, timeout_ms, agent_port);
        loop->Post([alive, done, r]() mutable {
          auto a = alive.lock();
          if (a && *a) done(std::move(r));
        });
      });
}

RendezvousClient::~RendezvousClient() {
  *alive_ = false;
  if (cancel_fd_.valid()) ipc::SignalEventFd(cancel_fd_.get());
  if (thread_.joinable()) thread_.join();
}

Result<NodeTable> RendezvousClient::Run(const JobShape& shape, int32_t node_rank,
                                        const std::string& root_addr,
                                        const std::string& own_address, uint32_t timeout_ms,
                                        uint16_t agent_port) {
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{timeout_ms} * 1'000'000;
  OUTRIDER_ASSIGN_OR_RETURN(sockaddr_in sa, Resolve(root_addr, "root agent"));
  // The root agent may not be listening yet: retry refused connections until the deadline.
  Status last = Unavailable("no attempt");
  for (int attempt = 0;; ++attempt) {
    Result<UniqueFd> fd = ConnectOnce(sa, cancel_fd_.get(), deadline);
    if (fd.ok()) {
      std::string agent =
          agent_port == 0 ? "" : LocalHost(fd->get()) + ":" + std::to_string(agent_port);
      OUTRIDER_RETURN_IF_ERROR(WriteAll(
          fd->get(), rendezvous::Encode(rendezvous::kJoin, shape, node_rank, {own_address, agent}),
          cancel_fd_.get(), deadline));
      OUTRIDER_ASSIGN_OR_RETURN(auto frame, ReadFrame(fd->get(), cancel_fd_.get(), deadline));
      auto& [h, blobs] = frame;
      if (h.type == rendezvous::kRefuse) {
        // The reason, then its code (a wrong token or shape by default: an older root sends none).
        Code code = Code::kPermissionDenied;
        if (blobs.size() > 1) {
          int c = std::atoi(blobs[1].c_str());
          if (c > 0 && c <= kMaxCode) code = static_cast<Code>(c);
        }
        return Status(code, "root agent " + root_addr + " refused this node: " +
                                (blobs.empty() ? std::string("no reason") : blobs[0]));
      }
      auto n = static_cast<size_t>(shape.num_nodes);
      if (h.type != rendezvous::kTable || blobs.size() != 2 * n) {
        return ProtocolError("root agent sent a malformed node table");
      }
      NodeTable table(blobs.begin(), blobs.begin() + static_cast<ptrdiff_t>(n));
      table.agents.assign(blobs.begin() + static_cast<ptrdiff_t>(n), blobs.end());
      return table;
    }
    last = fd.status().Annotate("connecting to root agent " + root_addr);
    // Back off briefly before the next attempt; the cancel fd ends the wait early.
    uint64_t wait_until = std::min<uint64_t>(deadline, ipc::MonotonicNs() + 100'000'000ull);
    if (WaitFd(cancel_fd_.get(), POLLIN, -1, wait_until)) return Cancelled("rendezvous cancelled");
    if (ipc::MonotonicNs() >= deadline) break;
  }
  return DeadlineExceeded("rendezvous with root agent " + root_addr +
                          " timed out: " + last.message());
}

}  // namespace outrider::agent
