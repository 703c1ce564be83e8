// Instances across nodes: creation, agreement, messages and completion (their sends:
// node_group_sends.cc).
#include "agent/engine/node_group.h"

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
      left_gave_up_(static_cast<size_t>(topo_.nodes), false) {}

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
  HandleMessage(h, data, len);
  if (left_after_[from] >= 0 && received_from_[from] >= static_cast<uint64_t>(left_after_[from]) &&
      !left_[from]) {
    ApplyLeft(h.from_node);
  }
}

void NodeGroup::HandleMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
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
  AgentMetrics& m = Metrics();
  if (m.enabled() && (c.wire_sent != 0 || c.wire_recv != 0)) {
    if (bytes_sent_ == nullptr) {
      std::string job = m.JobLabel(topo_.metrics_job());
      bytes_sent_ = m.BytesCounter(job, "sent");
      bytes_recv_ = m.BytesCounter(job, "received");
    }
    bytes_sent_->Inc(static_cast<double>(c.wire_sent));
    bytes_recv_->Inc(static_cast<double>(c.wire_recv));
  }
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

}  // namespace outrider::agent
