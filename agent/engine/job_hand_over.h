// A job's part in replacing one node's agent under it (docs/operations.md, "Upgrading the
// agent"). Every node of the job says where it stands: per key, the first sequence number it has
// not started. The stop point is the highest of them, so that every instance some node started
// finishes on every node, and nothing past it starts until the leaving node's next agent is back
// with the same ranks, in the same generation. A state machine with no transport: the Job sends
// what it says, and runs, holds or gives back what it decides.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace outrider::agent {

// Thread-safety: loop thread only.
class JobHandOver {
 public:
  using SeqMap = std::map<uint64_t, uint64_t>;  // key -> sequence number
  // PeerHeader::key of a PeerMsg::kHandOver; PeerHeader::lost_node names the leaving node.
  enum class Step : uint64_t {
    kMark = 0,      // the sender's next unstarted sequence numbers (the payload, EncodeSeqMap)
    kLeft = 1,      // the leaving node finished its part: its next agent follows
    kBack = 2,      // the next agent took over the leaving node's ranks
    kWelcome = 3,   // the sender talks to the next agent now (to the leaving node only)
    kLeftSeen = 4,  // the sender took the leaving node's kLeft: that agent may exit
  };

  // Node `me` of `nodes` hears that node `leaving` hands over (it may be `me`), at `now_ns`.
  JobHandOver(int nodes, int me, int leaving, uint64_t now_ns = 0);
  // The leaving node waits this long for the other nodes' marks: a node that does not answer
  // at once (stopped, or lost and not yet noticed) ends the hand-over, and the job fails as
  // without one instead of holding the agent's exit.
  static constexpr uint64_t kAgreeWithinNs = 500'000'000;
  bool agreement_late(uint64_t now_ns) const {
    return !stop_ && now_ns - began_ns_ >= kAgreeWithinNs;
  }
  // The next agent of node `me`, resuming the job where its previous agent stopped (`stop`): it
  // waits for every other node's welcome before it starts anything.
  static JobHandOver Resuming(int nodes, int me, SeqMap stop);

  int leaving() const { return leaving_; }
  bool leaving_here() const { return leaving_ == me_ && !resuming_; }
  bool resuming() const { return resuming_; }
  // Node `node` said where it stands. True once every node's mark is in: the stop point is known.
  bool Mark(int node, const SeqMap& next);
  bool marked(int node) const { return marks_[static_cast<size_t>(node)].has_value(); }
  bool stop_known() const { return stop_.has_value(); }
  // Per key, the first instance that does not start before the next agent (known only).
  const SeqMap& stop() const { return *stop_; }
  // Instance (key, seq) is at or past the stop point (false while the stop point is not known).
  bool PastStop(uint64_t key, uint64_t seq) const;
  // Instance (key, seq), every local rank in, may start now. The leaving node and the others
  // start what is below the stop point once it is known; the next agent starts everything once
  // every node welcomed it.
  bool MayStart(uint64_t key, uint64_t seq) const;

  // The other nodes: the leaving node finished its part; its next agent must be back by
  // `deadline_ns`.
  void Left(uint64_t deadline_ns) { away_until_ns_ = deadline_ns; }
  bool away() const { return away_until_ns_ != 0; }
  uint64_t away_until_ns() const { return away_until_ns_; }
  // The leaving node: node `node` took its kLeft. True once every other node has.
  bool LeftSeen(int node);
  bool left_seen() const { return left_seen_missing_ == 0; }
  // The next agent: node `node` talks to it now. True once every other node has.
  bool Welcome(int node);
  bool welcomed() const { return welcomes_missing_ == 0; }
  void set_deadline_ns(uint64_t deadline_ns) { away_until_ns_ = deadline_ns; }

 private:
  int nodes_, me_, leaving_;
  uint64_t began_ns_;
  bool resuming_ = false;
  std::vector<std::optional<SeqMap>> marks_;  // by node
  std::optional<SeqMap> stop_;
  uint64_t away_until_ns_ = 0;
  std::vector<bool> welcomed_;  // by node (the next agent; the leaving node: kLeftSeen)
  int welcomes_missing_ = 0;
  int left_seen_missing_ = 0;
};

// A key -> sequence map on the wire: count (u64), then (key, seq) pairs (u64 each), host order as
// every other peer message. Decode refuses a payload of any other length.
std::string EncodeSeqMap(const JobHandOver::SeqMap& m);
std::optional<JobHandOver::SeqMap> DecodeSeqMap(const uint8_t* data, size_t len);

}  // namespace outrider::agent
