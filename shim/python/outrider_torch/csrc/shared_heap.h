// The process's heap of memory it can share with its node's agent: large sealed memfds (sparse,
// reserved address space; pages exist once touched), mapped by this process at once and
// registered with the agent only when an op first uses them, carved up by a best-fit allocator
// whose bookkeeping lives outside the shared memory (so the agent can never corrupt it). The
// backend's CPU allocator puts tensors here (shared_memory.h), and an op on such a tensor hands
// the agent the tensor's own memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "ipc/memfd.h"
#include "ipc/unique_fd.h"

namespace outrider::torch_backend {

// $name as a byte count of at least `at_least`; `fallback` if unset or empty, and (said on stderr)
// if it is not such a count.
size_t EnvBytes(const char* name, size_t fallback, size_t at_least);

// Thread-safety: every member from any thread. After fork() the child neither allocates from
// the heap nor frees into it (the parent's memory stays shared with it, its bookkeeping is the
// parent's): Allocate returns null there, and Free forgets the block.
class SharedHeap {
 public:
  // A segment of the heap, as an op needs it to register the memory with the agent.
  struct Segment {
    uint64_t id;    // distinct per segment, never reused in the process
    int fd;         // the sealed memfd (owned by the heap; valid for the process's lifetime)
    uint8_t* base;  // this process's mapping
    size_t bytes;
  };
  struct Stats {
    uint64_t segments = 0;
    uint64_t reserved_bytes = 0;   // address space of every segment
    uint64_t allocated_bytes = 0;  // in live blocks (rounded sizes)
    uint64_t blocks = 0;
    uint64_t abandoned_blocks = 0;  // never reused (an op the agent may still write timed out)
  };

  // The process's heap. Segments of $OUTRIDER_TORCH_SHARED_SEGMENT_BYTES (default 16 GiB; a
  // larger allocation gets a segment of its own size).
  static SharedHeap& Get();

  // `bytes` (> 0), 64-byte aligned (sizes rounded up to 64 bytes, or to pages from 4 KiB), or null:
  // a forked child, or no memfd could be made (then the caller allocates elsewhere).
  void* Allocate(size_t bytes);
  // Gives back a block from Allocate; false if `p` is not the start of a live block (not heap
  // memory: the caller frees it the way it was allocated). The block's pages stay, for reuse
  // without page faults (a training step allocates the same sizes again) until Trim.
  bool Free(void* p);
  // Gives the pages of every free extent back to the system; returns how many bytes that spans
  // (some of them may never have been touched).
  size_t Trim();
  // The agent may still write the live block holding `p`: when it is freed it is never reused.
  void Abandon(const void* p);
  // The segment holding all of [p, p + bytes), if any.
  std::optional<Segment> Find(const void* p, size_t bytes) const;
  Stats stats() const;

 private:
  struct Seg {
    uint64_t id;
    UniqueFd fd;
    ipc::Mapping mapping;
    // Free extents by offset and by (size, offset); live blocks by offset -> (size, abandoned).
    std::map<size_t, size_t> free_by_offset;
    std::set<std::pair<size_t, size_t>> free_by_size;
    std::map<size_t, std::pair<size_t, bool>> used;
  };
  SharedHeap();
  void* Carve(Seg& s, size_t bytes);  // caller holds mu_
  void AddFree(Seg& s, size_t offset, size_t bytes);
  // The segment holding `p`, or null (caller holds mu_).
  Seg* SegmentOf(const void* p) const;

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Seg>> segments_;  // guarded by mu_
  std::map<uintptr_t, Seg*> by_base_;           // guarded by mu_
  size_t segment_bytes_;
  uint64_t next_id_ = 1;  // guarded by mu_
};

}  // namespace outrider::torch_backend
