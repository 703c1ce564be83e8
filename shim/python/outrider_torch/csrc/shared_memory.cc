// Shared-memory tensors: the routing CPU allocator in front of PyTorch's, over the SharedHeap.
#include "shim/python/outrider_torch/csrc/shared_memory.h"

#include <c10/core/Allocator.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "shim/python/outrider_torch/csrc/connection.h"
#include "shim/python/outrider_torch/csrc/shared_heap.h"

namespace outrider::torch_backend {
namespace {

constexpr size_t kDefaultMinBytes = size_t{64} << 10;

std::atomic<c10::DeleterFnPtr> g_fallback_deleter{
    nullptr};                            // the CPU allocator's own, set once with it
std::atomic<size_t> g_min_bytes{0};      // every thread's allocations from this size (0: none)
std::atomic<bool> g_backend_off{false};  // OUTRIDER_TORCH_SHARED_ALLOC=off: the backend stages
thread_local bool t_shared_allocation = false;

// Frees a block (by its start, which is also the DataPtr's context). A deleter: never throws.
void FreeBlock(void* p) noexcept {
  if (SharedHeap::Get().Free(p)) return;
  // Not ours: the CPU allocator's raw allocation (the routing allocator's raw deleter is this).
  if (c10::DeleterFnPtr d = g_fallback_deleter.load()) d(p);
}

// c10::Allocator::allocate lost its const, and copy_data came, in PyTorch 2.3.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define OUTRIDER_ALLOCATOR_2_3 1
#define OUTRIDER_ALLOCATE_CONST
#else
#define OUTRIDER_ALLOCATOR_2_3 0
#define OUTRIDER_ALLOCATE_CONST const
#endif

// In front of PyTorch's CPU allocator: allocations a thread routes here, and every thread's from
// the size threshold up, come from the shared heap; everything else (and whatever the heap cannot
// give) from PyTorch's allocator.
class RoutingAllocator final : public c10::Allocator {
 public:
  explicit RoutingAllocator(c10::Allocator* fallback) : fallback_(fallback) {}

  c10::DataPtr allocate(size_t n) OUTRIDER_ALLOCATE_CONST override {
    size_t from = g_min_bytes.load(std::memory_order_relaxed);
    if (n > 0 && (t_shared_allocation || (from > 0 && n >= from))) {
      if (void* p = SharedHeap::Get().Allocate(n))
        return c10::DataPtr(p, p, &FreeBlock, c10::Device(c10::DeviceType::CPU));
    }
    return fallback_->allocate(n);
  }
  // Both kinds of memory free through FreeBlock; raw allocation works as the fallback's does.
  c10::DeleterFnPtr raw_deleter() const override {
    return g_fallback_deleter.load() != nullptr ? &FreeBlock : nullptr;
  }
#if OUTRIDER_ALLOCATOR_2_3
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 private:
  c10::Allocator* fallback_;
};

// Installs the routing allocator (once); whether it is the CPU allocator in force.
bool Routing() {
  static std::once_flag installed;
  static RoutingAllocator* routing = nullptr;
  std::call_once(installed, [] {
    c10::Allocator* cpu = c10::GetAllocator(c10::DeviceType::CPU);
    g_fallback_deleter = cpu->raw_deleter();
    routing = new RoutingAllocator(cpu);  // for good: tensors from it may outlive everything
    c10::SetAllocator(c10::DeviceType::CPU, routing);
  });
  return c10::GetAllocator(c10::DeviceType::CPU) == routing;
}

}  // namespace

CopyCounters& Copies() {
  static CopyCounters counters;
  return counters;
}

at::Tensor SharedBytes(size_t bytes) {
  if (bytes == 0)
    throw std::runtime_error("outrider: a shared-memory tensor needs at least one byte");
  void* p = SharedHeap::Get().Allocate(bytes);
  if (p == nullptr)
    throw std::runtime_error("outrider: no shared memory for " + std::to_string(bytes) +
                             " bytes (memfd_create failed, or this is a fork child)");
  try {
    return at::from_blob(p, {static_cast<int64_t>(bytes)}, &FreeBlock,
                         at::TensorOptions().dtype(at::kByte));
  } catch (...) {
    FreeBlock(p);
    throw;
  }
}

bool SetSharedAllocation(bool on) {
  if (!Routing() && on) {
    throw std::runtime_error(
        "outrider: another CPU allocator took precedence (registered with a higher priority): "
        "tensors cannot be routed to shared memory; use outrider_torch.empty()");
  }
  bool previous = t_shared_allocation;
  t_shared_allocation = on;
  return previous;
}

bool SetSharedAllocationFrom(size_t min_bytes) {
  if (min_bytes > 0 && !Routing()) {
    g_min_bytes = 0;
    return false;
  }
  g_min_bytes = min_bytes;
  return true;
}

size_t SharedAllocationFrom() { return g_min_bytes.load(); }

void EnableSharedAllocationFromEnv() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* alloc = std::getenv("OUTRIDER_TORCH_SHARED_ALLOC");
    if (alloc != nullptr && (std::strcmp(alloc, "off") == 0 || std::strcmp(alloc, "0") == 0)) {
      g_backend_off = true;
      return;
    }
    size_t min_bytes = EnvBytes("OUTRIDER_TORCH_SHARED_MIN_BYTES", kDefaultMinBytes, 1);
    if (!SetSharedAllocationFrom(min_bytes)) {
      std::fprintf(stderr,
                   "outrider: another CPU allocator took precedence: tensors are copied into "
                   "shared memory for each op\n");
    }
  });
}

ScopedSharedAllocation::ScopedSharedAllocation() : previous_(t_shared_allocation) {
  if (!g_backend_off.load() && Routing()) t_shared_allocation = true;
}

ScopedSharedAllocation::~ScopedSharedAllocation() { t_shared_allocation = previous_; }

void AbandonShared(const void* p) { SharedHeap::Get().Abandon(p); }

void* SharedData(Connection& conn, const at::Tensor& t) {
  if (!t.defined() || t.is_sparse() || !t.device().is_cpu() || !t.is_contiguous() ||
      t.numel() == 0 || t.is_conj() || t.is_neg()) {
    return nullptr;  // a lazy conjugate or negation is resolved by staging's copy
  }
  const auto* p = static_cast<const uint8_t*>(t.data_ptr());
  std::optional<SharedHeap::Segment> seg = SharedHeap::Get().Find(p, t.nbytes());
  if (!seg) return nullptr;
  uint8_t* view = conn.HeapSegment(*seg);
  return view != nullptr ? view + (p - seg->base) : nullptr;
}

}  // namespace outrider::torch_backend
