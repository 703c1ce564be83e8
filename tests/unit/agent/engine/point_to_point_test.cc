// PointToPoint alone: two nodes' instances wired by a fake link that delivers what the test says
// when it says, so chunks can come out of order, twice, or malformed.
#include "agent/engine/point_to_point.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

namespace outrider::agent {
namespace {

using ::testing::HasSubstr;

struct Done {
  int local_rank;
  uint64_t op_id;
  Status status;
  int source;
};

struct Sent {
  PeerHeader h;
  std::vector<uint8_t> bytes;
  int32_t priority;
};

// One node of a 2-node job with one rank per node; what it sends is kept, not delivered.
class Node {
 public:
  Node(int node, uint64_t chunk, uint64_t max_held = uint64_t{1} << 30)
      : p2p_(
            RankLayout::Even(2, 1), node, chunk,
            [this, node](int to, const PeerHeader& h, const BufferSpan& payload, int32_t priority,
                         std::shared_ptr<const void>, std::function<void(const Status&)> done) {
              PeerHeader full = h;
              full.from_node = node;
              const auto* b = reinterpret_cast<const uint8_t*>(payload.address);
              sent.push_back({full, std::vector<uint8_t>(b, b + payload.length), priority});
              done(Status::Ok());
            },
            [this](int local_rank, const ValidatedOp& op, const Status& st, uint64_t, int source,
                   uint64_t) {
              done.push_back({local_rank, op.op_id, st, source});
            },
            max_held) {
    p2p_.SetReady();
  }
  PointToPoint& p2p() { return p2p_; }
  std::vector<Sent> sent;
  std::vector<Done> done;

 private:
  PointToPoint p2p_;
};

ValidatedOp Op(ipc::OpKind kind, uint64_t id, int peer, int32_t tag, std::vector<uint8_t>& buf) {
  ValidatedOp op;
  op.op_id = id;
  op.kind = kind;
  op.root = peer;
  op.key = static_cast<uint32_t>(tag);
  op.dtype = ipc::DType::kU8;
  op.count = buf.size();
  BufferSpan span = BufferSpan::Host(buf.data(), buf.size());
  (kind == ipc::OpKind::kSend ? op.send : op.recv) = span;
  return op;
}

TEST(PointToPointTest, ChunksOutOfOrderAndMessagesOutOfTurnLandInPostOrder) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> big(10000), small(8), got_big(10000), got_small(8);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  small = {1, 2, 3, 4, 5, 6, 7, 8};
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, big));
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 2, 1, 0, small));
  ASSERT_EQ(a.sent.size(), 4u);  // three chunks, then one whole message
  EXPECT_EQ(a.done.size(), 2u);  // both sent: a send does not wait for its receive
  // The small message first, then the chunks backwards; the receives come in between.
  ASSERT_TRUE(b.p2p().OnMessage(a.sent[3].h, a.sent[3].bytes.data(), a.sent[3].bytes.size()).ok());
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got_big));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 11, 0, 0, got_small));
  EXPECT_TRUE(b.done.empty());  // the small one is second in its stream: it waits for the first
  for (int i = 2; i >= 0; --i) {
    const Sent& s = a.sent[static_cast<size_t>(i)];
    ASSERT_TRUE(b.p2p().OnMessage(s.h, s.bytes.data(), s.bytes.size()).ok());
  }
  ASSERT_EQ(b.done.size(), 2u);  // the small one may finish first: it is whole at once
  for (const Done& d : b.done) EXPECT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(got_big, big);
  EXPECT_EQ(got_small, small);
  EXPECT_EQ(b.done[0].source, 0);
}

TEST(PointToPointTest, ALargeSendCompletesOnlyOnceAReceiveTookIt) {
  Node a(0, 1 << 20), b(1, 1 << 20);
  std::vector<uint8_t> big((256 << 10) + 3, 5), got(big.size()), small(8, 1), got_small(8);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, big));
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 2, 1, 1, small));
  ASSERT_EQ(a.sent.size(), 2u);
  ASSERT_EQ(a.done.size(), 1u);  // the small one (eager) is done once sent; the large one waits
  EXPECT_EQ(a.done[0].op_id, 2u);
  for (const Sent& s : a.sent)
    ASSERT_TRUE(b.p2p().OnMessage(s.h, s.bytes.data(), s.bytes.size()).ok());
  EXPECT_TRUE(b.sent.empty());  // held: no receive took it yet
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got));
  ASSERT_EQ(b.sent.size(), 1u);  // the receipt
  EXPECT_EQ(b.sent[0].h.type, static_cast<uint16_t>(PeerMsg::kPointTaken));
  ASSERT_TRUE(a.p2p().OnMessage(b.sent[0].h, nullptr, 0).ok());
  ASSERT_EQ(a.done.size(), 2u);
  EXPECT_EQ(a.done[1].op_id, 1u);
  EXPECT_TRUE(a.done[1].status.ok());
  EXPECT_EQ(got, big);
  // A receipt for nothing this node sends is a protocol error.
  EXPECT_EQ(a.p2p().OnMessage(b.sent[0].h, nullptr, 0).code(), Code::kProtocol);
}

TEST(PointToPointTest, TagsAreSeparateStreams) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> t1{1}, t2{2}, r1(1), r2(1);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 1, t1));
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 2, 1, 2, t2));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 2, r2));  // tag 2 first
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 11, 0, 1, r1));
  for (const Sent& s : a.sent)
    ASSERT_TRUE(b.p2p().OnMessage(s.h, s.bytes.data(), s.bytes.size()).ok());
  EXPECT_EQ(r1[0], 1);
  EXPECT_EQ(r2[0], 2);
}

TEST(PointToPointTest, MessagesWithoutAReceiveWaitUntilOneIsPosted) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> msg{9, 8, 7}, got(3);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, msg));
  ASSERT_TRUE(b.p2p().OnMessage(a.sent[0].h, a.sent[0].bytes.data(), 3).ok());
  EXPECT_EQ(b.p2p().StatusJson()["messages_held"], 1);
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, ipc::kAnySource, 0, got));
  ASSERT_EQ(b.done.size(), 1u);
  EXPECT_TRUE(b.done[0].status.ok());
  EXPECT_EQ(b.done[0].source, 0);
  EXPECT_EQ(got, msg);
  EXPECT_EQ(b.p2p().StatusJson()["held_bytes"], 0);
}

TEST(PointToPointTest, LargeMessagesGoPacedAheadOfCollectivesUnlessTheOpSaysOtherwise) {
  Node a(0, 4096);
  std::vector<uint8_t> big(5000);
  ValidatedOp op = Op(ipc::OpKind::kSend, 1, 1, 0, big);
  op.priority = 7;
  a.p2p().Submit(0, op);
  ASSERT_EQ(a.sent.size(), 2u);
  EXPECT_EQ(a.sent[0].h.type, static_cast<uint16_t>(PeerMsg::kPointChunk));
  EXPECT_EQ(a.sent[0].priority, 7);  // the job maps 0 to kPointToPointPriority
}

TEST(PointToPointTest, MalformedRepeatedOrOversizedMessagesAreRefused) {
  Node a(0, 4096), b(1, 4096, /*max_held=*/6000);
  std::vector<uint8_t> msg(3000);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, msg));
  PeerHeader h = a.sent[0].h;
  PeerHeader bad = h;
  bad.step = 0;  // to a rank on the sender's node, not this one
  EXPECT_EQ(b.p2p().OnMessage(bad, msg.data(), msg.size()).code(), Code::kProtocol);
  bad = h;
  bad.fp.root = 1;  // from a rank that is not on the sending node
  EXPECT_EQ(b.p2p().OnMessage(bad, msg.data(), msg.size()).code(), Code::kProtocol);
  bad = h;
  bad.offset = 1;  // a whole message that is not whole
  EXPECT_EQ(b.p2p().OnMessage(bad, msg.data(), msg.size()).code(), Code::kProtocol);
  bad = h;
  bad.type = static_cast<uint16_t>(PeerMsg::kPointChunk);
  bad.offset = 2000;  // past its end
  EXPECT_EQ(b.p2p().OnMessage(bad, msg.data(), msg.size()).code(), Code::kProtocol);
  ASSERT_TRUE(b.p2p().OnMessage(h, msg.data(), msg.size()).ok());
  std::vector<uint8_t> got(3000);
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got));
  EXPECT_EQ(b.p2p().OnMessage(h, msg.data(), msg.size()).code(), Code::kProtocol);  // again
  // Held past the bound: two messages of 3000 fit in 6000, a third does not.
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    PeerHeader next = h;
    next.seq = seq;
    Status st = b.p2p().OnMessage(next, msg.data(), msg.size());
    if (seq < 3) {
      EXPECT_TRUE(st.ok()) << st.ToString();
    } else {
      EXPECT_EQ(st.code(), Code::kResourceExhausted);
      EXPECT_THAT(st.message(), HasSubstr("wait for receives"));
    }
  }
}

TEST(PointToPointTest, ReceiveOfAnotherSizeFailsAndTheStreamGoesOn) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> four{1, 2, 3, 4}, two{5, 6}, got3(3), got2(2);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, four));
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 2, 1, 0, two));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got3));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 11, 0, 0, got2));
  for (const Sent& s : a.sent)
    ASSERT_TRUE(b.p2p().OnMessage(s.h, s.bytes.data(), s.bytes.size()).ok());
  ASSERT_EQ(b.done.size(), 2u);
  EXPECT_EQ(b.done[0].status.code(), Code::kInvalidArgument);
  EXPECT_THAT(b.done[0].status.message(), HasSubstr("recv of 3 bytes got a message from rank 0"));
  EXPECT_TRUE(b.done[1].status.ok());
  EXPECT_EQ(got2, two);
}

TEST(PointToPointTest, RanksThatLeftFailReceivesNoMessageWaitsFor) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> one{1}, got(1), more(1);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, one));
  ASSERT_TRUE(b.p2p().OnMessage(a.sent[0].h, a.sent[0].bytes.data(), 1).ok());
  b.p2p().RanksLeft(0, 1, PeerLost("rank 0 left"));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got));   // its message is here
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 11, 0, 0, more));  // no more will come
  b.p2p().Submit(0, Op(ipc::OpKind::kSend, 12, 0, 0, one));   // nobody to take it
  ASSERT_EQ(b.done.size(), 3u);
  EXPECT_TRUE(b.done[0].status.ok());
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(b.done[1].status.code(), Code::kPeerLost);
  EXPECT_EQ(b.done[2].status.code(), Code::kPeerLost);
}

TEST(PointToPointTest, FailAllFailsEveryOpNotFinished) {
  Node a(0, 4096), b(1, 4096);
  std::vector<uint8_t> big(10000, 0xab), got(10000), other(1);
  a.p2p().Submit(0, Op(ipc::OpKind::kSend, 1, 1, 0, big));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 10, 0, 0, got));
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 11, 0, 5, other));
  ASSERT_TRUE(b.p2p().OnMessage(a.sent[0].h, a.sent[0].bytes.data(), a.sent[0].bytes.size()).ok());
  b.p2p().FailAll(PeerLost("node 0 is lost"));  // mid-transfer: one chunk of three is in
  ASSERT_EQ(b.done.size(), 2u);
  for (const Done& d : b.done) EXPECT_EQ(d.status.code(), Code::kPeerLost);
  EXPECT_EQ(b.p2p().pending(), 0u);
  // The rest of the message is dropped, not written into memory the receive no longer owns, and
  // later ops fail at once.
  const Sent& s = a.sent[1];
  std::fill(got.begin(), got.end(), 0);
  EXPECT_TRUE(b.p2p().OnMessage(s.h, s.bytes.data(), s.bytes.size()).ok());
  EXPECT_EQ(std::count(got.begin(), got.end(), 0), 10000);
  b.p2p().Submit(0, Op(ipc::OpKind::kRecv, 12, 0, 0, other));
  ASSERT_EQ(b.done.size(), 3u);
  EXPECT_EQ(b.done[2].status.code(), Code::kPeerLost);
}

}  // namespace
}  // namespace outrider::agent
