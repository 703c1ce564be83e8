// Session against a client played by the test in the same process: a socketpair for the control
// channel, one control segment mapped twice (the agent's view and the client's), real eventfds and
// memfd regions. Covers region registration and its limits, submission draining and validation,
// completions (wakeups, overflow, partial), and every way a session closes.
#include <gtest/gtest.h>

#include <atomic>

#include "tests/unit/agent/control/session_fixture.h"

namespace outrider::agent {
namespace {

using namespace session_testing;  // NOLINT: the fixture's helpers

// ---- Regions ----

TEST_F(SessionTest, RegistersSealedMemfdAndRepliesWithRegionId) {
  uint32_t id = RegisterRegion();
  EXPECT_NE(id, 0u);
  EXPECT_EQ(session_->region_count(), 1u);
  EXPECT_EQ(session_->region_bytes(), kRegionBytes);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, GivesEachRegionItsOwnId) {
  uint32_t first = RegisterRegion();
  uint32_t second = RegisterRegion();
  EXPECT_NE(first, second);
  EXPECT_EQ(session_->region_count(), 2u);
  EXPECT_EQ(session_->region_bytes(), 2 * kRegionBytes);
}

TEST_F(SessionTest, RejectsUnsealedMemfd) {
  UniqueFd fd = UnsealedMemfd(kRegionBytes);
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  int f = fd.get();
  auto reply = Register(kRegionBytes, &f, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_NE(std::string(reply->message).find("sealed"), std::string::npos) << reply->message;
  EXPECT_EQ(session_->region_count(), 0u);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, RejectsRegistrationWithoutMemfd) {
  auto reply = Register(kRegionBytes, nullptr, 0);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_EQ(session_->region_count(), 0u);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, RejectsRegistrationWhoseSizeDiffersFromTheMemfd) {
  auto fd = ipc::CreateSealedMemfd("outrider-test-region", kRegionBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  int f = fd->get();
  auto reply = Register(2 * kRegionBytes, &f, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_EQ(session_->region_count(), 0u);
}

TEST_F(SessionTest, RejectsRegionBeyondMaxRegions) {
  SessionLimits limits;
  limits.max_regions = 1;
  Open(limits);
  RegisterRegion();
  auto fd = ipc::CreateSealedMemfd("outrider-test-region", kRegionBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  int f = fd->get();
  auto reply = Register(kRegionBytes, &f, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kResourceExhausted));
  EXPECT_EQ(session_->region_count(), 1u);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, RejectsRegionLargerThanMaxRegionBytes) {
  SessionLimits limits;
  limits.max_region_bytes = kRegionBytes / 2;
  Open(limits);
  auto fd = ipc::CreateSealedMemfd("outrider-test-region", kRegionBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  int f = fd->get();
  auto reply = Register(kRegionBytes, &f, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_NE(std::string(reply->message).find("max_region_bytes"), std::string::npos)
      << reply->message;
  EXPECT_EQ(session_->region_count(), 0u);
}

TEST_F(SessionTest, ReleasesRegion) {
  uint32_t id = RegisterRegion();
  auto reply = Release(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, 0);
  EXPECT_EQ(reply->region_id, id);
  EXPECT_EQ(session_->region_count(), 0u);
  EXPECT_EQ(session_->region_bytes(), 0u);
}

TEST_F(SessionTest, ReleaseOfUnknownRegionRepliesWithErrorAndKeepsSession) {
  RegisterRegion();
  auto reply = Release(999);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_EQ(session_->region_count(), 1u);
  EXPECT_FALSE(session_->closed());
}

// ---- Submissions ----

TEST_F(SessionTest, DrainSubmissionsHandsValidEntryToSink) {
  uint32_t region = RegisterRegion();
  Submit(Allreduce(1, region));
  std::vector<ValidatedOp> ops = Drain();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].op_id, 1u);
  EXPECT_EQ(ops[0].key, Allreduce(1, region).key);
  EXPECT_EQ(ops[0].kind, ipc::OpKind::kAllreduce);
  EXPECT_EQ(ops[0].count, kCount);
  EXPECT_EQ(ops[0].send.length, kBytes);
  EXPECT_EQ(ops[0].recv.length, kBytes);
}

TEST_F(SessionTest, OpsBeyondTheCqCapacityInFlightAreRefusedUntilOneCompletes) {
  uint32_t region = RegisterRegion();
  for (uint64_t op = 1; op <= kRingEntries; ++op) Submit(Allreduce(op, region));
  ASSERT_EQ(Drain().size(), kRingEntries);
  Submit(Allreduce(kRingEntries + 1, region));
  EXPECT_TRUE(Drain().empty());
  std::vector<ipc::CompletionEntry> refused = PopCompletions();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].op_id, kRingEntries + 1);
  EXPECT_EQ(refused[0].code, static_cast<int32_t>(Code::kResourceExhausted));
  EXPECT_NE(std::string(refused[0].message).find("in flight"), std::string::npos)
      << refused[0].message;
  CompleteOk(1);
  Submit(Allreduce(kRingEntries + 2, region));
  EXPECT_EQ(Drain().size(), 1u);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, ValidatedOpNamesTheClientsBuffers) {
  uint32_t region = RegisterRegion();
  for (uint64_t i = 0; i < kBytes; ++i) {
    region_.data()[kSendOffset + i] = static_cast<uint8_t>(i + 1);
  }
  Submit(Allreduce(1, region));
  session_->DrainSubmissions([](Member* s, const ValidatedOp& op) {
    RunOneRankAllreduce(op);
    s->Complete(op.op_id, Status::Ok(), 1, 0);
  });
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].code, 0);
  EXPECT_EQ(std::memcmp(region_.data() + kRecvOffset, region_.data() + kSendOffset, kBytes), 0);
}

// ---- Fences (GPU stream order) ----

ipc::SubmitEntry Fenced(ipc::SubmitEntry e, uint32_t slot) {
  e.flags = ipc::kSubmitFenced;
  e.fence = slot;
  return e;
}

TEST_F(SessionTest, AFencedOpWaitsForItsReadyFenceAndTheOpsAfterItKeepTheirOrder) {
  uint32_t region = RegisterRegion();
  Submit(Fenced(Allreduce(1, region), 3));
  Submit(Allreduce(2, region));
  EXPECT_TRUE(Drain().empty());
  std::vector<uint64_t> started;
  auto sink = [&](Member*, const ValidatedOp& op) { started.push_back(op.op_id); };
  EXPECT_TRUE(session_->has_fenced_waits());
  EXPECT_FALSE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  EXPECT_TRUE(started.empty());
  std::atomic_ref<uint64_t>(Fence(3).ready).store(1, std::memory_order_release);
  EXPECT_TRUE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  EXPECT_EQ(started, (std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(session_->has_fenced_waits());
  // With nothing waiting, an unfenced op goes straight through again.
  Submit(Allreduce(3, region));
  EXPECT_EQ(Drain().size(), 1u);
}

TEST_F(SessionTest, AFencedOpWithAnIdOf2To63OrMoreStillWaitsForItsFence) {
  // A fresh slot reads ready = 0: a wrapping comparison took 0 - id as "written" for such ids.
  uint32_t region = RegisterRegion();
  constexpr uint64_t kHigh = (uint64_t{1} << 63) + 5;
  Submit(Fenced(Allreduce(kHigh, region), 2));
  EXPECT_TRUE(Drain().empty());
  std::vector<uint64_t> started;
  auto sink = [&](Member*, const ValidatedOp& op) { started.push_back(op.op_id); };
  EXPECT_FALSE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  EXPECT_TRUE(started.empty());
  std::atomic_ref<uint64_t>(Fence(2).ready).store(kHigh - 1, std::memory_order_release);
  EXPECT_FALSE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  std::atomic_ref<uint64_t>(Fence(2).ready).store(kHigh, std::memory_order_release);
  EXPECT_TRUE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  EXPECT_EQ(started, (std::vector<uint64_t>{kHigh}));
}

TEST_F(SessionTest, AReadyFenceOfAnEarlierOpInTheSlotDoesNotStartALaterOne) {
  uint32_t region = RegisterRegion();
  std::atomic_ref<uint64_t>(Fence(5).ready)
      .store(4, std::memory_order_release);  // op 4 used slot 5 before
  Submit(Fenced(Allreduce(9, region), 5));
  EXPECT_TRUE(Drain().empty());
  std::vector<uint64_t> started;
  auto sink = [&](Member*, const ValidatedOp& op) { started.push_back(op.op_id); };
  EXPECT_FALSE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  std::atomic_ref<uint64_t>(Fence(5).ready).store(9, std::memory_order_release);
  EXPECT_TRUE(session_->ReleaseFenced(sink, ipc::MonotonicNs(), 0));
  EXPECT_EQ(started, (std::vector<uint64_t>{9}));
}

TEST_F(SessionTest, CompletingAFencedOpSignalsItsDoneFenceWithTheStatus) {
  uint32_t region = RegisterRegion();
  Submit(Fenced(Allreduce(1, region), 0));
  Submit(Fenced(Allreduce(2, region), 1));
  Drain();
  std::atomic_ref<uint64_t>(Fence(0).ready).store(1, std::memory_order_release);
  std::atomic_ref<uint64_t>(Fence(1).ready).store(2, std::memory_order_release);
  std::vector<Member*> members;
  ASSERT_TRUE(session_->ReleaseFenced([&](Member* m, const ValidatedOp&) { members.push_back(m); },
                                      ipc::MonotonicNs(), 0));
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(Fence(0).done, 0u);  // not before the op completes
  members[0]->Complete(1, Status::Ok(), 1, 0);
  members[1]->Complete(2, PeerLost("rank 3 left"), 1, 0);
  EXPECT_EQ(std::atomic_ref<uint64_t>(Fence(0).done).load(), 1u);
  EXPECT_EQ(Fence(0).status, 0);
  EXPECT_EQ(std::atomic_ref<uint64_t>(Fence(1).done).load(), 2u);
  EXPECT_EQ(Fence(1).status, static_cast<int32_t>(Code::kPeerLost));
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].code, static_cast<int32_t>(Code::kPeerLost));
}

TEST_F(SessionTest, ARefusedFencedOpSignalsItsFenceSoTheStreamGoesOn) {
  uint32_t region = RegisterRegion();
  ipc::SubmitEntry e = Fenced(Allreduce(1, region), 7);
  e.send.offset = kRegionBytes;  // outside the region
  Submit(e);
  EXPECT_TRUE(Drain().empty());
  EXPECT_EQ(std::atomic_ref<uint64_t>(Fence(7).done).load(), 1u);
  EXPECT_EQ(Fence(7).status, static_cast<int32_t>(Code::kInvalidArgument));
  std::vector<ipc::CompletionEntry> refused = PopCompletions();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_FALSE(session_->has_fenced_waits());
}

TEST_F(SessionTest, AFenceNeverReadyFailsItsOpAfterTheTimeoutAndTheOpsBehindItGoOn) {
  uint32_t region = RegisterRegion();
  uint64_t submitted = ipc::MonotonicNs();
  Submit(Fenced(Allreduce(1, region), 2));
  Submit(Allreduce(2, region));
  Drain();
  std::vector<uint64_t> started;
  auto sink = [&](Member*, const ValidatedOp& op) { started.push_back(op.op_id); };
  constexpr uint64_t kTimeout = 1'000'000'000;
  // The clock is an argument: nothing here waits for the timeout.
  EXPECT_FALSE(session_->ReleaseFenced(sink, submitted, kTimeout));
  EXPECT_TRUE(session_->ReleaseFenced(sink, ipc::MonotonicNs() + 2 * kTimeout, kTimeout));
  EXPECT_EQ(started, (std::vector<uint64_t>{2}));
  std::vector<ipc::CompletionEntry> failed = PopCompletions();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].op_id, 1u);
  EXPECT_EQ(failed[0].code, static_cast<int32_t>(Code::kDeadlineExceeded));
  EXPECT_NE(std::string(failed[0].message).find("fence (slot 2) was not ready within 1000 ms"),
            std::string::npos)
      << failed[0].message;
  EXPECT_EQ(std::atomic_ref<uint64_t>(Fence(2).done).load(), 1u);
  EXPECT_EQ(Fence(2).status, static_cast<int32_t>(Code::kDeadlineExceeded));
}

TEST_F(SessionTest, ClosingASessionDropsTheOpsWaitingForAFence) {
  uint32_t region = RegisterRegion();
  Submit(Fenced(Allreduce(1, region), 0));
  Drain();
  ASSERT_TRUE(session_->has_fenced_waits());
  session_->Close(Cancelled("client gone"));
  EXPECT_FALSE(session_->has_fenced_waits());
  std::atomic_ref<uint64_t>(Fence(0).ready).store(1, std::memory_order_release);
  bool started = false;
  EXPECT_FALSE(session_->ReleaseFenced([&](Member*, const ValidatedOp&) { started = true; },
                                       ipc::MonotonicNs(), 0));
  EXPECT_FALSE(started);
}

TEST_F(SessionTest, DrainSubmissionsReportsWhetherItFoundEntries) {
  uint32_t region = RegisterRegion();
  auto ignore = [](Member*, const ValidatedOp&) {};
  EXPECT_FALSE(session_->DrainSubmissions(ignore));
  Submit(Allreduce(1, region));
  EXPECT_TRUE(session_->DrainSubmissions(ignore));
}

TEST_F(SessionTest, InvalidEntryCompletesWithErrorAtOnce) {
  uint32_t region = RegisterRegion();
  ipc::SubmitEntry e = Allreduce(1, region);
  e.flags = 0x100;  // no such flag
  Submit(e);
  EXPECT_TRUE(Drain().empty());
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].op_id, 1u);
  EXPECT_EQ(done[0].code, static_cast<int32_t>(Code::kInvalidArgument));
  EXPECT_NE(std::string(done[0].message).find("flags"), std::string::npos) << done[0].message;
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, EntryNamingAReleasedRegionIsRejected) {
  uint32_t region = RegisterRegion();
  ASSERT_TRUE(Release(region));
  Submit(Allreduce(1, region));
  EXPECT_TRUE(Drain().empty());
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].code, static_cast<int32_t>(Code::kInvalidArgument));
}

TEST_F(SessionTest, OpIdThatDoesNotIncreaseClosesSession) {
  uint32_t region = RegisterRegion();
  Submit(Allreduce(2, region));
  Submit(Allreduce(2, region));
  EXPECT_EQ(Drain().size(), 1u);
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
}

TEST_F(SessionTest, CorruptSubmissionRingClosesSession) {
  // A tail further ahead of the head than the ring has slots.
  ipc::AtomicU64(SqIndices()->tail).store(3 * kRingEntries);
  std::vector<ValidatedOp> ops = Drain();
  EXPECT_TRUE(ops.empty());
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
}

TEST_F(SessionTest, ClosedSessionDrainsNothing) {
  uint32_t region = RegisterRegion();
  Submit(Allreduce(1, region));
  session_->Close(Unavailable("agent shutting down"));
  EXPECT_FALSE(session_->DrainSubmissions([](Member*, const ValidatedOp&) {
    ADD_FAILURE() << "a closed session handed an op to the sink";
  }));
}

// ---- Completions ----

TEST_F(SessionTest, CompletionLandsInCqAndWakesClient) {
  ASSERT_TRUE(cq_.PrepareSleep());
  OpReport report;
  report.result_rows = 5;
  report.algo = 2;
  report.predicted_bytes = 100;
  report.wire_bytes_sent = 110;
  report.wire_bytes_recv = 120;
  session_->Complete(7, Mismatch("ranks disagree on the count"), 3, 42, &report);
  EXPECT_TRUE(ClientWoken());
  cq_.FinishSleep();
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 1u);
  const ipc::CompletionEntry& c = done[0];
  EXPECT_EQ(c.op_id, 7u);
  EXPECT_EQ(c.code, static_cast<int32_t>(Code::kMismatch));
  EXPECT_STREQ(c.message, "ranks disagree on the count");
  EXPECT_EQ(c.seq, 3u);
  EXPECT_EQ(c.agent_ns, 42u);
  EXPECT_EQ(c.result_rows, 5u);
  EXPECT_EQ(c.algo, 2u);
  EXPECT_EQ(c.predicted_bytes, 100u);
  EXPECT_EQ(c.wire_bytes_sent, 110u);
  EXPECT_EQ(c.wire_bytes_recv, 120u);
  EXPECT_EQ(c.flags & ipc::kCompletionPartial, 0u);
}

TEST_F(SessionTest, CompletionDoesNotSignalAClientThatIsAwake) {
  CompleteOk(1);
  EXPECT_FALSE(ClientWoken());
  EXPECT_EQ(PopCompletions().size(), 1u);
}

TEST_F(SessionTest, CompletionsOverflowingTheCqAreDeliveredLater) {
  for (uint64_t op = 1; op <= kRingEntries + 1; ++op) CompleteOk(op);
  std::vector<ipc::CompletionEntry> first = PopCompletions();
  ASSERT_EQ(first.size(), kRingEntries);
  EXPECT_EQ(first.back().op_id, kRingEntries);
  // The held-back completion goes out, ahead of the next one, once the ring has room.
  CompleteOk(kRingEntries + 2);
  std::vector<ipc::CompletionEntry> later = PopCompletions();
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(later[0].op_id, kRingEntries + 1);
  EXPECT_EQ(later[1].op_id, kRingEntries + 2);
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, ClientThatDoesNotDrainItsCqIsClosed) {
  // The ring holds kRingEntries and the session holds back as many more; one beyond is too many.
  for (uint64_t op = 1; op <= 2 * kRingEntries; ++op) CompleteOk(op);
  ASSERT_FALSE(session_->closed());
  CompleteOk(2 * kRingEntries + 1);
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kResourceExhausted);
}

TEST_F(SessionTest, PartialCompletionCarriesDemandRows) {
  OpReport report;
  report.result_rows = 10;
  report.demand_rows = 3;
  report.algo = 2;
  session_->Partial(4, 1, 50, report);
  session_->Complete(4, Status::Ok(), 1, 90, &report);
  std::vector<ipc::CompletionEntry> done = PopCompletions();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].op_id, 4u);
  EXPECT_NE(done[0].flags & ipc::kCompletionPartial, 0u);
  EXPECT_EQ(done[0].demand_rows, 3u);
  EXPECT_EQ(done[0].result_rows, 10u);
  EXPECT_EQ(done[0].algo, 2u);
  EXPECT_EQ(done[1].flags & ipc::kCompletionPartial, 0u);
  EXPECT_EQ(done[1].demand_rows, 3u);
}

TEST_F(SessionTest, ClosedSessionPostsNoCompletions) {
  session_->Close(Unavailable("agent shutting down"));
  CompleteOk(1);
  session_->Partial(2, 1, 0, OpReport{});
  EXPECT_TRUE(PopCompletions().empty());
}

// ---- Closing ----

TEST_F(SessionTest, ClosesOnEofWithReason) {
  client_ = ipc::UnixChannel();
  session_->OnSocketReadable();
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kPeerLost);
  EXPECT_NE(session_->close_reason().message().find("closed its connection"), std::string::npos)
      << session_->close_reason().ToString();
}

TEST_F(SessionTest, ClientGoodbyeClosesSession) {
  Deliver(Message<ipc::Goodbye>(ipc::MsgType::kGoodbye, 0));
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kPeerLost);
}

TEST_F(SessionTest, WakeupWithNothingQueuedKeepsSessionOpen) {
  session_->OnSocketReadable();
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, ProtocolAbuseClosesSession) {
  auto msg = Message<ipc::ReleaseRegion>(ipc::MsgType::kReleaseRegion, 1);
  msg.header.magic = 0xdeadbeef;
  Deliver(msg);
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
  auto bye = Receive<ipc::Goodbye>(ipc::MsgType::kGoodbye);
  ASSERT_TRUE(bye);
  EXPECT_EQ(bye->code, static_cast<int32_t>(Code::kProtocol));
}

TEST_F(SessionTest, MessageShorterThanAHeaderClosesSession) {
  uint32_t magic = ipc::kMagic;
  ASSERT_TRUE(client_.Send(&magic, sizeof(magic)).ok());
  session_->OnSocketReadable();
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
}

TEST_F(SessionTest, UnexpectedMessageTypeClosesSession) {
  Deliver(Message<ipc::HelloRequest>(ipc::MsgType::kHello, 1));
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kProtocol);
}

TEST_F(SessionTest, SayGoodbyeIsSentOnce) {
  session_->SayGoodbye(Unavailable("agent shutting down"));
  session_->SayGoodbye(Internal("a second reason"));
  session_->Close(Internal("a third reason"));
  auto bye = Receive<ipc::Goodbye>(ipc::MsgType::kGoodbye);
  ASSERT_TRUE(bye);
  EXPECT_EQ(bye->code, static_cast<int32_t>(Code::kUnavailable));
  EXPECT_STREQ(bye->message, "agent shutting down");
  EXPECT_TRUE(NothingMoreSent());
}

TEST_F(SessionTest, SayGoodbyeLeavesSessionOpen) {
  session_->SayGoodbye(Unavailable("agent shutting down"));
  EXPECT_FALSE(session_->closed());
}

TEST_F(SessionTest, CloseRecordsItsReason) {
  session_->Close(PeerLost("rank 3 died"));
  EXPECT_TRUE(session_->closed());
  EXPECT_EQ(session_->close_reason().code(), Code::kPeerLost);
  EXPECT_EQ(session_->close_reason().message(), "rank 3 died");
}

TEST_F(SessionTest, CloseTellsTheClientWhy) {
  session_->Close(PeerLost("rank 3 died"));
  auto bye = Receive<ipc::Goodbye>(ipc::MsgType::kGoodbye);
  ASSERT_TRUE(bye);
  EXPECT_EQ(bye->code, static_cast<int32_t>(Code::kPeerLost));
  EXPECT_STREQ(bye->message, "rank 3 died");
}

// A client asleep on its completion eventfd must wake to notice the goodbye.
TEST_F(SessionTest, CloseWakesTheClient) {
  session_->Close(PeerLost("rank 3 died"));
  EXPECT_TRUE(ClientWoken());
}

TEST_F(SessionTest, SecondCloseKeepsTheFirstReason) {
  session_->Close(PeerLost("rank 3 died"));
  session_->Close(Internal("later"));
  EXPECT_EQ(session_->close_reason().code(), Code::kPeerLost);
}

}  // namespace
}  // namespace outrider::agent
