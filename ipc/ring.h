// Single-producer/single-consumer ring over shared memory. Indices are free-running u64
// counters in a RingIndices block; slots are a power-of-two array. The two sides live in different
// processes and do not trust each other: every index read from the other side is checked, and a
// violation is reported (never CHECKed) so the trusted side can drop the peer.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ipc/protocol.h"

namespace outrider::ipc {

inline std::atomic_ref<uint64_t> AtomicU64(uint64_t& v) { return std::atomic_ref<uint64_t>(v); }
inline std::atomic_ref<uint32_t> AtomicU32(uint32_t& v) { return std::atomic_ref<uint32_t>(v); }

enum class RingResult { kOk, kEmpty, kFull, kCorrupt };

// Thread-safety: one producer thread and one consumer thread (possibly in other processes).
template <typename T>
class RingProducer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  RingProducer() = default;
  RingProducer(RingIndices* idx, T* slots, uint32_t entries)
      : idx_(idx), slots_(slots), mask_(entries - 1), tail_(AtomicU64(idx->tail).load()) {}

  // Copies `entry` into the next slot and publishes it.
  RingResult Push(const T& entry) {
    uint64_t head = AtomicU64(idx_->head).load(std::memory_order_acquire);
    uint64_t used = tail_ - head;
    if (used > uint64_t{mask_} + 1) return RingResult::kCorrupt;  // consumer scribbled
    if (used == uint64_t{mask_} + 1) return RingResult::kFull;
    std::memcpy(&slots_[tail_ & mask_], &entry, sizeof(T));
    ++tail_;
    AtomicU64(idx_->tail).store(tail_, std::memory_order_release);
    return RingResult::kOk;
  }

  // After publishing: true if the consumer may be asleep and needs an eventfd kick. The seq_cst
  // fence pairs with the one in RingConsumer::PrepareSleep (Dekker): either the consumer sees the
  // new tail before sleeping, or we see its sleeping flag.
  bool ConsumerNeedsWake() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return AtomicU32(idx_->consumer_sleeping).load(std::memory_order_relaxed) != 0;
  }

  uint32_t capacity() const { return mask_ + 1; }
  // Entries pushed so far, and how many of them the consumer took: an entry pushed at position
  // p (produced() before its Push) was taken once consumed() > p.
  uint64_t produced() const { return tail_; }
  uint64_t consumed() const { return AtomicU64(idx_->head).load(std::memory_order_acquire); }

 private:
  RingIndices* idx_ = nullptr;  // Not owned; lives in the mapped control segment.
  T* slots_ = nullptr;
  uint32_t mask_ = 0;
  uint64_t tail_ = 0;  // our authoritative copy; shared memory is only a publication
};

template <typename T>
class RingConsumer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  RingConsumer() = default;
  RingConsumer(RingIndices* idx, T* slots, uint32_t entries)
      : idx_(idx), slots_(slots), mask_(entries - 1), head_(AtomicU64(idx->head).load()) {}

  // Copies the next entry out of shared memory exactly once (the producer may rewrite the slot
  // afterwards; validate the copy, never the slot).
  RingResult Pop(T* out) {
    uint64_t tail = AtomicU64(idx_->tail).load(std::memory_order_acquire);
    uint64_t avail = tail - head_;
    if (avail > uint64_t{mask_} + 1) return RingResult::kCorrupt;  // producer scribbled
    if (avail == 0) return RingResult::kEmpty;
    std::memcpy(out, &slots_[head_ & mask_], sizeof(T));
    ++head_;
    AtomicU64(idx_->head).store(head_, std::memory_order_release);
    return RingResult::kOk;
  }

  bool Empty() const { return AtomicU64(idx_->tail).load(std::memory_order_acquire) == head_; }

  // Announces that the consumer is about to block. Returns false (and clears the flag) if entries
  // arrived meanwhile, in which case the consumer must not block.
  bool PrepareSleep() {
    AtomicU32(idx_->consumer_sleeping).store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!Empty()) {
      FinishSleep();
      return false;
    }
    return true;
  }
  void FinishSleep() { AtomicU32(idx_->consumer_sleeping).store(0, std::memory_order_relaxed); }

  uint32_t capacity() const { return mask_ + 1; }

 private:
  RingIndices* idx_ = nullptr;  // Not owned; lives in the mapped control segment.
  T* slots_ = nullptr;
  uint32_t mask_ = 0;
  uint64_t head_ = 0;
};

}  // namespace outrider::ipc
