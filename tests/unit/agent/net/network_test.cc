// Network on its own: two agents' networks joined by a FakeNetwork, each handing up to a fake
// PeerEvents, on a fake clock (the now_ns given to Tick and returned by the injected clock).
// Heartbeats, liveness deadlines, transport errors, header checks and credits.
#include "agent/net/network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/transport/fake/fake_transport.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kHeartbeatMs = 1000;
constexpr uint32_t kPeerTimeoutMs = 10000;
constexpr uint64_t kJob = 0x10b;

// Stands in for the agent's jobs: serves the job hashes in `jobs` and records what it is handed.
class FakeEvents : public PeerEvents {
 public:
  struct Got {
    PeerHeader h;
    std::vector<uint8_t> data;
    const uint8_t* where;  // the payload pointer handed over
  };
  RecvTarget RecvBuffer(const PeerHeader& h, size_t len) override {
    if (jobs.count(h.job_hash) == 0 || !offer_buffer) return {};
    buffer.assign(len, 0);
    return {buffer.data(), nullptr};
  }
  bool OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) override {
    ++offered;
    if (jobs.count(h.job_hash) == 0) return false;
    got.push_back({h, std::vector<uint8_t>(data, data + len), data});
    return true;
  }
  void OnPeerLost(PeerId peer, const Status& why) override { lost.emplace_back(peer, why); }

  std::set<uint64_t> jobs;
  bool offer_buffer = false;
  std::vector<uint8_t> buffer;
  int offered = 0;
  std::vector<Got> got;
  std::vector<std::pair<PeerId, Status>> lost;
};

PeerHeader Header(PeerMsg type, uint64_t sender, uint64_t job) {
  PeerHeader h{};
  h.magic = kPeerMagic;
  h.version = kPeerVersion;
  h.type = static_cast<uint16_t>(type);
  h.sender = sender;
  h.job_hash = job;
  return h;
}

PeerHeader Decode(const std::vector<uint8_t>& bytes) {
  PeerHeader h{};
  EXPECT_EQ(bytes.size(), sizeof(h));
  std::memcpy(&h, bytes.data(), std::min(bytes.size(), sizeof(h)));
  return h;
}

class NetworkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loop = EventLoop::Create(0);
    ASSERT_TRUE(loop.ok()) << loop.status().ToString();
    loop_ = std::move(loop).value();
    // Any free loopback port for the rendezvous server: nothing here connects to it.
    options_.listen_address = "127.0.0.1";
    options_.port = 0;
    options_.heartbeat_ms = kHeartbeatMs;
    options_.peer_timeout_ms = kPeerTimeoutMs;
    a_ = Make(&events_a_);  // fake:0
    b_ = Make(&events_b_);  // fake:1
    ASSERT_TRUE(a_ != nullptr && b_ != nullptr);
  }

  std::unique_ptr<Network> Make(FakeEvents* events) {
    auto net =
        Network::Create(loop_.get(), events, options_, fake_.Factory(), [this] { return now_; });
    EXPECT_TRUE(net.ok()) << net.status().ToString();
    return net.ok() ? std::move(net).value() : nullptr;
  }

  // Each network takes the other into use, as the two nodes of one job do.
  void ConnectBoth() {
    NodeTable table = {a_->transport()->address(), b_->transport()->address()};
    auto pa = a_->ConnectNodes(table, 0);
    auto pb = b_->ConnectNodes(table, 1);
    ASSERT_TRUE(pa.ok() && pb.ok());
    to_b_ = pa.value()[1];
    to_a_ = pb.value()[0];
  }

  // Both networks tick at `t`, then everything in flight is delivered.
  void TickBoth(uint64_t t) {
    now_ = t;
    a_->Tick(t);
    b_->Tick(t);
    fake_.RunUntilIdle();
  }

  // b sends raw header bytes and a payload to a.
  void SendToA(const void* header, size_t header_len, const std::vector<uint8_t>& payload = {}) {
    ASSERT_TRUE(
        b_->transport()
            ->Send(to_a_, Lane::kBulk, header, header_len, payload.data(), payload.size(), nullptr)
            .ok());
  }

  uint64_t now_ = 1000 * kMs;
  FakeNetwork fake_;  // outlives the networks and their endpoints
  std::unique_ptr<EventLoop> loop_;
  NetworkOptions options_;
  FakeEvents events_a_, events_b_;
  std::unique_ptr<Network> a_, b_;
  PeerId to_b_ = 0, to_a_ = 0;
};

TEST_F(NetworkTest, SendsHeartbeatsToPeersInUse) {
  ConnectBoth();
  a_->Tick(now_);
  std::vector<FakeNetwork::Envelope> sent = fake_.InFlight();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].from, 0);
  EXPECT_EQ(sent[0].to, 1);
  EXPECT_EQ(sent[0].payload_len, 0u);
  EXPECT_EQ(sent[0].lane, Lane::kExpress);
  PeerHeader h = Decode(sent[0].header);
  EXPECT_EQ(h.type, static_cast<uint16_t>(PeerMsg::kHeartbeat));
  EXPECT_EQ(h.sender, a_->self_hash());
}

TEST_F(NetworkTest, NoHeartbeatBeforeTheIntervalPassed) {
  ConnectBoth();
  a_->Tick(now_);
  fake_.RunUntilIdle();
  a_->Tick(now_ + kHeartbeatMs * kMs - 1);
  EXPECT_EQ(fake_.queued(), 0u);
  a_->Tick(now_ + kHeartbeatMs * kMs);
  EXPECT_EQ(fake_.queued(), 1u);
}

TEST_F(NetworkTest, NoHeartbeatsAfterRelease) {
  std::vector<PeerId> peers =
      a_->ConnectNodes({a_->transport()->address(), b_->transport()->address()}, 0).value();
  a_->Release(peers, 0);
  a_->Tick(now_);
  EXPECT_EQ(fake_.queued(), 0u);
}

TEST_F(NetworkTest, ReleasedPeerIsNotWatched) {
  std::vector<PeerId> peers =
      a_->ConnectNodes({a_->transport()->address(), b_->transport()->address()}, 0).value();
  a_->Release(peers, 0);
  a_->Tick(now_ + 3 * kPeerTimeoutMs * kMs);
  EXPECT_TRUE(events_a_.lost.empty());
  EXPECT_EQ(a_->peers_lost(), 0u);
}

TEST_F(NetworkTest, HeartbeatKeepsPeerAlive) {
  ConnectBoth();
  uint64_t start = now_;
  for (uint64_t t = start; t <= start + 3 * kPeerTimeoutMs * kMs; t += kHeartbeatMs * kMs)
    TickBoth(t);
  EXPECT_TRUE(events_a_.lost.empty());
  EXPECT_TRUE(events_b_.lost.empty());
  EXPECT_EQ(a_->peers_up(), 1u);
}

TEST_F(NetworkTest, PeerSilentPastDeadlineIsLost) {
  ConnectBoth();
  fake_.Silence(1);  // b hangs: nothing it sends arrives
  uint64_t start = now_;
  for (uint64_t t = start; t <= start + kPeerTimeoutMs * kMs; t += kHeartbeatMs * kMs) {
    TickBoth(t);
    ASSERT_TRUE(events_a_.lost.empty())
        << "lost before the deadline, at +" << (t - start) / kMs << " ms";
  }
  TickBoth(start + (kPeerTimeoutMs + kHeartbeatMs) * kMs);
  ASSERT_EQ(events_a_.lost.size(), 1u);
  EXPECT_EQ(events_a_.lost[0].first, to_b_);
  EXPECT_EQ(events_a_.lost[0].second.code(), Code::kPeerLost);
  EXPECT_NE(events_a_.lost[0].second.message().find(std::to_string(kPeerTimeoutMs) + " ms"),
            std::string::npos)
      << events_a_.lost[0].second.message();
  EXPECT_EQ(a_->peers_lost(), 1u);
  EXPECT_EQ(a_->peers_up(), 0u);
}

TEST_F(NetworkTest, NoHeartbeatsToALostPeer) {
  ConnectBoth();
  fake_.Break(0, 1);
  fake_.RunUntilIdle();
  a_->Tick(now_);
  EXPECT_EQ(fake_.queued(), 0u);
}

TEST_F(NetworkTest, TransportErrorLosesPeerAtOnce) {
  ConnectBoth();
  fake_.Break(0, 1);
  fake_.RunUntilIdle();  // no Tick: no deadline is involved
  ASSERT_EQ(events_a_.lost.size(), 1u);
  EXPECT_EQ(events_a_.lost[0].first, to_b_);
  EXPECT_EQ(events_a_.lost[0].second.code(), Code::kPeerLost);
  ASSERT_EQ(events_b_.lost.size(), 1u);
  EXPECT_EQ(events_b_.lost[0].first, to_a_);
  EXPECT_EQ(a_->peers_lost(), 1u);
}

TEST_F(NetworkTest, MessageIsHandedUpWithItsHeaderAndPayload) {
  ConnectBoth();
  events_a_.jobs = {kJob, kJob + 1};
  PeerHeader h = Header(PeerMsg::kContrib, b_->self_hash(), kJob + 1);
  h.key = 7;
  h.seq = 3;
  SendToA(&h, sizeof(h), {1, 2, 3});
  fake_.RunUntilIdle();
  ASSERT_EQ(events_a_.got.size(), 1u);
  EXPECT_EQ(events_a_.got[0].h.job_hash, kJob + 1);
  EXPECT_EQ(events_a_.got[0].h.key, 7u);
  EXPECT_EQ(events_a_.got[0].h.seq, 3u);
  EXPECT_EQ(events_a_.got[0].data, (std::vector<uint8_t>{1, 2, 3}));
}

TEST_F(NetworkTest, PayloadLandsInTheBufferPeerEventsOffers) {
  ConnectBoth();
  events_a_.jobs = {kJob};
  events_a_.offer_buffer = true;
  PeerHeader h = Header(PeerMsg::kContrib, b_->self_hash(), kJob);
  SendToA(&h, sizeof(h), {9, 8, 7, 6});
  fake_.RunUntilIdle();
  ASSERT_EQ(events_a_.got.size(), 1u);
  EXPECT_EQ(events_a_.got[0].where, events_a_.buffer.data());
  EXPECT_EQ(events_a_.buffer, (std::vector<uint8_t>{9, 8, 7, 6}));
}

TEST_F(NetworkTest, UnknownJobChunkIsDroppedButCredited) {
  ConnectBoth();
  PeerHeader h = Header(PeerMsg::kRing, b_->self_hash(), kJob);  // events_a_ serves no job
  SendToA(&h, sizeof(h), std::vector<uint8_t>(100));
  ASSERT_TRUE(fake_.Step());
  EXPECT_EQ(events_a_.offered, 1);
  EXPECT_TRUE(events_a_.got.empty());
  // The chunk reached this agent: the sender's window gets its bytes back all the same.
  std::vector<FakeNetwork::Envelope> back = fake_.InFlight();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].to, 1);
  PeerHeader credit = Decode(back[0].header);
  EXPECT_EQ(credit.type, static_cast<uint16_t>(PeerMsg::kCredit));
  EXPECT_EQ(credit.credit_bytes, sizeof(PeerHeader) + 100);
}

// Sends `header_len` bytes of `h` as a scheduled chunk for a served job; expects it dropped
// before it is handed up or credited.
class MalformedHeaderTest : public NetworkTest {
 protected:
  void ExpectDropped(const PeerHeader& h, size_t header_len) {
    ConnectBoth();
    events_a_.jobs = {kJob};
    SendToA(&h, header_len, {1, 2});
    EXPECT_EQ(fake_.RunUntilIdle(), 1u) << "something answered a malformed message";
    EXPECT_EQ(events_a_.offered, 0);
    EXPECT_TRUE(events_a_.lost.empty());
  }
};

TEST_F(MalformedHeaderTest, ShortHeaderIsDropped) {
  PeerHeader h = Header(PeerMsg::kRing, b_->self_hash(), kJob);
  ExpectDropped(h, sizeof(h) - 8);
}

TEST_F(MalformedHeaderTest, BadMagicIsDropped) {
  PeerHeader h = Header(PeerMsg::kRing, b_->self_hash(), kJob);
  h.magic = 0x12345678;
  ExpectDropped(h, sizeof(h));
}

TEST_F(MalformedHeaderTest, BadVersionIsDropped) {
  PeerHeader h = Header(PeerMsg::kRing, b_->self_hash(), kJob);
  h.version = kPeerVersion + 1;
  ExpectDropped(h, sizeof(h));
}

TEST_F(NetworkTest, CreditReturnedForScheduledChunk) {
  ConnectBoth();
  events_a_.jobs = {kJob};
  PeerHeader h = Header(PeerMsg::kSparse, b_->self_hash(), kJob);
  std::vector<uint8_t> payload(1000, 5);
  uint64_t bytes = sizeof(PeerHeader) + payload.size();
  b_->scheduler()->Enqueue(to_a_, {kJob}, 0, bytes, [&] {
    ASSERT_TRUE(
        b_->transport()
            ->Send(to_a_, Lane::kBulk, &h, sizeof(h), payload.data(), payload.size(), nullptr)
            .ok());
  });
  ASSERT_EQ(b_->scheduler()->in_flight(to_a_), bytes);
  ASSERT_TRUE(fake_.Step());  // the chunk to a
  EXPECT_EQ(events_a_.got.size(), 1u);
  // a's credit goes back on the express lane, past anything a has on the bulk lane to b.
  std::vector<FakeNetwork::Envelope> credit = fake_.InFlight();
  ASSERT_EQ(credit.size(), 1u);
  EXPECT_EQ(Decode(credit[0].header).type, static_cast<uint16_t>(PeerMsg::kCredit));
  EXPECT_EQ(credit[0].lane, Lane::kExpress);
  fake_.RunUntilIdle();
  EXPECT_EQ(b_->scheduler()->in_flight(to_a_), 0u);
}

TEST_F(NetworkTest, LostPeersQueuedChunksAreIssuedAfterTheJobsHeard) {
  ConnectBoth();
  // Chunks as large as the deepest window: the second cannot go while the first is in flight.
  const SchedulerOptions& o = b_->scheduler()->options();
  uint64_t window = std::max(o.window_bytes, o.solo_window_bytes);
  int issued = 0;
  size_t lost_when_issued = 0;
  b_->scheduler()->Enqueue(to_a_, {kJob}, 0, window, [&] { ++issued; });
  b_->scheduler()->Enqueue(to_a_, {kJob}, 0, window, [&] {
    ++issued;
    lost_when_issued = events_b_.lost.size();
  });
  ASSERT_EQ(issued, 1);  // the second waits for credit that will never come
  fake_.Break(0, 1);
  fake_.RunUntilIdle();
  EXPECT_EQ(issued, 2);
  // Issued only once the jobs failed, so their senders drop the chunk instead of sending it.
  EXPECT_EQ(lost_when_issued, 1u);
  EXPECT_EQ(b_->scheduler()->queued(), 0u);
}

}  // namespace
}  // namespace outrider::agent
