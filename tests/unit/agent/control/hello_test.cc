// ParseHello against hand-built hellos: what it accepts (and the ring size it grants), and every
// refusal, each naming the field.
#include "agent/control/hello.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ipc/protocol.h"

namespace outrider::agent {
namespace {

ipc::HelloRequest ValidHello() {
  ipc::HelloRequest h{};
  ipc::InitMsgHeader(&h.header, ipc::MsgType::kHello, sizeof(h) - sizeof(h.header), 7);
  ipc::CopyText(h.job_id, sizeof(h.job_id), "job-1");
  h.rank = 5;
  h.world_size = 8;
  h.local_rank = 1;
  h.local_world_size = 4;
  ipc::CopyText(h.root_addr, sizeof(h.root_addr), "10.0.0.1:29750");
  ipc::CopyText(h.token, sizeof(h.token), "secret");
  return h;
}

Result<Hello> Parse(const ipc::HelloRequest& h, ControlServerOptions options = {}) {
  return ParseHello(reinterpret_cast<const uint8_t*>(&h), sizeof(h), options);
}

void ExpectRefused(const Result<Hello>& r, Code code, const std::string& text) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
}

TEST(HelloTest, AcceptsAValidHelloWithItsIdentityAndTheDefaultRing) {
  Result<Hello> r = Parse(ValidHello());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->identity.job_id, "job-1");
  EXPECT_EQ(r->identity.rank, 5);
  EXPECT_EQ(r->identity.world_size, 8);
  EXPECT_EQ(r->identity.local_rank, 1);
  EXPECT_EQ(r->identity.local_world_size, 4);
  EXPECT_EQ(r->identity.root_addr, "10.0.0.1:29750");
  EXPECT_EQ(r->identity.token, "secret");
  EXPECT_EQ(r->sq_entries, ControlServerOptions{}.sq_entries);
}

TEST(HelloTest, RoundsARequestedRingUpToAPowerOfTwoWithinItsLimits) {
  ipc::HelloRequest h = ValidHello();
  h.requested_sq_entries = 100;
  EXPECT_EQ(Parse(h)->sq_entries, 128u);
  h.requested_sq_entries = 1;
  EXPECT_EQ(Parse(h)->sq_entries, 8u);
  h.requested_sq_entries = 0xffffffffu;
  EXPECT_EQ(Parse(h)->sq_entries, 65536u);
}

TEST(HelloTest, RefusesAMessageShorterThanAHeader) {
  uint8_t bytes[8] = {};
  ExpectRefused(ParseHello(bytes, sizeof(bytes), {}), Code::kProtocol,
                "shorter than a message header");
}

TEST(HelloTest, RefusesBadMagicNamingIt) {
  ipc::HelloRequest h = ValidHello();
  h.header.magic = 0x12345678;
  ExpectRefused(Parse(h), Code::kProtocol, "bad magic 0x12345678");
}

TEST(HelloTest, RefusesAnotherProtocolVersionNamingBoth) {
  ipc::HelloRequest h = ValidHello();
  h.header.version = ipc::kProtocolVersion + 1;
  ExpectRefused(Parse(h), Code::kProtocol,
                "protocol version " + std::to_string(ipc::kProtocolVersion + 1) +
                    " is not supported: this agent speaks version " +
                    std::to_string(ipc::kProtocolVersion));
  ExpectRefused(Parse(h), Code::kProtocol, "upgrade the agent before the trainers");
}

// The next release's agent (one version higher) serves this release's shims in their own version,
// and refuses the shims of the release before this one, naming its window.
TEST(HelloTest, AnAgentOneVersionAheadServesThePreviousVersionAndNoOlder) {
  ControlServerOptions next;
  next.protocol = {.newest = uint16_t(ipc::kProtocolVersion + 1), .oldest = ipc::kProtocolVersion};
  ipc::HelloRequest h = ValidHello();
  Result<Hello> r = Parse(h, next);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, ipc::kProtocolVersion);
  h.header.version = ipc::kProtocolVersion + 1;
  r = Parse(h, next);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, ipc::kProtocolVersion + 1);
  h.header.version = ipc::kProtocolVersion - 1;
  std::string window = "serves shims of versions " + std::to_string(ipc::kProtocolVersion) +
                       " to " + std::to_string(ipc::kProtocolVersion + 1);
  ExpectRefused(Parse(h, next), Code::kProtocol, window);
  ExpectRefused(
      Parse(h, next), Code::kProtocol,
      "protocol version " + std::to_string(ipc::kProtocolVersion - 1) + " is not supported");
  ExpectRefused(Parse(h, next), Code::kProtocol, "restart the trainer with the shim installed");
  h.header.version = ipc::kProtocolVersion + 2;
  ExpectRefused(Parse(h, next), Code::kProtocol, window);
}

TEST(HelloTest, RefusesAnotherTypeOrSize) {
  ipc::HelloRequest h = ValidHello();
  h.header.type = static_cast<uint16_t>(ipc::MsgType::kGoodbye);
  ExpectRefused(Parse(h), Code::kProtocol, "first message must be a hello");
  h = ValidHello();
  ExpectRefused(ParseHello(reinterpret_cast<const uint8_t*>(&h), sizeof(h) - 1, {}),
                Code::kProtocol,
                "first message must be a hello of 252 bytes (protocol version 13)");
}

// The previous release's shim (version 12) says a hello without away_ms: 248 bytes, served with
// its identity; it knows no reconnect flags, and a 12 hello of 13's size is refused.
TEST(HelloTest, AVersion12HelloIsServedAtItsOwnSize) {
  ipc::HelloRequest h = ValidHello();
  h.header.version = 12;
  h.header.body_bytes = ipc::kHelloRequestV12Bytes - sizeof(h.header);
  auto bytes = reinterpret_cast<const uint8_t*>(&h);
  Result<Hello> r = ParseHello(bytes, ipc::kHelloRequestV12Bytes, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 12);
  EXPECT_EQ(r->identity.job_id, "job-1");
  EXPECT_EQ(r->identity.rank, 5);
  EXPECT_FALSE(r->reconnect.has_value());
  ExpectRefused(ParseHello(bytes, sizeof(h), {}), Code::kProtocol,
                "first message must be a hello of 248 bytes (protocol version 12)");
  h.flags = ipc::kHelloReconnect;
  ExpectRefused(ParseHello(bytes, ipc::kHelloRequestV12Bytes, {}), Code::kInvalidArgument,
                "unknown flags 2");
}

TEST(HelloTest, AReconnectingClientSaysHowLongItWasAwayAndHowItsAgentWent) {
  ipc::HelloRequest h = ValidHello();
  EXPECT_FALSE(Parse(h)->reconnect.has_value());
  h.flags = ipc::kHelloReconnect | ipc::kHelloAfterGoodbye;
  h.away_ms = 1234;
  Result<Hello> r = Parse(h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->reconnect.has_value());
  EXPECT_EQ(r->reconnect->away_ms, 1234u);
  EXPECT_TRUE(r->reconnect->after_goodbye);
  h.flags = ipc::kHelloAfterGoodbye;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "kHelloAfterGoodbye without kHelloReconnect");
}

TEST(HelloTest, FencesComeOnlyWithAClientBackAfterAGoodbyeInGpuModeStaging) {
  ipc::HelloRequest h = ValidHello();
  h.flags = ipc::kHelloReconnect | ipc::kHelloAfterGoodbye | ipc::kHelloFences;
  Result<Hello> r = Parse(h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->fences);
  EXPECT_FALSE(Parse(ValidHello())->fences);
  h.flags = ipc::kHelloReconnect | ipc::kHelloFences;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "kHelloFences without kHelloAfterGoodbye");
  h.flags = ipc::kHelloReconnect | ipc::kHelloAfterGoodbye | ipc::kHelloFences;
  h.gpu_mode = static_cast<uint32_t>(ipc::GpuMode::kIpc);
  ExpectRefused(Parse(h), Code::kInvalidArgument, "in a gpu_mode other than staging");
}

TEST(HelloTest, TakesTheJobsClassAndWeightZeroBeingNormalAndOne) {
  ipc::HelloRequest h = ValidHello();
  Result<Hello> r = Parse(h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->identity.job_class, ipc::JobClass::kNormal);
  EXPECT_EQ(r->identity.job_weight, 1u);
  h.job_class = static_cast<uint32_t>(ipc::JobClass::kLow);
  h.job_weight = 40;
  r = Parse(h);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->identity.job_class, ipc::JobClass::kLow);
  EXPECT_EQ(r->identity.job_weight, 40u);
  h.job_class = 4;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "job class 4 is not high (1), normal (2)");
  h.job_class = 1;
  h.job_weight = 101;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "job weight 101 is outside 1..100");
}

TEST(HelloTest, RefusesAnEmptyUnterminatedOrUnprintableJobId) {
  ipc::HelloRequest h = ValidHello();
  std::memset(h.job_id, 0, sizeof(h.job_id));
  ExpectRefused(Parse(h), Code::kInvalidArgument, "job id must be 1..63 characters");
  std::memset(h.job_id, 'a', sizeof(h.job_id));
  ExpectRefused(Parse(h), Code::kInvalidArgument, "job id must be 1..63 characters");
  ipc::CopyText(h.job_id, sizeof(h.job_id), "job 1");
  ExpectRefused(Parse(h), Code::kInvalidArgument, "printable ASCII without spaces");
}

TEST(HelloTest, RefusesAJobIdThatNamesAGeneration) {
  ipc::HelloRequest h = ValidHello();
  ipc::CopyText(h.job_id, sizeof(h.job_id), "train~g1");
  ExpectRefused(Parse(h), Code::kInvalidArgument, "names a generation of a job");
  // Only the whole form is reserved.
  for (const char* id : {"train~g", "train~gx", "train~g1x", "tr~g1ain"}) {
    ipc::CopyText(h.job_id, sizeof(h.job_id), id);
    EXPECT_TRUE(Parse(h).ok()) << id;
  }
}

TEST(HelloTest, RefusesRanksOutsideTheJob) {
  ipc::HelloRequest h = ValidHello();
  h.rank = 8;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "rank 8 is outside world_size 8");
  h = ValidHello();
  h.local_world_size = 65;
  ExpectRefused(Parse(h), Code::kInvalidArgument, "local rank 1 is outside local_world_size 65");
  h = ValidHello();
  h.rank = 6;  // 6 % 4 != local rank 1
  ExpectRefused(Parse(h), Code::kInvalidArgument, "do not fit local rank 1 / local_world_size 4");
}

TEST(HelloTest, RefusesAJobLargerThanMaxWorldSize) {
  ControlServerOptions options;
  options.max_world_size = 4;
  ExpectRefused(Parse(ValidHello(), options), Code::kResourceExhausted,
                "world_size 8 exceeds this agent's max_world_size 4");
}

ClientIdentity JobMember() {
  ClientIdentity job;
  job.job_id = std::string(63, 'j');
  job.rank = 5;
  job.world_size = 8;
  job.local_rank = 1;
  job.local_world_size = 4;
  job.root_addr = "10.0.0.1:29750";
  job.token = "secret";
  return job;
}

ipc::CommCreate ValidComm() {
  ipc::CommCreate m{};
  ipc::InitMsgHeader(&m.header, ipc::MsgType::kCommCreate, sizeof(m) - sizeof(m.header), 9);
  m.key = 0x0123456789abcdefull;
  m.rank = 3;
  m.world_size = 4;
  m.local_rank = 1;
  m.local_world_size = 2;
  return m;
}

TEST(CommCreateTest, NamesTheCommunicatorWithinItsJobAndKeepsTheJobsRootAndToken) {
  Result<ClientIdentity> r = ParseCommCreate(ValidComm(), JobMember(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->job_id, std::string(46, 'j') + "/0123456789abcdef");
  EXPECT_EQ(r->job_id.size(), 63u);
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world_size, 4);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->local_world_size, 2);
  EXPECT_EQ(r->root_addr, "10.0.0.1:29750");
  EXPECT_EQ(r->token, "secret");
  EXPECT_TRUE(r->comm);
  EXPECT_EQ(r->job_node, 1);  // job rank 5 of 4 per node
}

TEST(CommCreateTest, RefusesLayoutsThatDoNotFitTheJobOrEachOther) {
  auto refused = [](ipc::CommCreate m, Code code, const std::string& text) {
    Result<ClientIdentity> r = ParseCommCreate(m, JobMember(), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  ipc::CommCreate m = ValidComm();
  m.rank = 4;
  refused(m, Code::kInvalidArgument, "outside world_size 4");
  m = ValidComm();
  m.local_rank = 0;
  refused(m, Code::kInvalidArgument, "rank = node * LOCAL_WORLD_SIZE + LOCAL_RANK");
  m = ValidComm();
  m.world_size = 16;
  m.local_world_size = 4;
  m.local_rank = 3;
  refused(m, Code::kInvalidArgument, "does not fit in job");
  // Job: 8 ranks, 4 per node (2 nodes). 8 ranks one per node would be 8 nodes.
  m = ValidComm();
  m.world_size = 8;
  m.local_world_size = 1;
  m.local_rank = 0;
  refused(m, Code::kInvalidArgument, "spans 8 nodes; job '" + std::string(63, 'j') + "' spans 2");
  m.world_size = 3;
  m.rank = 2;
  refused(m, Code::kInvalidArgument, "spans 3 nodes");
  m = ValidComm();
  m.reserved = 1;
  refused(m, Code::kInvalidArgument, "reserved");
  m = ValidComm();
  m.world_size = 1 << 20;
  ControlServerOptions small;
  small.max_world_size = 1024;
  Result<ClientIdentity> r = ParseCommCreate(m, JobMember(), small);
  EXPECT_EQ(r.status().code(), Code::kResourceExhausted);
}

}  // namespace
}  // namespace outrider::agent
