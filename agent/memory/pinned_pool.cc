// Pinned staging buffers (see pinned_pool.h). Buffers are anonymous mappings of their own, so
// giving one back returns its pages to the system at once (a heap block might stay in the heap).
#include "agent/memory/pinned_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace outrider::agent {

uint64_t PinnedPool::DefaultMaxBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page = ::sysconf(_SC_PAGESIZE);
  uint64_t physical = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : uint64_t{16} << 30;
  return std::clamp<uint64_t>(physical / 8, uint64_t{256} << 20, uint64_t{64} << 30);
}

PinnedPool::PinnedPool(Options options, Pin pin, Unpin unpin)
    : options_(options), pin_(std::move(pin)), unpin_(std::move(unpin)) {
  if (options_.max_bytes == 0) options_.max_bytes = DefaultMaxBytes();
}

PinnedPool::~PinnedPool() {
  for (auto& [bytes, idle] : idle_) Release(Buffer{idle.data, bytes});
}

void PinnedPool::Release(Buffer b) {
  unpin_(b.data, b.bytes);
  ::munmap(b.data, b.bytes);
  pinned_bytes_ -= b.bytes;
}

Result<PinnedPool::Buffer> PinnedPool::Take(uint64_t bytes) {
  uint64_t size = kMinBytes;
  while (size < bytes && size < (uint64_t{1} << 62)) size <<= 1;
  if (auto it = idle_.find(size); it != idle_.end()) {
    Buffer b{it->second.data, size};
    idle_.erase(it);
    idle_bytes_ -= size;
    return b;
  }
  if (pinned_bytes_ + size > options_.max_bytes) {
    // Idle buffers of other sizes make room first.
    for (auto& [n, idle] : idle_) Release(Buffer{idle.data, n});
    idle_.clear();
    idle_bytes_ = 0;
  }
  if (pinned_bytes_ + size > options_.max_bytes) {
    return ResourceExhausted(
        "GPU staging would pin " + std::to_string(pinned_bytes_ + size) +
        " bytes of host memory, over gpu_pinned_max_bytes=" + std::to_string(options_.max_bytes) +
        ": too many or too large ops on GPU regions in flight");
  }
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED)
    return ResourceExhausted("no host memory for " + std::to_string(size) +
                             " bytes of GPU staging");
  if (Status st = pin_(data, size); !st.ok()) {
    ::munmap(data, size);
    return st;
  }
  pinned_bytes_ += size;
  return Buffer{static_cast<uint8_t*>(data), size};
}

void PinnedPool::Give(Buffer b, uint64_t now_ns) {
  if (b.data == nullptr) return;
  if (options_.idle_ns == 0) return Release(b);
  idle_.emplace(b.bytes, Idle{b.data, now_ns});
  idle_bytes_ += b.bytes;
}

uint64_t PinnedPool::Trim(uint64_t now_ns) {
  uint64_t released = 0;
  for (auto it = idle_.begin(); it != idle_.end();) {
    if (now_ns - it->second.since_ns < options_.idle_ns) {
      ++it;
      continue;
    }
    Release(Buffer{it->second.data, it->first});
    idle_bytes_ -= it->first;
    released += it->first;
    it = idle_.erase(it);
  }
  return released;
}

uint64_t PinnedPool::NextTrimNs() const {
  uint64_t next = UINT64_MAX;
  for (const auto& [bytes, idle] : idle_) next = std::min(next, idle.since_ns + options_.idle_ns);
  return next;
}

}  // namespace outrider::agent
