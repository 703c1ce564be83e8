// What a node group does when nodes leave, disagree or fail: fails the instances they can no
// longer complete, and tells the other nodes.
#include <memory>

#include "agent/engine/node_group.h"

namespace outrider::agent {

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
  if (peers_.empty()) return;
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
  if (peers_.empty()) return;
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
