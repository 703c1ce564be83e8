// The shared heap: segments as sealed memfds, best-fit carving with coalescing, fork handling.
#include "shim/python/outrider_torch/csrc/shared_heap.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace outrider::torch_backend {
namespace {

constexpr size_t kDefaultSegmentBytes = size_t{16} << 30;
constexpr size_t kPage = 4096;

std::atomic<bool> g_forked{false};  // this process is a fork() child of the heap's owner

size_t Round(size_t bytes) {
  return bytes < kPage ? (bytes + 63) & ~size_t{63} : (bytes + kPage - 1) & ~(kPage - 1);
}

}  // namespace

size_t EnvBytes(const char* name, size_t fallback, size_t at_least) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  size_t n = 0;
  auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
  if (ec != std::errc() || *end != '\0' || n < at_least) {
    std::fprintf(stderr, "outrider: %s=%s is not a byte count of at least %zu; using %zu\n", name,
                 v, at_least, fallback);
    return fallback;
  }
  return n;
}

SharedHeap& SharedHeap::Get() {
  // Never destroyed: tensors in it may be freed during static destruction.
  static SharedHeap* heap = new SharedHeap();
  return *heap;
}

SharedHeap::SharedHeap()
    : segment_bytes_(
          Round(EnvBytes("OUTRIDER_TORCH_SHARED_SEGMENT_BYTES", kDefaultSegmentBytes, 1u << 20))) {
  // The heap's lock is held across fork(), so the child's copy of the bookkeeping is consistent.
  ::pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); },
                   [] {
                     g_forked = true;
                     Get().mu_.unlock();
                   });
}

void SharedHeap::AddFree(Seg& s, size_t offset, size_t bytes) {
  // Coalesce with the free neighbours on both sides.
  auto next = s.free_by_offset.lower_bound(offset);
  if (next != s.free_by_offset.end() && offset + bytes == next->first) {
    bytes += next->second;
    s.free_by_size.erase({next->second, next->first});
    next = s.free_by_offset.erase(next);
  }
  if (next != s.free_by_offset.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      s.free_by_size.erase({prev->second, prev->first});
      offset = prev->first;
      bytes += prev->second;
      s.free_by_offset.erase(prev);
    }
  }
  s.free_by_offset.emplace(offset, bytes);
  s.free_by_size.emplace(bytes, offset);
}

void* SharedHeap::Carve(Seg& s, size_t bytes) {
  auto it = s.free_by_size.lower_bound({bytes, 0});
  if (it == s.free_by_size.end()) return nullptr;
  auto [size, offset] = *it;
  s.free_by_size.erase(it);
  s.free_by_offset.erase(offset);
  if (size > bytes) AddFree(s, offset + bytes, size - bytes);
  s.used.emplace(offset, std::make_pair(bytes, false));
  return s.mapping.data() + offset;
}

void* SharedHeap::Allocate(size_t bytes) {
  if (bytes == 0 || g_forked.load(std::memory_order_relaxed)) return nullptr;
  bytes = Round(bytes);
  std::lock_guard<std::mutex> l(mu_);
  for (auto& s : segments_) {
    if (void* p = Carve(*s, bytes)) return p;
  }
  size_t size = std::max(segment_bytes_, bytes);
  auto fd = ipc::CreateSealedMemfd("outrider-tensors", size);
  if (!fd.ok()) return nullptr;
  auto mapping = ipc::MapShared(fd->get(), size);
  if (!mapping.ok()) return nullptr;
  auto seg = std::make_unique<Seg>();
  seg->id = next_id_++;
  seg->fd = std::move(*fd);
  seg->mapping = std::move(*mapping);
  AddFree(*seg, 0, size);
  void* p = Carve(*seg, bytes);
  by_base_.emplace(reinterpret_cast<uintptr_t>(seg->mapping.data()), seg.get());
  segments_.push_back(std::move(seg));
  return p;
}

SharedHeap::Seg* SharedHeap::SegmentOf(const void* p) const {
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = by_base_.upper_bound(addr);
  if (it == by_base_.begin()) return nullptr;
  --it;
  return addr - it->first < it->second->mapping.size() ? it->second : nullptr;
}

bool SharedHeap::Free(void* p) {
  std::lock_guard<std::mutex> l(mu_);
  Seg* s = SegmentOf(p);
  if (s == nullptr) return false;
  size_t offset = static_cast<uint8_t*>(p) - s->mapping.data();
  auto it = s->used.find(offset);
  if (it == s->used.end()) return false;
  auto [bytes, abandoned] = it->second;
  s->used.erase(it);
  // In a fork child the bookkeeping is a stale copy of the parent's, and the memory the parent's:
  // forgetting the block is all the child may do. An abandoned block stays out of the free lists.
  if (g_forked.load(std::memory_order_relaxed) || abandoned) return true;
  AddFree(*s, offset, bytes);
  return true;
}

size_t SharedHeap::Trim() {
  std::lock_guard<std::mutex> l(mu_);
  if (g_forked.load(std::memory_order_relaxed)) return 0;
  size_t released = 0;
  for (auto& s : segments_) {
    for (auto [offset, bytes] : s->free_by_offset) {
      size_t begin = (offset + kPage - 1) & ~(kPage - 1);
      size_t end = (offset + bytes) & ~(kPage - 1);
      if (end <= begin) continue;
      if (::fallocate(s->fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                      static_cast<off_t>(begin), static_cast<off_t>(end - begin)) == 0)
        released += end - begin;
    }
  }
  return released;
}

void SharedHeap::Abandon(const void* p) {
  std::lock_guard<std::mutex> l(mu_);
  Seg* s = SegmentOf(p);
  if (s == nullptr) return;
  size_t offset = static_cast<const uint8_t*>(p) - s->mapping.data();
  auto it = s->used.upper_bound(offset);
  if (it == s->used.begin()) return;
  --it;
  if (offset - it->first < it->second.first) it->second.second = true;
}

std::optional<SharedHeap::Segment> SharedHeap::Find(const void* p, size_t bytes) const {
  std::lock_guard<std::mutex> l(mu_);
  Seg* s = SegmentOf(p);
  if (s == nullptr) return std::nullopt;
  size_t offset = static_cast<const uint8_t*>(p) - s->mapping.data();
  if (bytes > s->mapping.size() - offset) return std::nullopt;
  return Segment{s->id, s->fd.get(), s->mapping.data(), s->mapping.size()};
}

SharedHeap::Stats SharedHeap::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  Stats st;
  for (const auto& s : segments_) {
    st.segments++;
    st.reserved_bytes += s->mapping.size();
    for (const auto& [off, b] : s->used) {
      st.blocks++;
      st.allocated_bytes += b.first;
      if (b.second) st.abandoned_blocks++;
    }
  }
  return st;
}

}  // namespace outrider::torch_backend
