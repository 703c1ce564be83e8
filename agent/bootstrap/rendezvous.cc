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

RendezvousServer::~RendezvousServer() {
  if (listen_fd_.valid()) loop_->Remove(listen_fd_.get());
}

Status RendezvousServer::Listen(const std::string& address, uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    return InvalidArgument("listen_address '" + address + "' is not an IPv4 address");
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    return ErrnoStatus("binding the agent port " + address + ":" + std::to_string(port), errno);
  }
  if (::listen(fd.get(), 128) != 0) return ErrnoStatus("listen on the agent port", errno);
  socklen_t sl = sizeof(sa);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &sl);
  port_ = ntohs(sa.sin_port);
  listen_fd_ = std::move(fd);
  return loop_->Add(listen_fd_.get(), EPOLLIN, [this](uint32_t) { OnAccept(); });
}

void RendezvousServer::OnAccept() {
  for (;;) {
    int cfd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (cfd < 0) return;
    UniqueFd fd(cfd);
    // A join is one small frame sent right after connecting; a peer slower than this is refused.
    auto frame = ReadFrame(fd.get(), -1, ipc::MonotonicNs() + 2'000'000'000ull);
    if (!frame.ok()) {
      Logger("rendezvous")->warn("dropped a rendezvous connection: {}", frame.status().ToString());
      continue;
    }
    auto& [h, blobs] = *frame;
    if (h.type == rendezvous::kWithdraw) {
      auto p = pending_.find(h.job_id);
      bool trusted =
          p == pending_.end() || !p->second.offered || TokensEqual(h.token, p->second.shape.token);
      if (trusted && blobs.size() == 1) Abandon(h.job_id, PeerLost(blobs[0]));
      continue;
    }
    if (h.type == rendezvous::kReform) {
      std::string local = LocalHost(fd.get()) + ":" + std::to_string(port_);
      std::string peer = PeerHost(fd.get());
      if (!reform_ || blobs.size() != 1) {
        JobShape none;
        Reply(std::move(fd), rendezvous::Encode(rendezvous::kRefuse, none, 0,
                                                {"malformed request for a new generation"}));
        continue;
      }
      reform_(h.job_id, h.token, std::move(blobs[0]), std::move(fd), local, peer);
      continue;
    }
    Join join{std::move(fd),
              h.node_rank,
              h.num_nodes,
              h.local_size,
              h.token,
              blobs.empty() ? std::string() : blobs[0],
              ipc::MonotonicNs(),
              blobs.size() > 1 ? blobs[1] : std::string()};
    if (h.type != rendezvous::kJoin || blobs.empty() || blobs.size() > 2) {
      Refuse(join, "malformed join");
      continue;
    }
    std::string job_id = h.job_id;
    pending_[job_id].joins.push_back(std::move(join));
    TryComplete(job_id);
  }
}

void RendezvousServer::Reply(UniqueFd fd, const std::string& frame) {
  if (fd.valid()) (void)WriteAll(fd.get(), frame, -1, ipc::MonotonicNs() + 1'000'000'000ull);
}

void RendezvousServer::Refuse(Join& join, const std::string& why) {
  JobShape none;
  std::string frame = rendezvous::Encode(rendezvous::kRefuse, none, join.node_rank, {why});
  (void)WriteAll(join.fd.get(), frame, -1, ipc::MonotonicNs() + 1'000'000'000ull);
  join.fd.reset();
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

void RendezvousServer::TryComplete(const std::string& job_id) {
  auto it = pending_.find(job_id);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  if (auto a = abandoned_.find(job_id); a != abandoned_.end()) {
    for (Join& j : p.joins) Refuse(j, a->second);
    RendezvousDone done = std::move(p.done);
    bool offered = p.offered;
    pending_.erase(it);
    Logger("rendezvous")->warn("job '{}': rendezvous abandoned: {}", job_id, a->second);
    if (offered && done) done(PeerLost(a->second));
    return;
  }
  // A communicator without members on this node: its node 0 joins like every other node, and
  // this agent only relays the table. Node 0's join then stands for the offer.
  bool relay = false;
  if (!p.offered) {
    auto zero = std::find_if(p.joins.begin(), p.joins.end(),
                             [](const Join& j) { return j.node_rank == 0; });
    if (zero == p.joins.end()) return;
    if (zero->num_nodes < 2 || zero->num_nodes > kMaxNodes || zero->local_size < 1) {
      Refuse(*zero, "a communicator of " + std::to_string(zero->num_nodes) + " nodes x " +
                        std::to_string(zero->local_size) + " ranks cannot meet here");
      p.joins.erase(zero);
      return;
    }
    relay = true;
    p.shape = JobShape{job_id, zero->token, zero->num_nodes, zero->local_size};
  }
  // Check every waiting join against the root's view of the job; refuse the ones that differ.
  std::vector<Join> accepted;
  for (Join& j : p.joins) {
    std::string why;
    if (!TokensEqual(j.token, p.shape.token)) {
      why = "wrong job token";
    } else if (j.num_nodes != p.shape.num_nodes || j.local_size != p.shape.local_size) {
      why = "job shape differs: root has " + std::to_string(p.shape.num_nodes) + " nodes x " +
            std::to_string(p.shape.local_size) + " ranks, joiner " + std::to_string(j.num_nodes) +
            " x " + std::to_string(j.local_size);
    } else if (j.node_rank < (relay ? 0 : 1) || j.node_rank >= p.shape.num_nodes) {
      why = "node rank " + std::to_string(j.node_rank) + " is outside the job";
    } else {
      for (const Join& a : accepted) {
        if (a.node_rank == j.node_rank)
          why = "node rank " + std::to_string(j.node_rank) + " joined twice";
      }
    }
    if (!why.empty()) {
      Logger("rendezvous")
          ->warn("refused a join for job '{}' (node rank {}): {}", job_id, j.node_rank, why);
      Refuse(j, why);
      continue;
    }
    accepted.push_back(std::move(j));
  }
  p.joins = std::move(accepted);
  if (static_cast<int32_t>(p.joins.size()) + (relay ? 0 : 1) < p.shape.num_nodes) return;
  NodeTable table(static_cast<size_t>(p.shape.num_nodes));
  table.agents.assign(table.size(), "");
  if (!relay) {
    table[0] = p.own_address;
    // Where the joiners reached this agent (they all came to the same address).
    if (!p.joins.empty())
      table.agents[0] = LocalHost(p.joins[0].fd.get()) + ":" + std::to_string(port_);
  }
  for (const Join& j : p.joins) {
    table[static_cast<size_t>(j.node_rank)] = j.address;
    table.agents[static_cast<size_t>(j.node_rank)] = j.agent_address;
  }
  std::vector<std::string> blobs(table.begin(), table.end());
  blobs.insert(blobs.end(), table.agents.begin(), table.agents.end());
  for (Join& j : p.joins) {
    Status st =
        WriteAll(j.fd.get(), rendezvous::Encode(rendezvous::kTable, p.shape, j.node_rank, blobs),
                 -1, ipc::MonotonicNs() + 2'000'000'000ull);
    if (!st.ok()) {
      Logger("rendezvous")
          ->warn("job '{}': sending the node table to node {} failed: {}", job_id, j.node_rank,
                 st.ToString());
    }
  }
  RendezvousDone done = std::move(p.done);
  pending_.erase(it);
  Logger("rendezvous")
      ->info("job '{}': all {} nodes joined{}", job_id, table.size(), relay ? " (relayed)" : "");
  if (done) done(std::move(table));
}

void RendezvousServer::Withdraw(const std::string& job_id, const Status& why) {
  auto it = pending_.find(job_id);
  if (it == pending_.end()) return;
  for (Join& j : it->second.joins) Refuse(j, why.message());
  pending_.erase(it);
}

void RendezvousServer::Expire(uint64_t now_ns) {
  uint64_t timeout = uint64_t{timeout_ms_} * 1'000'000;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    for (auto j = p.joins.begin(); j != p.joins.end();) {
      if (!p.offered && now_ns - j->arrived_ns > timeout) {
        Refuse(*j,
               "neither a local rank of this job nor node 0 of the communicator reached the root "
               "agent in time");
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
      for (Join& j : p.joins) Refuse(j, "rendezvous timed out");
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
        return PermissionDenied("root agent " + root_addr + " refused this node: " +
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
