// Point-to-point messages through the agents (outrider_send / outrider_recv): order per sender,
// receiver and tag, tags as separate streams, receives from any source, sizes that disagree, and
// a peer agent that dies while messages stream to its node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <functional>
#include <vector>

#include "tests/support/multinode_fixture.h"
#include "tests/support/rank_runner.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

// Message `i` from `src` to `dst` with `tag`: its size (small ones go at once, large ones in
// scheduled chunks, so they travel on different lanes) and its bytes.
size_t MessageBytes(int i) { return i % 2 == 0 ? (3u << 20) + 8 : 16 + 4 * static_cast<size_t>(i); }
uint8_t MessageByte(int src, int dst, int tag, int i, size_t k) {
  return static_cast<uint8_t>(src * 131 + dst * 31 + tag * 7 + i * 3 + k * 5);
}

// 2 nodes x 2 ranks: every rank sends every other rank four messages of each of two tags, large
// and small alternating; each receiver posts tag 1's receives before tag 0's, some before the
// sends arrive and some after. Every message lands in the receive of its place, whole.
TEST_F(MultiNodeTest, SendsAndReceivesMatchInOrderPerSenderReceiverAndTag) {
  StartAgents(2);
  const int world = 4, messages = 4;
  RunJob("p2p-order", 2, 2, "tok", [&](outrider_client_t* c, int r) {
    std::vector<outrider_op_t> ops;
    std::vector<std::pair<uint8_t*, std::tuple<int, int, int>>> recvs;  // buffer, (src, tag, i)
    for (int tag : {1, 0}) {
      for (int src = 0; src < world; ++src) {
        if (src == r) continue;
        for (int i = 0; i < messages; ++i) {
          auto* buf = static_cast<uint8_t*>(outrider_alloc(c, MessageBytes(i)));
          outrider_op_t h;
          int rc = outrider_recv(c, buf, MessageBytes(i), OUTRIDER_U8, src, tag, nullptr, &h);
          if (rc != OUTRIDER_OK) return rc;
          ops.push_back(h);
          recvs.push_back({buf, {src, tag, i}});
        }
      }
    }
    for (int tag : {0, 1}) {
      for (int i = 0; i < messages; ++i) {
        for (int dst = 0; dst < world; ++dst) {
          if (dst == r) continue;
          auto* buf = static_cast<uint8_t*>(outrider_alloc(c, MessageBytes(i)));
          for (size_t k = 0; k < MessageBytes(i); ++k) buf[k] = MessageByte(r, dst, tag, i, k);
          outrider_op_t h;
          int rc = outrider_send(c, buf, MessageBytes(i), OUTRIDER_U8, dst, tag, nullptr, &h);
          if (rc != OUTRIDER_OK) return rc;
          ops.push_back(h);
        }
      }
    }
    for (outrider_op_t h : ops) {
      if (int rc = outrider_wait(c, h, 30000); rc != OUTRIDER_OK) return rc;
    }
    for (auto& [buf, at] : recvs) {
      auto [src, tag, i] = at;
      for (size_t k = 0; k < MessageBytes(i); ++k) {
        if (buf[k] != MessageByte(src, r, tag, i, k)) return 100 + i;
      }
    }
    return 0;
  });
}

// Three senders on two nodes, one receiver taking six messages from any source: each sender's
// two messages come in their order, every result names its sender, and the senders may leave
// before the receiver took their messages.
TEST_F(MultiNodeTest, ReceiveFromAnySourceTakesEachSendersMessagesInOrderAndNamesTheSender) {
  StartAgents(2);
  RunJob("p2p-any", 2, 2, "tok", [&](outrider_client_t* c, int r) {
    auto* buf = static_cast<int32_t*>(outrider_alloc(c, 8 * sizeof(int32_t)));
    if (r != 0) {
      // The senders leave once their sends are done: what they sent is still received.
      for (int i = 0; i < 2; ++i) {
        buf[i] = r * 10 + i;
        outrider_op_t h;
        int rc = Wait(c, outrider_send(c, &buf[i], 1, OUTRIDER_I32, 0, 9, nullptr, &h), &h);
        if (rc != OUTRIDER_OK) return rc;
      }
      return 0;
    }
    int next[4] = {0, 0, 0, 0};
    for (int m = 0; m < 6; ++m) {
      outrider_op_t h;
      int rc = outrider_recv(c, &buf[m], 1, OUTRIDER_I32, OUTRIDER_ANY_SOURCE, 9, nullptr, &h);
      outrider_op_result_t res;
      std::memset(&res, 0, sizeof(res));
      res.size = sizeof(res);
      if (rc == OUTRIDER_OK) rc = outrider_wait_result(c, h, 30000, &res);
      if (rc != OUTRIDER_OK) return rc;
      if (res.source < 1 || res.source > 3) return 50;                  // not a sender
      if (buf[m] != res.source * 10 + next[res.source]) return 60 + m;  // out of its order
      ++next[res.source];
    }
    // Rank 1 leaves once its sends are done: a receive of one more message from it fails naming
    // it (at once, or when its departure reaches this node).
    outrider_op_t h;
    int rc = Wait(c, outrider_recv(c, buf, 1, OUTRIDER_I32, 1, 9, nullptr, &h), &h);
    if (rc != OUTRIDER_ERR_PEER_LOST) return 70;
    return std::string(outrider_last_error(c)).find("rank 1") != std::string::npos ? 0 : 71;
  });
}

// The receiver names another size than the sender sent: its receive fails naming both; the
// stream goes on with the next message.
TEST_F(MultiNodeTest, ReceiveOfAnotherSizeFailsNamingBothAndTheNextMessageStillArrives) {
  StartAgents(2);
  RunJob("p2p-size", 2, 1, "tok", [&](outrider_client_t* c, int r) {
    auto* buf = static_cast<float*>(outrider_alloc(c, 64 * sizeof(float)));
    outrider_op_t h;
    if (r == 0) {
      for (int i = 0; i < 64; ++i) buf[i] = static_cast<float>(i);
      int rc = Wait(c, outrider_send(c, buf, 64, OUTRIDER_F32, 1, 0, nullptr, &h), &h);
      if (rc == OUTRIDER_OK)
        rc = Wait(c, outrider_send(c, buf, 2, OUTRIDER_F32, 1, 0, nullptr, &h), &h);
      return rc;
    }
    int rc = Wait(c, outrider_recv(c, buf, 32, OUTRIDER_F32, 0, 0, nullptr, &h), &h);
    if (rc != OUTRIDER_ERR_INVALID_ARGUMENT) return 200;
    std::string why = outrider_last_error(c);
    if (why.find("recv of 128 bytes") == std::string::npos ||
        why.find("of 256 bytes") == std::string::npos) {
      return 201;
    }
    rc = Wait(c, outrider_recv(c, buf, 2, OUTRIDER_F32, 0, 0, nullptr, &h), &h);
    return rc == OUTRIDER_OK && buf[1] == 1.0f ? 0 : 202;
  });
}

// A send to this rank itself, or to a rank outside the job, is refused naming it.
TEST_F(MultiNodeTest, SendToItselfOrOutsideTheJobIsRefused) {
  StartAgents(2);
  RunJob("p2p-bad", 2, 1, "tok", [&](outrider_client_t* c, int r) {
    auto* buf = static_cast<float*>(outrider_alloc(c, 4));
    outrider_op_t h;
    if (outrider_send(c, buf, 1, OUTRIDER_F32, r, 0, nullptr, &h) != OUTRIDER_ERR_INVALID_ARGUMENT)
      return 1;
    if (std::string(outrider_last_error(c)).find("this rank itself") == std::string::npos) return 2;
    if (outrider_recv(c, buf, 1, OUTRIDER_F32, 5, 0, nullptr, &h) != OUTRIDER_ERR_INVALID_ARGUMENT)
      return 3;
    return 0;
  });
}

// Rank 0 streams `bytes`-large messages to rank 1 on the other node until `kill` (called once rank
// 1 has taken three) ends it: rank 1's receive then fails with PEER_LOST naming rank 0 instead of
// waiting for the rest.
class PointToPointStreamTest : public MultiNodeTest {
 protected:
  void StreamUntil(const char* job, size_t bytes, const std::function<void(Ranks&)>& kill) {
    StartAgents(2);
    Pipe started;
    SharedValue<Results> res;
    Ranks ranks(2, [&](int r) {
      outrider_client_t* c = ConnectOnePerNode(job, "tok", r, 2);
      auto* x = static_cast<uint8_t*>(outrider_alloc(c, bytes));
      int rc = 0;
      for (int step = 0; rc == 0 && step < 100000; ++step) {
        outrider_op_t h;
        rc = r == 0 ? outrider_send(c, x, bytes, OUTRIDER_U8, 1, 3, nullptr, &h)
                    : outrider_recv(c, x, bytes, OUTRIDER_U8, 0, 3, nullptr, &h);
        if (rc == 0) rc = outrider_wait(c, h, 10000);  // the peer deadline is 3 s: ends sooner
        if (step == 2 && r == 1) started.Send('s');
      }
      res->rc[r] = rc;
      CopyText(res->error[r], 256, outrider_last_error(c));
      outrider_disconnect(c);
      return 0;
    });
    char ch;
    ASSERT_TRUE(started.Receive(&ch, 60000));
    kill(ranks);
    EXPECT_EQ(ranks.Reap(1), 0);
    EXPECT_EQ(res->rc[1], OUTRIDER_ERR_PEER_LOST) << res->error[1];
    EXPECT_THAT(res->error[1], HasSubstr("rank 0"));
    ranks.Reap(0);
  }
};

// The sending node's agent is killed mid-stream (its chunks half sent).
TEST_F(PointToPointStreamTest, PeerAgentKilledMidStreamFailsTheReceiverWithPeerLost) {
  StreamUntil("p2p-killed", 8u << 20, [&](Ranks&) { agents_[0]->Stop(SIGKILL); });
}

// The sending trainer is killed mid-stream: the receiver's node hears it from the sender's agent at
// once.
TEST_F(PointToPointStreamTest, SenderKilledMidStreamFailsTheReceiverNamingIt) {
  StreamUntil("p2p-sender", 4u << 20, [](Ranks& ranks) { ranks.Kill(0); });
}

}  // namespace
}  // namespace outrider::testing
