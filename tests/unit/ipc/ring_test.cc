// SPSC ring over shared memory: FIFO order across wraparound, full/empty at the exact capacity,
// a producer thread and a consumer thread moving a million entries, corrupt indices from an
// untrusted other side reported as kCorrupt, and the sleep/wake handshake.
#include "ipc/ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "ipc/event_fd.h"
#include "ipc/protocol.h"

namespace outrider::ipc {
namespace {

// Bigger than a word so a torn copy would show up as a payload mismatch.
struct Entry {
  uint64_t seq;
  uint64_t payload[3];
};

Entry MakeEntry(uint64_t seq) {
  return Entry{seq, {seq * 3 + 1, ~seq, seq ^ 0x5a5a5a5a5a5a5a5aull}};
}

void ExpectEntry(const Entry& e, uint64_t seq) {
  Entry want = MakeEntry(seq);
  EXPECT_EQ(e.seq, want.seq);
  EXPECT_EQ(e.payload[0], want.payload[0]) << "seq " << seq;
  EXPECT_EQ(e.payload[1], want.payload[1]) << "seq " << seq;
  EXPECT_EQ(e.payload[2], want.payload[2]) << "seq " << seq;
}

// Stands in for the control segment: indices (zeroed, 64-byte aligned) and a slot array.
struct SharedRing {
  explicit SharedRing(uint32_t entries)
      : idx(std::make_unique<RingIndices>()), slots(entries), entries(entries) {}
  RingProducer<Entry> Producer() { return RingProducer<Entry>(idx.get(), slots.data(), entries); }
  RingConsumer<Entry> Consumer() { return RingConsumer<Entry>(idx.get(), slots.data(), entries); }

  std::unique_ptr<RingIndices> idx;
  std::vector<Entry> slots;
  uint32_t entries;
};

// A side that makes no progress for this many consecutive attempts is deadlocked, not slow.
constexpr uint64_t kMaxStalledSpins = 200'000'000;

TEST(RingTest, IndicesBlockIsCacheLineAligned) {
  SharedRing ring(8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ring.idx.get()) % 64, 0u);
  EXPECT_EQ(ring.idx->head, 0u);
  EXPECT_EQ(ring.idx->tail, 0u);
  EXPECT_EQ(ring.idx->consumer_sleeping, 0u);
}

TEST(RingTest, EmptyRingPopsEmpty) {
  SharedRing ring(8);
  auto consumer = ring.Consumer();
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kEmpty);
  EXPECT_TRUE(consumer.Empty());
  EXPECT_EQ(ring.idx->head, 0u);
}

TEST(RingTest, CapacityIsTheEntryCount) {
  SharedRing ring(16);
  EXPECT_EQ(ring.Producer().capacity(), 16u);
  EXPECT_EQ(ring.Consumer().capacity(), 16u);
}

TEST(RingTest, PushReturnsFullAtExactlyCapacity) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  for (uint64_t i = 0; i < 8; ++i) ASSERT_EQ(producer.Push(MakeEntry(i)), RingResult::kOk) << i;
  EXPECT_EQ(producer.Push(MakeEntry(8)), RingResult::kFull);
  EXPECT_EQ(producer.Push(MakeEntry(8)), RingResult::kFull);  // stays full, no side effects
  EXPECT_EQ(ring.idx->tail, 8u);
}

TEST(RingTest, PopFreesExactlyOneSlot) {
  SharedRing ring(4);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  for (uint64_t i = 0; i < 4; ++i) ASSERT_EQ(producer.Push(MakeEntry(i)), RingResult::kOk);
  ASSERT_EQ(producer.Push(MakeEntry(4)), RingResult::kFull);
  Entry e{};
  ASSERT_EQ(consumer.Pop(&e), RingResult::kOk);
  ExpectEntry(e, 0);
  EXPECT_EQ(producer.Push(MakeEntry(4)), RingResult::kOk);
  EXPECT_EQ(producer.Push(MakeEntry(5)), RingResult::kFull);
}

TEST(RingTest, DrainedRingPopsEmptyAgain) {
  SharedRing ring(4);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  Entry e{};
  ASSERT_EQ(consumer.Pop(&e), RingResult::kOk);
  EXPECT_EQ(consumer.Pop(&e), RingResult::kEmpty);
  EXPECT_TRUE(consumer.Empty());
}

TEST(RingTest, WraparoundKeepsFifoOrderAndContent) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  uint64_t next_push = 0, next_pop = 0;
  // Batches of varying size so the ring is seen at every fill level and every slot offset.
  for (int round = 0; round < 1000; ++round) {
    int batch = 1 + round % 8;
    for (int i = 0; i < batch; ++i) {
      ASSERT_EQ(producer.Push(MakeEntry(next_push)), RingResult::kOk) << next_push;
      ++next_push;
    }
    for (int i = 0; i < batch; ++i) {
      Entry e{};
      ASSERT_EQ(consumer.Pop(&e), RingResult::kOk) << next_pop;
      ExpectEntry(e, next_pop);
      ++next_pop;
    }
  }
  EXPECT_GT(next_push, 100u * 8);  // many times the capacity
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kEmpty);
}

TEST(RingTest, SidesResumeFromIndicesAlreadyInSharedMemory) {
  // The agent may attach to a segment whose counters are not zero (free-running u64s).
  SharedRing ring(4);
  ring.idx->head = ring.idx->tail = std::numeric_limits<uint64_t>::max() - 1;
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  for (uint64_t i = 0; i < 4; ++i) ASSERT_EQ(producer.Push(MakeEntry(i)), RingResult::kOk);
  EXPECT_EQ(producer.Push(MakeEntry(4)), RingResult::kFull);  // counters wrapped past 2^64
  for (uint64_t i = 0; i < 4; ++i) {
    Entry e{};
    ASSERT_EQ(consumer.Pop(&e), RingResult::kOk);
    ExpectEntry(e, i);
  }
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kEmpty);
}

TEST(RingTest, ConcurrentProducerAndConsumerDeliverEveryEntryInOrder) {
  constexpr uint64_t kEntries = 1'000'000;
  SharedRing ring(64);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  std::atomic<bool> producer_stalled{false};

  std::thread producer_thread([&] {
    uint64_t stalled = 0;
    for (uint64_t seq = 0; seq < kEntries;) {
      RingResult r = producer.Push(MakeEntry(seq));
      if (r == RingResult::kOk) {
        ++seq;
        stalled = 0;
      } else if (r != RingResult::kFull || ++stalled > kMaxStalledSpins) {
        producer_stalled = true;
        return;
      } else {
        std::this_thread::yield();
      }
    }
  });

  uint64_t received = 0, mismatches = 0, stalled = 0;
  RingResult last = RingResult::kOk;
  while (received < kEntries && !producer_stalled) {
    Entry e{};
    last = consumer.Pop(&e);
    if (last == RingResult::kOk) {
      Entry want = MakeEntry(received);
      // Count instead of EXPECTing per entry: one bug would otherwise print a million lines.
      if (e.seq != want.seq || e.payload[0] != want.payload[0] || e.payload[1] != want.payload[1] ||
          e.payload[2] != want.payload[2]) {
        if (mismatches++ == 0)
          ADD_FAILURE() << "first mismatch at seq " << received << ": got " << e.seq;
      }
      ++received;
      stalled = 0;
    } else if (last != RingResult::kEmpty || ++stalled > kMaxStalledSpins) {
      break;
    } else {
      std::this_thread::yield();
    }
  }
  producer_thread.join();

  EXPECT_FALSE(producer_stalled);
  EXPECT_NE(last, RingResult::kCorrupt);
  EXPECT_EQ(received, kEntries);
  EXPECT_EQ(mismatches, 0u);
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kEmpty);
}

TEST(RingTest, PopReportsCorruptWhenTailRunsFarAheadOfHead) {
  SharedRing ring(8);
  auto consumer = ring.Consumer();
  ring.idx->tail = 1'000'000;  // a malicious producer claims a million entries in an 8-slot ring
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kCorrupt);
  EXPECT_EQ(ring.idx->head, 0u);  // nothing consumed
}

TEST(RingTest, PopReportsCorruptWhenTailIsOneBeyondCapacity) {
  SharedRing ring(8);
  auto consumer = ring.Consumer();
  ring.idx->tail = 9;
  Entry e{};
  EXPECT_EQ(consumer.Pop(&e), RingResult::kCorrupt);
  ring.idx->tail = 8;  // exactly full is legal
  EXPECT_EQ(consumer.Pop(&e), RingResult::kOk);
}

TEST(RingTest, PopReportsCorruptWhenTailMovesBehindHead) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  for (uint64_t i = 0; i < 4; ++i) ASSERT_EQ(producer.Push(MakeEntry(i)), RingResult::kOk);
  Entry e{};
  for (int i = 0; i < 4; ++i) ASSERT_EQ(consumer.Pop(&e), RingResult::kOk);
  ring.idx->tail = 2;  // producer rewinds: our head (4) is now beyond its tail
  EXPECT_EQ(consumer.Pop(&e), RingResult::kCorrupt);
}

TEST(RingTest, PushReportsCorruptWhenHeadRunsBeyondTail) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  ring.idx->head = 5;  // a malicious consumer claims to have consumed entries never pushed
  EXPECT_EQ(producer.Push(MakeEntry(1)), RingResult::kCorrupt);
  EXPECT_EQ(ring.idx->tail, 1u);  // nothing published
}

TEST(RingTest, PushReportsCorruptWhenHeadFallsFarBehindTail) {
  SharedRing ring(8);
  ring.idx->head = ring.idx->tail = 100;
  auto producer = ring.Producer();
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  ring.idx->head = 0;  // 101 entries "in flight" in an 8-slot ring
  EXPECT_EQ(producer.Push(MakeEntry(1)), RingResult::kCorrupt);
}

TEST(RingTest, PrepareSleepReturnsFalseWhenAnEntryIsQueued) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  EXPECT_FALSE(consumer.PrepareSleep());
  // The flag is cleared again, so the producer does not kick a consumer that is not asleep.
  EXPECT_EQ(ring.idx->consumer_sleeping, 0u);
  EXPECT_FALSE(producer.ConsumerNeedsWake());
}

TEST(RingTest, PrepareSleepReturnsTrueOnEmptyRing) {
  SharedRing ring(8);
  auto consumer = ring.Consumer();
  EXPECT_TRUE(consumer.PrepareSleep());
  EXPECT_EQ(ring.idx->consumer_sleeping, 1u);
  consumer.FinishSleep();
}

TEST(RingTest, ConsumerNeedsWakeAfterPrepareSleep) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  EXPECT_FALSE(producer.ConsumerNeedsWake());
  ASSERT_TRUE(consumer.PrepareSleep());
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  EXPECT_TRUE(producer.ConsumerNeedsWake());
}

TEST(RingTest, ConsumerNeedsNoWakeAfterFinishSleep) {
  SharedRing ring(8);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  ASSERT_TRUE(consumer.PrepareSleep());
  consumer.FinishSleep();
  ASSERT_EQ(producer.Push(MakeEntry(0)), RingResult::kOk);
  EXPECT_FALSE(producer.ConsumerNeedsWake());
}

TEST(RingTest, SleepingConsumerNeverMissesAWakeup) {
  // The Dekker handshake: a consumer that blocks on its eventfd after PrepareSleep() is always
  // kicked by a producer that checks ConsumerNeedsWake() after each Push().
  constexpr uint64_t kEntries = 100'000;
  // Far beyond any scheduling delay: expiring means a wakeup was lost and we would block forever.
  constexpr int kLostWakeupMs = 60'000;
  SharedRing ring(4);
  auto producer = ring.Producer();
  auto consumer = ring.Consumer();
  auto efd = CreateEventFd();
  ASSERT_TRUE(efd.ok()) << efd.status().ToString();
  const int fd = efd->get();
  std::atomic<bool> stop{false};

  std::thread producer_thread([&] {
    for (uint64_t seq = 0; seq < kEntries && !stop;) {
      RingResult r = producer.Push(MakeEntry(seq));
      if (r == RingResult::kOk) {
        ++seq;
        if (producer.ConsumerNeedsWake()) SignalEventFd(fd);
      } else if (r == RingResult::kFull) {
        std::this_thread::yield();
      } else {
        return;
      }
    }
  });

  uint64_t received = 0, sleeps = 0;
  bool lost_wakeup = false;
  while (received < kEntries) {
    Entry e{};
    RingResult r = consumer.Pop(&e);
    if (r == RingResult::kOk) {
      if (e.seq != received) break;
      ++received;
      continue;
    }
    if (r != RingResult::kEmpty) break;
    if (!consumer.PrepareSleep()) continue;
    ++sleeps;
    if (WaitReadable(fd, -1, kLostWakeupMs) == 0) {
      lost_wakeup = true;
      consumer.FinishSleep();
      break;
    }
    DrainEventFd(fd);
    consumer.FinishSleep();
  }
  stop = true;
  producer_thread.join();

  EXPECT_FALSE(lost_wakeup) << "after " << received << " entries";
  EXPECT_EQ(received, kEntries);
  RecordProperty("sleeps", static_cast<int>(sleeps));
}

}  // namespace
}  // namespace outrider::ipc
