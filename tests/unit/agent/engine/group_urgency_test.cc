// One urgency across a job's communicators: two in-process nodes, each with a data-parallel and a
// pipeline group of one job sharing the node's send scheduler, joined by a FakeNetwork. A
// point-to-point message of the pipeline group, sent after the data-parallel group's bulk
// allreduce has filled the queue, goes out ahead of every chunk of that allreduce still queued;
// were the groups two jobs, the link would be shared between them chunk by chunk instead.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/node_group.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/fake/fake_transport.h"
#include "ipc/defaults.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kFloats = 8 << 20;  // the data-parallel bucket: 32 MiB, ring chunks of 1 MiB
constexpr uint64_t kJob = 100, kDataParallel = 11, kPipeline = 12;
constexpr int kPieces = 4;  // the activation: four chunks of 1 MiB

struct Node {
  std::unique_ptr<Transport> port;
  std::unique_ptr<SendScheduler> sched;
  HostDataPlane plane;
  std::unique_ptr<NodeGroup> dp, pp;
  std::vector<float> bucket;
  ValidatedOp op;
  int pieces_in = 0;
};

class GroupUrgencyTest : public ::testing::TestWithParam<bool> {
 protected:
  // `one_job`: both groups are communicators of one job (the agent's mapping); else two jobs.
  void Build(bool one_job) {
    for (int n = 0; n < 2; ++n) {
      Node& x = nodes_[static_cast<size_t>(n)];
      Transport::Callbacks cb;
      cb.on_message = [this, n](Lane, const uint8_t* header, size_t, const uint8_t* data,
                                size_t len) {
        PeerHeader h;
        std::memcpy(&h, header, sizeof(h));
        Node& to = nodes_[static_cast<size_t>(n)];
        if (IsScheduledChunk(h.type))
          nodes_[static_cast<size_t>(1 - n)].sched->Done(PeerId(n), sizeof(PeerHeader) + len);
        (h.job_hash == kPipeline ? to.pp : to.dp)->OnMessage(h, data, len);
      };
      x.port = net_.Attach(cb);
      x.sched = std::make_unique<SendScheduler>(SchedulerOptions{}, [this] { return now_; });
      auto done = [](uint64_t, uint64_t, const Status&, std::string_view,
                     const std::vector<OpReport>*, const OpTrace&) {};
      for (auto [group, hash] : {std::pair{&x.dp, kDataParallel}, std::pair{&x.pp, kPipeline}}) {
        *group =
            std::make_unique<NodeGroup>(Topology{"job", 2, n, RankLayout::Even(2, 1)}, hash,
                                        static_cast<uint64_t>(n + 1), x.port.get(), &x.plane, done);
        (*group)->set_scheduler(x.sched.get(), ipc::JobClass::kNormal, 1, one_job ? kJob : hash);
      }
      x.pp->set_point_message([&x](const PeerHeader&, const uint8_t*, size_t) { ++x.pieces_in; });
      x.bucket.assign(kFloats, 1.0f);
      x.op.kind = ipc::OpKind::kAllreduce;
      x.op.count = kFloats;
      x.op.send = x.op.recv = BufferSpan::Host(x.bucket.data(), kFloats * 4);
    }
    for (int n = 0; n < 2; ++n) {
      Node& x = nodes_[static_cast<size_t>(n)];
      ASSERT_TRUE(x.port->Connect(FakeNetwork::Address(1 - n)).ok());
      x.dp->SetPeers({0, 1});
      x.pp->SetPeers({0, 1});
    }
  }

  uint64_t now_ = 0;
  FakeNetwork net_;
  std::vector<Node> nodes_{2};
};

TEST_P(GroupUrgencyTest, ALaterPointToPointMessagePassesAnEarlierBulkAllreduceOfAnotherGroup) {
  bool one_job = GetParam();
  Build(one_job);
  // The bucket's allreduce starts on both nodes at a bulk priority; its chunks fill node 0's
  // queue to node 1.
  for (Node& x : nodes_) x.dp->Start(1, 0, {&x.op}, ipc::DefaultPriority(0));
  while (nodes_[0].sched->queued() < 8) ASSERT_TRUE(net_.Step());
  size_t before = nodes_[0].sched->recent().size();
  // Then the pipeline stage's activation, a message of four chunks at the messages' default.
  static std::vector<uint8_t> activation(kPieces << 20, 7);
  for (int i = 0; i < kPieces; ++i) {
    PeerHeader h{};
    h.type = static_cast<uint16_t>(PeerMsg::kPointChunk);
    h.message_bytes = activation.size();
    h.offset = static_cast<uint64_t>(i) << 20;
    nodes_[0].pp->SendPoint(1, h, BufferSpan::Host(activation.data() + h.offset, 1 << 20),
                            ipc::kPointToPointPriority, nullptr, [](const Status&) {});
  }
  while (nodes_[1].pieces_in < kPieces) ASSERT_TRUE(net_.Step());
  // What node 0 sent to node 1 from then on, until the activation's last chunk.
  int bucket_chunks_between = 0, pieces = 0;
  const auto& recent = nodes_[0].sched->recent();
  for (size_t i = before; i < recent.size() && pieces < kPieces; ++i) {
    if (recent[i].peer != 1) continue;
    if (recent[i].group == kPipeline) {
      ++pieces;
    } else {
      bucket_chunks_between += pieces > 0;  // after the activation's first chunk went
    }
  }
  ASSERT_EQ(pieces, kPieces);
  if (one_job) {
    EXPECT_EQ(bucket_chunks_between, 0) << "the bucket's chunks went between the activation's";
    // Each group's own statistics still say how its chunks fared.
    ASSERT_NE(nodes_[0].sched->job_stats(kPipeline), nullptr);
    EXPECT_EQ(nodes_[0].sched->job_stats(kPipeline)->sent, static_cast<uint64_t>(kPieces));
    EXPECT_NE(nodes_[0].sched->job_stats(kDataParallel), nullptr);
  } else {
    EXPECT_GT(bucket_chunks_between, 0) << "two jobs share the link: the test must tell apart";
  }
  net_.RunUntilIdle();
}

INSTANTIATE_TEST_SUITE_P(OneJobOrTwo, GroupUrgencyTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "OneJob" : "TwoJobs"; });

}  // namespace
}  // namespace outrider::agent
