// Instances across nodes: creation, agreement, messages and completion, their sends, and nodes
// that leave or fail (see node_group.h).
#include "agent/engine/node_group.h"

#include <algorithm>
#include <climits>
#include <memory>

#include "agent/engine/agreement.h"
#include "agent/engine/dataplane/host_memory.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "base/check.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
NodeGroup::NodeGroup(Topology topo, uint64_t job_hash, uint64_t self_hash, Transport* transport,
                     DataPlane* data, Done done, EngineOptions options)
    : topo_(std::move(topo)),
      job_hash_(job_hash),
      self_hash_(self_hash),
      transport_(transport),
      done_(std::move(done)),
      options_(options),
      deps_{this, &topo_, &options_, data, &sparse_},
      sent_to_(static_cast<size_t>(topo_.nodes), 0),
      received_from_(static_cast<size_t>(topo_.nodes), 0),
      left_after_(static_cast<size_t>(topo_.nodes), -1),
      left_(static_cast<size_t>(topo_.nodes), false),
      left_cause_(static_cast<size_t>(topo_.nodes), -1),
      left_failed_(static_cast<size_t>(topo_.nodes)),
      left_gave_up_(static_cast<size_t>(topo_.nodes), false) {
  hand_over_held_.resize(static_cast<size_t>(topo_.nodes));
  sender_of_.assign(static_cast<size_t>(topo_.nodes), 0);
}

NodeGroup::~NodeGroup() {
  for (const auto& [id, c] : instances_) {
    if (c.started && !c.done) SetRunning(c, false);
  }
  running_ = 0;
  MarkRunning();
}

bool NodeGroup::unfinished() const {
  for (const auto& [id, c] : instances_) {
    if (!c.done) return true;
  }
  return false;
}

bool NodeGroup::busy() const {
  if (point_sends_ != 0) return true;
  for (const auto& [id, c] : instances_) {
    if (c.sends_in_flight > 0 || (c.algorithm && c.algorithm->busy())) return true;
  }
  return false;
}

void NodeGroup::SetPeers(std::vector<PeerId> peers) {
  Scope scope(this);
  peers_ = std::move(peers);
  MarkRunning();
  SendAborts();
  if (!failure_.empty()) SayJobFailed(PeerLost(failure_), failure_skips_);
}

int NodeGroup::NodeOfPeer(PeerId peer) const {
  for (size_t n = 0; n < peers_.size(); ++n) {
    if (static_cast<int>(n) != topo_.me && peers_[n] == peer) return static_cast<int>(n);
  }
  return -1;
}

bool NodeGroup::Finished(uint64_t key, uint64_t seq) const {
  auto below = finished_below_.find(key);
  if (below != finished_below_.end() && seq < below->second) return true;
  auto it = instances_.find({key, seq});
  return it != instances_.end() && it->second.forgotten;
}

Collective& NodeGroup::Get(uint64_t key, uint64_t seq) {
  Collective& c = instances_[{key, seq}];
  if (c.fps.empty()) {
    c.key = key;
    c.seq = seq;
    c.fps.resize(static_cast<size_t>(topo_.nodes));
    c.data.resize(static_cast<size_t>(topo_.nodes));
  }
  return c;
}

PeerHeader NodeGroup::Header(PeerMsg type, uint64_t key, uint64_t seq) const {
  PeerHeader h{};
  h.magic = kPeerMagic;
  h.version = kPeerVersion;
  h.type = static_cast<uint16_t>(type);
  h.sender = self_hash_;
  h.job_hash = job_hash_;
  h.key = key;
  h.seq = seq;
  h.from_node = topo_.me;
  h.lost_node = -1;
  return h;
}

void NodeGroup::Start(uint64_t key, uint64_t seq, const std::vector<const ValidatedOp*>& ops,
                      int32_t priority) {
  Scope scope(this);
  Collective& c = Get(key, seq);
  c.priority = priority;
  c.started = true;
  if (!c.done) SetRunning(c, true);
  c.started_ns = ipc::MonotonicNs();
  c.trace.Start(c.started_ns);
  c.ops = ops;
  Result<std::unique_ptr<Algorithm>> algorithm = MakeAlgorithm(c, deps_);
  if (algorithm.ok()) c.algorithm = std::move(*algorithm);
  if (c.done) {  // failed before this node's ranks arrived (a peer aborted it, or left)
    if (c.sends_in_flight == 0) Notify(c);
    return;
  }
  if (!algorithm.ok()) return Complete(c, algorithm.status());
  for (int n = 0; n < topo_.nodes; ++n) {
    size_t x = static_cast<size_t>(n);
    if (left_[x] && (GaveUp(x) || !c.fps[x])) return Finish(c, LeftWhy(n));
  }
  c.fp = FingerprintOf(*ops[0]);
  if (!ipc::IsSparse(c.op().kind))
    c.fp.algo = c.algorithm->label() == "direct" ? kDirectAlgo : kStagedAlgo;
  c.fps[static_cast<size_t>(topo_.me)] = c.fp;
  c.algorithm->Prepare([this, key, seq] {
    auto it = instances_.find({key, seq});
    if (it != instances_.end() && !it->second.done) SendContributions(it->second);
  });
}

void NodeGroup::SendContributions(Collective& c) {
  c.prepared = true;
  for (int n = 0; n < topo_.nodes && !c.done; ++n) {
    if (n != topo_.me) Send(c, n, {.type = PeerMsg::kContrib}, c.algorithm->Contribution(n));
  }
  MaybeAgree(c);
}

void NodeGroup::MaybeAgree(Collective& c) {
  if (c.agreed || c.done) return;
  for (const auto& f : c.fps) {
    if (!f) return;
  }
  // Compare every node with node 0; name both sides of the first difference.
  for (int n = 1; n < topo_.nodes; ++n) {
    std::optional<Disagreement> d = Compare(*c.fps[0], *c.fps[static_cast<size_t>(n)]);
    if (d) {  // every node compares the same fingerprints: none needs telling
      return Finish(c, Mismatch(DisagreementMessage(c.fp, c.key, c.seq, topo_.job_id, *d,
                                                    DescribeNode(0), DescribeNode(n))));
    }
  }
  c.agreed = true;
  c.agreed_ns = ipc::MonotonicNs();
  c.trace.Agreed(c.agreed_ns);
  c.algorithm->Agreed();
  std::vector<Collective::Early> early = std::move(c.early);
  for (Collective::Early& e : early) {
    if (c.done) break;
    c.algorithm->OnChunk(e.h, e.bytes.data(), e.bytes.size());
  }
}

void NodeGroup::OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  Scope scope(this);
  if (h.from_node < 0 || h.from_node >= topo_.nodes || h.from_node == topo_.me) return;
  size_t from = static_cast<size_t>(h.from_node);
  if (sender_of_[from] != h.sender) {
    // The node's next agent (a hand-over): its messages count from its first.
    if (sender_of_[from] != 0) {
      received_from_[from] = 0;
      left_after_[from] = -1;
      hand_over_held_[from].clear();
    }
    sender_of_[from] = h.sender;
  }
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kJobFailed) {
    std::string text = data != nullptr ? std::string(reinterpret_cast<const char*>(data),
                                                     std::min<size_t>(len, 1024))
                                       : DescribeNode(h.from_node) + " failed";
    if (failed_) failed_(h.from_node, PeerLost(text));
    return;
  }
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kJobLeft) {
    left_after_[from] = static_cast<int64_t>(h.sent_before);
    left_cause_[from] = h.lost_node >= 0 && h.lost_node < topo_.nodes ? h.lost_node : -1;
    left_gave_up_[from] = h.step != 0;
    if (data != nullptr && len > 0) {
      Code code = h.code > 0 && h.code <= kMaxCode ? static_cast<Code>(h.code) : Code::kPeerLost;
      left_failed_[from] = Status(
          code, std::string(reinterpret_cast<const char*>(data), std::min<size_t>(len, 1024)));
    }
    if (received_from_[from] >= h.sent_before) ApplyLeft(h.from_node);
    return;
  }
  ++received_from_[from];
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kHandOver) {
    // After everything the sender sent before it (bulk chunks may still be on another lane).
    hand_over_held_[from].push_back(
        {h, data != nullptr ? std::string(reinterpret_cast<const char*>(data), len) : ""});
  } else {
    HandleMessage(h, data, len);
  }
  while (!hand_over_held_[from].empty() &&
         received_from_[from] > hand_over_held_[from].front().h.sent_before) {
    HeldHandOver m = std::move(hand_over_held_[from].front());
    hand_over_held_[from].pop_front();
    if (hand_over_message_)
      hand_over_message_(m.h, reinterpret_cast<const uint8_t*>(m.data.data()), m.data.size());
  }
  if (left_after_[from] >= 0 && received_from_[from] >= static_cast<uint64_t>(left_after_[from]) &&
      !left_[from]) {
    ApplyLeft(h.from_node);
  }
}

void NodeGroup::HandleMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (IsPointToPointMessage(h.type)) {
    CountBytes(0, sizeof(h) + len);
    if (point_message_) point_message_(h, data, len);
    return;
  }
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kNcclId ||
      static_cast<PeerMsg>(h.type) == PeerMsg::kNcclTicket) {
    // The launch order is the job's, not an instance's (a ticket may come before this node's own
    // fingerprint round for the instance ended).
    if (h.from_node == 0 && device_message_) device_message_(h, data, len);
    return;
  }
  // Late for an instance that finished here (it failed, and its peers had more on the way): nothing
  // waits for it, and it must not bring the instance back.
  if (Finished(h.key, h.seq)) return;
  Collective& c = Get(h.key, h.seq);
  if (c.done) return;
  c.wire_recv += sizeof(h) + len;
  switch (static_cast<PeerMsg>(h.type)) {
    case PeerMsg::kAbort: {
      Code code = h.code > 0 && h.code <= kMaxCode ? static_cast<Code>(h.code) : Code::kInternal;
      std::string text = data != nullptr ? std::string(reinterpret_cast<const char*>(data),
                                                       std::min<size_t>(len, 1024))
                                         : DescribeNode(h.from_node) + " failed " + c.Name();
      return Finish(c, Status(code, std::move(text)));  // the sender told every node
    }
    case PeerMsg::kContrib: {
      auto& slot = c.fps[static_cast<size_t>(h.from_node)];
      if (slot) return;  // duplicate: ignore
      slot = h.fp;
      c.data[static_cast<size_t>(h.from_node)].assign(data, data + len);
      if (c.prepared) MaybeAgree(c);
      return;
    }
    case PeerMsg::kRing:
    case PeerMsg::kSparse:
      if (c.started) c.trace.Received(ipc::MonotonicNs());
      if (!c.agreed) {
        c.early.push_back({h, std::vector<uint8_t>(data, data + len)});
        return;
      }
      return c.algorithm->OnChunk(h, data, len);
    default:
      return;
  }
}

RecvTarget NodeGroup::RecvBuffer(const PeerHeader& h, size_t len) {
  if (static_cast<PeerMsg>(h.type) != PeerMsg::kRing) return {};
  auto it = instances_.find({h.key, h.seq});
  if (it == instances_.end() || !it->second.agreed || it->second.done) return {};
  BufferSpan span = it->second.algorithm->RecvBuffer(h, len);
  if (span.empty() || !span.host()) return {};
  auto holds = std::make_shared<std::vector<std::shared_ptr<const void>>>();
  for (const ValidatedOp* op : it->second.ops) {
    for (const auto& region : op->holds) {
      if (region != nullptr) holds->push_back(region);
    }
  }
  return {HostBytes(span), std::move(holds)};
}

bool NodeGroup::Pump() {
  Scope scope(this);
  // The job's device side completes instances of this group: under the scope like the rest.
  bool worked = deps_.device != nullptr && deps_.device->Pump();
  if (deps_.data->Poll()) return true;
  for (auto& [id, c] : instances_) {
    if (c.prepared && !c.done && c.algorithm->Pump()) return true;
  }
  return worked;
}

void NodeGroup::Complete(Collective& c, const Status& st) {
  // A failure found here alone: the other nodes would wait for what this node no longer sends.
  Finish(c, st, /*tell_others=*/!st.ok());
}

void NodeGroup::Finish(Collective& c, const Status& st, bool tell_others) {
  if (c.done) return;
  c.done = true;
  if (c.started) SetRunning(c, false);
  if (!c.ops.empty() && c.op().recv.length > options_.direct_max_bytes) {
    uint64_t now = ipc::MonotonicNs();
    Logger("engine")->debug(
        "job '{}' seq {}: {} bytes, agreement after {} us, done after {} us: {}", topo_.job_id,
        c.seq, c.op().recv.length, c.agreed_ns ? (c.agreed_ns - c.started_ns) / 1000 : 0,
        (now - c.started_ns) / 1000, st.ToString());
  }
  c.result = st;
  c.early.clear();
  // After `done`: a send that fails in there comes back through Complete, which then returns.
  if (tell_others) SayFailed(c, st);
  // Sends may still read the clients' buffers (zero-copy): a successful op is reported only once
  // they are done, so a client never reuses memory a peer has not received yet. Failures are
  // reported at once; a peer that never acknowledges must not hang the clients.
  if (st.ok() && c.sends_in_flight > 0) return;
  Notify(c);
}

void NodeGroup::Notify(Collective& c) {
  // An instance that failed before this node's ranks arrived stays until Start reports it.
  if (c.notified || !c.started) return;
  // Invariant: no data movement of the instance is still running (the host plane finishes
  // every call inside it; an asynchronous plane must be waited for before the clients hear).
  OUTRIDER_CHECK(!c.algorithm || !c.algorithm->busy());
  c.notified = true;
  uint64_t key = c.key, seq = c.seq;
  std::vector<OpReport> reports = c.algorithm ? c.algorithm->Reports() : std::vector<OpReport>{};
  for (OpReport& r : reports) {
    r.wire_bytes_sent = c.wire_sent;
    r.wire_bytes_recv = c.wire_recv;
  }
  std::string_view label = c.algorithm ? c.algorithm->label() : "none";
  c.ops.clear();
  CountBytes(c.wire_sent, c.wire_recv);
  c.trace.Finish(ipc::MonotonicNs());
  done_(key, seq, c.result, label, reports.empty() ? nullptr : &reports, c.trace);
  MaybeErase(key, seq);
}

void NodeGroup::MaybeErase(uint64_t key, uint64_t seq) {
  auto it = instances_.find({key, seq});
  if (it == instances_.end()) return;
  const Collective& c = it->second;
  if (c.forgotten || !c.notified || c.sends_in_flight > 0 || (c.algorithm && c.algorithm->busy()))
    return;
  Retire(it);
  uint64_t& below = finished_below_[key];
  if (seq < below) return;
  if (seq > below) {
    // An earlier seq of the key still runs: remember this one finished until that one has too.
    Collective& mark = instances_[{key, seq}];
    mark.key = key;
    mark.seq = seq;
    mark.started = mark.done = mark.notified = mark.forgotten = true;
    return;
  }
  for (++below;; ++below) {
    auto next = instances_.find({key, below});
    if (next == instances_.end() || !next->second.forgotten) break;
    instances_.erase(next);  // holds nothing an algorithm's frames could still use
  }
}

void NodeGroup::Retire(Instances::iterator it) {
  if (depth_ == 0) {
    instances_.erase(it);
  } else {
    retired_.push_back(instances_.extract(it));
  }
}

std::string NodeGroup::WaitingFor(uint64_t key, uint64_t seq) const {
  auto it = instances_.find({key, seq});
  if (it == instances_.end()) return "";
  const Collective& c = it->second;
  if (c.done) return c.sends_in_flight > 0 ? "sends to finish" : "";
  if (!ready()) return "rendezvous with the other nodes";
  std::string missing;
  for (int n = 0; n < topo_.nodes; ++n) {
    if (!c.fps[static_cast<size_t>(n)]) missing += (missing.empty() ? "" : ", ") + DescribeNode(n);
  }
  if (!missing.empty()) return "contributions of " + missing;
  return c.algorithm ? c.algorithm->WaitingFor() : "";
}

// ---- Sends: peer headers, chunks through the send scheduler, finished and failed sends ----

namespace {

// Chunks of demanded rows go in the scheduler's urgent class, ahead of the op's other chunks and
// of every op at the default priorities.
int32_t UrgentPriority(int32_t priority) {
  int32_t p = std::min<int32_t>(priority, 0);
  return p < INT32_MIN + 1000 ? INT32_MIN : p - 1000;
}

}  // namespace

void NodeGroup::Send(Collective& c, int node, const SendArgs& args, const BufferSpan& payload) {
  PeerHeader h = Header(args.type, c.key, c.seq);
  h.step = args.step;
  h.offset = args.offset;
  h.message_bytes = args.message_bytes;
  if (args.type == PeerMsg::kSparse) h.sent_before = args.message_index;
  if (args.type == PeerMsg::kContrib) h.fp = c.fp;
  if (args.type == PeerMsg::kAbort) h.code = static_cast<int32_t>(c.told_code);
  ++c.sends_in_flight;
  c.wire_sent += sizeof(h) + payload.length;
  // Bulk chunks wait for the scheduler and go on the bulk lane; fingerprints (with a small op's
  // data), aborts and goodbyes go at once, on the express lane.
  if (!IsScheduledChunk(h.type)) return Issue(node, ControlLane(), h, payload, false, args.keep);
  if (scheduler_ == nullptr) return Issue(node, Lane::kBulk, h, payload, false, args.keep);
  Schedule(c, node, h, payload, args.urgent ? UrgentPriority(c.priority) : c.priority, args.keep);
}

void NodeGroup::Schedule(Collective& c, int node, const PeerHeader& h, const BufferSpan& payload,
                         int32_t priority, std::shared_ptr<const void> keep) {
  c.trace.Begin(OpTrace::kQueued, ipc::MonotonicNs());
  scheduler_->Enqueue(peers_[static_cast<size_t>(node)], flow_, priority,
                      sizeof(h) + payload.length,
                      [this, node, h, payload, priority, keep = std::move(keep)] {
                        Scope scope(this);
                        IssueScheduled(node, h, payload, priority, keep);
                      });
}

void NodeGroup::IssueScheduled(int node, const PeerHeader& h, const BufferSpan& payload,
                               int32_t priority, const std::shared_ptr<const void>& keep) {
  // A ring chunk cut before a higher class became active on the link, or before a more urgent op
  // of the job started, goes in pieces of what the job may cut now; the rest waits in the scheduler
  // again, behind what goes first. Ring chunks name their bytes by offset, and the ring counts
  // bytes, so any whole-element cut is one.
  Collective& c = instances_.find({h.key, h.seq})->second;  // alive: its send is counted
  if (h.type != static_cast<uint16_t>(PeerMsg::kRing) || c.done || c.ops.empty())
    return Issue(node, Lane::kBulk, h, payload, true, keep);
  uint64_t elem = ipc::DTypeSize(c.op().dtype);
  uint64_t cap = scheduler_->ChunkCap(peers_[static_cast<size_t>(node)], flow_, priority);
  uint64_t first = cap / elem * elem;
  if (payload.length <= cap || first == 0 ||
      !scheduler_->Unsend(peers_[static_cast<size_t>(node)], payload.length - first)) {
    return Issue(node, Lane::kBulk, h, payload, true, keep);
  }
  PeerHeader rest = h;
  rest.offset += first;
  ++c.sends_in_flight;
  c.wire_sent += sizeof(h);
  Schedule(c, node, rest, payload.Sub(first, payload.length - first), priority, keep);
  Issue(node, Lane::kBulk, h, payload.Sub(0, first), true, keep);
}

void NodeGroup::SetRunning(const Collective& c, bool running) {
  running_ += running ? 1 : -1;
  MarkRunning();
  if (scheduler_ == nullptr) return;
  if (running) {
    scheduler_->BeginOp(flow_.job, c.priority);
  } else {
    scheduler_->EndOp(flow_.job, c.priority);
  }
}

void NodeGroup::MarkRunning() {
  // Peers are known once; the class and scheduler are set before the first instance.
  bool want = running_ > 0 && scheduler_ != nullptr && !peers_.empty();
  if (want == marked_running_) return;
  marked_running_ = want;
  for (int n = 0; n < topo_.nodes && static_cast<size_t>(n) < peers_.size(); ++n) {
    if (n == topo_.me) continue;
    PeerId peer = peers_[static_cast<size_t>(n)];
    if (want) {
      scheduler_->BeginRunning(peer, flow_.job_class);
    } else {
      scheduler_->EndRunning(peer, flow_.job_class);
    }
  }
}

uint64_t NodeGroup::ChunkCap(int node) const {
  if (scheduler_ == nullptr || node < 0 || static_cast<size_t>(node) >= peers_.size())
    return UINT64_MAX;
  return scheduler_->ChunkCap(peers_[static_cast<size_t>(node)], flow_.job_class);
}

void NodeGroup::Issue(int node, Lane lane, const PeerHeader& h, const BufferSpan& payload,
                      bool scheduled, std::shared_ptr<const void> keep) {
  PeerId peer = peers_[static_cast<size_t>(node)];
  uint64_t bytes = sizeof(h) + payload.length, key = h.key, seq = h.seq;
  Collective& c =
      instances_.find({key, seq})->second;  // alive: this send counts in sends_in_flight
  if (IsScheduledChunk(h.type)) {
    uint64_t now = ipc::MonotonicNs();
    if (scheduled) c.trace.End(OpTrace::kQueued, now);
    c.trace.Begin(OpTrace::kWire, now);
  }
  if (IsScheduledChunk(h.type) && c.done &&
      !c.result.ok()) {  // failed while the chunk waited: nobody needs it
    if (scheduled) scheduler_->Done(peer, bytes);
    return SendDone(key, seq, h, Status::Ok());
  }
  ++sent_to_[static_cast<size_t>(node)];
  // The receiver returns the credit (kCredit) once the chunk arrived; a send that failed never
  // arrives, so its credit comes back here.
  Status st = transport_->Send(
      peer, lane, &h, sizeof(h), HostBytes(payload), payload.length,
      [this, key, seq, peer, bytes, scheduled, h, keep = std::move(keep)](const Status& s) {
        Scope scope(this);
        if (scheduled && !s.ok()) scheduler_->Done(peer, bytes);
        SendDone(key, seq, h, s);
      });
  if (!st.ok()) {
    if (scheduled) scheduler_->Done(peer, bytes);
    if (IsScheduledChunk(h.type)) c.trace.End(OpTrace::kWire, ipc::MonotonicNs());
    --c.sends_in_flight;
    if (c.algorithm) c.algorithm->OnSent(h, false);
    Complete(c, PeerLost(DescribeNode(node) + " is unreachable: " + st.message()));
    MaybeErase(key, seq);
  }
}

void NodeGroup::SendDone(uint64_t key, uint64_t seq, const PeerHeader& h, const Status& s) {
  auto it = instances_.find({key, seq});
  if (it == instances_.end()) return;
  Collective& c = it->second;
  --c.sends_in_flight;
  if (IsScheduledChunk(h.type)) c.trace.End(OpTrace::kWire, ipc::MonotonicNs());
  if (c.algorithm) c.algorithm->OnSent(h, s.ok());
  if (!s.ok() && !c.done) {
    Complete(c, s.Annotate("sending to a peer agent"));
  } else if (!s.ok() && !c.notified) {
    // Finished here, but what it owed a peer never arrives: the nodes waiting for it fail too.
    c.result = s.Annotate("sending to a peer agent");
    SayFailed(c, c.result);
  }
  if (c.done && c.sends_in_flight == 0) Notify(c);
  MaybeErase(key, seq);
}

void NodeGroup::CountBytes(uint64_t sent, uint64_t received) {
  if (metrics_ == nullptr || (sent == 0 && received == 0)) return;
  if (bytes_sent_ == nullptr) {
    std::string job = metrics_->JobLabel(topo_.metrics_job());
    bytes_sent_ = metrics_->BytesCounter(job, "sent");
    bytes_recv_ = metrics_->BytesCounter(job, "received");
  }
  bytes_sent_->Inc(static_cast<double>(sent));
  bytes_recv_->Inc(static_cast<double>(received));
}

void NodeGroup::SendPoint(int node, const PeerHeader& h, const BufferSpan& payload,
                          int32_t priority, std::shared_ptr<const void> keep,
                          std::function<void(const Status&)> done) {
  Scope scope(this);
  if (node < 0 || node >= topo_.nodes || node == topo_.me || peers_.empty() ||
      left_[static_cast<size_t>(node)] || detached_) {
    return done(PeerLost(DescribeNode(node) + " of job '" + topo_.job_id + "' is gone"));
  }
  PeerHeader full = Header(static_cast<PeerMsg>(h.type), h.key, h.seq);
  full.step = h.step;
  full.offset = h.offset;
  full.message_bytes = h.message_bytes;
  full.fp = h.fp;
  bool scheduled = IsScheduledChunk(full.type) && scheduler_ != nullptr;
  Lane lane = IsScheduledChunk(full.type) ? Lane::kBulk : ControlLane();
  ++point_sends_;
  if (scheduler_ != nullptr && static_cast<PeerMsg>(full.type) != PeerMsg::kPointTaken) {
    scheduler_->BeginOp(flow_.job, priority);
    done = [this, priority, done = std::move(done)](const Status& st) {
      scheduler_->EndOp(flow_.job, priority);
      done(st);
    };
  }
  auto issue = [this, node, full, payload, lane, scheduled, keep = std::move(keep),
                done = std::move(done)] {
    PeerId peer = peers_[static_cast<size_t>(node)];
    uint64_t bytes = sizeof(full) + payload.length;
    ++sent_to_[static_cast<size_t>(node)];
    CountBytes(bytes, 0);
    Status st =
        transport_->Send(peer, lane, &full, sizeof(full), HostBytes(payload), payload.length,
                         [this, peer, bytes, scheduled, keep, done](const Status& s) {
                           Scope scope(this);
                           if (scheduled && !s.ok()) scheduler_->Done(peer, bytes);
                           --point_sends_;
                           done(s);
                         });
    if (!st.ok()) {
      if (scheduled) scheduler_->Done(peer, bytes);
      --point_sends_;
      done(PeerLost(DescribeNode(node) + " is unreachable: " + st.message()));
    }
  };
  if (!scheduled) return issue();
  scheduler_->Enqueue(peers_[static_cast<size_t>(node)], flow_, priority,
                      sizeof(full) + payload.length, [this, issue = std::move(issue)] {
                        Scope scope(this);
                        issue();
                      });
}

void NodeGroup::SendHandOver(uint64_t step, int leaving, std::string payload) {
  if (detached_ || peers_.empty()) return;
  PeerHeader h = Header(PeerMsg::kHandOver, step, 0);
  h.lost_node = leaving;
  auto bytes = std::make_shared<const std::string>(std::move(payload));
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n == topo_.me || left_[static_cast<size_t>(n)]) continue;
    h.sent_before = sent_to_[static_cast<size_t>(n)]++;
    ++*hand_over_sends_;
    Status sent = transport_->Send(peers_[static_cast<size_t>(n)], ControlLane(), &h, sizeof(h),
                                   bytes->data(), bytes->size(),
                                   [bytes, sends = hand_over_sends_](const Status&) { --*sends; });
    if (!sent.ok()) --*hand_over_sends_;  // refused at once: no callback comes
  }
}

void NodeGroup::SayJobFailedTo(int node, const Status& why) {
  if (node < 0 || node >= topo_.nodes || node == topo_.me || detached_) return;
  PeerHeader h = Header(PeerMsg::kJobFailed, 0, 0);
  auto text = std::make_shared<const std::string>(why.message());
  (void)transport_->Send(peers_[static_cast<size_t>(node)], ControlLane(), &h, sizeof(h),
                         text->data(), text->size(), [text](const Status&) {});
}

void NodeGroup::ReplacePeer(int node, PeerId peer) {
  if (node < 0 || node >= topo_.nodes || node == topo_.me) return;
  size_t n = static_cast<size_t>(node);
  if (n < peers_.size()) peers_[n] = peer;
  sent_to_[n] = 0;  // the receiving side counts afresh from the new agent's first message
}

void NodeGroup::SendToOthers(PeerMsg type, uint64_t key, uint64_t seq, std::string payload) {
  if (detached_) return;
  PeerHeader h = Header(type, key, seq);
  // The callback alone keeps the payload alive: the group may be gone by the time a send finishes.
  auto bytes = std::make_shared<const std::string>(std::move(payload));
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n == topo_.me || left_[static_cast<size_t>(n)]) continue;
    ++sent_to_[static_cast<size_t>(n)];
    (void)transport_->Send(peers_[static_cast<size_t>(n)], ControlLane(), &h, sizeof(h),
                           bytes->data(), bytes->size(),
                           [bytes](const Status&) {});  // a peer that is gone is noticed as lost
  }
}

// ---- Nodes that leave, disagree or fail: what they cannot complete fails, the others are told
// ----

bool NodeGroup::GaveUp(size_t node) const { return left_cause_[node] >= 0 || left_gave_up_[node]; }

Status NodeGroup::LeftWhy(int node) const {
  if (!left_failed_[static_cast<size_t>(node)].ok()) return left_failed_[static_cast<size_t>(node)];
  int cause = left_cause_[static_cast<size_t>(node)];
  return cause >= 0 ? PeerLost(DescribeNode(cause) + " of job '" + topo_.job_id +
                               "' is lost (reported by " + DescribeNode(node) + ")")
                    : PeerLost(DescribeNode(node) + " left job '" + topo_.job_id + "'");
}

void NodeGroup::ApplyLeft(int node) {
  size_t x = static_cast<size_t>(node);
  left_[x] = true;
  // Everything the node sent has arrived. Its clients left in order (after a failure of some op,
  // perhaps): it finished every instance it contributed to, so only those still missing its
  // contribution cannot complete. It gave up (it lost a node, a rank died or left work undone): it
  // left instances half done, and in a ring, chain or sparse exchange every node waits for data
  // that passes through every other, so none of them can complete.
  bool gave_up = GaveUp(x);
  Status why = LeftWhy(node);
  std::vector<std::pair<uint64_t, uint64_t>> doomed;
  for (auto& [id, c] : instances_) {
    if (!c.done && (gave_up || !c.fps[x])) doomed.push_back(id);
  }
  for (auto& id : doomed) {
    auto it = instances_.find(id);
    if (it != instances_.end()) Finish(it->second, why);  // the node told every other node itself
  }
  if (!gave_up && node_left_) node_left_(node, why);
}

void NodeGroup::FailAll(const Status& why) {
  Scope scope(this);
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  for (auto& [id, c] : instances_) ids.push_back(id);
  for (auto& id : ids) {
    auto it = instances_.find(id);
    if (it == instances_.end()) continue;
    if (it->second.done && !it->second.notified) {
      // Finished here, still waiting for its sends: its result stands (a success had every node's
      // contribution, whatever fails next). The ranks hear it now rather than when the sends end,
      // as the job releases its ops now; the peers still receiving them fail the job as well.
      Notify(it->second);
    } else {
      Finish(it->second, why);
    }
  }
}

void NodeGroup::Abort(uint64_t key, uint64_t seq, const Status& why) {
  Scope scope(this);
  aborts_.emplace_back(key, seq, why);
  if (ready()) SendAborts();
}

void NodeGroup::SendAborts() {
  if (detached_) return;
  auto aborts = std::move(aborts_);
  for (auto& [key, seq, why] : aborts) {
    if (Finished(key, seq)) continue;
    Collective& c = Get(key, seq);
    if (!c.done) {  // else another node failed it first, and told every node
      c.done = true;
      // Abort's callers fail what never started here; this stays exact anyway.
      if (c.started) SetRunning(c, false);
      c.result = why;
      SayFailed(c, why);
    }
    // This node's ranks already have their error; the instance only lives until its sends end.
    c.started = c.notified = true;
    MaybeErase(key, seq);
  }
}

void NodeGroup::SayFailed(Collective& c, const Status& why) {
  if (!ready() || c.told_code != Code::kOk) return;  // once is enough
  c.told_code = why.code();
  c.told_text = DescribeNode(topo_.me) + ": " + why.message();
  BufferSpan text = BufferSpan::Host(c.told_text.data(), c.told_text.size());
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n != topo_.me && !left_[static_cast<size_t>(n)])
      Send(c, n, {.type = PeerMsg::kAbort}, text);
  }
}

void NodeGroup::SayJobFailed(const Status& why, int lost_node) {
  failure_ = why.message();
  failure_skips_ = lost_node;
  if (peers_.empty() || detached_) return;
  PeerHeader h = Header(PeerMsg::kJobFailed, 0, 0);
  // Sent directly, on the express lane, so neither the credit window nor the chunks already on the
  // bulk lane hold it back. The group may be gone by the time a send finishes: the callback alone
  // keeps the text alive.
  auto text = std::make_shared<const std::string>(failure_);
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n == topo_.me || n == lost_node) continue;
    (void)transport_->Send(peers_[static_cast<size_t>(n)], ControlLane(), &h, sizeof(h),
                           text->data(), text->size(), [text](const Status&) {});
  }
}

void NodeGroup::SayJobLeft(int lost_node, const Status& failed, bool gave_up) {
  if (peers_.empty() || detached_) return;
  PeerHeader h = Header(PeerMsg::kJobLeft, 0, 0);
  h.lost_node = lost_node;
  h.step = gave_up ? 1 : 0;
  h.code = static_cast<int32_t>(failed.code());
  // The group may be gone by the time a send finishes: the callback alone keeps the text alive.
  auto text = std::make_shared<const std::string>(failed.ok() ? "" : failed.message());
  for (int n = 0; n < topo_.nodes; ++n) {
    if (n == topo_.me) continue;
    h.sent_before = sent_to_[static_cast<size_t>(n)];
    (void)transport_->Send(peers_[static_cast<size_t>(n)], ControlLane(), &h, sizeof(h),
                           text->empty() ? nullptr : text->data(), text->size(),
                           [text](const Status&) {});
  }
}

}  // namespace outrider::agent
