// Two UCX transports over TCP on loopback, as the agent runs them: each message arrives with the
// lane it was sent on, in its lane's order, and a small express message passes megabytes already
// queued on the bulk lane to the same peer.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "agent/transport/tcp_congestion.h"
#include "agent/transport/ucx/ucx_transport.h"

namespace outrider::agent {
namespace {

struct Arrival {
  Lane lane;
  uint32_t id;  // the message's header
};

class UcxLanesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("UCX_TLS", "tcp", 1);
    ::setenv("UCX_NET_DEVICES", "lo", 1);
    a_ = Make(nullptr);
    b_ = Make(&arrived_);
    ASSERT_TRUE(a_ && b_);
    Result<PeerId> peer = a_->Connect(b_->address());
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    to_b_ = *peer;
  }

  static std::unique_ptr<UcxTransport> Make(std::vector<Arrival>* arrived) {
    Transport::Callbacks cb;
    cb.on_message = [arrived](Lane lane, const uint8_t* header, size_t header_len, const uint8_t*,
                              size_t) {
      uint32_t id = 0;
      std::memcpy(&id, header, std::min(header_len, sizeof(id)));
      if (arrived != nullptr) arrived->push_back({lane, id});
    };
    cb.on_peer_error = [](PeerId, const Status& why) { ADD_FAILURE() << why.ToString(); };
    Result<std::unique_ptr<UcxTransport>> t = UcxTransport::Create(std::move(cb));
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(t).value() : nullptr;
  }

  void Send(Lane lane, uint32_t id, size_t bytes) {
    ASSERT_LE(bytes, payload_.size());
    ASSERT_TRUE(
        a_->Send(to_b_, lane, &id, sizeof(id), payload_.data(), bytes, [this](const Status& st) {
            EXPECT_TRUE(st.ok()) << st.ToString();
            ++sends_done_;
          }).ok());
  }

  // Progresses both ends until `n` messages arrived (or 30 s passed); true if they did.
  bool ProgressUntilArrived(size_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (arrived_.size() < n && std::chrono::steady_clock::now() < deadline) {
      a_->Progress();
      b_->Progress();
    }
    return arrived_.size() >= n;
  }

  std::unique_ptr<UcxTransport> a_, b_;
  PeerId to_b_ = 0;
  std::vector<Arrival> arrived_;
  // Every send's payload, never reallocated: it outlives them all.
  std::vector<uint8_t> payload_ = std::vector<uint8_t>(1 << 20, 0x5a);
  size_t sends_done_ = 0;
};

TEST_F(UcxLanesTest, EachMessageArrivesOnItsLaneInThatLanesOrder) {
  constexpr uint32_t kMessages = 40;
  for (uint32_t id = 0; id < kMessages; ++id) {
    Send(id % 3 == 0 ? Lane::kExpress : Lane::kBulk, id, 4096 + id * 1000);
  }
  ASSERT_TRUE(ProgressUntilArrived(kMessages));
  uint32_t last[kLanes] = {0, 0};
  bool seen[kLanes] = {false, false};
  for (const Arrival& a : arrived_) {
    EXPECT_EQ(a.lane, a.id % 3 == 0 ? Lane::kExpress : Lane::kBulk) << "message " << a.id;
    size_t l = static_cast<size_t>(a.lane);
    if (seen[l]) {
      EXPECT_GT(a.id, last[l]) << "out of order on its lane";
    }
    seen[l] = true;
    last[l] = a.id;
  }
  while (sends_done_ < kMessages && a_->Progress()) {
  }
  // Two listeners, and both ends of two connections: the lanes do not share one.
  EXPECT_GE(OwnTcpSockets().size(), 6u);
}

TEST_F(UcxLanesTest, AnExpressMessagePassesBulkBytesQueuedAheadOfIt) {
  constexpr uint32_t kBulk = 64;  // 1 MiB each: far more than the sockets hold
  for (uint32_t id = 0; id < kBulk; ++id) Send(Lane::kBulk, id, 1 << 20);
  constexpr uint32_t kExpressId = 1000;
  Send(Lane::kExpress, kExpressId, 64);
  auto express = [&] {
    return std::find_if(arrived_.begin(), arrived_.end(),
                        [](const Arrival& a) { return a.id == kExpressId; });
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (express() == arrived_.end() && std::chrono::steady_clock::now() < deadline) {
    a_->Progress();
    b_->Progress();
  }
  auto it = express();
  ASSERT_NE(it, arrived_.end());
  EXPECT_EQ(it->lane, Lane::kExpress);
  size_t bulk_before = static_cast<size_t>(it - arrived_.begin());
  EXPECT_LT(bulk_before, kBulk / 2) << "the express message waited behind the bulk lane";
  ASSERT_TRUE(ProgressUntilArrived(kBulk + 1));
}

}  // namespace
}  // namespace outrider::agent
