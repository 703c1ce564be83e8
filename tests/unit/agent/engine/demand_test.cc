// Row demand inside one sparse allreduce, on two in-process node groups joined by a fake
// transport (messages move only when the test says so) and send schedulers on a fake clock:
// the chunks carrying the demanded rows overtake the op's other chunks, the demanded rows reach
// the clients while most of the op is still on the wire, and every row ends up bitwise the same
// as without demand.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "agent/engine/node_group.h"
#include "agent/sched/send_scheduler.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kRows = 100000;
constexpr uint64_t kDim = 16;
constexpr uint64_t kNnz = 20000;   // ids 0..kNnz-1 on both nodes: ~1.3 MB per message
constexpr uint64_t kChunk = 64 << 10;

struct Wire;

class FakePort : public Transport {
 public:
  FakePort(Wire* wire, int me) : wire_(wire), me_(me), address_("node" + std::to_string(me)) {}
  const std::string& address() const override { return address_; }
  Result<PeerId> Connect(const std::string&) override { return PeerId{0}; }
  Status Send(PeerId peer, const void* header, size_t header_len, const void* data, size_t len, SendDone done) override;
  void Disconnect(PeerId) override {}
  int event_fd() const override { return -1; }
  bool Progress() override { return false; }
  bool Arm() override { return true; }

 private:
  Wire* wire_;
  int me_;
  std::string address_;
};

struct Node {
  std::unique_ptr<FakePort> port;
  std::unique_ptr<SendScheduler> sched;
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
  struct Msg {
    int from, to;
    PeerHeader h;
    std::vector<uint8_t> data;
    Transport::SendDone done;
  };
  uint64_t now = 0;
  std::deque<Msg> queue;
  std::vector<Node> nodes{2};

  // Delivers the oldest message: the sender hears it left, the receiver gets it and, for a
  // scheduled chunk, returns its credit.
  bool Step() {
    if (queue.empty()) return false;
    Msg m = std::move(queue.front());
    queue.pop_front();
    if (m.done) m.done(Status::Ok());
    Node& to = nodes[static_cast<size_t>(m.to)];
    if (IsScheduledChunk(m.h.type)) {
      nodes[static_cast<size_t>(m.from)].sched->Done(PeerId(m.to), sizeof(PeerHeader) + m.data.size());
    }
    if (m.h.type == static_cast<uint16_t>(PeerMsg::kSparse)) ++to.chunks_in;
    to.group->OnMessage(m.h, m.data.data(), m.data.size());
    return true;
  }
};

Status FakePort::Send(PeerId peer, const void* header, size_t, const void* data, size_t len, SendDone done) {
  Wire::Msg m{me_, static_cast<int>(peer), {}, {}, std::move(done)};
  std::memcpy(&m.h, header, sizeof(PeerHeader));
  const auto* p = static_cast<const uint8_t*>(data);
  if (len > 0) m.data.assign(p, p + len);
  wire_->queue.push_back(std::move(m));
  return Status::Ok();
}

float Value(int node, uint64_t id, uint64_t j) { return static_cast<float>((id * 7 + j) % 13) * 0.25f + static_cast<float>(node); }

// Runs one sparse allreduce (allgather) over two nodes, `demanded` ids demanded by node 1.
void RunOp(Wire& w, const std::vector<int64_t>& demanded, uint64_t node1_capacity = kNnz) {
  for (int n = 0; n < 2; ++n) {
    Node& x = w.nodes[static_cast<size_t>(n)];
    x.port = std::make_unique<FakePort>(&w, n);
    x.sched = std::make_unique<SendScheduler>(SchedulerOptions{true, 2 * kChunk, 100'000'000}, [&w] { return w.now; });
    x.group = std::make_unique<NodeGroup>(
        "job", 1, static_cast<uint64_t>(n + 1), 2, n, 1, x.port.get(),
        [&x](uint64_t, uint64_t, const Status& st, const std::vector<OpReport>* reports) {
          x.done = true;
          x.result = st;
          if (reports != nullptr) x.report = (*reports)[0];
        },
        NodeGroupOptions{256 << 10, kChunk, 8, 1.25e9});
    x.group->set_scheduler(x.sched.get());
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
    o.ids = reinterpret_cast<const uint8_t*>(x.ids.data());
    o.nnz = kNnz;
    o.send = reinterpret_cast<uint8_t*>(x.vals.data());
    o.send_bytes = x.vals.size() * 4;
    o.recv = reinterpret_cast<uint8_t*>(x.out_vals.data());
    o.recv_bytes = x.out_vals.size() * 4;
    o.out_ids = reinterpret_cast<uint8_t*>(x.out_ids.data());
    o.capacity = n == 1 ? node1_capacity : kNnz;
    o.recv_bytes = o.capacity * kDim * 4;
    o.demand = reinterpret_cast<const uint8_t*>(x.demand.data());
    o.demand_n = x.demand.size();
  }
  w.nodes[0].group->SetPeers({0, 1});
  w.nodes[1].group->SetPeers({0, 1});
  for (int n = 0; n < 2; ++n) w.nodes[static_cast<size_t>(n)].group->Start(5, 0, {&w.nodes[static_cast<size_t>(n)].op});
  for (int guard = 0; guard < 100000 && w.Step(); ++guard) {
  }
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
    EXPECT_EQ(std::vector<int64_t>(d.out_ids.begin(), d.out_ids.begin() + 4), (std::vector<int64_t>{19990, 19995, 19997, 19999}));
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

}  // namespace
}  // namespace outrider::agent
