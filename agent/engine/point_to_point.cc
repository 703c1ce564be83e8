// Point-to-point messages of one job on this node (point_to_point.h).
#include "agent/engine/point_to_point.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "agent/engine/dataplane/host_memory.h"
#include "ipc/defaults.h"
#include "ipc/event_fd.h"
#include "ipc/protocol.h"

namespace outrider::agent {
namespace {

std::string Describe(int src, int dst, int32_t tag) {
  return "message from rank " + std::to_string(src) + " to rank " + std::to_string(dst) +
         " with tag " + std::to_string(tag);
}

}  // namespace

PointToPoint::PointToPoint(RankLayout ranks, int node, uint64_t chunk_bytes, SendFn send,
                           CompleteFn complete, uint64_t max_held_bytes)
    : ranks_(std::move(ranks)),
      node_(node),
      chunk_bytes_(std::max<uint64_t>(chunk_bytes, 4096)),
      max_held_bytes_(max_held_bytes),
      send_(std::move(send)),
      complete_(std::move(complete)),
      posted_(static_cast<size_t>(ranks_.ranks_on(node))),
      held_(static_cast<size_t>(ranks_.ranks_on(node))) {}

size_t PointToPoint::pending() const {
  size_t n = waiting_.size() + sending_.size();
  for (const auto& p : posted_) n += p.size();
  for (const auto& [id, m] : incoming_) n += m.recv.has_value();
  return n;
}

void PointToPoint::Submit(int local_rank, const ValidatedOp& op) {
  if (!failed_.ok()) return Finish(local_rank, op, failed_, 0, -1, ipc::MonotonicNs());
  if (op.kind == ipc::OpKind::kRecv) return PostRecv(local_rank, op);
  if (auto gone = gone_.find(op.root); gone != gone_.end())
    return Finish(local_rank, op, gone->second, 0, -1, ipc::MonotonicNs());
  int src = ranks_.first_rank(node_) + local_rank;
  if (Local(op.root)) return SendLocal(local_rank, op);
  auto out = std::make_shared<Outgoing>(
      Outgoing{.local_rank = local_rank,
               .op = op,
               .seq = next_send_[{src, op.root, static_cast<int32_t>(op.key)}]++,
               .since_ns = ipc::MonotonicNs(),
               .pieces_left = 0,
               .result = Status::Ok()});
  if (!ready_) {
    waiting_.push_back(std::move(out));
    return;
  }
  Send(std::move(out));
}

void PointToPoint::SetReady() {
  ready_ = true;
  std::deque<std::shared_ptr<Outgoing>> waiting = std::move(waiting_);
  for (auto& out : waiting) Send(std::move(out));
}

void PointToPoint::Send(std::shared_ptr<Outgoing> out) {
  const ValidatedOp& op = out->op;
  int src = ranks_.first_rank(node_) + out->local_rank;
  uint64_t total = op.send.length;
  // One message at once when it fits a chunk, else chunks the scheduler paces.
  bool whole = total <= chunk_bytes_;
  PeerHeader h = Header(whole ? PeerMsg::kPoint : PeerMsg::kPointChunk, src, op.root,
                        static_cast<int32_t>(op.key), out->seq);
  h.fp.kind = static_cast<uint32_t>(ipc::OpKind::kSend);
  h.fp.dtype = static_cast<uint32_t>(op.dtype);
  h.message_bytes = total;
  out->pieces_left = whole ? 1 : (total + chunk_bytes_ - 1) / chunk_bytes_;
  out->taken = total <= kEagerPointBytes;
  sending_.push_back(out);
  // The op holds its regions: they stay mapped until every piece left.
  std::shared_ptr<const void> keep = out;
  int node = ranks_.node_of(op.root);
  for (uint64_t off = 0; off < total || (whole && off == 0); off += chunk_bytes_) {
    h.offset = off;
    uint64_t len = std::min(chunk_bytes_, total - off);
    send_(node, h, op.send.Sub(off, len), op.priority, keep, [this, out](const Status& st) {
      if (!st.ok() && out->result.ok())
        out->result = st.Annotate("sending to rank " + std::to_string(out->op.root));
      --out->pieces_left;
      MaybeSent(out);
    });
    if (whole) break;
  }
}

PeerHeader PointToPoint::Header(PeerMsg type, int src, int dst, int32_t tag, uint64_t seq) {
  PeerHeader h{};
  h.type = static_cast<uint16_t>(type);
  h.key = static_cast<uint32_t>(tag);
  h.seq = seq;
  h.step = static_cast<uint32_t>(dst);
  h.fp.root = src;
  return h;
}

void PointToPoint::MaybeSent(const std::shared_ptr<Outgoing>& out) {
  if (out->pieces_left != 0 || (!out->taken && out->result.ok())) return;
  auto it = std::find(sending_.begin(), sending_.end(), out);
  if (it == sending_.end()) return;  // failed meanwhile (FailAll, RanksLeft)
  sending_.erase(it);
  Finish(out->local_rank, out->op, out->result, out->seq, -1, out->since_ns);
}

Status PointToPoint::OnTaken(const PeerHeader& h) {
  int src = h.fp.root, dst = static_cast<int>(h.step);
  int32_t tag = static_cast<int32_t>(static_cast<uint32_t>(h.key));
  for (const auto& out : sending_) {
    if (ranks_.first_rank(node_) + out->local_rank != src || out->op.root != dst ||
        static_cast<int32_t>(out->op.key) != tag || out->seq != h.seq || out->taken) {
      continue;
    }
    if (ranks_.node_of(dst) != h.from_node) break;
    out->taken = true;
    MaybeSent(std::shared_ptr<Outgoing>(out));  // may erase it
    return Status::Ok();
  }
  return ProtocolError("node " + std::to_string(h.from_node) + " says it took a " +
                       Describe(src, dst, tag) + " (number " + std::to_string(h.seq) +
                       ") that this node is not sending");
}

void PointToPoint::SendLocal(int local_rank, const ValidatedOp& op) {
  int src = ranks_.first_rank(node_) + local_rank;
  int32_t tag = static_cast<int32_t>(op.key);
  Channel ch{src, op.root, tag};
  uint64_t seq = next_send_[ch]++;
  MessageId id{src, op.root, tag, seq};
  Incoming& m = incoming_[id];
  m.src = src;
  m.dst = op.root;
  m.tag = tag;
  m.seq = seq;
  m.total = op.send.length;
  m.received = m.total;
  // Its bytes stay where they are until a receive takes them, and the send completes then.
  m.local_send = Posted{local_rank, op, ipc::MonotonicNs()};
  next_in_[ch] = seq;
  Arrive(id);
}

void PointToPoint::PostRecv(int local_rank, const ValidatedOp& op) {
  Posted recv{local_rank, op, ipc::MonotonicNs()};
  auto& held = held_[static_cast<size_t>(local_rank)];
  for (auto it = held.begin(); it != held.end(); ++it) {
    Incoming& m = incoming_.at(*it);
    if (!Matches(op, m.src, m.tag)) continue;
    MessageId id = *it;
    held.erase(it);
    Take(m, std::move(recv));
    return MaybeDeliver(id);
  }
  if (auto gone = gone_.find(op.root); gone != gone_.end())
    return Finish(local_rank, op, gone->second, 0, op.root, recv.since_ns);
  posted_[static_cast<size_t>(local_rank)].push_back(std::move(recv));
}

void PointToPoint::RanksLeft(int first, int last, const Status& why) {
  for (int r = first; r < last; ++r) gone_.emplace(r, why);
  // Sends to them that no receive took: none will.
  std::vector<std::shared_ptr<Outgoing>> untaken;
  for (const auto& out : sending_) {
    if (out->op.root >= first && out->op.root < last && !out->taken) untaken.push_back(out);
  }
  for (auto& out : untaken) {
    out->taken = true;
    if (out->result.ok()) out->result = why;
    MaybeSent(out);
  }
  std::vector<Posted> local_sends;
  for (auto it = incoming_.begin(); it != incoming_.end();) {
    Incoming& m = it->second;
    if (m.dst >= first && m.dst < last && m.local_send && !m.recv) {
      local_sends.push_back(std::move(*m.local_send));
      auto& held = held_[static_cast<size_t>(LocalRank(m.dst))];
      held.erase(std::remove(held.begin(), held.end(), it->first), held.end());
      it = incoming_.erase(it);
    } else {
      ++it;
    }
  }
  for (Posted& p : local_sends) Finish(p.local_rank, p.op, why, 0, -1, p.since_ns);
  // The leaving ranks of this node post nothing more, and what waited for them goes.
  for (int r = std::max(first, ranks_.first_rank(node_)); r < last && Local(r); ++r) {
    size_t lr = static_cast<size_t>(LocalRank(r));
    posted_[lr].clear();
    for (const MessageId& id : held_[lr]) {
      auto it = incoming_.find(id);
      if (it == incoming_.end()) continue;
      held_bytes_ -=
          std::min<uint64_t>(held_bytes_, it->second.bytes.empty() ? 0 : it->second.total);
      incoming_.erase(it);
    }
    held_[lr].clear();
  }
  for (auto& posted : posted_) {
    std::vector<Posted> failed;
    for (auto it = posted.begin(); it != posted.end();) {
      if (it->op.root >= first && it->op.root < last) {
        failed.push_back(std::move(*it));
        it = posted.erase(it);
      } else {
        ++it;
      }
    }
    for (Posted& p : failed) Finish(p.local_rank, p.op, why, 0, p.op.root, p.since_ns);
  }
}

void PointToPoint::Arrive(MessageId id) {
  for (;;) {
    Incoming& m = incoming_.at(id);
    m.arrived = true;
    Channel ch{m.src, m.dst, m.tag};
    ++next_in_[ch];
    auto& posted = posted_[static_cast<size_t>(LocalRank(m.dst))];
    auto it = std::find_if(posted.begin(), posted.end(),
                           [&](const Posted& p) { return Matches(p.op, m.src, m.tag); });
    if (it != posted.end()) {
      Posted recv = std::move(*it);
      posted.erase(it);
      Take(m, std::move(recv));
      MaybeDeliver(id);  // may erase m
    } else {
      held_[static_cast<size_t>(LocalRank(m.dst))].push_back(id);
    }
    // The channel's next message may be here already, waiting for its turn.
    MessageId next{std::get<0>(ch), std::get<1>(ch), std::get<2>(ch), next_in_[ch]};
    auto n = incoming_.find(next);
    if (n == incoming_.end() || n->second.arrived) return;
    id = next;
  }
}

void PointToPoint::Take(Incoming& m, Posted recv) {
  held_bytes_ -= std::min<uint64_t>(held_bytes_, m.bytes.empty() ? 0 : m.total);
  if (recv.op.recv.length != m.total) {
    m.failed = InvalidArgument("recv of " + std::to_string(recv.op.recv.length) + " bytes got a " +
                               Describe(m.src, m.dst, m.tag) + " of " + std::to_string(m.total) +
                               " bytes: both sides must name the same size");
  } else if (m.local_send) {
    if (m.total != 0)
      std::memcpy(HostBytes(recv.op.recv), HostBytes(m.local_send->op.send), m.total);
  } else if (!m.bytes.empty()) {
    std::memcpy(HostBytes(recv.op.recv), m.bytes.data(), m.total);
  }
  m.bytes = {};
  m.recv = std::move(recv);
  if (m.local_send) {
    Posted send = std::move(*m.local_send);
    m.local_send.reset();
    Finish(send.local_rank, send.op, Status::Ok(), m.seq, -1, send.since_ns);
  } else if (m.total > kEagerPointBytes) {
    // The sender's agent holds the send until now.
    send_(ranks_.node_of(m.src), Header(PeerMsg::kPointTaken, m.src, m.dst, m.tag, m.seq),
          BufferSpan{}, 0, nullptr, [](const Status&) {});
  }
}

void PointToPoint::MaybeDeliver(MessageId id) {
  auto it = incoming_.find(id);
  Incoming& m = it->second;
  if (!m.recv || m.received < m.total) return;
  Posted recv = std::move(*m.recv);
  Status st = m.failed;
  int src = m.src;
  uint64_t seq = m.seq;
  incoming_.erase(it);
  Finish(recv.local_rank, recv.op, st, seq, src, recv.since_ns);
}

Status PointToPoint::OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!failed_.ok()) return Status::Ok();  // the rest of what was on its way: nobody waits for it
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kPointTaken) {
    if (len != 0) return ProtocolError("a point-to-point receipt with a payload");
    return OnTaken(h);
  }
  int src = h.fp.root, dst = static_cast<int>(h.step);
  int32_t tag = static_cast<int32_t>(static_cast<uint32_t>(h.key));
  bool whole = static_cast<PeerMsg>(h.type) == PeerMsg::kPoint;
  // From an agent of the job, but still checked: a bad one must not write out of bounds.
  if (src < 0 || src >= ranks_.world() || ranks_.node_of(src) != h.from_node || dst < 0 ||
      dst >= ranks_.world() || !Local(dst) || h.message_bytes > ipc::kMaxOpBytes ||
      h.offset > h.message_bytes || len > h.message_bytes - h.offset ||
      (whole && (h.offset != 0 || len != h.message_bytes)) || (len == 0 && h.message_bytes != 0)) {
    return ProtocolError("a point-to-point message from node " + std::to_string(h.from_node) +
                         " names ranks " + std::to_string(src) + " -> " + std::to_string(dst) +
                         ", bytes [" + std::to_string(h.offset) + ", +" + std::to_string(len) +
                         ") of " + std::to_string(h.message_bytes));
  }
  MessageId id{src, dst, tag, h.seq};
  Channel ch{src, dst, tag};
  auto [it, fresh] = incoming_.try_emplace(id);
  Incoming& m = it->second;
  if (fresh) {
    if (h.seq < next_in_[ch]) {  // arrived and delivered already: a repeat
      incoming_.erase(it);
      return ProtocolError("a repeated " + Describe(src, dst, tag) + " (number " +
                           std::to_string(h.seq) + ")");
    }
    m.src = src;
    m.dst = dst;
    m.tag = tag;
    m.seq = h.seq;
    m.total = h.message_bytes;
  } else if (m.total != h.message_bytes || m.received + len > m.total) {
    return ProtocolError("chunks of one " + Describe(src, dst, tag) + " disagree on its size");
  }
  if (m.recv) {
    if (m.failed.ok()) std::memcpy(HostBytes(m.recv->op.recv) + h.offset, data, len);
  } else {
    if (m.bytes.empty() && m.total != 0) {
      held_bytes_ += m.total;
      if (held_bytes_ > max_held_bytes_) {
        return ResourceExhausted(std::to_string(held_bytes_) +
                                 " bytes of point-to-point messages wait for receives here, more "
                                 "than the " +
                                 std::to_string(max_held_bytes_) + " an agent holds for a job");
      }
      m.bytes.resize(m.total);
    }
    if (len != 0) std::memcpy(m.bytes.data() + h.offset, data, len);
  }
  m.received += len;
  if (fresh && h.seq == next_in_[ch]) return Arrive(id), Status::Ok();
  if (m.arrived) MaybeDeliver(id);
  return Status::Ok();
}

void PointToPoint::Finish(int local_rank, const ValidatedOp& op, const Status& st, uint64_t seq,
                          int source, uint64_t since_ns) {
  complete_(local_rank, op, st, seq, source, ipc::MonotonicNs() - since_ns);
}

void PointToPoint::FailAll(const Status& why) {
  if (failed_.ok()) failed_ = why;
  std::vector<std::tuple<int, ValidatedOp, uint64_t, int, uint64_t>> failed;
  for (auto& out : waiting_)
    failed.emplace_back(out->local_rank, out->op, out->seq, -1, out->since_ns);
  for (auto& out : sending_)
    failed.emplace_back(out->local_rank, out->op, out->seq, -1, out->since_ns);
  for (auto& posted : posted_) {
    for (Posted& p : posted) failed.emplace_back(p.local_rank, p.op, 0, -1, p.since_ns);
    posted.clear();
  }
  for (auto& [id, m] : incoming_) {
    if (m.recv) failed.emplace_back(m.recv->local_rank, m.recv->op, m.seq, m.src, m.recv->since_ns);
    if (m.local_send)
      failed.emplace_back(m.local_send->local_rank, m.local_send->op, m.seq, -1,
                          m.local_send->since_ns);
  }
  waiting_.clear();
  sending_.clear();  // pieces still in flight find their send gone
  incoming_.clear();
  for (auto& held : held_) held.clear();
  held_bytes_ = 0;
  for (auto& [rank, op, seq, src, since] : failed) Finish(rank, op, why, seq, src, since);
}

nlohmann::json PointToPoint::StatusJson() const {
  size_t posted = 0, held = 0;
  for (const auto& p : posted_) posted += p.size();
  for (const auto& h : held_) held += h.size();
  size_t landing = 0;
  for (const auto& [id, m] : incoming_) landing += m.recv.has_value();
  return {{"sends_waiting", waiting_.size()},
          {"sends_in_flight", sending_.size()},
          {"receives_posted", posted},
          {"receives_landing", landing},
          {"messages_held", held},
          {"held_bytes", held_bytes_}};
}

}  // namespace outrider::agent
