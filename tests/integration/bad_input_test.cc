// Bad input gets a clear error naming the problem, and nothing else is disturbed: after each
// case a healthy job on the same agent still completes a collective.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "ipc/event_fd.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent_ = StartAgent();
    ASSERT_NE(agent_, nullptr);
  }
  void TearDown() override {
    if (agent_ != nullptr) ExpectAgentStillServes();
  }

  // A fresh two-client job completes an allreduce: the agent carried on.
  void ExpectAgentStillServes() {
    std::string job = "healthy-" + std::to_string(healthy_++);
    SharedValue<int> rc[2];
    Ranks ranks(2, [&](int r) {
      outrider_client_t* c = ConnectOrExit(agent_->socket_path(), job, r, 2);
      auto* x = static_cast<float*>(outrider_alloc(c, 4));
      *x = 1.0f;
      outrider_op_t h;
      int e = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (e == OUTRIDER_OK) e = outrider_wait(c, h, 10000);
      *rc[r] = e == OUTRIDER_OK && *x == 2.0f ? 0 : (e ? e : 99);
      outrider_disconnect(c);
      return 0;
    });
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(ranks.Reap(r), 0);
      EXPECT_EQ(*rc[r], 0) << "the agent stopped serving healthy clients";
    }
  }

  // A raw client that joined `job` as rank `rank` of `size` with one 4 KiB region (id in *region).
  std::unique_ptr<RawClient> JoinRaw(const std::string& job, int rank, int size, uint32_t* region) {
    *region = 0;
    auto raw = JoinRawJob(agent_->socket_path(), job, rank, size, region);
    EXPECT_TRUE(raw.ok()) << raw.status().ToString();
    return raw.ok() ? std::move(*raw) : nullptr;
  }

  std::unique_ptr<harness::AgentProcess> agent_;
  int healthy_ = 0;
};

// Submits `e` from a single-rank raw job and returns the completion.
ipc::CompletionEntry SubmitAndComplete(RawClient& raw, const ipc::SubmitEntry& e) {
  raw.Push(e);
  auto c = raw.NextCompletion(10000);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : ipc::CompletionEntry{};
}

TEST_F(BadInputTest, BufferLeavingTheClientsRegionFailsThatOpNamingTheRegion) {
  uint32_t region;
  auto raw = JoinRaw("oob", 0, 1, &region);
  auto c = SubmitAndComplete(*raw, AllreduceEntry(1, region, 4000, 100));
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message, HasSubstr("leaves region"));
  // The same client can go on with a valid op.
  c = SubmitAndComplete(*raw, AllreduceEntry(2, region, 0, 100));
  EXPECT_EQ(c.code, 0) << c.message;
}

TEST_F(BadInputTest, OffsetPlusLengthOverflowIsRejected) {
  uint32_t region;
  auto raw = JoinRaw("overflow", 0, 1, &region);
  ipc::SubmitEntry e = AllreduceEntry(1, region, 0, 4);
  e.send.offset = e.recv.offset = UINT64_MAX - 8;
  auto c = SubmitAndComplete(*raw, e);
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message, HasSubstr("leaves region"));
}

TEST_F(BadInputTest, RegionIdTheClientNeverRegisteredIsRejected) {
  uint32_t region_a, region_b;
  auto a = JoinRaw("owner-a", 0, 1, &region_a);
  auto b = JoinRaw("owner-b", 0, 1, &region_b);
  auto c = SubmitAndComplete(*b, AllreduceEntry(1, region_b + 1000, 0, 4));
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message, HasSubstr("has not registered"));
}

TEST_F(BadInputTest, UnknownDtypeAndUnknownReduceOpFailTheOp) {
  uint32_t region;
  auto raw = JoinRaw("enums", 0, 1, &region);
  ipc::SubmitEntry e = AllreduceEntry(1, region, 0, 4);
  e.dtype = 77;
  auto c = SubmitAndComplete(*raw, e);
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message, HasSubstr("unknown dtype 77"));
  e = AllreduceEntry(2, region, 0, 4);
  e.reduce_op = 9;
  c = SubmitAndComplete(*raw, e);
  EXPECT_THAT(c.message, HasSubstr("unknown reduce op 9"));
  e = AllreduceEntry(3, region, 0, 4);
  e.kind = 12;
  c = SubmitAndComplete(*raw, e);
  EXPECT_THAT(c.message, HasSubstr("unknown op kind 12"));
}

TEST_F(BadInputTest, ReduceOpADtypeCannotTakeFailsTheOpNamingBoth) {
  uint32_t region;
  auto raw = JoinRaw("refused-pairs", 0, 1, &region);
  ipc::SubmitEntry e = AllreduceEntry(1, region, 0, 16);  // 64 bytes
  e.dtype = static_cast<uint32_t>(ipc::DType::kC64);
  e.count = 8;
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kMax);
  auto c = SubmitAndComplete(*raw, e);
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message,
              HasSubstr("reduce op max is not supported for c64: complex numbers have no order"));
  e.op_id = 2;
  e.dtype = static_cast<uint32_t>(ipc::DType::kBool);
  e.count = 64;
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kAvg);
  c = SubmitAndComplete(*raw, e);
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(c.message, HasSubstr("reduce op avg is not supported for bool"));
  e.op_id = 3;
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kMin);
  c = SubmitAndComplete(*raw, e);
  EXPECT_EQ(c.code, 0) << c.message;
}

TEST_F(BadInputTest, GarbageRingEntriesFailOrDisconnectOnlyThatClient) {
  uint32_t region;
  auto raw = JoinRaw("garbage", 0, 1, &region);
  std::mt19937_64 gen(1234);
  uint64_t op_id = 1;
  for (int i = 0; i < 50; ++i) {
    ipc::SubmitEntry e;
    auto* words = reinterpret_cast<uint64_t*>(&e);
    for (size_t w = 0; w < sizeof(e) / 8; ++w) words[w] = gen();
    e.op_id = op_id++;  // keep ids increasing so each garbage entry gets its own answer
    raw->Push(e);
    auto c = raw->NextCompletion(10000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->op_id, e.op_id);
    EXPECT_EQ(c->code, static_cast<int32_t>(Code::kInvalidArgument)) << c->message;
    EXPECT_GT(std::strlen(c->message), 10u);
  }
}

TEST_F(BadInputTest, NonIncreasingOpIdDisconnectsTheClientWithAProtocolError) {
  uint32_t region;
  auto raw = JoinRaw("opid", 0, 1, &region);
  EXPECT_EQ(SubmitAndComplete(*raw, AllreduceEntry(5, region, 0, 4)).code, 0);
  raw->Push(AllreduceEntry(5, region, 0, 4));
  auto bye = raw->AwaitGoodbye(10000);
  ASSERT_TRUE(bye.ok()) << bye.status().ToString();
  EXPECT_THAT(*bye, HasSubstr("does not increase"));
}

TEST_F(BadInputTest, CorruptRingIndicesDisconnectTheClient) {
  uint32_t region;
  auto raw = JoinRaw("indices", 0, 1, &region);
  ipc::AtomicU64(raw->sq_indices()->tail).store(1u << 30);  // claims 2^30 entries in a small ring
  raw->Kick();
  auto bye = raw->AwaitGoodbye(10000);
  ASSERT_TRUE(bye.ok()) << bye.status().ToString();
  EXPECT_THAT(*bye, HasSubstr("corrupt"));
}

TEST_F(BadInputTest, CountDisagreementFailsEveryRankNamingFieldAndRanks) {
  uint32_t r0, r1;
  auto a = JoinRaw("mismatch", 0, 2, &r0);
  auto b = JoinRaw("mismatch", 1, 2, &r1);
  a->Push(AllreduceEntry(1, r0, 0, 100));
  b->Push(AllreduceEntry(1, r1, 0, 200));
  for (RawClient* raw : {a.get(), b.get()}) {
    auto c = raw->NextCompletion(10000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->code, static_cast<int32_t>(Code::kMismatch));
    EXPECT_THAT(c->message, HasSubstr("count"));
    EXPECT_THAT(c->message, HasSubstr("local rank 0 has 100"));
    EXPECT_THAT(c->message, HasSubstr("local rank 1 has 200"));
  }
  // The next instance of the same key works again.
  a->Push(AllreduceEntry(2, r0, 0, 100));
  b->Push(AllreduceEntry(2, r1, 0, 100));
  EXPECT_EQ(a->NextCompletion(10000)->code, 0);
  EXPECT_EQ(b->NextCompletion(10000)->code, 0);
}

TEST_F(BadInputTest, RegionReleasedWhileItsOpWaitsForOtherRanksStaysMappedUntilTheOpIsDone) {
  uint32_t r0, r1;
  auto rank0 = JoinRaw("release", 0, 2, &r0);
  auto rank1 = JoinRaw("release", 1, 2, &r1);
  reinterpret_cast<float*>(rank0->region_base(r0))[0] = 1.0f;
  reinterpret_cast<float*>(rank1->region_base(r1))[0] = 2.0f;
  rank0->Push(AllreduceEntry(1, r0, 0, 1));
  // The agent took the entry off the ring (it validates as it pops): the op now waits for rank 1.
  // Ring and socket are separate channels, so the release must not overtake the submission.
  uint64_t deadline = ipc::MonotonicNs() + 10'000'000'000ull;
  while (ipc::AtomicU64(rank0->sq_indices()->head).load() < 1 && ipc::MonotonicNs() < deadline) {
    ipc::WaitReadable(rank0->channel().fd(), -1, 1);  // a bounded 1 ms poll; nothing to read here
  }
  ASSERT_EQ(ipc::AtomicU64(rank0->sq_indices()->head).load(), 1u);
  // The region the waiting op names is released (and unmapped by the client).
  ASSERT_TRUE(rank0->ReleaseRegion(r0).ok());
  rank1->Push(AllreduceEntry(1, r1, 0, 1));
  auto c1 = rank1->NextCompletion(10000);
  ASSERT_TRUE(c1.ok()) << c1.status().ToString();
  EXPECT_EQ(c1->code, 0) << c1->message;
  EXPECT_EQ(reinterpret_cast<float*>(rank1->region_base(r1))[0], 3.0f);
  auto c0 = rank0->NextCompletion(10000);
  ASSERT_TRUE(c0.ok()) << c0.status().ToString();
  EXPECT_EQ(c0->code, 0) << c0->message;
  // The released id is gone for new ops.
  auto again = SubmitAndComplete(*rank0, AllreduceEntry(2, r0, 0, 1));
  EXPECT_EQ(again.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(std::string(again.message), HasSubstr("has not registered"));
}

TEST_F(BadInputTest, HugeSubmissionRingRequestIsClampedNotSpun) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  ipc::HelloRequest h = (*raw)->MakeHello("huge-ring", 0, 1);
  h.requested_sq_entries = 0xFFFFFFFFu;
  auto reply = (*raw)->Hello(h);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->code, 0) << reply->message;
}

TEST_F(BadInputTest, WorldSizeBeyondTheLimitIsRefusedBeforeAnythingIsAllocated) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  ipc::HelloRequest h = (*raw)->MakeHello("huge-world", 0, 1);
  h.world_size = 0x7fffffff;  // one rank per node: 2^31 - 1 nodes
  auto reply = (*raw)->Hello(h);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kResourceExhausted));
  EXPECT_THAT(reply->message,
              HasSubstr("world_size 2147483647 exceeds this agent's max_world_size 65536"));
}

TEST_F(BadInputTest, WrongProtocolVersionIsRefusedNamingBothVersions) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  ipc::HelloRequest h = (*raw)->MakeHello("version", 0, 1);
  h.header.version = ipc::kProtocolVersion + 7;
  auto reply = (*raw)->Hello(h);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kProtocol));
  EXPECT_THAT(reply->message,
              HasSubstr("protocol version " + std::to_string(ipc::kProtocolVersion + 7)));
  EXPECT_THAT(reply->message, HasSubstr("speaks version " + std::to_string(ipc::kProtocolVersion)));
}

// The previous release's shim (protocol 12) on this agent: its 248-byte hello is served, its
// control segment and every reply are in version 12, and a job of such clients runs an allreduce
// (a job of this release's runs after, in TearDown); a message in another version than its
// hello's closes only that client.
TEST_F(BadInputTest, AShimOfThePreviousProtocolVersionIsServedInItsOwnVersion) {
  static_assert(ipc::kOldestProtocolVersion == 12);
  std::unique_ptr<RawClient> old[2];
  uint32_t regions[2];
  for (int r = 0; r < 2; ++r) {
    auto raw = RawClient::Connect(agent_->socket_path());
    ASSERT_TRUE(raw.ok());
    auto reply = (*raw)->Hello((*raw)->MakeHello("previous", r, 2, 12));
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    ASSERT_EQ(reply->code, 0) << reply->message;
    EXPECT_EQ(reply->header.version, 12);
    EXPECT_EQ((*raw)->control_header().version, 12);
    auto region = (*raw)->RegisterRegion(4096);
    ASSERT_TRUE(region.ok()) << region.status().ToString();
    regions[r] = *region;
    old[r] = std::move(*raw);
  }
  for (int r = 0; r < 2; ++r) {
    auto* x = reinterpret_cast<float*>(old[r]->region_base(regions[r]));
    x[0] = 1.5f + static_cast<float>(r);
    old[r]->Push(AllreduceEntry(1, regions[r], 0, 1));
  }
  for (int r = 0; r < 2; ++r) {
    auto c = old[r]->NextCompletion(10000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->code, 0);
    EXPECT_EQ(reinterpret_cast<float*>(old[r]->region_base(regions[r]))[0], 4.0f);
  }
  // A version-13 message from a version-12 client: that client alone is closed, saying why.
  ipc::ReleaseRegion msg{};
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kReleaseRegion, sizeof(msg) - sizeof(msg.header),
                     900, ipc::kProtocolVersion);
  msg.region_id = regions[0];
  ASSERT_TRUE(old[0]->channel().Send(&msg, sizeof(msg), nullptr, 0).ok());
  auto bye = old[0]->AwaitGoodbye(5000);
  ASSERT_TRUE(bye.ok()) << bye.status().ToString();
  EXPECT_THAT(*bye, HasSubstr("another protocol version than its hello's (12)"));
}

TEST_F(BadInputTest, WrongMagicIsRefused) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  ipc::HelloRequest h = (*raw)->MakeHello("magic", 0, 1);
  h.header.magic = 0xdeadbeef;
  auto reply = (*raw)->Hello(h);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kProtocol));
  EXPECT_THAT(reply->message, HasSubstr("bad magic"));
}

TEST_F(BadInputTest, DuplicateLocalRankIsRefused) {
  uint32_t region;
  auto first = JoinRaw("dup", 0, 2, &region);
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  auto reply = (*raw)->Hello((*raw)->MakeHello("dup", 0, 2));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kFailedPrecondition));
  EXPECT_THAT(reply->message, HasSubstr("local rank 0 of job 'dup' is already connected"));
}

TEST_F(BadInputTest, RankOutsideWorldIsRefused) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  auto reply = (*raw)->Hello((*raw)->MakeHello("ranks", 3, 2));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(reply->message, HasSubstr("outside world_size"));
}

TEST_F(BadInputTest, UnsealedRegionIsRefused) {
  auto raw = RawClient::Connect(agent_->socket_path());
  ASSERT_TRUE(raw.ok());
  ASSERT_EQ((*raw)->Hello((*raw)->MakeHello("unsealed", 0, 1))->code, 0);
  int fd = ::memfd_create("unsealed", MFD_CLOEXEC);
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  ipc::RegisterRegion msg{};
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion, sizeof(msg) - sizeof(msg.header),
                     9);
  msg.bytes = 4096;
  ASSERT_TRUE((*raw)->channel().Send(&msg, sizeof(msg), &fd, 1).ok());
  ::close(fd);
  ipc::RegionReply reply{};
  auto n = (*raw)->channel().Recv(&reply, sizeof(reply), nullptr, 10000);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(reply.code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_THAT(reply.message, HasSubstr("not sealed"));
}

TEST_F(BadInputTest, UidThatIsNotAllowedIsRefusedByPeerCredentials) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch to another uid";
  // Open the file-system path to everyone so that only the SO_PEERCRED check stands in the way.
  std::string dir = agent_->socket_path().substr(0, agent_->socket_path().rfind('/'));
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(agent_->socket_path().c_str(), 0666), 0);
  SharedValue<Text> message;
  SharedValue<int> rc;
  pid_t pid = Spawn([&] {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) return 50;
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    o.socket_path = agent_->socket_path().c_str();
    o.job_id = "intruder";
    outrider_client_t* c = nullptr;
    *rc = outrider_connect(&o, &c);
    CopyText(message->s, 256, outrider_last_error(nullptr));
    return 0;
  });
  ASSERT_EQ(Reap(pid), 0);
  EXPECT_EQ(*rc, OUTRIDER_ERR_PERMISSION_DENIED);
  EXPECT_THAT(std::string(message->s), HasSubstr("uid 65534"));
}

TEST_F(BadInputTest, ShimRejectsPointersOutsideSharedMemory) {
  SharedValue<int> rc;
  SharedValue<Text> message;
  pid_t pid = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(agent_->socket_path(), "heap", 0, 1);
    float heap[4] = {};
    outrider_op_t h;
    *rc = outrider_allreduce(c, heap, heap, 4, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    CopyText(message->s, 256, outrider_last_error(c));
    outrider_disconnect(c);
    return 0;
  });
  ASSERT_EQ(Reap(pid), 0);
  EXPECT_EQ(*rc, OUTRIDER_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(message->s), HasSubstr("not in memory shared with the agent"));
}

TEST(ConnectTest, NoAgentGivesUnavailableNamingTheSocket) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = "/nonexistent/outrider/agent.sock";
  outrider_client_t* c = nullptr;
  EXPECT_EQ(outrider_connect(&o, &c), OUTRIDER_ERR_UNAVAILABLE);
  EXPECT_EQ(c, nullptr);
  EXPECT_THAT(outrider_last_error(nullptr), HasSubstr("/nonexistent/outrider/agent.sock"));
  EXPECT_STREQ(outrider_error_string(OUTRIDER_ERR_UNAVAILABLE), "UNAVAILABLE");
}

TEST(ConnectTest, BadRankEnvironmentIsNamed) {
  ::setenv("RANK", "three", 1);
  outrider_client_t* c = nullptr;
  EXPECT_EQ(outrider_connect(nullptr, &c), OUTRIDER_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(outrider_last_error(nullptr), HasSubstr("RANK='three'"));
  ::unsetenv("RANK");
}

}  // namespace
}  // namespace outrider::testing
