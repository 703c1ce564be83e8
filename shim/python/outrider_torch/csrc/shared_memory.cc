// Shared-memory tensors: a registry of the blocks handed out, the routing CPU allocator.
#include "shim/python/outrider_torch/csrc/shared_memory.h"

#include <c10/core/Allocator.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "shim/python/outrider_torch/csrc/process_group.h"

namespace outrider::torch_backend {
namespace {

// A block of shared memory a tensor's storage owns; it keeps the connection (whose client maps
// the memory) open while it lives.
struct Block {
  std::shared_ptr<Connection> conn;
  Buffer buffer;
  bool abandoned = false;  // the agent may still write it: never given back
};

std::mutex g_blocks_mu;
std::map<uintptr_t, Block> g_blocks;  // by start address; guarded by g_blocks_mu
// Connection references the worker let go of, dropped later by another thread (the worker must
// not run its own connection's destructor, which joins it). Never destroyed itself: at exit, a
// connection still referenced here stays open until the process ends.
auto* g_reaped = new std::vector<std::shared_ptr<Connection>>();  // guarded by g_blocks_mu

std::atomic<c10::DeleterFnPtr> g_fallback_deleter{
    nullptr};  // the CPU allocator's own, set once with it

thread_local bool t_shared_allocation = false;

// The block holding all of [p, p + bytes), or null (caller holds g_blocks_mu).
Block* FindBlock(uintptr_t p, size_t bytes) {
  auto it = g_blocks.upper_bound(p);
  if (it == g_blocks.begin()) return nullptr;
  --it;
  return p + bytes <= it->first + it->second.buffer.bytes ? &it->second : nullptr;
}

// Drops the references the worker left (not on the worker).
void DropReaped() {
  std::vector<std::shared_ptr<Connection>> drop;
  {
    std::lock_guard<std::mutex> l(g_blocks_mu);
    drop.swap(*g_reaped);
  }
}

// Frees a block (by its start, which is also the DataPtr's context). A deleter: never throws;
// should something fail, the block stays allocated.
void FreeBlock(void* p) noexcept {
  try {
    Block block;
    {
      std::lock_guard<std::mutex> l(g_blocks_mu);
      auto it = g_blocks.find(reinterpret_cast<uintptr_t>(p));
      if (it == g_blocks.end()) {
        // Not ours: the CPU allocator's raw allocation (the routing allocator's raw deleter is
        // this).
        if (c10::DeleterFnPtr d = g_fallback_deleter.load()) d(p);
        return;
      }
      block = std::move(it->second);
      g_blocks.erase(it);
    }
    if (!block.abandoned) block.conn->ReleaseShared(block.buffer);
    if (block.conn->OnWorker()) {
      std::lock_guard<std::mutex> l(g_blocks_mu);
      g_reaped->push_back(std::move(block.conn));
    } else {
      block.conn.reset();
      DropReaped();
    }
  } catch (...) {
  }
}

c10::DataPtr AllocateBlock(std::shared_ptr<Connection> conn, size_t bytes) {
  if (!conn->OnWorker()) DropReaped();
  Buffer b = conn->AcquireShared(bytes);
  try {
    std::lock_guard<std::mutex> l(g_blocks_mu);
    g_blocks.emplace(reinterpret_cast<uintptr_t>(b.ptr), Block{conn, b});
  } catch (...) {
    conn->ReleaseShared(b);
    throw;
  }
  return c10::DataPtr(b.ptr, b.ptr, &FreeBlock, c10::Device(c10::DeviceType::CPU));
}

// c10::Allocator::allocate lost its const, and copy_data came, in PyTorch 2.3.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define OUTRIDER_ALLOCATOR_2_3 1
#define OUTRIDER_ALLOCATE_CONST
#else
#define OUTRIDER_ALLOCATOR_2_3 0
#define OUTRIDER_ALLOCATE_CONST const
#endif

// In front of PyTorch's CPU allocator: a thread that routes its allocations here gets shared
// memory (while the process has a connection); everything else goes to PyTorch's allocator.
class RoutingAllocator final : public c10::Allocator {
 public:
  explicit RoutingAllocator(c10::Allocator* fallback) : fallback_(fallback) {}

  c10::DataPtr allocate(size_t n) OUTRIDER_ALLOCATE_CONST override {
    if (t_shared_allocation && n > 0) {
      if (std::shared_ptr<Connection> conn = Connection::Current())
        return AllocateBlock(std::move(conn), n);
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

}  // namespace

CopyCounters& Copies() {
  static CopyCounters counters;
  return counters;
}

at::Tensor SharedBytes(size_t bytes) {
  std::shared_ptr<Connection> conn = Connection::Current();
  if (!conn)
    throw std::runtime_error(
        "outrider: shared memory needs an outrider process group (init_process_group first)");
  if (bytes == 0)
    throw std::runtime_error("outrider: a shared-memory tensor needs at least one byte");
  c10::DataPtr data = AllocateBlock(std::move(conn), bytes);
  void* p = data.release_context();  // FreeBlock(p) frees it again, when the tensor's storage goes
  try {
    return at::from_blob(p, {static_cast<int64_t>(bytes)}, &FreeBlock,
                         at::TensorOptions().dtype(at::kByte));
  } catch (...) {
    FreeBlock(p);
    throw;
  }
}

bool SetSharedAllocation(bool on) {
  static std::once_flag installed;
  static RoutingAllocator* routing = nullptr;
  std::call_once(installed, [] {
    c10::Allocator* cpu = c10::GetAllocator(c10::DeviceType::CPU);
    g_fallback_deleter = cpu->raw_deleter();
    routing = new RoutingAllocator(cpu);  // for good: tensors from it may outlive everything
    c10::SetAllocator(c10::DeviceType::CPU, routing);
  });
  if (on && c10::GetAllocator(c10::DeviceType::CPU) != routing) {
    throw std::runtime_error(
        "outrider: another CPU allocator took precedence (registered with a higher priority): "
        "tensors cannot be routed to shared memory; use outrider_torch.empty()");
  }
  bool previous = t_shared_allocation;
  t_shared_allocation = on;
  return previous;
}

void AbandonShared(const void* p) {
  std::lock_guard<std::mutex> l(g_blocks_mu);
  if (Block* b = FindBlock(reinterpret_cast<uintptr_t>(p), 1)) b->abandoned = true;
}

void* SharedData(const Connection& conn, const at::Tensor& t) {
  if (!t.defined() || t.is_sparse() || !t.device().is_cpu() || !t.is_contiguous() ||
      t.numel() == 0 || t.is_conj() || t.is_neg()) {
    return nullptr;  // a lazy conjugate or negation is resolved by staging's copy
  }
  std::lock_guard<std::mutex> l(g_blocks_mu);
  const Block* b = FindBlock(reinterpret_cast<uintptr_t>(t.data_ptr()), t.nbytes());
  return b != nullptr && b->conn.get() == &conn ? t.data_ptr() : nullptr;
}

}  // namespace outrider::torch_backend
