// The shim's client over a scripted agent (tests/fakes/shim/fake_agent.h), in one process: what
// it sends for each call, and what it makes of every answer, including the ones a real agent
// never gives (another protocol version, a communicator id it already has, hanging up mid-op).
#include "shim/client.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/fakes/shim/fake_agent.h"
#include "tests/support/test_support.h"

namespace outrider::shim {
namespace {

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/outrider-client-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    config_.socket_path = dir_ + "/agent.sock";
    config_.job_id = "job";
    config_.job_id_from = "the test";
    config_.world_size = 2;
    config_.local_world_size = 2;
    config_.arena_bytes = 1 << 20;
    config_.timeout_ms = 5000;
  }
  void TearDown() override {
    client_.reset();
    agent_.reset();
    (void)::unlink(config_.socket_path.c_str());
    (void)::rmdir(dir_.c_str());
  }
  // Starts the agent and connects the client to it.
  void Connect(FakeAgent::Options options = {}) {
    agent_ = FakeAgent::Start(config_.socket_path, options);
    ASSERT_NE(agent_, nullptr);
    Result<std::unique_ptr<Client>> c = Client::Connect(config_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    client_ = std::move(*c);
  }
  // The agent goes as a killed one does (no goodbye); its socket file stays.
  void AgentDies() {
    agent_->HangUp();
    agent_.reset();
  }
  // ... and another starts on the same socket, as the agent's unit or DaemonSet restarts it;
  // `stopped`: the agent went saying goodbye, as one stopped with SIGTERM does.
  void AgentRestarts(bool stopped = false) {
    if (stopped) agent_->Leave();
    AgentDies();
    agent_ = FakeAgent::Start(config_.socket_path);
    ASSERT_NE(agent_, nullptr);
  }
  // The new agent's hello says the client comes back, after a stop or a crash, and how long it
  // was away (bounded by the test's own waits).
  void ExpectComeback(bool after_goodbye) {
    std::optional<ipc::HelloRequest> h = agent_->hello();
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->header.version, ipc::kProtocolVersion);
    EXPECT_NE(h->flags & ipc::kHelloReconnect, 0u);
    EXPECT_EQ((h->flags & ipc::kHelloAfterGoodbye) != 0, after_goodbye);
    EXPECT_LT(h->away_ms, 10000u);
  }
  // An allreduce of `n` floats in place, in a region of the client's.
  OpArgs Allreduce(float* buf, uint64_t n) {
    OpArgs a{};
    a.kind = ipc::OpKind::kAllreduce;
    a.count = n;
    a.send = buf;
    a.send_bytes = n * sizeof(float);
    a.recv = buf;
    a.recv_bytes = n * sizeof(float);
    a.key = HashKey("grads");
    return a;
  }

  std::string dir_;
  ConnectConfig config_;
  std::unique_ptr<FakeAgent> agent_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, AnAgentOfAnotherProtocolVersionIsRefusedNamingBothVersions) {
  FakeAgent::Options options;
  options.version = ipc::kProtocolVersion + 1;
  agent_ = FakeAgent::Start(config_.socket_path, options);
  ASSERT_NE(agent_, nullptr);
  Result<std::unique_ptr<Client>> c = Client::Connect(config_);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kProtocol);
  EXPECT_NE(
      c.status().message().find("protocol version " + std::to_string(ipc::kProtocolVersion + 1) +
                                ", this shim " + std::to_string(ipc::kProtocolVersion)),
      std::string::npos)
      << c.status().ToString();
}

TEST_F(ClientTest, AHelloTheAgentRefusesFailsWithTheAgentsCodeAndWords) {
  FakeAgent::Options options;
  options.refuse_hello = PermissionDenied("uid 1234 may not use this agent");
  agent_ = FakeAgent::Start(config_.socket_path, options);
  ASSERT_NE(agent_, nullptr);
  Result<std::unique_ptr<Client>> c = Client::Connect(config_);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kPermissionDenied);
  EXPECT_NE(c.status().message().find("uid 1234 may not use this agent"), std::string::npos);
  EXPECT_NE(c.status().message().find("refused the connection"), std::string::npos);
}

TEST_F(ClientTest, AnAllreduceIsOneEntryNamingItsRegionAndFinishesWithTheAgentsResult) {
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  auto* buf = static_cast<float*>(*region);
  Result<uint64_t> op = client_->Submit(Allreduce(buf + 16, 100));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, static_cast<uint32_t>(ipc::OpKind::kAllreduce));
  EXPECT_EQ(e->count, 100u);
  EXPECT_EQ(e->flags, 0u);
  EXPECT_EQ(e->send.region_id, 1u);  // the id the agent gave the region
  EXPECT_EQ(e->send.offset, 64u);
  EXPECT_EQ(e->send.length, 400u);
  EXPECT_EQ(e->recv.region_id, 1u);
  EXPECT_EQ(e->key, HashKey("grads"));
  // Not done until the agent says so; then with the agent's code and message.
  bool done = true;
  EXPECT_TRUE(client_->Test(*op, &done).ok());
  EXPECT_FALSE(done);
  agent_->Complete(e->op_id, Internal("a peer sent a chunk twice"));
  Status st = client_->Wait(*op, 5000);
  EXPECT_EQ(st.code(), Code::kInternal);
  EXPECT_NE(st.message().find("a peer sent a chunk twice"), std::string::npos) << st.ToString();
  EXPECT_EQ(agent_->requests(), std::vector<ipc::MsgType>{ipc::MsgType::kRegisterRegion});
}

TEST_F(ClientTest, AnOpRefusedInTheClientStillReachesTheAgentAsARefusalInItsKeysOrder) {
  Connect();
  std::vector<float> not_shared(8);
  Result<uint64_t> op = client_->Submit(Allreduce(not_shared.data(), 8));
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().code(), Code::kInvalidArgument) << op.status().ToString();
  // The other ranks' op of this key must not pair with this rank's next one: the agent hears.
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->flags, ipc::kSubmitRefused);
  EXPECT_EQ(e->key, HashKey("grads"));
  EXPECT_EQ(e->root, static_cast<int32_t>(Code::kInvalidArgument));
}

TEST_F(ClientTest, TheAgentHangingUpFailsAnOpInFlightAsUnavailableWithoutWaitingOut) {
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  ASSERT_TRUE(op.ok());
  ASSERT_TRUE(agent_->NextSubmission(5000).has_value());
  agent_->HangUp();
  auto start = std::chrono::steady_clock::now();
  Status st = client_->Wait(*op, 60'000);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(st.code(), Code::kUnavailable) << st.ToString();
  EXPECT_LT(waited, 30.0) << "the wait ran toward its timeout instead of seeing the agent go";
}

TEST_F(ClientTest, ARegionTheAgentRefusesIsNotKeptAndTheNextOneIsAccepted) {
  Connect();
  agent_->RefuseRequests(ResourceExhausted("this client has 64 regions, the most it may have"));
  Result<void*> refused = client_->CreateRegion(4096);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("the most it may have"), std::string::npos);
  agent_->RefuseRequests(Status::Ok());
  Result<void*> accepted = client_->CreateRegion(4096);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_TRUE(client_->ReleaseRegion(*accepted).ok());
  // A region it never kept cannot be released.
  EXPECT_EQ(client_->ReleaseRegion(*accepted).code(), Code::kInvalidArgument);
}

TEST_F(ClientTest, ACommunicatorIsAskedForInTheAgentsNumberingAndItsRanksAreTheCallers) {
  // Job ranks 0, 1 on node 0 and 2, 3 on node 1; this client is job rank 0.
  config_.world_size = 4;
  Connect();
  // Communicator ranks {2, 0}: rank 0 is job rank 2 (node 1), rank 1 is this client.
  Result<uint32_t> comm = client_->CommCreate(Client::kJobComm, {2, 0});
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  EXPECT_EQ(*client_->CommRank(*comm), 1);
  EXPECT_EQ(*client_->CommSize(*comm), 2);
  std::vector<ipc::CommCreate> asked = agent_->comm_requests();
  ASSERT_EQ(asked.size(), 1u);
  // The agents number a communicator's ranks node by node: this client, on node 0, is their 0.
  EXPECT_EQ(asked[0].rank, 0);
  EXPECT_EQ(asked[0].world_size, 2);
  EXPECT_EQ(asked[0].local_world_size, 1);
  // A broadcast from communicator rank 0 names the agents' rank of it (1) as its root.
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  OpArgs b = Allreduce(static_cast<float*>(*region), 4);
  b.kind = ipc::OpKind::kBroadcast;
  b.comm = *comm;
  b.root = 0;
  Result<uint64_t> op = client_->Submit(b);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->root, 1);
  EXPECT_EQ(e->comm, *comm);
  // An allgather on it is refused here: its ranks are not in node order.
  OpArgs g = Allreduce(static_cast<float*>(*region), 2);
  g.kind = ipc::OpKind::kAllgather;
  g.comm = *comm;
  g.recv_bytes = 4 * sizeof(float);
  Result<uint64_t> refused = client_->Submit(g);
  EXPECT_EQ(refused.status().code(), Code::kFailedPrecondition) << refused.status().ToString();
}

TEST_F(ClientTest, ACommunicatorIdTheAgentShouldNeverGiveIsAProtocolError) {
  Connect();
  Result<uint32_t> first = client_->CommCreate(Client::kJobComm, {0, 1});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // A second communicator with the first one's id.
  agent_->AnswerCommsWith(*first);
  Result<uint32_t> comm = client_->CommCreate(Client::kJobComm, {1, 0});
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), Code::kProtocol) << comm.status().ToString();
}

TEST_F(ClientTest, AfterTheAgentRestartsTheClientGoesOnWithItsMemoryAndCommunicatorsAtTheNewOne) {
  Connect();
  Result<void*> region = client_->CreateRegion(8192);
  ASSERT_TRUE(region.ok());
  auto* buf = static_cast<float*>(*region);
  Result<uint32_t> comm = client_->CommCreate(Client::kJobComm, {1, 0});
  ASSERT_TRUE(comm.ok());
  OpArgs out_of_place = Allreduce(buf, 8);
  out_of_place.recv = buf + 1024;
  Result<uint64_t> a = client_->Submit(out_of_place);
  Result<uint64_t> b = client_->Submit(Allreduce(buf, 8));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(agent_->NextSubmission(5000).has_value());
  // The agent dies with both in flight; another starts on the same socket.
  ASSERT_NO_FATAL_FAILURE(AgentRestarts());
  agent_->AnswerCommsWith(42);
  // Each op fails once, saying whether it may go again.
  Status sa = client_->Wait(*a, 5000);
  EXPECT_EQ(sa.code(), Code::kUnavailable);
  EXPECT_NE(sa.message().find("its inputs are intact: it may be submitted again"),
            std::string::npos)
      << sa.ToString();
  Status sb = client_->Wait(*b, 5000);
  EXPECT_EQ(sb.code(), Code::kUnavailable);
  EXPECT_NE(sb.message().find("restore the input before submitting it again"), std::string::npos)
      << sb.ToString();
  // The next op reaches the new agent: the region and the communicator are known there, by the
  // new agent's ids, under the pointers and handle the caller has.
  OpArgs again = Allreduce(buf, 8);
  again.comm = *comm;
  Result<uint64_t> c = client_->Submit(again);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->comm, 42u);
  EXPECT_EQ(e->send.region_id, 1u);
  EXPECT_EQ(e->send.offset, 0u);
  EXPECT_GT(e->op_id, *b);  // op ids keep growing: an agent can tell no op twice
  std::vector<ipc::MsgType> asked = agent_->requests();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], ipc::MsgType::kRegisterRegion);
  EXPECT_EQ(asked[1], ipc::MsgType::kCommCreate);
  EXPECT_EQ(*client_->CommRank(*comm), 1);
  ExpectComeback(/*after_goodbye=*/false);
  agent_->Complete(e->op_id, Status::Ok());
  EXPECT_TRUE(client_->Wait(*c, 5000).ok());
}

TEST_F(ClientTest, AnOpTheAgentGaveBackRunsAtTheNextAgentWithoutFailing) {
  Connect();
  Result<void*> region = client_->CreateRegion(8192);
  ASSERT_TRUE(region.ok());
  auto* buf = static_cast<float*>(*region);
  ASSERT_TRUE(client_->CreateRegion(4096).ok());  // a second region: ids move at the next agent
  Result<uint64_t> op = client_->Submit(Allreduce(buf + 8, 8));
  ASSERT_TRUE(op.ok());
  std::optional<ipc::SubmitEntry> first = agent_->NextSubmission(5000);
  ASSERT_TRUE(first.has_value());
  // Handed over before it started, then the agent goes (saying goodbye) and the next one comes.
  agent_->Move(first->op_id);
  ASSERT_NO_FATAL_FAILURE(AgentRestarts(/*stopped=*/true));
  // The wait reaches the next agent itself: the op is there, under the same id, in the new
  // agent's numbering of its region.
  std::thread finish([&] {
    std::optional<ipc::SubmitEntry> again = agent_->NextSubmission(10000);
    if (again.has_value()) agent_->Complete(again->op_id, Status::Ok());
  });
  Status st = client_->Wait(*op, 10000);
  finish.join();
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<ipc::MsgType> asked = agent_->requests();
  ASSERT_EQ(asked.size(), 2u);  // both regions registered again
  ExpectComeback(/*after_goodbye=*/true);
}

TEST_F(ClientTest, AnOpGivenBackFailsSayingWhyWhenNoAgentComes) {
  config_.reconnect_ms = 200;
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  ASSERT_TRUE(op.ok());
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  agent_->Move(e->op_id);
  AgentDies();
  Status st = client_->Wait(*op, 10000);
  EXPECT_EQ(st.code(), Code::kUnavailable);
  EXPECT_NE(st.message().find("within 200 ms (OUTRIDER_RECONNECT_MS)"), std::string::npos)
      << st.ToString();
}

TEST_F(ClientTest, AnAgentThatDoesNotComeBackFailsTheNextCallAfterTheDeadlineNamingIt) {
  config_.reconnect_ms = 300;
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  AgentDies();
  auto start = std::chrono::steady_clock::now();
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().code(), Code::kUnavailable);
  EXPECT_NE(op.status().message().find("no agent answered at " + config_.socket_path +
                                       " within 300 ms (OUTRIDER_RECONNECT_MS)"),
            std::string::npos)
      << op.status().ToString();
  EXPECT_GE(waited, 0.3);
  EXPECT_LT(waited, 10.0);
}

TEST_F(ClientTest, WithoutReconnectingTheAgentsDepartureIsEveryLaterCallsAnswer) {
  config_.reconnect_ms = 0;
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  ASSERT_NO_FATAL_FAILURE(AgentRestarts());
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  EXPECT_EQ(op.status().code(), Code::kUnavailable);
  EXPECT_FALSE(agent_->greeted());
}

TEST_F(ClientTest, AClientOfAJobAcrossNodesDoesNotReconnectAndSaysWhy) {
  config_.world_size = 4;  // two nodes of two
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  AgentDies();
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  EXPECT_EQ(op.status().code(), Code::kUnavailable);
  EXPECT_NE(op.status().message().find("does not reconnect: its job spans nodes and its agent "
                                       "did not hand it over (an elastic job's rank rejoins it "
                                       "through a restarted agent with outrider_reconfigure)"),
            std::string::npos)
      << op.status().ToString();
}

// Its agent killed and started again, a rank of a job across nodes (an elastic job's) asks to go
// on: it reaches the new agent as a joiner of its job, says it comes back, registers its memory
// there, and takes the place the job's next generation gives it; its next op names the region by
// the new agent's id.
TEST_F(ClientTest, ARankOfAJobAcrossNodesRejoinsAsAJoinerWhenItReconfiguresAfterARestart) {
  config_.world_size = 4;  // two nodes of two
  Connect();
  Result<void*> region = client_->CreateRegion(4096);
  ASSERT_TRUE(region.ok());
  ASSERT_NO_FATAL_FAILURE(AgentRestarts());
  ipc::ReformReply place{};
  place.generation = 1;
  place.rank = 3;
  place.world_size = 4;
  place.local_rank = 1;
  place.local_world_size = 2;
  agent_->PlaceOnReform(place);
  Client::Membership m;
  Status st = client_->Reconfigure(5000, &m);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(m.generation, 1u);
  EXPECT_EQ(m.rank, 3);
  std::optional<ipc::HelloRequest> h = agent_->hello();
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->flags & ipc::kHelloJoiner, 0u);
  ExpectComeback(/*after_goodbye=*/false);
  std::vector<ipc::MsgType> asked = agent_->requests();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], ipc::MsgType::kRegisterRegion);
  EXPECT_EQ(asked[1], ipc::MsgType::kReform);
  Result<uint64_t> op = client_->Submit(Allreduce(static_cast<float*>(*region), 8));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  std::optional<ipc::SubmitEntry> e = agent_->NextSubmission(5000);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->send.region_id, 1u);
  agent_->Complete(e->op_id, Status::Ok());
  EXPECT_TRUE(client_->Wait(*op, 5000).ok());
}

TEST_F(ClientTest, AClientThatGoesSaysGoodbye) {
  Connect();
  client_.reset();
  EXPECT_TRUE(agent_->greeted());
  // The goodbye is read on the agent's thread.
  EXPECT_TRUE(testing::WaitUntil([&] { return agent_->said_goodbye(); }, 5000));
}

}  // namespace
}  // namespace outrider::shim
