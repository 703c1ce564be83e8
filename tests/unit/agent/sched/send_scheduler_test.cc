// SendScheduler with a fake clock and a fake transport (each Issue records the send; the test
// decides when a send completes): urgent chunks overtake queued bulk after at most one window,
// aging bounds the wait of the lowest priority, FIFO keeps submission order, jobs alternate.
#include "agent/sched/send_scheduler.h"

#include <gtest/gtest.h>

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
  void Add(const std::string& name, int32_t priority, uint64_t job = 1, uint64_t bytes = kChunk) {
    s->Enqueue(kPeer, priority, job, bytes, [this, name] {
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

}  // namespace
}  // namespace outrider::agent
