// Shared-memory tensors: a registry of the blocks handed out, the routing CPU allocator.
#include "shim/python/outrider_torch/csrc/shared_memory.h"

#include <c10/core/Allocator.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "shim/python/outrider_torch/csrc/process_group.h"

namespace outrider::torch_backend {
namespace {

// A block of shared memory a tensor's storage owns; it keeps the connection (whose client maps
// the memory) open while it lives.
struct Block {
  std::shared_ptr<Connection> conn;
  Buffer buffer;
};

std::mutex g_blocks_mu;
std::map<uintptr_t, Block> g_blocks;  // by start address; guarded by g_blocks_mu

std::atomic<c10::DeleterFnPtr> g_fallback_deleter{nullptr};  // the CPU allocator's own, set once with it

thread_local bool t_shared_allocation = false;

// Frees a block (by its start, which is also the DataPtr's context).
void FreeBlock(void* p) {
  Block block;
  {
    std::lock_guard<std::mutex> l(g_blocks_mu);
    auto it = g_blocks.find(reinterpret_cast<uintptr_t>(p));
    if (it == g_blocks.end()) {
      // Not ours: the CPU allocator's raw allocation (the routing allocator's raw deleter is this).
      if (c10::DeleterFnPtr d = g_fallback_deleter.load()) d(p);
      return;
    }
    block = std::move(it->second);
    g_blocks.erase(it);
  }
  block.conn->ReleaseShared(block.buffer);
  if (block.conn->OnWorker()) {
    // The worker must not run its own connection's destructor (which joins it): should this be the
    // last reference, another thread drops it.
    std::thread([c = std::move(block.conn)]() mutable { c.reset(); }).detach();
  }
}

c10::DataPtr AllocateBlock(std::shared_ptr<Connection> conn, size_t bytes) {
  Buffer b = conn->AcquireShared(bytes);
  {
    std::lock_guard<std::mutex> l(g_blocks_mu);
    g_blocks.emplace(reinterpret_cast<uintptr_t>(b.ptr), Block{std::move(conn), b});
  }
  return c10::DataPtr(b.ptr, b.ptr, &FreeBlock, c10::Device(c10::DeviceType::CPU));
}

#if OUTRIDER_TORCH_BACKEND_API
#define OUTRIDER_ALLOCATE_CONST
#else
#define OUTRIDER_ALLOCATE_CONST const
#endif

// In front of PyTorch's CPU allocator: a thread that routes its allocations here gets shared
// memory (while the process has a connection); everything else goes to PyTorch's allocator.
class RoutingAllocator final : public c10::Allocator {
 public:
  explicit RoutingAllocator(c10::Allocator* fallback) : fallback_(fallback) {}

  c10::DataPtr allocate(size_t n) OUTRIDER_ALLOCATE_CONST override {
    if (t_shared_allocation && n > 0) {
      if (std::shared_ptr<Connection> conn = Connection::Current()) return AllocateBlock(std::move(conn), n);
    }
    return fallback_->allocate(n);
  }
  // Both kinds of memory free through FreeBlock; raw allocation works as the fallback's does.
  c10::DeleterFnPtr raw_deleter() const override { return g_fallback_deleter.load() != nullptr ? &FreeBlock : nullptr; }
#if OUTRIDER_TORCH_BACKEND_API
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
#endif

 private:
  c10::Allocator* fallback_;
};

}  // namespace

CopyCounters& Copies() {
  static CopyCounters counters;
  return counters;
}

at::Tensor SharedBytes(size_t bytes) {
  std::shared_ptr<Connection> conn = Connection::Current();
  if (!conn) throw std::runtime_error("outrider: shared memory needs an outrider process group (init_process_group first)");
  if (bytes == 0) throw std::runtime_error("outrider: a shared-memory tensor needs at least one byte");
  c10::DataPtr data = AllocateBlock(std::move(conn), bytes);
  void* p = data.release_context();  // FreeBlock(p) frees it again, when the tensor's storage goes
  return at::from_blob(p, {static_cast<int64_t>(bytes)}, &FreeBlock, at::TensorOptions().dtype(at::kByte));
}

bool SetSharedAllocation(bool on) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    c10::Allocator* cpu = c10::GetAllocator(c10::DeviceType::CPU);
    g_fallback_deleter = cpu->raw_deleter();
    static RoutingAllocator routing(cpu);
    c10::SetAllocator(c10::DeviceType::CPU, &routing);
  });
  bool previous = t_shared_allocation;
  t_shared_allocation = on;
  return previous;
}

void* SharedData(const Connection& conn, const at::Tensor& t) {
  if (!t.defined() || t.is_sparse() || !t.device().is_cpu() || !t.is_contiguous() || t.numel() == 0) return nullptr;
  auto start = reinterpret_cast<uintptr_t>(t.data_ptr());
  size_t bytes = t.nbytes();
  std::lock_guard<std::mutex> l(g_blocks_mu);
  auto it = g_blocks.upper_bound(start);
  if (it == g_blocks.begin()) return nullptr;
  --it;
  const Block& b = it->second;
  if (b.conn.get() != &conn || start + bytes > it->first + b.buffer.bytes) return nullptr;
  return t.data_ptr();
}

}  // namespace outrider::torch_backend
