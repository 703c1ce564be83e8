// SendScheduler with a fake clock and a fake transport (each Issue records the send; the test
// decides when a send completes): urgent chunks overtake queued bulk after at most one window,
// aging bounds the wait of the lowest priority, FIFO keeps submission order, jobs alternate; a
// higher job class goes first and keeps lower ones to the yield window (while it has chunks on the
// link or ops running), weights share a class, class aging bounds a low job's wait; inside a job,
// a running op keeps the job's lower priorities to the yield window.
#include "agent/sched/send_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace outrider::agent {
namespace {

constexpr uint64_t kChunk = 1 << 20;
constexpr PeerId kPeer = 7;

struct FakeLink {
  uint64_t now = 0;
  std::vector<std::string> sent;  // names, in send order
  std::vector<std::string> in_flight;
  std::unique_ptr<SendScheduler> s;
  explicit FakeLink(SchedulerOptions o)
      : s(std::make_unique<SendScheduler>(o, [this] { return now; })) {}
  void Add(const std::string& name, int32_t priority, uint64_t job = 1, uint64_t bytes = kChunk,
           ipc::JobClass job_class = ipc::JobClass::kNormal, uint32_t weight = 1) {
    s->Enqueue(kPeer, {job, job_class, weight}, priority, bytes, [this, name] {
      sent.push_back(name);
      in_flight.push_back(name);
    });
  }
  // The oldest send in flight completes.
  void CompleteOne(uint64_t bytes = kChunk) {
    ASSERT_FALSE(in_flight.empty());
    in_flight.erase(in_flight.begin());
    s->Done(kPeer, bytes);
  }
};

TEST(SendSchedulerTest, WindowLimitsBytesInFlightPerPeer) {
  FakeLink l({true, 2 * kChunk, 0, 2 * kChunk});
  for (int i = 0; i < 5; ++i) l.Add("b" + std::to_string(i), 1000);
  EXPECT_EQ(l.sent.size(), 2u);
  EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk);
  l.CompleteOne();
  EXPECT_EQ(l.sent.size(), 3u);
}

TEST(SendSchedulerTest, UrgentChunkOvertakesQueuedBulkAfterAtMostOneWindow) {
  FakeLink l({true, 2 * kChunk, 0, 2 * kChunk});
  for (int i = 0; i < 10; ++i) l.Add("bulk" + std::to_string(i), 1000);
  l.Add("urgent", -1);
  size_t before = l.sent.size();  // the window's worth of bulk already left
  EXPECT_EQ(before, 2u);
  l.CompleteOne();
  ASSERT_EQ(l.sent.size(), before + 1);
  EXPECT_EQ(l.sent.back(), "urgent");  // next out, ahead of 8 queued bulk chunks
}

TEST(SendSchedulerTest, ALinkCarryingOnePriorityFillsTheSoloWindow) {
  FakeLink l({true, 2 * kChunk, 0, 4 * kChunk});
  for (int i = 0; i < 6; ++i) l.Add("b" + std::to_string(i), 1000);
  EXPECT_EQ(l.sent.size(), 4u);
  EXPECT_EQ(l.s->in_flight(kPeer), 4 * kChunk);
  l.CompleteOne();
  EXPECT_EQ(l.sent.size(), 5u);
}

TEST(SendSchedulerTest, AChunkOfAnotherPriorityShrinksTheLinkToTheCreditWindow) {
  FakeLink l({true, 2 * kChunk, 0, 4 * kChunk});
  for (int i = 0; i < 8; ++i) l.Add("bulk" + std::to_string(i), 1000);
  ASSERT_EQ(l.sent.size(), 4u);
  l.Add("urgent", -1);
  l.CompleteOne();  // 3 in flight: over the 2-chunk window, so neither urgent nor bulk goes
  l.CompleteOne();
  EXPECT_EQ(l.sent.size(), 4u);
  l.CompleteOne();
  ASSERT_EQ(l.sent.size(), 5u);
  EXPECT_EQ(l.sent.back(), "urgent");
  l.CompleteOne();  // bulk3: the urgent chunk is still in flight, so bulk keeps to 2 chunks
  EXPECT_EQ(l.sent.size(), 6u);
  EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk);
  l.CompleteOne();  // the urgent chunk's credit: one priority again, the solo window again
  EXPECT_EQ(l.sent.size(), 9u);
  EXPECT_EQ(l.s->in_flight(kPeer), 4 * kChunk);
}

TEST(SendSchedulerTest, ASoloWindowBelowTheCreditWindowIsTheCreditWindow) {
  FakeLink l({true, 2 * kChunk, 0, kChunk});
  for (int i = 0; i < 4; ++i) l.Add("b" + std::to_string(i), 1000);
  EXPECT_EQ(l.sent.size(), 2u);
}

TEST(SendSchedulerTest, FifoModeKeepsSubmissionOrder) {
  FakeLink l({false, kChunk, 0, kChunk});
  l.Add("a", 1000);
  l.Add("b", 1000);
  l.Add("c", -5);
  while (!l.in_flight.empty()) l.CompleteOne();
  EXPECT_EQ(l.sent, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(SendSchedulerTest, AgingBoundsTheWaitOfTheLowestPriority) {
  // One chunk at a time; an urgent chunk arrives every 1 ms forever. The bulk chunk (1000 levels
  // less urgent) gains a level per 10 us, so it goes out once it has waited ~10 ms.
  FakeLink l({true, kChunk, 10'000, kChunk});
  l.Add("first", 0);
  l.Add("bulk", 1000);
  uint64_t bulk_sent_at = 0;
  for (int i = 0; i < 100 && bulk_sent_at == 0; ++i) {
    l.now += 1'000'000;
    l.Add("u" + std::to_string(i), 0);
    l.CompleteOne();
    if (l.sent.back() == "bulk") bulk_sent_at = l.now;
  }
  ASSERT_NE(bulk_sent_at, 0u) << "the bulk chunk starved";
  EXPECT_LE(bulk_sent_at, 11'000'000u);
}

TEST(SendSchedulerTest, JobsAtEqualPriorityTakeTurns) {
  FakeLink l({true, kChunk, 0, kChunk});
  l.Add("first", 0, 9);
  for (int i = 0; i < 3; ++i) l.Add("A" + std::to_string(i), 5, 1);
  for (int i = 0; i < 3; ++i) l.Add("B" + std::to_string(i), 5, 2);
  while (!l.in_flight.empty()) l.CompleteOne();
  EXPECT_EQ(l.sent, (std::vector<std::string>{"first", "A0", "B0", "A1", "B1", "A2", "B2"}));
}

TEST(SendSchedulerTest, ChunkLargerThanTheWindowGoesAlone) {
  FakeLink l({true, kChunk, 0, kChunk});
  l.Add("huge", 0, 1, 8 * kChunk);
  l.Add("next", 0);
  EXPECT_EQ(l.sent, (std::vector<std::string>{"huge"}));
  l.CompleteOne(8 * kChunk);
  EXPECT_EQ(l.sent.back(), "next");
}

TEST(SendSchedulerTest, DrainIssuesEverythingQueuedForALostPeer) {
  FakeLink l({true, kChunk, 0, kChunk});
  for (int i = 0; i < 4; ++i) l.Add("c" + std::to_string(i), 0);
  EXPECT_EQ(l.sent.size(), 1u);
  l.s->Drain(kPeer);
  EXPECT_EQ(l.sent.size(), 4u);
  EXPECT_EQ(l.s->queued(), 0u);
  EXPECT_EQ(l.s->in_flight(kPeer), 0u);
}

TEST(SendSchedulerTest, RecordsSendOrderAndClassStats) {
  FakeLink l({true, kChunk, 0, kChunk});
  l.Add("x", 2000);
  l.now = 5'000'000;
  l.Add("y", -3);
  l.CompleteOne();
  ASSERT_EQ(l.s->recent().size(), 2u);
  EXPECT_EQ(l.s->recent()[1].priority, -3);
  auto st = l.s->Stats();
  EXPECT_EQ(st["bulk"].sent, 1u);
  EXPECT_EQ(st["urgent"].sent, 1u);
  EXPECT_EQ(st["urgent"].queued, 0u);
}

constexpr auto kHigh = ipc::JobClass::kHigh;
constexpr auto kNormal = ipc::JobClass::kNormal;
constexpr auto kLow = ipc::JobClass::kLow;

TEST(SendSchedulerTest, AHigherClassGoesFirstWhateverTheOpPriorities) {
  FakeLink l({true, kChunk, 0, kChunk});
  for (int i = 0; i < 4; ++i) l.Add("B" + std::to_string(i), -100, 2, kChunk, kNormal);
  l.Add("A", 5000, 1, kChunk, kHigh);  // its op is the least urgent, its job the higher class
  l.CompleteOne();
  EXPECT_EQ(l.sent, (std::vector<std::string>{"B0", "A"}));
}

TEST(SendSchedulerTest, WeightsShareAClass) {
  FakeLink l({true, kChunk, 0, kChunk});
  l.Add("first", 0, 9);
  for (int i = 0; i < 12; ++i) l.Add("A", 0, 1, kChunk, kNormal, 3);
  for (int i = 0; i < 12; ++i) l.Add("B", 0, 2, kChunk, kNormal, 1);
  for (int i = 0; i < 8; ++i) l.CompleteOne();
  std::vector<std::string> eight(l.sent.begin() + 1, l.sent.begin() + 9);
  EXPECT_EQ(std::count(eight.begin(), eight.end(), "A"), 6);
  EXPECT_EQ(std::count(eight.begin(), eight.end(), "B"), 2);
}

constexpr uint64_t kSmall = 64 << 10;

// A 2 MiB credit and solo window, a yield window of four small chunks, a 10 ms class hold.
SchedulerOptions YieldOptions() {
  SchedulerOptions o{true, 2 * kChunk, 0, 2 * kChunk};
  o.yield_window_bytes = 4 * kSmall;
  o.class_hold_ns = 10'000'000;
  return o;
}

TEST(SendSchedulerTest, ALowerClassKeepsToTheYieldWindowWhileAHigherOneIsActive) {
  FakeLink l(YieldOptions());
  for (int i = 0; i < 64; ++i) l.Add("B", 0, 2, kSmall, kNormal);
  EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk);  // B alone: the whole window
  l.Add("A", 0, 1, kSmall, kHigh);
  // A goes as soon as it fits the window; B, behind it, only below the yield window.
  while (l.sent.back() != "A") l.CompleteOne(kSmall);
  // What B had in flight drains without B sending more, down to the yield window, which B then
  // keeps to.
  size_t sent_when_a = l.sent.size();
  while (l.s->in_flight(kPeer) > 4 * kSmall) {
    l.CompleteOne(kSmall);
    if (l.s->in_flight(kPeer) > 3 * kSmall) {
      EXPECT_EQ(l.sent.size(), sent_when_a);
    }
  }
  for (int i = 0; i < 20; ++i) {
    l.CompleteOne(kSmall);
    EXPECT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  }
  // Meanwhile B's new ops cut chunks of half the yield window; A cuts them as it likes.
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), 2 * kSmall);
  EXPECT_EQ(l.s->ChunkCap(kPeer, kHigh), UINT64_MAX);
  // A's class stays active for class_hold_ns after its last send; then B has the link again.
  l.now += 10'000'001;
  l.CompleteOne(kSmall);
  EXPECT_GT(l.s->in_flight(kPeer), 4 * kSmall);
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), UINT64_MAX);
}

TEST(SendSchedulerTest, AHigherClassWithOpsRunningKeepsLowerOnesYieldingPastTheHold) {
  // A high job's op waits longer than the hold between two of its chunks (for a peer's data):
  // while it runs, B stays within the yield window, and A's next chunk finds little ahead of it.
  FakeLink l(YieldOptions());
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), UINT64_MAX);
  l.s->BeginRunning(kPeer, kHigh);
  // Before any chunk on the link, B's ops already cut small chunks.
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), 2 * kSmall);
  for (int i = 0; i < 64; ++i) l.Add("B", 0, 2, kSmall, kNormal);
  EXPECT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  l.Add("A", 0, 1, kSmall, kHigh);
  EXPECT_EQ(l.sent.back(), "A");
  l.now += 50'000'000;  // five holds later, A's op still runs
  for (int i = 0; i < 20; ++i) {
    l.CompleteOne(kSmall);
    EXPECT_LE(l.s->in_flight(kPeer), 4 * kSmall);
  }
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), 2 * kSmall);
  // Nested: a second job of the class ends first; the class still runs.
  l.s->BeginRunning(kPeer, kHigh);
  l.s->EndRunning(kPeer, kHigh);
  l.CompleteOne(kSmall);
  EXPECT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  // The op ends: B yields for the hold, then has the link again.
  l.s->EndRunning(kPeer, kHigh);
  l.CompleteOne(kSmall);
  EXPECT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  l.now += 10'000'001;
  l.CompleteOne(kSmall);
  EXPECT_GT(l.s->in_flight(kPeer), 4 * kSmall);
  EXPECT_EQ(l.s->ChunkCap(kPeer, kNormal), UINT64_MAX);
  // An unmatched end, or one for a peer without a link, changes nothing.
  l.s->EndRunning(kPeer, kHigh);
  l.s->EndRunning(kPeer + 1, kHigh);
  EXPECT_EQ(l.s->ChunkCap(kPeer + 1, kNormal), UINT64_MAX);
}

TEST(SendSchedulerTest, CountsTheLowerClassBytesAHigherClassChunkFoundAheadOfIt) {
  FakeLink l(YieldOptions());
  for (int i = 0; i < 64; ++i) l.Add("B", 0, 2, kSmall, kNormal);
  EXPECT_EQ(l.s->ahead(kHigh).chunks, 0u);
  // A's first chunk goes once it fits the credit window: behind all but one of B's in flight.
  l.Add("A", 0, 1, kSmall, kHigh);
  while (l.sent.back() != "A") l.CompleteOne(kSmall);
  EXPECT_EQ(l.s->ahead(kHigh).chunks, 1u);
  EXPECT_EQ(l.s->ahead(kHigh).max_lower_bytes, 2 * kChunk - kSmall);
  // Once B's earlier chunks drained, B keeps to the yield window, and that is what A finds.
  while (l.in_flight.front() != "A") l.CompleteOne(kSmall);
  l.CompleteOne(kSmall);  // A's
  for (int i = 0; i < 10; ++i) l.CompleteOne(kSmall);
  ASSERT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  l.Add("A", 0, 1, kSmall, kHigh);
  EXPECT_EQ(l.sent.back(), "A");
  const SendScheduler::AheadStats& a = l.s->ahead(kHigh);
  EXPECT_EQ(a.chunks, 2u);
  EXPECT_EQ(a.max_lower_bytes, 2 * kChunk - kSmall);
  EXPECT_DOUBLE_EQ(a.lower_bytes, static_cast<double>(2 * kChunk - kSmall + 4 * kSmall));
  // B's own chunks are not counted: nothing of a lower class is ahead of the normal class here.
  EXPECT_EQ(l.s->ahead(kNormal).max_lower_bytes, 0u);
  EXPECT_GT(l.s->ahead(kNormal).chunks, 0u);
}

TEST(SendSchedulerTest, ClassAgingBoundsTheWaitOfALowJob) {
  // A high job keeps one chunk queued at all times; the low job's chunk rises a class per 10 ms
  // and then shares the top class by weight.
  SchedulerOptions o{true, kChunk, 0, kChunk};
  o.class_aging_ns = 10'000'000;
  FakeLink l(o);
  l.Add("H", 0, 1, kChunk, kHigh);
  l.Add("L", 0, 2, kChunk, kLow);
  uint64_t low_sent_at = 0;
  for (int i = 0; i < 100 && low_sent_at == 0; ++i) {
    l.now += 1'000'000;
    l.Add("H", 0, 1, kChunk, kHigh);
    l.CompleteOne();
    if (l.sent.back() == "L") low_sent_at = l.now;
  }
  ASSERT_NE(low_sent_at, 0u) << "the low job starved";
  EXPECT_LE(low_sent_at, 22'000'000u);
  o.class_aging_ns = 0;  // strict classes: it waits as long as the high job has work
  FakeLink strict(o);
  strict.Add("H", 0, 1, kChunk, kHigh);
  strict.Add("L", 0, 2, kChunk, kLow);
  for (int i = 0; i < 100; ++i) {
    strict.now += 1'000'000;
    strict.Add("H", 0, 1, kChunk, kHigh);
    strict.CompleteOne();
  }
  EXPECT_EQ(std::count(strict.sent.begin(), strict.sent.end(), "L"), 0);
}

TEST(SendSchedulerTest, AnAgedLowerClassChunkThatMustYieldDoesNotHoldBackAHigherClass) {
  constexpr uint64_t kQuarter = kChunk / 4;
  SchedulerOptions o{true, 2 * kChunk, 0, 2 * kChunk};
  o.yield_window_bytes = kSmall;
  o.class_aging_ns = 10'000'000;
  FakeLink l(o);
  // The low job (weight 100: little virtual time per byte) fills the window and queues more.
  for (int i = 0; i < 16; ++i) l.Add("L", 0, 2, kQuarter, kLow, 100);
  ASSERT_EQ(l.sent.size(), 8u);
  l.Add("H1", 0, 1, kSmall, kHigh);
  l.CompleteOne(kQuarter);
  ASSERT_EQ(l.sent.back(), "H1");
  // The low chunks have waited long enough to share the top class, and their job is behind in
  // virtual time: picked first, but they must yield while the high job is active. The high job's
  // next chunk fits the window and goes.
  l.now = 30'000'000;
  l.Add("H2", 0, 1, kSmall, kHigh);
  EXPECT_EQ(l.sent.back(), "H2");
}

TEST(SendSchedulerTest, CountsEachJobsChunksWaitAndShare) {
  FakeLink l({true, kChunk, 0, kChunk});
  l.Add("A", 0, 1, kChunk, kHigh);
  l.Add("B", 0, 2, kChunk, kLow, 7);
  l.now = 3'000'000;
  l.Add("B", 0, 2, kChunk, kLow, 7);
  l.CompleteOne();
  l.CompleteOne();
  const SendScheduler::JobStats* b = l.s->job_stats(2);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->job_class, kLow);
  EXPECT_EQ(b->weight, 7u);
  EXPECT_EQ(b->sent, 2u);
  EXPECT_EQ(b->queued, 0u);
  EXPECT_EQ(b->sent_bytes, 2 * kChunk);
  EXPECT_NEAR(b->wait_s, 0.003, 1e-9);  // the first waited 3 ms, the second none
  EXPECT_NEAR(l.s->RecentShare(2), 2.0 / 3, 1e-9);
  std::map<uint64_t, double> shares = l.s->RecentShares();
  EXPECT_NEAR(shares[1], 1.0 / 3, 1e-9);
  EXPECT_NEAR(shares[2], 2.0 / 3, 1e-9);
  l.s->ForgetJob(2);
  EXPECT_EQ(l.s->job_stats(2), nullptr);
}

TEST(SendSchedulerTest, ALowerPriorityOfAJobKeepsToTheYieldWindowWhileAMoreUrgentOpOfItRuns) {
  FakeLink l(YieldOptions());
  const SendScheduler::Flow job1{1, kNormal, 1}, job2{2, kNormal, 1};
  for (int i = 0; i < 64; ++i) l.Add("bucket", 999, 1, kSmall);
  EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk);
  EXPECT_EQ(l.s->ChunkCap(kPeer, job1, 999), UINT64_MAX);
  // The embedding op starts (its agreement first: no chunk of it yet). What the buckets had in
  // flight drains without them sending more, down to the yield window, which they then keep to.
  l.s->BeginOp(1, 679);
  EXPECT_TRUE(l.s->OpYields(1, 999));
  EXPECT_FALSE(l.s->OpYields(1, 679));  // an op does not yield to itself
  EXPECT_FALSE(l.s->OpYields(2, 999));  // nor another job to it
  size_t sent_at_start = l.sent.size();
  while (l.s->in_flight(kPeer) > 4 * kSmall) {
    l.CompleteOne(kSmall);
    if (l.s->in_flight(kPeer) > 3 * kSmall) {
      EXPECT_EQ(l.sent.size(), sent_at_start);
    }
  }
  for (int i = 0; i < 10; ++i) {
    l.CompleteOne(kSmall);
    EXPECT_EQ(l.s->in_flight(kPeer), 4 * kSmall);
  }
  // Ring chunks of the buckets go in pieces of half the yield window; the op's own do not, and
  // neither do another job's.
  EXPECT_EQ(l.s->ChunkCap(kPeer, job1, 999), 2 * kSmall);
  EXPECT_EQ(l.s->ChunkCap(kPeer, job1, 679), UINT64_MAX);
  EXPECT_EQ(l.s->ChunkCap(kPeer, job2, 999), UINT64_MAX);
  // The op's chunk goes at once: the credit window has room.
  l.Add("embedding", 679, 1, kSmall);
  EXPECT_EQ(l.sent.back(), "embedding");
  // Another job of the class is not held back by this job's yielding: its chunks fill the credit
  // window, while the buckets wait.
  for (int i = 0; i < 8; ++i) l.Add("other", 999, 2, kSmall);
  EXPECT_EQ(std::count(l.sent.begin() + static_cast<long>(sent_at_start), l.sent.end(), "other"),
            8);
  EXPECT_EQ(l.s->in_flight(kPeer), 13 * kSmall);
  // Nested: a second op of the priority ends first; the buckets still yield.
  l.s->BeginOp(1, 679);
  l.s->EndOp(1, 679);
  EXPECT_TRUE(l.s->OpYields(1, 999));
  // The op ends: the buckets have the credit window again at once (no hold), without waiting
  // for a credit to come back.
  size_t before_end = l.sent.size();
  l.s->EndOp(1, 679);
  EXPECT_FALSE(l.s->OpYields(1, 999));
  EXPECT_GT(l.sent.size(), before_end);
  EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk);
  EXPECT_EQ(l.s->ChunkCap(kPeer, job1, 999), UINT64_MAX);
  // An op of the same priority is no reason to yield; an unmatched end changes nothing.
  l.s->BeginOp(1, 999);
  EXPECT_FALSE(l.s->OpYields(1, 999));
  l.s->EndOp(1, 999);
  l.s->EndOp(1, 500);
  l.s->EndOp(3, 1);
  EXPECT_FALSE(l.s->OpYields(1, 1000));
}

TEST(SendSchedulerTest, WithOpYieldOffOrInFifoModeARunningOpOnlyOrdersTheQueue) {
  for (bool fifo : {false, true}) {
    SchedulerOptions o = YieldOptions();
    o.op_yield = false;
    if (fifo) {
      o.priority = false;
      o.op_yield = true;
    }
    FakeLink l(o);
    l.s->BeginOp(1, 679);
    for (int i = 0; i < 64; ++i) l.Add("bucket", 999, 1, kSmall);
    EXPECT_FALSE(l.s->OpYields(1, 999)) << "fifo " << fifo;
    EXPECT_EQ(l.s->in_flight(kPeer), 2 * kChunk) << "fifo " << fifo;
    EXPECT_EQ(l.s->ChunkCap(kPeer, SendScheduler::Flow{1, kNormal, 1}, 999), UINT64_MAX);
  }
}

TEST(SendSchedulerTest, AnAgedChunkThatYieldsToItsJobsOpDoesNotHoldBackTheOpsOwnChunk) {
  // Aging (one level per ms) puts an old bucket chunk ahead of the op's in the queue; the bucket
  // must yield and does not fit, and the op's chunk still goes as soon as the credit window has
  // room.
  SchedulerOptions o = YieldOptions();
  o.aging_ns = 1'000'000;
  FakeLink l(o);
  for (int i = 0; i < 40; ++i) l.Add("bucket", 999, 1, kSmall);
  ASSERT_EQ(l.s->in_flight(kPeer), 2 * kChunk);
  l.now += 1'000'000'000;  // the queued buckets are 1000 levels more urgent now
  l.s->BeginOp(1, 679);
  l.Add("embedding", 679, 1, kSmall);
  EXPECT_NE(l.sent.back(), "embedding");  // the window is full
  l.CompleteOne(kSmall);
  EXPECT_EQ(l.sent.back(), "embedding");
}

}  // namespace
}  // namespace outrider::agent
