// Fuzz target: messages from other nodes' agents. One agent (a real Network and JobTable over the
// fake transport, on a fake clock) serves a multi-node job whose shape the input picks: nodes,
// ranks per node, and the op every local rank submits (kind, dtype, size, sparse table and
// algorithm; built as a client would and checked by ValidateEntry). The other nodes are fake peer
// endpoints that joined the job through the agent's real rendezvous server. The rest of the input
// is what they send (headers and payloads; the job's identity, the instance and the fingerprint
// filled in when the input asks, so messages reach the engine's own parsers; on either lane),
// interleaved with local pumps, heartbeat ticks, broken links, more instances, sends and receives
// of the local ranks (and point-to-point messages from the peers), /status, and ranks leaving.
// Whatever arrives, the agent must not crash or leak, and every op completes exactly once.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/engine/agreement.h"
#include "agent/engine/job_table.h"
#include "agent/engine/json_text.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "agent/transport/fake/fake_transport.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/loopback.h"
#include "fuzz/peer_ops.h"

namespace outrider::fuzz {
namespace {

using agent::PeerHeader;
using agent::ValidatedOp;

const std::string kJobId = "fuzz";
const std::string kToken = "fuzz-token";
constexpr int kMaxActions = 48;
constexpr uint64_t kMs = 1'000'000;

// A local rank of the job: records its completions, which must come once per op.
class Rank : public agent::Member {
 public:
  Rank(int rank, int world, int local_rank, int local_size) {
    id_.job_id = kJobId;
    id_.rank = rank;
    id_.world_size = world;
    id_.local_rank = local_rank;
    id_.local_world_size = local_size;
    id_.token = kToken;
  }
  const agent::ClientIdentity& identity() const override { return id_; }
  void Complete(uint64_t op_id, const Status&, uint64_t, uint64_t,
                const agent::OpReport*) override {
    OUTRIDER_CHECK(!left);
    OUTRIDER_CHECK(++completions[op_id] == 1);
  }
  void Partial(uint64_t op_id, uint64_t, uint64_t, const agent::OpReport&) override {
    OUTRIDER_CHECK(!left && completions.count(op_id) == 0);
  }

  std::map<uint64_t, int> completions;  // by op id
  std::vector<uint64_t> submitted;
  bool left = false;

 private:
  agent::ClientIdentity id_;
};

// Joins `node` to the job at the agent's rendezvous port, as that node's agent would.
UniqueFd Join(uint16_t port, const agent::JobShape& shape, int node) {
  UniqueFd fd = ConnectLoopback(port);
  SendAll(fd.get(), agent::rendezvous::Encode(agent::rendezvous::kJoin, shape, node,
                                              {agent::FakeNetwork::Address(node)}));
  return fd;
}

// Runs the loop until it has dispatched what is ready now (the rendezvous joins).
void RunLoopOnce(agent::EventLoop* loop) {
  int polls = 0;
  agent::EventLoop::Hooks hooks;
  hooks.poll = [&] {
    if (++polls == 2) loop->Stop();
    return true;
  };
  hooks.prepare_sleep = [] { return true; };
  hooks.after_wake = [] {};
  hooks.timeout_ms = [] { return 0; };
  loop->Run(hooks);
}

}  // namespace
}  // namespace outrider::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)outrider::agent::InitLogging("off");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace outrider;
  using namespace outrider::fuzz;
  using agent::FakeNetwork;
  FuzzInput in(data, size);
  uint8_t topo = in.Read<uint8_t>();
  int nodes = 2 + topo % 3, local = 1 + (topo >> 2) % 2, world = nodes * local;
  OpShape shape = ReadShape(in, world);
  agent::EngineOptions engine;
  engine.direct_max_bytes =
      (topo & 0x10) ? 0 : engine.direct_max_bytes;  // 0: every large-path algorithm
  engine.chunk_bytes = 4096;

  uint64_t now = 1'000'000'000;
  Result<std::unique_ptr<agent::EventLoop>> loop = agent::EventLoop::Create(0);
  OUTRIDER_CHECK(loop.ok());
  auto fake = std::make_unique<FakeNetwork>();
  auto jobs = std::make_unique<agent::JobTable>();
  jobs->set_engine_options(engine);
  agent::NetworkOptions options;
  options.listen_address = "127.0.0.1";
  options.port = 0;
  options.rendezvous_timeout_ms = 5000;
  Result<std::unique_ptr<agent::Network>> net = agent::Network::Create(
      loop->get(), jobs.get(), options, fake->Factory(), [&now] { return now; });
  OUTRIDER_CHECK(net.ok());
  jobs->set_network(net->get());
  // The other nodes' agents: endpoints 1.. of the fake network, connected to this agent (0).
  std::vector<std::unique_ptr<agent::FakeTransport>> peers(static_cast<size_t>(nodes));
  for (int n = 1; n < nodes; ++n) {
    peers[static_cast<size_t>(n)] = fake->Attach(agent::Transport::Callbacks{});
    OUTRIDER_CHECK(peers[static_cast<size_t>(n)]->Connect(FakeNetwork::Address(0)).ok());
  }

  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<RankOp> ops;
  for (int l = 0; l < local; ++l) {
    ranks.push_back(std::make_unique<Rank>(l, world, l, local));
    ops.push_back(MakeOp(shape, l, world));
    OUTRIDER_CHECK(jobs->Join(ranks.back().get()).ok());
  }
  agent::JobShape job_shape{kJobId, kToken, nodes, local};
  std::vector<UniqueFd> joins;
  for (int n = 1; n < nodes; ++n) joins.push_back(Join((*net)->rendezvous()->port(), job_shape, n));
  RunLoopOnce(loop->get());
  joins.clear();
  agent::Job* job = jobs->Find(kJobId);
  OUTRIDER_CHECK(job != nullptr && job->StatusJson()["network"] == "connected");

  uint64_t next_op_id = 1;
  std::vector<std::unique_ptr<RankOp>> points;  // sends and receives: their memory outlives them
  uint64_t instances = 0;
  auto submit = [&] {
    if (job == nullptr) return;
    for (size_t l = 0; l < ranks.size(); ++l) {
      if (ranks[l]->left) continue;
      ValidatedOp op = ops[l].op;
      op.op_id = next_op_id++;
      ranks[l]->submitted.push_back(op.op_id);
      job->Submit(ranks[l].get(), op);
    }
    ++instances;
  };
  submit();
  const agent::Fingerprint fp = agent::FingerprintOf(ops[0].op);
  const uint64_t job_hash = ipc::Fnv1a(kJobId.data(), kJobId.size());

  for (int a = 0; a < kMaxActions && !in.empty(); ++a) {
    uint8_t action = in.Read<uint8_t>();
    switch (action % 16) {
      case 10:  // local work: slices of large reductions
        for (int k = 0; k < 8 && jobs->Pump(); ++k) {
        }
        break;
      case 11:  // time passes: heartbeats, silent peers lost, ops waiting for local ranks expire
        now += uint64_t{in.Read<uint16_t>()} * kMs;
        (*net)->Tick(now);
        jobs->ExpireOps(now, 300'000 * kMs);
        break;
      case 12:  // a link to a peer node breaks
        fake->Break(0, 1 + in.Read<uint8_t>() % (nodes - 1));
        break;
      case 13: {  // the local ranks submit the key again (the next instance), or sends and receives
        uint8_t how = in.Read<uint8_t>();
        if ((how & 0x80) == 0) {
          if (instances < 4) submit();
          break;
        }
        if (job == nullptr || points.size() > 64) break;
        for (size_t l = 0; l < ranks.size(); ++l) {
          if (ranks[l]->left) continue;
          // A peer on another node (or any source), one of two tags, up to 8 KiB.
          int peer = local + static_cast<int>(in.Read<uint8_t>()) % (world - local);
          bool send = (how & 0x01) != 0, any = !send && (how & 0x02) != 0;
          points.push_back(std::make_unique<RankOp>(
              MakePointOp(send, any ? ipc::kAnySource : peer, (how >> 2) & 1,
                          in.Read<uint16_t>() % 8193, static_cast<int>(l), world)));
          points.back()->op.op_id = next_op_id++;
          ranks[l]->submitted.push_back(points.back()->op.op_id);
          job->Submit(ranks[l].get(), points.back()->op);
        }
        break;
      }
      case 14: {  // a local rank leaves, in order or by dying
        uint8_t who = in.Read<uint8_t>();
        Rank& r = *ranks[who % ranks.size()];
        if (!r.left) {
          jobs->Leave(&r, PeerLost("rank gone"), (who & 0x80) != 0);
          r.left = true;
          job = jobs->Find(kJobId);
        }
        break;
      }
      case 15:  // someone reads /status
        if (job != nullptr) (void)agent::JsonText(job->StatusJson(), 2);
        break;
      default: {  // a message from a peer node
        int from = 1 + in.Read<uint8_t>() % (nodes - 1);
        uint8_t fill = in.Read<uint8_t>();
        PeerHeader h;
        in.Copy(&h, sizeof(h));
        if (fill & 0x01) {
          h.magic = agent::kPeerMagic;
          h.version = agent::kPeerVersion;
        }
        if (fill & 0x02) h.job_hash = job_hash;
        if (fill & 0x04) {
          std::string address = FakeNetwork::Address(from);
          h.sender = ipc::Fnv1a(address.data(), address.size());
        }
        if (fill & 0x08) h.from_node = from;
        if (fill & 0x10) {
          h.key = kKey;
          h.seq %= instances;
        }
        if (fill & 0x20) h.fp = fp;
        if ((fill & 0x10) && (action & 0x80)) {
          // A point-to-point message (a chunk of one, or a receipt for one) from a rank of node
          // `from` to a local rank, on one of two tags; its numbers, offset and size as the input
          // says.
          h.type = static_cast<uint16_t>((action & 0x40)   ? agent::PeerMsg::kPointChunk
                                         : (action & 0x20) ? agent::PeerMsg::kPointTaken
                                                           : agent::PeerMsg::kPoint);
          h.key = (action >> 5) & 1;
          h.seq %= 4;
          h.fp.root = from * local + static_cast<int>(h.fp.root & 0xff) % local;
          h.step = h.step % static_cast<uint32_t>(local);
          h.message_bytes %= 16384;
          h.offset %= 16384;
          if (static_cast<agent::PeerMsg>(h.type) == agent::PeerMsg::kPointTaken) {
            int32_t sender = static_cast<int32_t>(h.step);  // a local rank's send
            h.step = static_cast<uint32_t>(h.fp.root);
            h.fp.root = sender;
          }
        }
        size_t header_len = (fill & 0x40) ? in.Read<uint8_t>() : sizeof(h);
        std::vector<uint8_t> header(header_len, 0);
        if (header_len > 0) std::memcpy(header.data(), &h, std::min(header_len, sizeof(h)));
        std::vector<uint8_t> payload = in.Bytes(64 * 1024);
        agent::Lane lane = (fill & 0x80) ? agent::Lane::kExpress : agent::Lane::kBulk;
        (void)peers[static_cast<size_t>(from)]->Send(0, lane, header.data(), header.size(),
                                                     payload.data(), payload.size(), nullptr);
      }
    }
    fake->RunUntilIdle(100000);
    job = jobs->Find(kJobId);
  }

  // The job ends: every op not yet completed fails now, and completes exactly once.
  job = jobs->Find(kJobId);
  if (job != nullptr) job->FailAll(Cancelled("job ends"));
  fake->RunUntilIdle(100000);
  for (const auto& r : ranks) {
    if (r->left) continue;
    for (uint64_t id : r->submitted) OUTRIDER_CHECK(r->completions.count(id) == 1);
    jobs->Leave(r.get(), PeerLost("rank gone"), true);
    r->left = true;
  }
  fake->RunUntilIdle(100000);
  jobs.reset();
  net->reset();
  peers.clear();
  fake.reset();
  return 0;
}
