// Writes the fuzz targets' seed corpora: `seeds DIR` fills DIR/<target>/ (the repository keeps them
// in fuzz/corpus/). Seeds are well-formed inputs in each target's format: hellos, control messages
// and entries a shim would send, rendezvous frames an agent would send, and the messages real node
// groups and sparse exchanges send each other, recorded while they run the op the seed sets up.
// The config target's seeds are hand-written TOML files in fuzz/corpus/config/.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/node_group.h"
#include "agent/log.h"
#include "agent/membership/wire.h"
#include "agent/transport/fake/fake_transport.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/peer_ops.h"
#include "fuzz/sparse_setup.h"
#include "ipc/nccl_stats_wire.h"
#include "ipc/protocol.h"

namespace outrider::fuzz {
namespace {

std::string g_dir;

void Write(const std::string& target, const std::string& name, const FuzzOutput& out) {
  std::string dir = g_dir + "/" + target;
  ::mkdir(dir.c_str(), 0755);
  std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  OUTRIDER_CHECK(f != nullptr);
  OUTRIDER_CHECK(std::fwrite(out.data().data(), 1, out.data().size(), f) == out.data().size());
  std::fclose(f);
}

template <typename Msg>
Msg Message(ipc::MsgType type, uint32_t request_id) {
  Msg m{};
  ipc::InitMsgHeader(&m.header, type, sizeof(m) - sizeof(m.header), request_id);
  return m;
}

// ---- control: a hello, then control messages and submissions. ----

ipc::HelloRequest Hello(int rank, int world, int local_rank, int local_world, uint32_t sq_entries) {
  auto h = Message<ipc::HelloRequest>(ipc::MsgType::kHello, 1);
  ipc::CopyText(h.job_id, sizeof(h.job_id), "seed-job");
  h.rank = rank;
  h.world_size = world;
  h.local_rank = local_rank;
  h.local_world_size = local_world;
  h.pid = 1234;
  h.requested_sq_entries = sq_entries;
  if (world > local_world) ipc::CopyText(h.root_addr, sizeof(h.root_addr), "10.0.0.1:29750");
  ipc::CopyText(h.token, sizeof(h.token), "seed-token");
  return h;
}

ipc::SubmitEntry Allreduce(uint64_t op_id, uint32_t region) {
  ipc::SubmitEntry e{};
  e.op_id = op_id;
  e.key = 7;
  e.kind = static_cast<uint32_t>(ipc::OpKind::kAllreduce);
  e.dtype = static_cast<uint32_t>(ipc::DType::kF32);
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kSum);
  e.count = 16;
  e.send = {region, 0, 0, 64};
  e.recv = {region, 0, 1024, 64};
  return e;
}

// Control message actions (see control_fuzzer.cc): fds in bits 2..4, submission = 3.
void PutMessage(FuzzOutput& out, const void* msg, size_t bytes,
                const std::vector<uint32_t>& memfd_sizes = {}, uint8_t fd_kind = 0) {
  out.Put<uint8_t>(static_cast<uint8_t>(memfd_sizes.size() << 2));
  for (uint32_t size : memfd_sizes) {
    out.Put<uint8_t>(fd_kind);
    out.Put<uint32_t>(size - 1);
  }
  out.Bytes(msg, bytes);
}

void PutRegister(FuzzOutput& out, uint32_t request_id, uint64_t bytes, uint8_t fd_kind = 0) {
  auto reg = Message<ipc::RegisterRegion>(ipc::MsgType::kRegisterRegion, request_id);
  reg.bytes = bytes;
  PutMessage(out, &reg, sizeof(reg), {static_cast<uint32_t>(bytes)}, fd_kind);
}

void PutSubmission(FuzzOutput& out, const ipc::SubmitEntry& e) {
  out.Put<uint8_t>(3);
  out.Raw(&e, sizeof(e));
}

void ControlSeeds() {
  {
    FuzzOutput out;
    auto hello = Hello(0, 1, 0, 1, 0);
    out.Bytes(&hello, sizeof(hello));
    out.Put<uint8_t>(3);       // 4 regions
    out.Put<uint16_t>(65535);  // of up to 64 KiB
    PutRegister(out, 2, 4096);
    PutSubmission(out, Allreduce(1, 1));
    PutSubmission(out, Allreduce(2, 1));
    auto release = Message<ipc::ReleaseRegion>(ipc::MsgType::kReleaseRegion, 3);
    release.region_id = 1;
    PutMessage(out, &release, sizeof(release));
    PutSubmission(out, Allreduce(3, 1));  // names a released region
    auto bye = Message<ipc::Goodbye>(ipc::MsgType::kGoodbye, 0);
    PutMessage(out, &bye, sizeof(bye));
    Write("control", "register-submit-release", out);
  }
  {
    FuzzOutput out;
    auto hello = Hello(5, 8, 1, 4, 64);
    out.Bytes(&hello, sizeof(hello));
    out.Put<uint8_t>(1);  // 2 regions
    out.Put<uint16_t>(8191);
    PutRegister(out, 2, 4096);
    PutRegister(out, 3, 8192);
    PutRegister(out, 4, 4096);     // over the region limit
    PutRegister(out, 5, 4096, 1);  // not sealed
    PutRegister(out, 6, 4096, 2);  // not a memfd
    auto release = Message<ipc::ReleaseRegion>(ipc::MsgType::kReleaseRegion, 7);
    release.region_id = 9;  // never registered
    PutMessage(out, &release, sizeof(release));
    Write("control", "regions-and-limits", out);
  }
  {
    FuzzOutput out;  // the previous release's shim: served, at its hello's own size
    auto hello = Hello(0, 2, 0, 2, 8);
    hello.header.version = ipc::kOldestProtocolVersion;
    hello.header.body_bytes = ipc::HelloBytes(hello.header.version) - sizeof(hello.header);
    out.Bytes(&hello, ipc::HelloBytes(hello.header.version));
    Write("control", "hello-previous-version", out);
  }
  {
    FuzzOutput out;  // older still: refused
    auto hello = Hello(0, 2, 0, 2, 8);
    hello.header.version = ipc::kOldestProtocolVersion - 1;
    out.Bytes(&hello, sizeof(hello));
    Write("control", "hello-old-version", out);
  }
}

// ---- submission: two regions with counts and ids in them, then entries. ----

void SubmissionSeeds() {
  constexpr uint32_t kValues = 1, kIndex = 2;
  auto entry = [](ipc::OpKind kind) {
    ipc::SubmitEntry e{};
    e.key = 9;
    e.kind = static_cast<uint32_t>(kind);
    return e;
  };
  for (int world : {1, 4}) {
    FuzzOutput out;
    int rank = world - 1;
    out.Put<uint8_t>(static_cast<uint8_t>((world - 1) | (rank << 2)));
    out.Put<uint16_t>(8191);  // values region: 8 KiB
    out.Bytes(std::vector<uint8_t>(64, 1));
    out.Put<uint16_t>(
        1023);  // index region: alltoallv counts at 0, sparse ids at 256, demand at 512
    std::vector<uint8_t> index(1024, 0);
    std::vector<int64_t> counts(2 * static_cast<size_t>(world), 2);
    std::memcpy(index.data(), counts.data(), counts.size() * 8);
    std::vector<int64_t> ids = {3, 17, 3, 99, 0};
    std::memcpy(index.data() + 256, ids.data(), ids.size() * 8);
    std::memcpy(index.data() + 512, ids.data() + 1, 8);
    out.Bytes(index);
    out.Put<uint8_t>(0);  // both regions stay
    auto put = [&out](const ipc::SubmitEntry& e) {
      out.Raw(&e, sizeof(e));
      out.Put<uint8_t>(0);
    };
    uint64_t n = static_cast<uint64_t>(world);
    {
      ipc::SubmitEntry e = Allreduce(0, kValues);
      put(e);
      e.send = e.recv;  // in place
      put(e);
    }
    {
      ipc::SubmitEntry e = entry(ipc::OpKind::kBroadcast);
      e.dtype = static_cast<uint32_t>(ipc::DType::kBF16);
      e.count = 32;
      e.root = world - 1;
      e.send = e.recv = {kValues, 0, 128, 64};
      put(e);
    }
    {
      ipc::SubmitEntry e = entry(ipc::OpKind::kAllgather);
      e.dtype = static_cast<uint32_t>(ipc::DType::kI64);
      e.count = 4;
      e.recv = {kValues, 0, 0, 32 * n};
      e.send = {kValues, 0, 32 * static_cast<uint64_t>(rank), 32};  // in place
      put(e);
    }
    {
      ipc::SubmitEntry e = entry(ipc::OpKind::kReduceScatter);
      e.dtype = static_cast<uint32_t>(ipc::DType::kF64);
      e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kAvg);
      e.count = 2;
      e.send = {kValues, 0, 0, 16 * n};
      e.recv = {kValues, 0, 4096, 16};
      put(e);
    }
    put(entry(ipc::OpKind::kBarrier));
    {
      ipc::SubmitEntry e = entry(ipc::OpKind::kAlltoallv);
      e.dtype = static_cast<uint32_t>(ipc::DType::kI32);
      e.aux = {kIndex, 0, 0, 16 * n};
      e.send = {kValues, 0, 0, 8 * n};
      e.recv = {kValues, 0, 4096, 8 * n};
      put(e);
    }
    for (ipc::OpKind kind :
         {ipc::OpKind::kSparseAllreduce, ipc::OpKind::kSparseShard, ipc::OpKind::kSparseLookup}) {
      ipc::SubmitEntry e = entry(kind);
      e.dtype = static_cast<uint32_t>(ipc::DType::kF32);
      e.id_dtype = static_cast<uint32_t>(ipc::DType::kI64);
      e.count = 2;  // dim
      e.rows = 128;
      e.aux = {kIndex, 0, 256, 8 * ids.size()};
      uint64_t in_rows = ids.size();
      if (kind == ipc::OpKind::kSparseLookup) {
        in_rows = ipc::ShardFirstRow(128, world, rank + 1) - ipc::ShardFirstRow(128, world, rank);
      }
      e.send = {kValues, 0, 0, in_rows * 8};
      e.recv = {kValues, 0, 4096, 16 * 8};
      if (kind != ipc::OpKind::kSparseLookup) e.out_ids = {kValues, 0, 6144, 16 * 8};
      if (kind == ipc::OpKind::kSparseAllreduce) {
        e.algo = static_cast<uint32_t>(ipc::SparseAlgo::kBalanced);
        e.demand = {kIndex, 0, 512, 8};
      }
      put(e);
    }
    Write("submission", "every-kind-world-" + std::to_string(world), out);
  }
}

// ---- sparse: setups whose messages come from real exchanges of every node. ----

FuzzOutput SparseSetupBytes(SparseAlgorithm algo, bool codec, uint8_t topo, uint64_t rows,
                            uint8_t dim, uint8_t dtype, uint16_t block_rows) {
  FuzzOutput out;
  out.Put<uint8_t>(static_cast<uint8_t>(static_cast<int>(algo) | (codec ? 0x80 : 0)));
  out.Put<uint8_t>(topo);
  out.Put<uint64_t>(rows - 1);
  out.Put<uint8_t>(static_cast<uint8_t>(dim - 1));
  out.Put<uint8_t>(dtype);
  out.Put<uint16_t>(static_cast<uint16_t>(block_rows - 1));
  return out;
}

void PutRows(FuzzOutput& out, const std::vector<uint64_t>& ids, uint64_t dim, int8_t value) {
  out.Put<uint8_t>(static_cast<uint8_t>(ids.size()));
  for (uint64_t id : ids) {
    out.Put<uint64_t>(id);
    for (uint64_t k = 0; k < dim; ++k) out.Put<int8_t>(static_cast<int8_t>(value + k));
  }
}

void SparseSeeds() {
  const uint64_t kRows = 200;
  for (int a = 0; a < kNumSparseAlgorithms; ++a) {
    auto algo = static_cast<SparseAlgorithm>(a);
    uint8_t topo = 4;  // 3 nodes, this one is node 1, one rank each
    uint8_t dtype = static_cast<uint8_t>(a % 3);
    FuzzOutput out = SparseSetupBytes(algo, false, topo, kRows, 4, dtype, 8);
    uint64_t dim = algo == SparseAlgorithm::kLookup ? 0 : 4;
    // Every node's rows, written as the target reads them (only node 1's go into the seed).
    std::vector<std::vector<uint64_t>> node_ids = {
        {1, 2, 3, 100, 199}, {2, 3, 4, 140, 141, 142}, {0, 199}};
    std::vector<FuzzOutput> node_rows(3);
    for (size_t n = 0; n < 3; ++n)
      PutRows(node_rows[n], node_ids[n], dim, static_cast<int8_t>(n + 1));
    out.Raw(node_rows[1].data().data(), node_rows[1].data().size());
    FuzzInput setup_in(out.data().data(), out.data().size());
    SparseSetup setup = ReadSparseSetup(setup_in);
    std::vector<std::unique_ptr<agent::sparse::Exchange>> ex;
    std::vector<agent::sparse::Rows> mine;
    for (int n = 0; n < 3; ++n) {
      agent::sparse::Context c = setup.ctx;
      c.me = n;
      agent::sparse::Table table = c.table;
      ex.push_back(MakeExchange(algo, c, [table](uint64_t, float* dst) {
        for (uint64_t k = 0; k < table.dim; ++k) dst[k] = 1.0f;
      }));
      FuzzInput rows_in(node_rows[static_cast<size_t>(n)].data().data(),
                        node_rows[static_cast<size_t>(n)].data().size());
      mine.push_back(ReadRows(rows_in, setup));
    }
    struct Msg {
      int from, to;
      uint32_t phase;
      std::vector<uint8_t> bytes;
    };
    std::deque<Msg> queue;
    std::vector<agent::sparse::Outgoing> sent;
    auto post = [&](int from) {
      for (auto& o : sent) queue.push_back({from, o.node, o.phase, *o.bytes});
      sent.clear();
    };
    for (int n = 0; n < 3; ++n) {
      ex[static_cast<size_t>(n)]->Start(std::move(mine[static_cast<size_t>(n)]), &sent);
      post(n);
    }
    for (;;) {
      if (queue.empty()) {  // everything sent is delivered: each node may have more held back
        for (int n = 0; n < 3; ++n) {
          ex[static_cast<size_t>(n)]->Pull(&sent);
          post(n);
        }
        if (queue.empty()) break;
      }
      Msg m = std::move(queue.front());
      queue.pop_front();
      OUTRIDER_CHECK(ex[static_cast<size_t>(m.to)]
                         ->OnMessage(m.from, m.phase, m.bytes.data(), m.bytes.size(), &sent)
                         .ok());
      post(m.to);
      if (m.to != 1) continue;
      out.Put<uint8_t>(static_cast<uint8_t>(m.from));
      out.Put<uint8_t>(static_cast<uint8_t>(m.phase));
      out.Bytes(m.bytes);
    }
    OUTRIDER_CHECK(ex[1]->done());
    static const char* kNames[] = {"allgather",   "balanced",   "block", "dense",
                                   "shard-range", "shard-hash", "lookup"};
    Write("sparse", std::string("exchange-") + kNames[a], out);
  }
  // The codec on its own: one payload per encoding, decoded against the range it was made for.
  agent::sparse::Table t{kRows, 3, ipc::DType::kF16};
  agent::sparse::Rows r;
  r.ids = {100, 101, 107, 130, 199};  // inside [100, 200) of a 200-row table
  r.vals.assign(r.ids.size() * t.dim, 0.5f);
  agent::sparse::IdRange range{100, 200};
  for (auto enc : {agent::sparse::Encoding::kSparse, agent::sparse::Encoding::kBlocks,
                   agent::sparse::Encoding::kDense}) {
    FuzzOutput out = SparseSetupBytes(SparseAlgorithm::kAllgather, true, 0, kRows, 3, 1, 8);
    out.Put<uint64_t>(range.lo);
    out.Put<uint64_t>(range.size() - 1);
    std::vector<uint8_t> bytes = agent::sparse::Encode(enc, r, 0, r.size(), range, t, 8);
    out.Raw(bytes.data(), bytes.size());
    Write("sparse", "codec-" + std::to_string(static_cast<int>(enc)), out);
  }
}

// ---- rendezvous: frames an agent would send to a root. ----

void PutFrame(FuzzOutput& out, const std::string& frame) {
  uint32_t len;
  std::memcpy(&len, frame.data(), 4);
  out.Put<uint32_t>(len);
  out.Bytes(frame.data() + 4, frame.size() - 4);
}

void RendezvousSeeds() {
  namespace rdv = agent::rendezvous;
  // The target's job: 2 + flags % 4 nodes of 1 + (flags >> 2) % 4 ranks, "fuzz-job", "fuzz-token".
  const uint8_t flags = 1 | (1 << 2);  // 3 nodes x 2 ranks
  agent::JobShape shape{"fuzz-job", "fuzz-token", 3, 2};
  auto seed = [&](const std::string& name, uint8_t extra, const std::vector<std::string>& frames) {
    FuzzOutput out;
    out.Put<uint8_t>(flags | extra);
    out.Put<uint8_t>(static_cast<uint8_t>(frames.size() - 1));
    for (const std::string& f : frames) PutFrame(out, f);
    Write("rendezvous", name, out);
  };
  std::string join1 = rdv::Encode(rdv::kJoin, shape, 1, {"fake:1"});
  std::string join2 = rdv::Encode(rdv::kJoin, shape, 2, {"fake:2"});
  seed("all-join-offered-first", 0x10, {join1, join2});
  seed("all-join-offered-last", 0, {join2, join1});
  agent::JobShape wrong_token = shape;
  wrong_token.token = "guess";
  agent::JobShape wrong_shape = shape;
  wrong_shape.num_nodes = 4;
  seed("refused-joins", 0x10,
       {rdv::Encode(rdv::kJoin, wrong_token, 1, {"fake:1"}),
        rdv::Encode(rdv::kJoin, wrong_shape, 2, {"fake:2"}),
        rdv::Encode(rdv::kJoin, shape, 3, {"fake:3"}), join1, join1});
  seed("one-missing-expires", 0x10 | 0x20, {join1});
  seed("withdrawn", 0x40, {join2});
  // Forgeries: a node 0 with a guessed token before the root offers, and a withdrawal without one.
  seed("forged-node-zero", 0,
       {rdv::Encode(rdv::kJoin, wrong_token, 0, {"forger:0"}), join1, join2});
  agent::JobShape no_token = shape;
  no_token.token = "";
  seed("forged-withdraw", 0,
       {rdv::Encode(rdv::kWithdraw, no_token, 0, {"rank 1 died"}), join1, join2});
  seed("not-a-join", 0x10,
       {rdv::Encode(rdv::kTable, shape, 1, {"fake:0", "fake:1", "fake:2"}),
        rdv::Encode(rdv::kRefuse, shape, 1, {"no"})});
}

// ---- peer: a node's messages to node 0, recorded from real node groups running the op. ----

// What node 0 of a job receives from the other nodes while every node runs one instance.
std::vector<std::pair<agent::PeerHeader, std::vector<uint8_t>>> Record(
    const OpShape& shape, int nodes, int local, const agent::EngineOptions& options) {
  agent::FakeNetwork net;
  struct Node {
    std::unique_ptr<agent::FakeTransport> port;
    agent::HostDataPlane plane;
    std::unique_ptr<agent::NodeGroup> group;
    std::vector<RankOp> ops;
  };
  std::vector<Node> node(static_cast<size_t>(nodes));
  std::vector<std::pair<agent::PeerHeader, std::vector<uint8_t>>> got;
  for (int n = 0; n < nodes; ++n) {
    agent::Transport::Callbacks cb;
    cb.on_message = [&node, &got, n](agent::Lane, const uint8_t* header, size_t,
                                     const uint8_t* data, size_t len) {
      agent::PeerHeader h;
      std::memcpy(&h, header, sizeof(h));
      if (n == 0) got.emplace_back(h, std::vector<uint8_t>(data, data + len));
      node[static_cast<size_t>(n)].group->OnMessage(h, data, len);
    };
    node[static_cast<size_t>(n)].port = net.Attach(cb);
    node[static_cast<size_t>(n)].group = std::make_unique<agent::NodeGroup>(
        agent::Topology{"fuzz", nodes, n, agent::RankLayout::Even(nodes, local)}, 1,
        100 + static_cast<uint64_t>(n), node[static_cast<size_t>(n)].port.get(),
        &node[static_cast<size_t>(n)].plane,
        [](uint64_t, uint64_t, const Status& st, std::string_view,
           const std::vector<agent::OpReport>*, const agent::OpTrace&) { OUTRIDER_CHECK(st.ok()); },
        options);
  }
  std::vector<agent::PeerId> peers;
  for (int n = 0; n < nodes; ++n) peers.push_back(static_cast<agent::PeerId>(n));
  for (int n = 0; n < nodes; ++n) {
    for (int m = 0; m < nodes; ++m) {
      if (m != n)
        OUTRIDER_CHECK(
            node[static_cast<size_t>(n)].port->Connect(agent::FakeNetwork::Address(m)).ok());
    }
    node[static_cast<size_t>(n)].group->SetPeers(peers);
  }
  for (int n = 0; n < nodes; ++n) {
    std::vector<const agent::ValidatedOp*> ops;
    for (int l = 0; l < local; ++l)
      node[static_cast<size_t>(n)].ops.push_back(MakeOp(shape, n * local + l, nodes * local));
    for (const RankOp& r : node[static_cast<size_t>(n)].ops) ops.push_back(&r.op);
    node[static_cast<size_t>(n)].group->Start(kKey, 0, ops);
  }
  for (bool any = true; any;) {
    any = net.RunUntilIdle() > 0;
    for (Node& x : node) any |= x.group->Pump();
  }
  return got;
}

void PeerSeeds() {
  struct Case {
    const char* name;
    uint8_t topo;  // nodes = 2 + topo % 3, local = 1 + (topo >> 2) % 2, 0x10: large-path algorithms
    std::vector<uint8_t> shape;  // as ReadShape reads it
  };
  auto u32 = [](uint32_t v) {
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &v, 4);
    return b;
  };
  auto cat = [](std::vector<std::vector<uint8_t>> parts) {
    std::vector<uint8_t> all;
    for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  std::vector<Case> cases = {
      {"allreduce-direct", 0, {0, 15}},
      {"allreduce-ring-3-nodes", 1 | 0x10, {0, 63}},
      {"allreduce-f16-avg-2-ranks", 4, {1, 31}},
      {"broadcast-direct", 4, {2, 7, 3}},
      {"broadcast-chain", 0x10, {2, 31, 1}},
      {"allgather-ring", 1 | 0x10, {3, 9}},
      {"allgather-direct", 4, {3, 5}},
      {"reduce-scatter", 1, {4, 3}},
      {"barrier", 0, {5, 0}},
      {"alltoallv", 4, {6, 0, 2}},
      {"sparse-allreduce-auto-demand", 1,
       cat({{7, 3, 0}, u32(999), {0x82, 3}, u32(5), u32(77), u32(5)})},
      {"sparse-allreduce-block", 0, cat({{7, 1, 1}, u32(4095), {3, 2}, u32(8), u32(9)})},
      {"sparse-allreduce-dense", 0, cat({{7, 1, 0}, u32(63), {4, 1}, u32(3)})},
      {"sparse-shard-hash", 4, cat({{8, 2, 0}, u32(99999), {1, 2}, u32(42), u32(4242)})},
      {"sparse-lookup", 1, cat({{9, 2, 0}, u32(300), {0, 3}, u32(1), u32(150), u32(299)})},
  };
  for (const Case& c : cases) {
    int nodes = 2 + c.topo % 3, local = 1 + (c.topo >> 2) % 2;
    FuzzInput shape_in(c.shape.data(), c.shape.size());
    OpShape shape = ReadShape(shape_in, nodes * local);
    agent::EngineOptions options;
    if (c.topo & 0x10) options.direct_max_bytes = 0;
    options.chunk_bytes = 4096;
    FuzzOutput out;
    out.Put<uint8_t>(c.topo);
    out.Raw(c.shape.data(), c.shape.size());
    for (auto& [h, payload] : Record(shape, nodes, local, options)) {
      out.Put<uint8_t>(0);                                      // a message
      out.Put<uint8_t>(static_cast<uint8_t>(h.from_node - 1));  // from that node's endpoint
      out.Put<uint8_t>(0x01 | 0x02 | 0x04);  // with this job's magic, hash, sender
      out.Raw(&h, sizeof(h));
      out.Bytes(payload);
      out.Put<uint8_t>(10);  // pump
    }
    out.Put<uint8_t>(15);  // /status
    Write("peer", c.name, out);
  }
}

// NCCL telemetry datagrams as the interposer and the profiler plugin send them.
void TelemetrySeeds() {
  struct Case {
    const char* name;
    ipc::NcclSource source;
    const char* job;
    int records;
  };
  for (const Case& c :
       {Case{"interposer-allreduce", ipc::NcclSource::kInterposer, "train-42", 1},
        Case{"profiler-every-op-unnamed", ipc::NcclSource::kProfiler, "", ipc::kNumNcclOps}}) {
    ipc::NcclStatsHeader h{};
    h.magic = ipc::kNcclTelemetryMagic;
    h.version = ipc::kNcclTelemetryVersion;
    h.source = static_cast<uint8_t>(c.source);
    h.records = static_cast<uint8_t>(c.records);
    h.pid = 4242;
    h.rank = 1;
    h.nranks = 2;
    h.comm_id = 0x1234abcd5678ef00ull;
    std::strncpy(h.job, c.job, sizeof(h.job) - 1);
    FuzzOutput out;
    out.Raw(&h, sizeof(h));
    for (int i = 0; i < c.records; ++i) {
      ipc::NcclStatsRecord r{};
      r.op = static_cast<uint32_t>(i);
      r.calls = 3;
      r.bytes = 3u << 20;
      r.timed_calls = 2;
      r.gpu_ns = 150000;
      out.Raw(&r, sizeof(r));
    }
    Write("telemetry", c.name, out);
  }
}

// ---- generations: the bodies agents send each other about a job's next generation, and a
// Reformer driven by them. ----

void GenerationsSeeds() {
  namespace m = agent::membership;
  auto body = [](const std::string& name, uint8_t mode, const std::string& b) {
    FuzzOutput out;
    out.Put<uint8_t>(mode);
    out.Raw(b.data(), b.size());
    Write("generations", name, out);
  };
  m::ReformRequest node;
  node.generation = 0;
  node.port = 29400;
  node.node = 1;
  node.timeout_ms = 5000;
  node.ranks = {1};
  m::ReformRequest joiner;
  joiner.joiner = true;
  joiner.port = 29400;
  joiner.timeout_ms = 5000;
  body("node-report", 0, m::EncodeReformRequest(node));
  body("joiner-ask", 0, m::EncodeReformRequest(joiner));
  m::ReformDecision d;
  d.generation = 1;
  d.world_size = 3;
  d.node_ranks = {2, 1};
  d.root = "10.0.0.1:29400";
  d.agents = {"10.0.0.1:29400", "10.0.0.2:29400"};
  d.assign = {{0, 0, ""}, {2, 0, ""}, {-1, -1, "its node runs 64 ranks"}, {-1, -1, ""}};
  body("decision", 1, m::EncodeReformDecision(d));
  body("refusal", 1, m::EncodeReformDecision(m::ReformDecision::Refusal(Code::kPeerLost, "x")));
  body("absent", 1, m::EncodeReformDecision(m::ReformDecision::Absent()));
  // Driving agent 0: steps are 0 (a request: flags, body), 1 and 2 (a rank of node 0 or 1 asks:
  // its timeout), 3 (the clock moves on: units of 100 ms).
  auto drive = [](const std::string& name, const std::function<void(FuzzOutput&)>& steps) {
    FuzzOutput out;
    out.Put<uint8_t>(2);
    steps(out);
    Write("generations", name, out);
  };
  auto request = [](FuzzOutput& out, uint8_t flags, const std::string& b) {
    out.Put<uint8_t>(0);
    out.Put<uint8_t>(flags);
    out.Bytes(b);
  };
  drive("both-nodes-ask", [&](FuzzOutput& out) {
    out.Put<uint8_t>(1);
    out.Put<uint16_t>(5000);
    out.Put<uint8_t>(2);
    out.Put<uint16_t>(5000);
  });
  drive("report-then-own-rank", [&](FuzzOutput& out) {
    request(out, 0, m::EncodeReformRequest(node));
    out.Put<uint8_t>(1);
    out.Put<uint16_t>(5000);
  });
  drive("joiner-then-deadline", [&](FuzzOutput& out) {
    request(out, 0, m::EncodeReformRequest(joiner));
    out.Put<uint8_t>(3);
    out.Put<uint16_t>(100);
  });
  drive("wrong-token", [&](FuzzOutput& out) { request(out, 1, m::EncodeReformRequest(node)); });
}

}  // namespace
}  // namespace outrider::fuzz

int main(int argc, char** argv) {
  using namespace outrider::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (writes DIR/<target>/ seeds)\n", argv[0]);
    return 2;
  }
  (void)outrider::agent::InitLogging("off");
  g_dir = argv[1];
  ::mkdir(g_dir.c_str(), 0755);
  ControlSeeds();
  SubmissionSeeds();
  SparseSeeds();
  RendezvousSeeds();
  PeerSeeds();
  TelemetrySeeds();
  GenerationsSeeds();
  return 0;
}
