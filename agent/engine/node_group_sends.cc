// A node group's sends: peer headers, chunks through the send scheduler (demanded rows in its
// urgent class), and what a finished or failed send means for its instance.
#include <algorithm>
#include <climits>

#include "agent/engine/dataplane/host_memory.h"
#include "agent/engine/node_group.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "base/check.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
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

void NodeGroup::SendToOthers(PeerMsg type, uint64_t key, uint64_t seq, std::string payload) {
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

}  // namespace outrider::agent
