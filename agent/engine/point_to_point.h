// Point-to-point messages of one job (or communicator) on this node: the sends and receives of its
// local ranks, matched per (sender, receiver, tag) in the order each side posted them, as MPI and
// torch.distributed match them. No other rank takes part and nothing is agreed first: a send to a
// rank on another node goes to that node's agent at once, which lands it in the receive when one
// is posted and holds it until then. Such a send completes once it left if it is small
// (kEagerPointBytes), else once the receiver's agent says a receive took it (kPointTaken), so that
// a sender cannot run ahead of its receiver by more than its own sends in flight. A send to a rank
// on this node waits in the sender's buffer and is copied into the receive that takes it.
// A receive may name no sender (ipc::kAnySource): it takes the first message of its tag that
// reaches its rank, each sender's messages still in their order.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "agent/bootstrap/rank_layout.h"
#include "agent/engine/op.h"
#include "agent/memory/buffer_span.h"
#include "agent/net/peer_protocol.h"
#include "base/status.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class PointToPoint {
 public:
  // Sends one message (or chunk) to `node`: `h` has its point-to-point fields set (the sender
  // fills in who sends it); `done` runs once it left or failed, unless the sender is gone.
  using SendFn = std::function<void(int node, const PeerHeader& h, const BufferSpan& payload,
                                    int32_t priority, std::shared_ptr<const void> keep,
                                    std::function<void(const Status&)> done)>;
  // A local rank's op finished: `source` is a receive's sender, `seq` the message's number on its
  // (sender, receiver, tag), `elapsed_ns` the time from its submission.
  using CompleteFn = std::function<void(int local_rank, const ValidatedOp& op, const Status& st,
                                        uint64_t seq, int source, uint64_t elapsed_ns)>;

  // `chunk_bytes`: larger messages go in chunks of this through the send scheduler; smaller ones
  // at once. `max_held_bytes`: messages held for receives not yet posted, at most (beyond it the
  // job fails: a receiver that never posts must not exhaust the agent).
  PointToPoint(RankLayout ranks, int node, uint64_t chunk_bytes, SendFn send, CompleteFn complete,
               uint64_t max_held_bytes = uint64_t{4} << 30);

  // A validated kSend or kRecv of local rank `local_rank`.
  void Submit(int local_rank, const ValidatedOp& op);
  // The peers are known: sends to other nodes go (they wait until then).
  void SetReady();
  // A kPoint or kPointChunk from another node (`from_node`). A malformed one fails the job: the
  // returned status says why (OK otherwise).
  [[nodiscard]] Status OnMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  // Ranks [first, last) left the job in order, every message they sent here already: receives
  // from them that no message waits for fail with `why`, now and when posted later, and so do
  // sends to them.
  void RanksLeft(int first, int last, const Status& why);
  // Fails every op not finished (and forgets held messages), and every later one.
  void FailAll(const Status& why);
  // Ops not finished.
  size_t pending() const;
  // Posted receives, held messages and sends in flight, for /status.
  nlohmann::json StatusJson() const;

 private:
  using Channel = std::tuple<int, int, int32_t>;  // sender, receiver, tag
  struct Posted {
    int local_rank;
    ValidatedOp op;
    uint64_t since_ns;
  };
  // A message to a rank on this node, from its first byte here until its receive has all of it.
  struct Incoming {
    int src = 0, dst = 0;
    int32_t tag = 0;
    uint64_t seq = 0, total = 0, received = 0;
    bool arrived = false;        // matched or waiting in held_ (its channel's turn came)
    std::vector<uint8_t> bytes;  // while no receive took it
    std::optional<Posted> recv;  // the receive that took it
    Status failed;               // the receive refused it (sizes differ): bytes dropped
    // A send on this node: its bytes stay in its buffer, and it completes once a receive took them.
    std::optional<Posted> local_send;
  };
  using MessageId = std::tuple<int, int, int32_t, uint64_t>;  // channel, seq
  struct Outgoing {
    int local_rank;
    ValidatedOp op;
    uint64_t seq, since_ns;
    size_t pieces_left = 0;
    Status result;
    bool taken = false;  // the receiver's agent said a receive took it (or it is eager)
  };

  int LocalRank(int rank) const { return rank - ranks_.first_rank(node_); }
  bool Local(int rank) const { return ranks_.node_of(rank) == node_; }
  void Send(std::shared_ptr<Outgoing> out);
  // Finishes a send to another node once its pieces left and, unless eager, it was taken.
  void MaybeSent(const std::shared_ptr<Outgoing>& out);
  // A kPointTaken from the receiver's agent.
  [[nodiscard]] Status OnTaken(const PeerHeader& h);
  void SendLocal(int local_rank, const ValidatedOp& op);
  void PostRecv(int local_rank, const ValidatedOp& op);
  // The message's turn on its channel came: it goes to the first matching posted receive, or
  // waits in held_; then its channel's next message, if it is here already.
  void Arrive(MessageId id);
  // `recv` takes message `m`: its bytes so far are copied over (or it is refused, sizes differing).
  void Take(Incoming& m, Posted recv);
  // Finishes `m` if a receive took it and every byte is here.
  void MaybeDeliver(MessageId id);
  void Finish(int local_rank, const ValidatedOp& op, const Status& st, uint64_t seq, int source,
              uint64_t since_ns);
  // The point-to-point fields of a message of `type` on (src, dst, tag), number `seq`.
  static PeerHeader Header(PeerMsg type, int src, int dst, int32_t tag, uint64_t seq);
  static bool Matches(const ValidatedOp& recv, int src, int32_t tag) {
    return static_cast<int32_t>(recv.key) == tag &&
           (recv.root == ipc::kAnySource || recv.root == src);
  }

  RankLayout ranks_;
  int node_;
  uint64_t chunk_bytes_, max_held_bytes_;
  SendFn send_;
  CompleteFn complete_;
  bool ready_ = false;
  std::deque<std::shared_ptr<Outgoing>> waiting_;   // sends to other nodes, until SetReady
  std::vector<std::shared_ptr<Outgoing>> sending_;  // sends with pieces in flight
  std::map<Channel, uint64_t> next_send_;           // per channel: the next message's number
  std::map<Channel, uint64_t> next_in_;             // per channel: the next message to arrive
  std::map<MessageId, Incoming> incoming_;
  // By local rank: receives with no message yet, in post order; messages with no receive yet, in
  // the order their turn came.
  std::vector<std::deque<Posted>> posted_;
  std::vector<std::deque<MessageId>> held_;
  uint64_t held_bytes_ = 0;     // bytes of messages no receive took yet
  std::map<int, Status> gone_;  // ranks that left in order, and how
  Status failed_;               // FailAll's reason: nothing more is matched
};

}  // namespace outrider::agent
