// What a session refuses reaches its job in submission order (the job counts it in the key's
// sequence), and control messages whose header misstates their size close the session.
#include <gtest/gtest.h>

#include "agent/engine/job_table.h"
#include "tests/unit/agent/control/session_fixture.h"

namespace outrider::agent {
namespace {

using namespace session_testing;  // NOLINT: the fixture's helpers

ipc::SubmitEntry Fenced(ipc::SubmitEntry e, uint32_t slot) {
  e.flags = ipc::kSubmitFenced;
  e.fence = slot;
  return e;
}

class SessionRefusalTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    ASSERT_TRUE(jobs_.Join(session_.get()).ok());
    session_->EnableComms(&jobs_, nullptr, &options_, &comms_in_use_);
  }
  void TearDown() override {
    jobs_.Leave(session_.get(), Cancelled("test over"), true);
    session_.reset();
  }
  Session::OpSink ToJob() {
    return [this](Member* m, const ValidatedOp& op) {
      jobs_.Find(m->identity().job_id)->Submit(m, op);
    };
  }
  // The completions of `n` ops, running the job's local work until they came.
  std::vector<ipc::CompletionEntry> Completions(size_t n) {
    std::vector<ipc::CompletionEntry> out;
    for (int i = 0; i < 100000 && out.size() < n; ++i) {
      jobs_.Pump();
      for (const ipc::CompletionEntry& c : PopCompletions()) out.push_back(c);
    }
    return out;
  }

  JobTable jobs_;
  ControlServerOptions options_;
  size_t comms_in_use_ = 0;
};

TEST_F(SessionRefusalTest, ARefusedEntryBehindAWaitingOpTakesTheKeysNextSequenceAfterIt) {
  uint32_t region = RegisterRegion();
  ipc::SubmitEntry waits = Fenced(Allreduce(1, region), 4);
  ipc::SubmitEntry bad = Allreduce(2, region);
  bad.key = waits.key;        // the same collective key
  bad.send.length = 1 << 30;  // leaves the region: refused
  Submit(waits);
  Submit(bad);
  EXPECT_TRUE(session_->DrainSubmissions(ToJob()));
  EXPECT_TRUE(PopCompletions().empty()) << "the refusal overtook the op before it";
  std::atomic_ref<uint64_t>(Fence(4).ready).store(1, std::memory_order_release);
  EXPECT_TRUE(session_->ReleaseFenced(ToJob(), ipc::MonotonicNs(), 0));
  std::vector<ipc::CompletionEntry> done = Completions(2);
  ASSERT_EQ(done.size(), 2u);
  for (const ipc::CompletionEntry& c : done) {
    if (c.op_id == 1) {
      EXPECT_EQ(c.code, 0) << c.message;
      EXPECT_EQ(c.seq, 0u);
    } else {
      EXPECT_EQ(c.op_id, 2u);
      EXPECT_EQ(c.code, static_cast<int32_t>(Code::kInvalidArgument)) << c.message;
      EXPECT_EQ(c.seq, 1u);
    }
  }
}

TEST_F(SessionRefusalTest, ARefusalMarkAmongUnknownFlagsIsAnUnknownFlagNotTheShimsRefusal) {
  uint32_t region = RegisterRegion();
  ipc::SubmitEntry e = Allreduce(1, region);
  e.flags = 0xffffffffu;
  e.root = static_cast<int32_t>(Code::kPeerLost);  // what a shim refusal would carry as its code
  Submit(e);
  EXPECT_TRUE(session_->DrainSubmissions(ToJob()));
  std::vector<ipc::CompletionEntry> done = Completions(1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].code, static_cast<int32_t>(Code::kInvalidArgument)) << done[0].message;
  EXPECT_NE(std::string(done[0].message).find("unknown flags"), std::string::npos)
      << done[0].message;
}

TEST_F(SessionRefusalTest, AClientFloodingRefusedOpsBehindAWaitingOneIsCutOff) {
  uint32_t region = RegisterRegion();
  Submit(Fenced(Allreduce(1, region), 4));
  session_->DrainSubmissions(ToJob());
  uint64_t id = 2;
  for (int round = 0; round < 4 && !session_->closed(); ++round) {
    for (uint32_t i = 0; i < kRingEntries; ++i) {
      ipc::SubmitEntry bad = Allreduce(id++, region);
      bad.send.length = 1 << 30;
      Submit(bad);
    }
    session_->DrainSubmissions(ToJob());
  }
  ASSERT_TRUE(session_->closed()) << "refusals queued without bound behind a waiting op";
  EXPECT_EQ(session_->close_reason().code(), Code::kResourceExhausted)
      << session_->close_reason().ToString();
}

TEST_F(SessionRefusalTest, AMessageWhoseBodyBytesDisagreeWithWhatCameClosesTheSession) {
  auto msg = Message<ipc::ReleaseRegion>(ipc::MsgType::kReleaseRegion, 1);
  msg.header.body_bytes += 8;
  Deliver(msg);
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
  EXPECT_NE(session_->close_reason().message().find("body_bytes"), std::string::npos)
      << session_->close_reason().ToString();
}

}  // namespace
}  // namespace outrider::agent
