// The express lane, on two in-process node groups with send schedulers, joined by a FakeNetwork
// (messages move only when the test says so, each lane in its own order): a small op agrees and
// finishes while a large op's chunks wait on the bulk lane; with the lane off it cannot. And the
// chunks a job-wide failure passed on the way are dropped when they arrive, without bringing the
// failed instance back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/node_group.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/fake/fake_transport.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kBig = 4 << 20;  // floats of the large allreduce: 16 MiB, ring chunks
constexpr uint64_t kSmall = 256;    // floats of the small one: sent with its fingerprints
constexpr uint64_t kBigKey = 9, kSmallKey = 10;

struct Node {
  std::unique_ptr<Transport> port;  // fake:<node>
  std::unique_ptr<SendScheduler> sched;
  HostDataPlane plane;
  std::unique_ptr<NodeGroup> group;
  std::vector<float> big, small;
  ValidatedOp big_op, small_op;
  std::map<uint64_t, Status> done;  // by key
  std::map<uint64_t, int> done_calls;
};

ValidatedOp Allreduce(std::vector<float>& data) {
  ValidatedOp op;
  op.kind = ipc::OpKind::kAllreduce;
  op.count = data.size();
  op.send = op.recv = BufferSpan::Host(data.data(), data.size() * 4);
  return op;
}

class ExpressLaneTest : public ::testing::Test {
 protected:
  void Build(bool express_lane) {
    SchedulerOptions options;
    options.express_lane = express_lane;
    for (int n = 0; n < 2; ++n) {
      Node& x = nodes_[static_cast<size_t>(n)];
      Transport::Callbacks cb;
      cb.on_message = [this, n](Lane, const uint8_t* header, size_t, const uint8_t* data,
                                size_t len) {
        PeerHeader h;
        std::memcpy(&h, header, sizeof(h));
        if (IsScheduledChunk(h.type))  // the receiver's credit, returned at once
          nodes_[static_cast<size_t>(1 - n)].sched->Done(PeerId(n), sizeof(PeerHeader) + len);
        nodes_[static_cast<size_t>(n)].group->OnMessage(h, data, len);
      };
      x.port = net_.Attach(cb);
      x.sched = std::make_unique<SendScheduler>(options, [this] { return now_; });
      x.group = std::make_unique<NodeGroup>(
          Topology{"job", 2, n, RankLayout::Even(2, 1)}, 1, static_cast<uint64_t>(n + 1),
          x.port.get(), &x.plane,
          [&x](uint64_t key, uint64_t, const Status& st, std::string_view,
               const std::vector<OpReport>*, const OpTrace&) {
            x.done[key] = st;
            ++x.done_calls[key];
          });
      x.group->set_scheduler(x.sched.get(), ipc::JobClass::kNormal, 1);
      x.big.assign(kBig, static_cast<float>(n + 1));
      x.small.assign(kSmall, static_cast<float>(10 * (n + 1)));
      x.big_op = Allreduce(x.big);
      x.small_op = Allreduce(x.small);
    }
    for (int n = 0; n < 2; ++n) {
      ASSERT_TRUE(nodes_[static_cast<size_t>(n)].port->Connect(FakeNetwork::Address(1 - n)).ok());
      nodes_[static_cast<size_t>(n)].group->SetPeers({0, 1});
    }
  }

  // Both nodes start the large allreduce; the network moves until each has ring chunks on the
  // bulk lane to the other.
  void StartBigUntilChunksAreOnTheWire() {
    for (Node& x : nodes_) x.group->Start(kBigKey, 0, {&x.big_op});
    auto chunks_between = [&](int from, int to) {
      for (const FakeNetwork::Envelope& e : net_.InFlight()) {
        PeerHeader h;
        std::memcpy(&h, e.header.data(), sizeof(h));
        if (e.from == from && e.to == to && IsScheduledChunk(h.type)) return true;
      }
      return false;
    };
    while (!chunks_between(0, 1) || !chunks_between(1, 0)) ASSERT_TRUE(net_.Step());
  }

  // Delivers what the express lanes carry, both ways, until they are empty.
  void RunExpressLanes() {
    while (net_.StepLane(0, 1, Lane::kExpress) || net_.StepLane(1, 0, Lane::kExpress)) {
    }
  }

  size_t OnBulkLane() const {
    std::vector<FakeNetwork::Envelope> in = net_.InFlight();
    return static_cast<size_t>(
        std::count_if(in.begin(), in.end(), [](const auto& e) { return e.lane == Lane::kBulk; }));
  }

  uint64_t now_ = 0;
  FakeNetwork net_;
  std::vector<Node> nodes_{2};
};

TEST_F(ExpressLaneTest, ASmallOpFinishesWhileALargeOnesChunksWaitOnTheBulkLane) {
  Build(/*express_lane=*/true);
  StartBigUntilChunksAreOnTheWire();
  for (Node& x : nodes_) x.group->Start(kSmallKey, 0, {&x.small_op});
  RunExpressLanes();
  for (Node& x : nodes_) {
    ASSERT_EQ(x.done.count(kSmallKey), 1u) << "the small op waited behind the bulk lane";
    EXPECT_TRUE(x.done[kSmallKey].ok()) << x.done[kSmallKey].ToString();
    EXPECT_EQ(std::count(x.small.begin(), x.small.end(), 30.0f), static_cast<long>(kSmall));
    EXPECT_EQ(x.done.count(kBigKey), 0u);
  }
  EXPECT_GT(OnBulkLane(), 0u);
  net_.RunUntilIdle();
  for (Node& x : nodes_) {
    ASSERT_TRUE(x.done[kBigKey].ok()) << x.done[kBigKey].ToString();
    EXPECT_EQ(std::count(x.big.begin(), x.big.end(), 3.0f), static_cast<long>(kBig));
  }
}

TEST_F(ExpressLaneTest, WithTheLaneOffEverythingWaitsInOneOrder) {
  Build(/*express_lane=*/false);
  StartBigUntilChunksAreOnTheWire();
  for (Node& x : nodes_) x.group->Start(kSmallKey, 0, {&x.small_op});
  RunExpressLanes();
  for (Node& x : nodes_) EXPECT_EQ(x.done.count(kSmallKey), 0u);
  EXPECT_EQ(net_.InFlight().size(), OnBulkLane());
  net_.RunUntilIdle();
  for (Node& x : nodes_) {
    EXPECT_TRUE(x.done[kSmallKey].ok()) << x.done[kSmallKey].ToString();
    EXPECT_TRUE(x.done[kBigKey].ok()) << x.done[kBigKey].ToString();
  }
}

TEST_F(ExpressLaneTest, ChunksAJobFailurePassedAreDroppedWhenTheyArrive) {
  Build(/*express_lane=*/true);
  // What a job does when a peer says the job failed there: it fails everything here.
  nodes_[0].group->set_failed([this](int, const Status& why) { nodes_[0].group->FailAll(why); });
  StartBigUntilChunksAreOnTheWire();
  size_t bulk = OnBulkLane();
  // Node 1's job fails (a rank of it died) while its chunks to node 0 are on the bulk lane.
  nodes_[1].group->FailAll(PeerLost("rank 1 died"));
  nodes_[1].group->SayJobFailed(PeerLost("rank 1 died"));
  RunExpressLanes();
  ASSERT_EQ(nodes_[0].done_calls[kBigKey], 1);
  EXPECT_EQ(nodes_[0].done[kBigKey].code(), Code::kPeerLost) << nodes_[0].done[kBigKey].ToString();
  EXPECT_EQ(OnBulkLane(), bulk);  // the failure passed them
  net_.RunUntilIdle();
  EXPECT_EQ(nodes_[0].done_calls[kBigKey], 1);
  EXPECT_FALSE(nodes_[0].group->unfinished());
  EXPECT_FALSE(nodes_[0].group->busy());
}

}  // namespace
}  // namespace outrider::agent
