// Row demand inside one sparse allreduce, on two in-process node groups joined by a FakeNetwork
// (messages move only when the test says so) and send schedulers on a fake clock:
// the chunks carrying the demanded rows overtake the op's other chunks, the demanded rows reach
// the clients while most of the op is still on the wire, and every row ends up bitwise the same
// as without demand. And a group's running op keeps lower job classes, and its job's lower
// priorities, yielding on its links.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/node_group.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/fake/fake_transport.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kRows = 100000;
constexpr uint64_t kDim = 16;
constexpr uint64_t kNnz = 20000;  // ids 0..kNnz-1 on both nodes: ~1.3 MB per message
constexpr uint64_t kChunk = 64 << 10;

struct Node {
  std::unique_ptr<Transport> port;  // fake:<node>
  std::unique_ptr<SendScheduler> sched;
  HostDataPlane plane;
  std::unique_ptr<NodeGroup> group;
  std::vector<int64_t> ids, demand, out_ids;
  std::vector<float> vals, out_vals;
  ValidatedOp op;
  bool done = false, partial = false;
  Status result;
  OpReport report, partial_report;
  uint64_t chunks_in = 0;             // sparse chunks delivered to this node
  uint64_t chunks_in_at_partial = 0;  // ... when its demanded rows were handed over
};

struct Wire {
  uint64_t now = 0;
  FakeNetwork net;  // one message moves per Step(), oldest first
  std::vector<Node> nodes{2};
};

// What the agent's network does with a message for node `me`, reduced to this test's needs: a
// scheduled chunk returns its credit to the sender's scheduler (the other node: there are two),
// sparse chunks are counted, and the group gets the message.
Transport::Callbacks Deliver(Wire& w, int me) {
  Transport::Callbacks cb;
  cb.on_message = [&w, me](Lane, const uint8_t* header, size_t header_len, const uint8_t* data,
                           size_t len) {
    ASSERT_EQ(header_len, sizeof(PeerHeader));
    PeerHeader h;
    std::memcpy(&h, header, sizeof(h));
    Node& to = w.nodes[static_cast<size_t>(me)];
    if (IsScheduledChunk(h.type))
      w.nodes[static_cast<size_t>(1 - me)].sched->Done(PeerId(me), sizeof(PeerHeader) + len);
    if (h.type == static_cast<uint16_t>(PeerMsg::kSparse)) ++to.chunks_in;
    to.group->OnMessage(h, data, len);
  };
  return cb;
}

float Value(int node, uint64_t id, uint64_t j) {
  return static_cast<float>((id * 7 + j) % 13) * 0.25f + static_cast<float>(node);
}

// Runs one sparse allreduce (allgather) over two nodes, `demanded` ids demanded by node 1.
void RunOp(Wire& w, const std::vector<int64_t>& demanded, uint64_t node1_capacity = kNnz,
           bool run = true) {
  for (int n = 0; n < 2; ++n) {
    Node& x = w.nodes[static_cast<size_t>(n)];
    x.port = w.net.Attach(Deliver(w, n));
    x.sched = std::make_unique<SendScheduler>(SchedulerOptions{true, 2 * kChunk, 100'000'000},
                                              [&w] { return w.now; });
    x.group = std::make_unique<NodeGroup>(
        Topology{"job", 2, n, RankLayout::Even(2, 1)}, 1, static_cast<uint64_t>(n + 1),
        x.port.get(), &x.plane,
        [&x](uint64_t, uint64_t, const Status& st, std::string_view,
             const std::vector<OpReport>* reports, const OpTrace&) {
          x.done = true;
          x.result = st;
          if (reports != nullptr) x.report = (*reports)[0];
        },
        EngineOptions{256 << 10, kChunk, 8, 1.25e9});
    x.group->set_scheduler(x.sched.get(), ipc::JobClass::kNormal, 1);
    x.group->set_partial([&x](uint64_t, uint64_t, const std::vector<OpReport>& reports) {
      x.partial = true;
      x.partial_report = reports[0];
      x.chunks_in_at_partial = x.chunks_in;
    });
    for (uint64_t id = 0; id < kNnz; ++id) {
      x.ids.push_back(static_cast<int64_t>(id));
      for (uint64_t j = 0; j < kDim; ++j) x.vals.push_back(Value(n, id, j));
    }
    if (n == 1) x.demand = demanded;
    x.out_ids.assign(kNnz, -1);
    x.out_vals.assign(kNnz * kDim, 0);
    ValidatedOp& o = x.op;
    o.kind = ipc::OpKind::kSparseAllreduce;
    o.dtype = ipc::DType::kF32;
    o.count = kDim;
    o.rows = kRows;
    o.id_dtype = ipc::DType::kI64;
    o.algo = static_cast<uint32_t>(ipc::SparseAlgo::kAllgather);
    o.ids = BufferSpan::Host(x.ids.data(), x.ids.size() * 8);
    o.nnz = kNnz;
    o.send = BufferSpan::Host(x.vals.data(), x.vals.size() * 4);
    o.capacity = n == 1 ? node1_capacity : kNnz;
    o.recv = BufferSpan::Host(x.out_vals.data(), o.capacity * kDim * 4);
    o.out_ids = BufferSpan::Host(x.out_ids.data(), o.capacity * 8);
    o.demand = BufferSpan::Host(x.demand.data(), x.demand.size() * 8);
    o.demand_n = x.demand.size();
  }
  for (int n = 0; n < 2; ++n) {
    auto peer = w.nodes[static_cast<size_t>(n)].port->Connect(FakeNetwork::Address(1 - n));
    ASSERT_TRUE(peer.ok() && *peer == PeerId(1 - n)) << peer.status().ToString();
  }
  w.nodes[0].group->SetPeers({0, 1});
  w.nodes[1].group->SetPeers({0, 1});
  for (int n = 0; n < 2; ++n)
    w.nodes[static_cast<size_t>(n)].group->Start(5, 0, {&w.nodes[static_cast<size_t>(n)].op});
  if (run) w.net.RunUntilIdle(100000);
}

// Rows of a node's output by id.
std::map<int64_t, std::vector<float>> ById(const Node& x, uint64_t rows) {
  std::map<int64_t, std::vector<float>> m;
  for (uint64_t i = 0; i < rows; ++i) {
    m[x.out_ids[i]] = std::vector<float>(x.out_vals.begin() + static_cast<long>(i * kDim),
                                         x.out_vals.begin() + static_cast<long>((i + 1) * kDim));
  }
  return m;
}

TEST(RowDemandTest, DemandedRowsOvertakeTheRestOfTheOpAndResultsStayBitwiseEqual) {
  Wire plain;
  RunOp(plain, {});
  Wire demanded;
  // The last ids: without demand they travel in the messages' last chunks.
  std::vector<int64_t> want = {19999, 19990, 19995, 19990, 19997};
  RunOp(demanded, want);

  for (int n = 0; n < 2; ++n) {
    const Node& p = plain.nodes[static_cast<size_t>(n)];
    const Node& d = demanded.nodes[static_cast<size_t>(n)];
    ASSERT_TRUE(p.done && d.done) << "node " << n;
    ASSERT_TRUE(p.result.ok()) << p.result.ToString();
    ASSERT_TRUE(d.result.ok()) << d.result.ToString();
    EXPECT_FALSE(p.partial);
    EXPECT_EQ(p.report.result_rows, kNnz);
    EXPECT_EQ(p.report.demand_rows, 0u);
    // Every node learns every node's demand: node 0 gets the demanded rows early too.
    ASSERT_TRUE(d.partial) << "node " << n;
    EXPECT_EQ(d.partial_report.demand_rows, 4u);
    EXPECT_EQ(d.report.demand_rows, 4u);
    EXPECT_EQ(d.report.result_rows, kNnz);
    // Demanded rows first (sorted), then the rest (sorted).
    EXPECT_EQ(std::vector<int64_t>(d.out_ids.begin(), d.out_ids.begin() + 4),
              (std::vector<int64_t>{19990, 19995, 19997, 19999}));
    EXPECT_EQ(d.out_ids[4], 0);
    EXPECT_EQ(d.out_ids.back(), 19998);
    // Same bits per row.
    EXPECT_EQ(ById(p, kNnz), ById(d, kNnz));
    // The demanded rows arrived after a handful of the ~20 chunks this node receives (without
    // demand they travel in the last one).
    uint64_t total = d.chunks_in;
    EXPECT_GE(total, 20u);
    EXPECT_LE(d.chunks_in_at_partial, 4u) << "of " << total;
  }
}

TEST(RowDemandTest, OutputTooSmallFailsOnlyThatRankWithTheRowsNeeded) {
  // Room for the demanded rows but not for the rest: node 1 gets them early, then fails.
  Wire w;
  RunOp(w, {19999, 19990}, 100);
  const Node& ok = w.nodes[0];
  const Node& small = w.nodes[1];
  ASSERT_TRUE(ok.done && small.done);
  EXPECT_TRUE(ok.result.ok() && ok.report.status.ok()) << ok.report.status.ToString();
  ASSERT_TRUE(small.partial);
  EXPECT_TRUE(small.partial_report.status.ok()) << small.partial_report.status.ToString();
  EXPECT_EQ(small.out_ids[0], 19990);
  EXPECT_EQ(small.report.status.code(), Code::kOutputTooSmall) << small.report.status.ToString();
  EXPECT_EQ(small.report.result_rows, kNnz);
  // Too small even for the demanded rows: its early report is the failure (the job posts no early
  // notice for it), nothing is written, and the op fails alike at the end.
  Wire w2;
  RunOp(w2, {19999, 19990, 5}, 2);
  ASSERT_TRUE(w2.nodes[1].partial);
  EXPECT_EQ(w2.nodes[1].partial_report.status.code(), Code::kOutputTooSmall);
  EXPECT_EQ(w2.nodes[1].out_ids[0], -1);
  EXPECT_EQ(w2.nodes[1].report.status.code(), Code::kOutputTooSmall);
  EXPECT_EQ(w2.nodes[1].report.result_rows, kNnz);
  EXPECT_TRUE(w2.nodes[0].report.status.ok());
}

TEST(RowDemandTest, WithoutDemandRowsReachTheOutputRangeByRangeBeforeTheOpEnds) {
  Wire w;
  RunOp(w, {}, kNnz, /*run=*/false);
  const Node& x = w.nodes[0];
  uint64_t chunks_at_first_row = 0;
  while (!x.done && w.net.Step()) {
    if (chunks_at_first_row == 0 && x.out_ids[0] != -1) chunks_at_first_row = x.chunks_in;
  }
  w.net.RunUntilIdle(100000);
  ASSERT_TRUE(x.done && x.result.ok()) << x.result.ToString();
  // The first rows were in the output while most of the other node's chunks were still to come.
  EXPECT_GT(chunks_at_first_row, 0u);
  EXPECT_LT(chunks_at_first_row, x.chunks_in / 2) << "of " << x.chunks_in;
  EXPECT_EQ(x.out_ids[0], 0);
  EXPECT_EQ(x.out_ids[kNnz - 1], static_cast<int64_t>(kNnz - 1));
}

TEST(RowDemandTest, WithoutDemandAnOutputTooSmallFailsThatRankNamingEveryRowItNeeds) {
  Wire w;
  RunOp(w, {}, 100);
  ASSERT_TRUE(w.nodes[0].done && w.nodes[1].done);
  EXPECT_TRUE(w.nodes[0].report.status.ok()) << w.nodes[0].report.status.ToString();
  const OpReport& r = w.nodes[1].report;
  EXPECT_EQ(r.status.code(), Code::kOutputTooSmall) << r.status.ToString();
  EXPECT_EQ(r.result_rows, kNnz);
  EXPECT_NE(r.status.message().find("the result has " + std::to_string(kNnz) + " rows"),
            std::string::npos)
      << r.status.ToString();
}

TEST(RowDemandTest, DemandedIdOutsideTheTableFailsTheOpOnEveryNode) {
  Wire w;
  RunOp(w, {static_cast<int64_t>(kRows)});
  for (int n = 0; n < 2; ++n) {
    const Node& x = w.nodes[static_cast<size_t>(n)];
    ASSERT_TRUE(x.done);
    EXPECT_EQ(x.result.code(), Code::kInvalidArgument) << x.result.ToString();
    EXPECT_NE(x.result.message().find("demand ids"), std::string::npos) << x.result.message();
    EXPECT_FALSE(x.partial);
  }
}

TEST(NodeGroupSchedulingTest, ARunningOpKeepsLowerClassesYieldingOnItsLinksUntilItEnds) {
  Wire w;
  RunOp(w, {}, kNnz, /*run=*/false);
  // Started on both nodes, nothing delivered yet: the job's class (normal) runs on the link, so a
  // low job there cuts yield-sized chunks and a high one does not.
  for (int n = 0; n < 2; ++n) {
    SendScheduler& s = *w.nodes[static_cast<size_t>(n)].sched;
    PeerId other(1 - n);
    EXPECT_LT(s.ChunkCap(other, ipc::JobClass::kLow), UINT64_MAX) << "node " << n;
    EXPECT_EQ(s.ChunkCap(other, ipc::JobClass::kHigh), UINT64_MAX);
  }
  // Long after the hold, an op still running keeps the class active.
  w.now += 10 * SchedulerOptions{}.class_hold_ns;
  EXPECT_LT(w.nodes[0].sched->ChunkCap(PeerId(1), ipc::JobClass::kLow), UINT64_MAX);
  w.net.RunUntilIdle(100000);
  ASSERT_TRUE(w.nodes[0].done && w.nodes[1].done);
  ASSERT_TRUE(w.nodes[0].result.ok()) << w.nodes[0].result.ToString();
  // Done: the class yields for the hold after the op's end, then no longer.
  EXPECT_LT(w.nodes[0].sched->ChunkCap(PeerId(1), ipc::JobClass::kLow), UINT64_MAX);
  w.now += SchedulerOptions{}.class_hold_ns + 1;
  for (int n = 0; n < 2; ++n) {
    EXPECT_EQ(w.nodes[static_cast<size_t>(n)].sched->ChunkCap(PeerId(1 - n), ipc::JobClass::kLow),
              UINT64_MAX)
        << "node " << n;
  }
}

TEST(NodeGroupSchedulingTest, AGroupDestroyedMidOpEndsItsRunningClass) {
  Wire w;
  RunOp(w, {}, kNnz, /*run=*/false);
  SendScheduler& s = *w.nodes[0].sched;
  EXPECT_LT(s.ChunkCap(PeerId(1), ipc::JobClass::kLow), UINT64_MAX);
  w.nodes[0].group.reset();
  w.now += SchedulerOptions{}.class_hold_ns + 1;
  EXPECT_EQ(s.ChunkCap(PeerId(1), ipc::JobClass::kLow), UINT64_MAX);
}

// Two nodes of one normal-class job (hash 1) with schedulers on a fake clock, and their ops
// (each `floats` floats of node + 1, summed): a 32 MiB ring allreduce cuts 1 MiB chunks.
struct RingPair {
  struct RingNode {
    std::unique_ptr<Transport> port;
    std::unique_ptr<SendScheduler> sched;
    HostDataPlane plane;
    std::unique_ptr<NodeGroup> group;
    std::map<uint64_t, std::vector<float>> data;  // by key
    std::map<uint64_t, ValidatedOp> ops;
    std::map<uint64_t, Status> results;  // by key, once done
  };
  uint64_t now = 0;
  FakeNetwork net;
  std::vector<RingNode> nodes{2};

  RingPair() {
    for (int n = 0; n < 2; ++n) {
      RingNode& x = nodes[static_cast<size_t>(n)];
      Transport::Callbacks cb;
      cb.on_message = [this, n](Lane, const uint8_t* header, size_t, const uint8_t* data,
                                size_t len) {
        PeerHeader h;
        std::memcpy(&h, header, sizeof(h));
        if (IsScheduledChunk(h.type))
          nodes[static_cast<size_t>(1 - n)].sched->Done(PeerId(n), sizeof(PeerHeader) + len);
        nodes[static_cast<size_t>(n)].group->OnMessage(h, data, len);
      };
      x.port = net.Attach(cb);
      x.sched = std::make_unique<SendScheduler>(SchedulerOptions{}, [this] { return now; });
      x.group = std::make_unique<NodeGroup>(
          Topology{"job", 2, n, RankLayout::Even(2, 1)}, 1, static_cast<uint64_t>(n + 1),
          x.port.get(), &x.plane,
          [&x](uint64_t key, uint64_t, const Status& st, std::string_view,
               const std::vector<OpReport>*, const OpTrace&) { x.results[key] = st; });
      x.group->set_scheduler(x.sched.get(), ipc::JobClass::kNormal, 1);
    }
    for (int n = 0; n < 2; ++n) {
      EXPECT_TRUE(nodes[static_cast<size_t>(n)].port->Connect(FakeNetwork::Address(1 - n)).ok());
      nodes[static_cast<size_t>(n)].group->SetPeers({0, 1});
    }
  }
  // Starts allreduce `key` of `floats` floats on node `n` at `priority`.
  void Start(int n, uint64_t key, uint64_t floats, int32_t priority) {
    RingNode& x = nodes[static_cast<size_t>(n)];
    std::vector<float>& d = x.data[key];
    d.assign(floats, static_cast<float>(n + 1));
    ValidatedOp& op = x.ops[key];
    op.kind = ipc::OpKind::kAllreduce;
    op.count = floats;
    op.send = op.recv = BufferSpan::Host(d.data(), floats * 4);
    x.group->Start(key, 0, {&op}, priority);
  }
  // Op `key` ended with the right sum on both nodes.
  void ExpectSummed(uint64_t key) {
    for (RingNode& x : nodes) {
      ASSERT_TRUE(x.results.count(key)) << "key " << key;
      ASSERT_TRUE(x.results[key].ok()) << x.results[key].ToString();
      const std::vector<float>& d = x.data[key];
      EXPECT_EQ(std::count(d.begin(), d.end(), 3.0f), static_cast<long>(d.size()));
    }
  }
};

constexpr uint64_t kRingFloats = 8 << 20;
constexpr uint64_t kPiece = SchedulerOptions{}.yield_window_bytes / 2;

TEST(NodeGroupSchedulingTest, RingChunksCutBeforeAHigherClassCameGoInYieldSizedPieces) {
  // A ring allreduce cut in 1 MiB chunks (no higher class on the link when it agreed). Then a
  // high job starts on both nodes: what the ring sends from then on goes in pieces of half the
  // yield window, and the sum is still right.
  RingPair p;
  for (int n = 0; n < 2; ++n) p.Start(n, 9, kRingFloats, 0);
  // Until the ring agreed and queued its 1 MiB chunks behind the 4 MiB solo window.
  while (p.nodes[0].sched->queued() == 0 || p.nodes[1].sched->queued() == 0)
    ASSERT_TRUE(p.net.Step());
  size_t before = p.nodes[0].sched->recent().size();
  for (const auto& s : p.nodes[0].sched->recent()) EXPECT_GT(s.bytes, uint64_t{1} << 20);
  for (int n = 0; n < 2; ++n)
    p.nodes[static_cast<size_t>(n)].sched->BeginRunning(PeerId(1 - n), ipc::JobClass::kHigh);
  p.net.RunUntilIdle();
  p.ExpectSummed(9);
  const auto& sent = p.nodes[0].sched->recent();
  ASSERT_GT(sent.size(), before);
  for (size_t i = before; i < sent.size(); ++i)
    EXPECT_LE(sent[i].bytes, sizeof(PeerHeader) + kPiece) << "send " << i;
}

TEST(NodeGroupSchedulingTest, RingChunksOfAJobGoInYieldSizedPiecesWhileAMoreUrgentOpOfItRuns) {
  // The job's 32 MiB ring allreduce (priority 999) queued its 1 MiB chunks. Then a small op of
  // the job (priority 679) starts on node 0 only: until node 1 starts it too, it runs on node 0,
  // whose ring chunks go in pieces of half the yield window; node 1 cuts whole ones. Both sums are
  // right, and once the small op ended nothing yields.
  RingPair p;
  for (int n = 0; n < 2; ++n) p.Start(n, 9, kRingFloats, 999);
  while (p.nodes[0].sched->queued() == 0 || p.nodes[1].sched->queued() == 0)
    ASSERT_TRUE(p.net.Step());
  size_t before[2] = {p.nodes[0].sched->recent().size(), p.nodes[1].sched->recent().size()};
  p.Start(0, 10, 16, 679);
  EXPECT_TRUE(p.nodes[0].sched->OpYields(1, 999));
  EXPECT_FALSE(p.nodes[1].sched->OpYields(1, 999));
  p.net.RunUntilIdle();
  ASSERT_TRUE(p.nodes[0].results.count(9));
  EXPECT_FALSE(p.nodes[0].results.count(10));  // waits for node 1
  const auto& sent0 = p.nodes[0].sched->recent();
  ASSERT_GT(sent0.size(), before[0]);
  for (size_t i = before[0]; i < sent0.size(); ++i)
    EXPECT_LE(sent0[i].bytes, sizeof(PeerHeader) + kPiece) << "send " << i;
  // Node 1 still cuts whole chunks (those it forwards may come in node 0's pieces).
  const auto& sent1 = p.nodes[1].sched->recent();
  ASSERT_GT(sent1.size(), before[1]);
  uint64_t largest1 = 0;
  for (size_t i = before[1]; i < sent1.size(); ++i) largest1 = std::max(largest1, sent1[i].bytes);
  EXPECT_GT(largest1, uint64_t{1} << 20);
  p.Start(1, 10, 16, 679);
  p.net.RunUntilIdle();
  p.ExpectSummed(9);
  p.ExpectSummed(10);
  for (auto& x : p.nodes) EXPECT_FALSE(x.sched->OpYields(1, 999));
}

TEST(NodeGroupSchedulingTest, AGroupDestroyedWithAnOpRunningNoLongerMakesItsJobYield) {
  RingPair p;
  p.Start(0, 10, 16, 679);  // waits for node 1, which never starts it
  EXPECT_TRUE(p.nodes[0].sched->OpYields(1, 999));
  p.nodes[0].group.reset();
  EXPECT_FALSE(p.nodes[0].sched->OpYields(1, 999));
}

}  // namespace
}  // namespace outrider::agent
