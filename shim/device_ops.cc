// Ops on device buffers, ordered on the caller's CUDA stream with the control segment's fences
// (docs/design.md#gpu-path). gpu_mode staging: on the stream, the inputs are copied to a staging
// buffer in the arena and the op's ready fence is written; the op is submitted fenced (the agent
// starts it once the fence holds its id); the stream then waits for the done fence, copies the
// result back and writes the slot's released word, which lets the shim reuse the staging buffer and
// the slot. gpu_mode ipc: the GPU allocations are registered with the agent (a cuMem allocation's
// fd, or a cudaMalloc allocation's legacy handle) and the op names them; the stream writes ready,
// waits for done and writes released, and the agent does the copies. The calling thread never waits
// for the stream. Sends and receives are staged in either mode, and a send's stream does not wait
// for its done fence (SubmitOnStream says why).
#include "shim/device_ops.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "shim/connection.h"
#include "shim/regions.h"

namespace outrider::shim {

DeviceOps::~DeviceOps() = default;

void DeviceOps::Retire(uint64_t op, OpState&& s) {
  // The stream may still copy the result back from the staging buffer, or wait on the slot.
  if (Retired(op, s)) {
    FreeStaging(s);
  } else {
    retiring_.emplace_back(op, std::move(s));
  }
}

#if OUTRIDER_HAVE_CUDA

Status DeviceOps::Setup(const cuda::Driver* driver) {
  if (gpu_ != nullptr) return Status::Ok();
  const cuda::Driver& d = *driver;
  auto g = std::make_unique<Gpu>();
  g->driver = driver;
  // The control segment, so that streams write and wait on its fences.
  g->segment = conn_->control_segment();
  const ipc::Mapping& m = g->segment->mapping;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d,
                  d.cuMemHostRegister(m.data(), m.size(),
                                      CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE),
                  "registering the control segment (cuMemHostRegister)"));
  CUdeviceptr base = 0;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuMemHostGetDevicePointer(&base, m.data(), 0), "cuMemHostGetDevicePointer"));
  g->fence_slots = g->segment->fence_slots();
  g->fences = base + (reinterpret_cast<uint8_t*>(g->fence_slots) - m.data());
  g->released = std::make_unique<uint64_t[]>(ipc::kFenceSlots);
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d,
                  d.cuMemHostRegister(g->released.get(), ipc::kFenceSlots * sizeof(uint64_t),
                                      CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE),
                  "registering the released words (cuMemHostRegister)"));
  CUdeviceptr rel = 0;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostGetDevicePointer(&rel, g->released.get(), 0),
                                       "cuMemHostGetDevicePointer"));
  g->released_dev = rel;
  for (uint32_t i = ipc::kFenceSlots; i > 0; --i) g->free_slots.push_back(i - 1);
  gpu_ = std::move(g);
  Status watching = Rewatch();       // this agent's doorbell and socket
  if (!watching.ok()) gpu_.reset();  // registrations stay: the next op's Setup fails the same way
  return watching;
}

Status DeviceOps::RegisterHost(const void* p) {
  auto it = regions_->RegionOf(p);
  if (it == regions_->end()) return Internal("staging buffer outside every region");
  if (std::find(gpu_->registered.begin(), gpu_->registered.end(), it->first) !=
      gpu_->registered.end())
    return Status::Ok();
  const cuda::Driver& d = *gpu_->driver;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(
      d,
      d.cuMemHostRegister(it->second.mapping.data(), it->second.bytes, CU_MEMHOSTREGISTER_PORTABLE),
      "pinning a shared-memory region for staging (cuMemHostRegister)"));
  gpu_->registered.push_back(it->first);
  return Status::Ok();
}

namespace {

// The primary context of device `ordinal`, retained once per process (as the CUDA runtime does:
// it is the context a runtime user's default stream belongs to).
Result<CUcontext> PrimaryContext(const cuda::Driver& d, int ordinal) {
  static Mutex mu;
  static std::map<int, CUcontext> retained;
  MutexLock l(&mu);
  if (auto it = retained.find(ordinal); it != retained.end()) return it->second;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet"));
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"));
  retained.emplace(ordinal, ctx);
  return ctx;
}

// The context an op's stream work goes to: the stream's own; or, for the default stream, the
// context of its first device buffer that has one, else the calling thread's current one, else
// the primary context of its first device buffer's GPU. cuMem memory (PyTorch's expandable
// segments) belongs to no context, and the thread may have none: a PyTorch backend submits from
// its own worker thread, where the runtime never made a context current.
Result<CUcontext> OpContext(const cuda::Driver& d, const OpArgs& a) {
  auto s = static_cast<CUstream>(a.stream);
  CUcontext ctx = nullptr;
  if (s != nullptr && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD) {
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(d, d.cuStreamGetCtx(s, &ctx), "the op's stream (cuStreamGetCtx)"));
    return ctx;
  }
  const std::initializer_list<const void*> buffers{a.send, a.recv, a.ids, a.out_ids};
  for (const void* p : buffers) {
    if (p != nullptr &&
        d.cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT,
                                reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS &&
        ctx != nullptr) {
      return ctx;
    }
  }
  if (d.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr) return ctx;
  for (const void* p : buffers) {
    int ordinal = -1;
    if (p != nullptr &&
        d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS &&
        ordinal >= 0) {
      return PrimaryContext(d, ordinal);
    }
  }
  return FailedPrecondition(
      "an op on the default stream whose buffers name no GPU needs a CUDA context current on the "
      "calling thread");
}

// Makes a context current on this thread for a scope (any thread may call the shim: the stream
// names where its work goes, not the thread).
class ContextScope {
 public:
  ContextScope(const cuda::Driver& d, CUcontext ctx)
      : d_(d), pushed_(ctx != nullptr && d.cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {}
  ~ContextScope() {
    if (pushed_) (void)d_.cuCtxPopCurrent(nullptr);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const cuda::Driver& d_;
  bool pushed_;
};

}  // namespace

Result<uint64_t> DeviceOps::SubmitOnStream(const OpArgs& a, uint64_t id, const Submit& submit) {
  bool ipc_mode = config_->gpu_mode == ipc::GpuMode::kIpc;
  OUTRIDER_ASSIGN_OR_RETURN(const cuda::Driver* d, cuda::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CUcontext ctx, OpContext(*d, a));
  ContextScope in_context(*d, ctx);
  OUTRIDER_RETURN_IF_ERROR(Setup(d));
  if (gpu_->ctx == nullptr) gpu_->ctx = ctx;
  RetireStaged();
  if (gpu_->free_slots.empty()) {
    return ResourceExhausted(std::to_string(ipc::kFenceSlots) +
                             " ops on device buffers are in flight or being copied back");
  }
  OpArgs b = a;
  // Messages are staged in either mode: the agent's point-to-point engine reads and writes host
  // memory only.
  const bool point = ipc::IsPointToPoint(a.kind);
  // Staging: each device buffer of the op gets a pinned buffer in the arena; inputs are copied
  // there before the op, outputs back after it (a sparse op's outputs are copied there first
  // too: it writes only the rows of its result, and the rest must come back unchanged).
  struct Stage {
    const void* device;
    uint64_t bytes;
    void* host;
    bool in, out;
  };
  std::vector<Stage> stages;
  auto unstage = [&] {
    for (const Stage& st : stages) regions_->arena().Free(st.host);
  };
  Status bad;
  auto place = [&](const void* p, uint64_t n, bool in, bool out, const char* which) -> void* {
    if (!bad.ok() || n == 0 || p == nullptr || regions_->InHostRegion(p))
      return const_cast<void*>(p);
    if (ipc_mode && !point && DeviceMemory::InOneAllocation(*d, p, n)) {
      // A buffer inside one GPU allocation: the agent imports the allocation. One that spans
      // several (an expandable segment's pages, mapped one after another) is staged instead.
      bad = memory_.Register(*d, p, n, which);
      return const_cast<void*>(p);
    }
    for (Stage& st : stages) {
      if (st.device == p && st.bytes == n) {  // the same buffer twice: an in-place op
        st.in |= in;
        st.out |= out;
        return st.host;
      }
    }
    if (!DeviceMemory::IsDevice(p)) {
      bad = InvalidArgument(std::string(which) +
                            " buffer is neither shared memory nor device memory");
      return nullptr;
    }
    auto host = regions_->arena().Allocate(n);
    if (host.ok()) bad = RegisterHost(*host);
    if (!host.ok() || !bad.ok()) {
      if (host.ok()) regions_->arena().Free(*host);
      if (bad.ok()) bad = host.status();
      return nullptr;
    }
    stages.push_back(Stage{p, n, *host, in, out});
    return *host;
  };
  bool sparse = ipc::IsSparse(a.kind);
  b.send = place(a.send, a.send_bytes, true, false, "send");
  b.recv = place(a.recv, a.recv_bytes, sparse, true, "recv");
  b.ids = place(a.ids, a.ids_bytes, true, false, "ids");
  b.out_ids = place(a.out_ids, a.out_ids_bytes, sparse, true, "out_ids");
  b.demand = place(a.demand, a.demand_bytes, true, false, "demand");
  if (!bad.ok()) {
    unstage();
    return bad;
  }
  uint32_t slot = gpu_->free_slots.back();
  auto s = static_cast<CUstream>(a.stream);
  CUdeviceptr fence = gpu_->fences + uint64_t{slot} * sizeof(ipc::FenceSlot);
  Status st;
  for (const Stage& x : stages) {
    if (!x.in || !st.ok()) continue;
    st = cuda::Check(
        *d, d->cuMemcpyDtoHAsync(x.host, reinterpret_cast<CUdeviceptr>(x.device), x.bytes, s),
        "copying the inputs to staging (cuMemcpyDtoHAsync)");
  }
  if (st.ok()) {
    st = cuda::Check(*d,
                     d->cuStreamWriteValue64(s, fence + offsetof(ipc::FenceSlot, ready), id,
                                             CU_STREAM_WRITE_VALUE_DEFAULT),
                     "writing the ready fence (cuStreamWriteValue64)");
  }
  if (st.ok()) RingAfter(*d, ctx, s);
  if (!st.ok()) {
    // The stream may still copy into them: nothing reads them, and later ops' copies come after.
    unstage();
    gpu_->untracked = true;
    return st;
  }
  gpu_->watchdog.set_last_op(
      id);  // before the op exists: a watchdog that fires from now on releases it
  b.fence = static_cast<int32_t>(slot);
  auto r = submit(b);
  if (!r.ok()) {
    // The stream may still copy into staging and write the ready fence: the slot and staging go
    // back once it wrote the released word after them.
    Status released =
        cuda::Check(*d,
                    d->cuStreamWriteValue64(s, gpu_->released_dev + uint64_t{slot} * 8, id,
                                            CU_STREAM_WRITE_VALUE_DEFAULT),
                    "writing the released word (cuStreamWriteValue64)");
    gpu_->free_slots.pop_back();
    if (released.ok()) {
      OpState dropped;
      for (const Stage& x : stages) dropped.staging.push_back(x.host);
      dropped.fence = static_cast<int32_t>(slot);
      retiring_.emplace_back(id, std::move(dropped));
    } else {
      gpu_->untracked = true;
    }
    return r.status();
  }
  gpu_->free_slots.pop_back();
  OpState& state = ops_->at(*r);
  for (const Stage& x : stages) state.staging.push_back(x.host);
  state.fence = static_cast<int32_t>(slot);
  // The rest of the stream's part: wait for the agent, copy back (staging), say so. A send's
  // stream goes on once its input is staged: the send completes when the receiver took it, which
  // may be behind work queued later on this very stream (its own receive from that peer). Its
  // staging and slot then go back when the caller has seen it complete, not before.
  if (a.kind != ipc::OpKind::kSend) {
    st = cuda::Check(*d,
                     d->cuStreamWaitValue64(s, fence + offsetof(ipc::FenceSlot, done), id,
                                            CU_STREAM_WAIT_VALUE_GEQ),
                     "waiting for the done fence (cuStreamWaitValue64)");
  }
  for (const Stage& x : stages) {
    if (!x.out || !st.ok()) continue;
    st = cuda::Check(
        *d, d->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(x.device), x.host, x.bytes, s),
        "copying the result back (cuMemcpyHtoDAsync)");
  }
  if (st.ok()) {
    st = cuda::Check(*d,
                     d->cuStreamWriteValue64(s, gpu_->released_dev + uint64_t{slot} * 8, id,
                                             CU_STREAM_WRITE_VALUE_DEFAULT),
                     "writing the released word (cuStreamWriteValue64)");
  }
  if (!st.ok()) {
    // The op runs, but its result will not reach the device: its staging and slot are never
    // released (the stream may still use them), and the caller learns why now.
    state.staging.clear();
    state.fence = -1;
    gpu_->untracked = true;
    return st;
  }
  if (gpu_->watchdog.agent_gone())
    ReleaseFences();  // the watchdog fired before the stream's wait was queued
  return *r;
}

void DeviceOps::RingAfter(const cuda::Driver& d, void* ctx, void* stream) {
  // Once the stream passed the ready fence, the agent's doorbell rings (an eventfd write on the
  // driver's thread: no CUDA call), beside the op's stream, which goes on to wait for the done
  // fence. If any of it fails, the agent still finds the fence at its next look.
  auto it = std::find_if(gpu_->notifiers.begin(), gpu_->notifiers.end(),
                         [&](const Gpu::Notifier& n) { return n.ctx == ctx; });
  if (it == gpu_->notifiers.end())
    it = gpu_->notifiers.insert(gpu_->notifiers.end(), Gpu::Notifier{ctx, {}});
  auto* held = new std::shared_ptr<const UniqueFd>(gpu_->agent_wake);
  auto ring = [](void* p) {
    auto* h = static_cast<std::shared_ptr<const UniqueFd>*>(p);
    ipc::SignalEventFd((*h)->get());
    delete h;
  };
  if (!cuda::LaunchHostFuncAfter(d, &it->side, static_cast<CUstream>(stream), ring, held).ok())
    delete held;
}

bool DeviceOps::Retired(uint64_t op, const OpState& s) const {
  return std::atomic_ref<uint64_t>(gpu_->released[static_cast<size_t>(s.fence)])
             .load(std::memory_order_acquire) == op;
}

void DeviceOps::FreeStaging(const OpState& s) {
  for (void* p : s.staging) regions_->arena().Free(p);
  gpu_->free_slots.push_back(static_cast<uint32_t>(s.fence));
}

void DeviceOps::RetireStaged() {
  if (gpu_ == nullptr) return;
  auto done = [this](const std::pair<uint64_t, OpState>& e) {
    if (!Retired(e.first, e.second)) return false;
    FreeStaging(e.second);
    return true;
  };
  retiring_.erase(std::remove_if(retiring_.begin(), retiring_.end(), done), retiring_.end());
}

void DeviceOps::ReleaseFence(uint64_t op, int32_t slot, Code code) {
  if (gpu_ != nullptr && slot >= 0) LetStreamGo(gpu_->fence_slots[slot], op, code);
}

void DeviceOps::ReleaseFences(Code code) {
  for (const auto& [op, s] : *ops_) ReleaseFence(op, s.fence, code);
}

FenceWatchdog::Watch DeviceOps::WatchOf() const {
  const std::shared_ptr<const ControlSegment>& current = conn_->control_segment();
  return FenceWatchdog::Watch{
      .socket_fd = conn_->fd(),
      .fences = gpu_->fence_slots,
      .departure = current->departure_word(),
      .keep = current,
      // Only staged ops go on at the next agent (it cannot import the last one's GPU memory).
      .hold_ms =
          config_->gpu_mode == ipc::GpuMode::kStaging ? std::max(config_->reconnect_ms, 0) : 0};
}

int DeviceOps::fence_segment_fd() const { return gpu_ != nullptr ? gpu_->segment->fd.get() : -1; }

bool DeviceOps::StreamsWaitForNextAgent() const {
  return gpu_ != nullptr && config_->gpu_mode == ipc::GpuMode::kStaging &&
         config_->reconnect_ms > 0 && conn_->handed_over() && !gpu_->watchdog.agent_gone();
}

void DeviceOps::Unwatch() {
  if (gpu_ != nullptr) gpu_->watchdog.Stop();
}

Status DeviceOps::Rewatch() {
  if (gpu_ == nullptr) return Status::Ok();
  int wake = ::fcntl(conn_->doorbell_fd(), F_DUPFD_CLOEXEC, 0);
  if (wake < 0) return ErrnoStatus("duplicating the ring's doorbell", errno);
  gpu_->agent_wake = std::make_shared<const UniqueFd>(wake);
  return gpu_->watchdog.Start(WatchOf());
}

void DeviceOps::Stop(std::string* last_error) {
  if (gpu_ == nullptr) return;
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(config_->timeout_ms) * 1000000;
  bool in_flight =
      std::any_of(ops_->begin(), ops_->end(), [](const auto& e) { return e.second.fence >= 0; });
  if (config_->gpu_mode == ipc::GpuMode::kIpc && conn_->gone().ok() && in_flight) {
    // The agent copies results into the caller's GPU memory itself: it leaves first (its copies
    // are drained before it hangs up), then the streams go on.
    conn_->LeaveAndDrain(deadline);
  }
  Status gone = conn_->gone();
  ReleaseFences(gone.ok() || gone.code() == Code::kCancelled ? Code::kCancelled
                                                             : Code::kUnavailable);
  for (auto& [op, s] : *ops_) {
    if (s.fence >= 0) retiring_.emplace_back(op, std::exchange(s, OpState{}));
  }
  // Streams run queued work before they reach an op's copy back; a stream that takes longer than
  // the timeout is stalled behind work of the caller's.
  for (;;) {
    RetireStaged();
    if (retiring_.empty() && !gpu_->untracked) break;
    if (ipc::MonotonicNs() >= deadline || gpu_->untracked) {
      *last_error = gpu_->untracked
                        ? std::string("a CUDA call failed halfway through an op's stream work")
                        : std::to_string(retiring_.size()) +
                              " ops on device buffers still had their streams copying";
      *last_error += " at disconnect: the client's shared memory stays mapped and pinned";
      std::fprintf(stderr, "outrider: %s\n", last_error->c_str());
      gpu_->watchdog.Stop();  // the rest is left as the streams need it
      (void)new std::shared_ptr<const ControlSegment>(gpu_->segment);
      (void)gpu_.release();
      conn_->LeakControl();
      regions_->Leak();
      return;
    }
    timespec ms{0, 1000000};
    ::nanosleep(&ms, nullptr);
  }
  const cuda::Driver& d = *gpu_->driver;
  for (Gpu::Notifier& n : gpu_->notifiers) {  // queued doorbells still run, then they go
    ContextScope in_its_context(d, static_cast<CUcontext>(n.ctx));
    cuda::DestroySideStream(d, &n.side);
  }
  ContextScope in_context(d, static_cast<CUcontext>(gpu_->ctx));
  for (uintptr_t base : gpu_->registered)
    (void)d.cuMemHostUnregister(reinterpret_cast<void*>(base));
  (void)d.cuMemHostUnregister(gpu_->released.get());
  (void)d.cuMemHostUnregister(gpu_->segment->mapping.data());
  gpu_.reset();
}

#else

Result<uint64_t> DeviceOps::SubmitOnStream(const OpArgs&, uint64_t, const Submit&) {
  return FailedPrecondition("built without CUDA");
}
void DeviceOps::RetireStaged() {}
bool DeviceOps::Retired(uint64_t, const OpState&) const { return true; }
void DeviceOps::FreeStaging(const OpState&) {}
void DeviceOps::ReleaseFences(Code) {}
void DeviceOps::ReleaseFence(uint64_t, int32_t, Code) {}
int DeviceOps::fence_segment_fd() const { return -1; }
bool DeviceOps::StreamsWaitForNextAgent() const { return false; }
void DeviceOps::Unwatch() {}
Status DeviceOps::Rewatch() { return Status::Ok(); }
void DeviceOps::Stop(std::string*) {}
Status DeviceOps::Setup(const cuda::Driver*) { return FailedPrecondition("built without CUDA"); }
Status DeviceOps::RegisterHost(const void*) { return FailedPrecondition("built without CUDA"); }

#endif

}  // namespace outrider::shim
