// Ops on device buffers, staged through shared memory and ordered on the caller's CUDA stream
// with the control segment's fences (DESIGN §10): on the stream, the inputs are copied to a
// staging buffer in the arena and the op's ready fence is written; the op is submitted fenced (the
// agent starts it once the fence holds its id); the stream then waits for the done fence, copies
// the result back and writes the slot's released word, which lets the shim reuse the staging
// buffer and the slot. The calling thread never waits for the stream.
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>

#include "ipc/cuda/driver.h"
#include "ipc/event_fd.h"
#include "shim/client.h"

namespace outrider::shim {

#if OUTRIDER_HAVE_CUDA

namespace {
const cuda::Driver& Drv(const void* p) { return *static_cast<const cuda::Driver*>(p); }

ipc::FenceSlot* FenceSlots(const ipc::Mapping& control) {
  return reinterpret_cast<ipc::FenceSlot*>(control.data() +
                                           reinterpret_cast<const ipc::ControlHeader*>(control.data())->fences_offset);
}

// Until `stop_fd` is readable: once `socket_fd` hangs up (the agent exited, was killed or dropped
// the client), every slot whose done word is behind the newest op is set to that op, status
// UNAVAILABLE: a stream waits for done >= its op, so each one goes on. Never reads the socket (the
// caller's thread owns it): it polls for no event, so only a hang-up or an error wakes it.
void Watch(int socket_fd, int stop_fd, std::atomic<uint64_t>* last_op, std::atomic<bool>* agent_gone,
           ipc::FenceSlot* fences) {
  pollfd p[2] = {{socket_fd, 0, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    int n = ::poll(p, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || p[1].revents != 0) return;
    if (p[0].revents != 0) break;
  }
  agent_gone->store(true);  // seq_cst: a submission after this sees it, or its op is in last_op
  uint64_t last = last_op->load();
  for (uint32_t i = 0; i < ipc::kFenceSlots; ++i) {
    std::atomic_ref<uint64_t> done(fences[i].done);
    if (done.load(std::memory_order_acquire) >= last) continue;
    std::atomic_ref<int32_t>(fences[i].status).store(static_cast<int32_t>(Code::kUnavailable), std::memory_order_relaxed);
    done.store(last, std::memory_order_release);
  }
}

}  // namespace

void Client::Gpu::StopWatchdog() {
  if (!watchdog.joinable()) return;
  uint64_t one = 1;
  (void)!::write(stop.get(), &one, sizeof(one));
  watchdog.join();
}

Client::Gpu::~Gpu() { StopWatchdog(); }

bool Client::IsDevice(const void* p) const {
  if (p == nullptr) return false;
  auto d = cuda::LoadIfPresent();  // a process with device memory has the driver loaded
  if (!d.ok()) return false;
  unsigned int type = 0;
  return (*d)->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) ==
             CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}

Status Client::GpuSetup(const void* driver) {
  if (gpu_ != nullptr) return Status::Ok();
  const cuda::Driver& d = Drv(driver);
  auto g = std::make_unique<Gpu>();
  g->driver = driver;
  // The control segment, so that streams write and wait on its fences.
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostRegister(control_.data(), control_.size(), CU_MEMHOSTREGISTER_DEVICEMAP),
                                       "registering the control segment (cuMemHostRegister)"));
  CUdeviceptr base = 0;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostGetDevicePointer(&base, control_.data(), 0), "cuMemHostGetDevicePointer"));
  auto* h = reinterpret_cast<const ipc::ControlHeader*>(control_.data());
  g->fences = base + h->fences_offset;
  g->released = std::make_unique<uint64_t[]>(ipc::kFenceSlots);
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostRegister(g->released.get(), ipc::kFenceSlots * sizeof(uint64_t),
                                                              CU_MEMHOSTREGISTER_DEVICEMAP),
                                       "registering the released words (cuMemHostRegister)"));
  CUdeviceptr rel = 0;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostGetDevicePointer(&rel, g->released.get(), 0), "cuMemHostGetDevicePointer"));
  g->released_dev = rel;
  for (uint32_t i = ipc::kFenceSlots; i > 0; --i) g->free_slots.push_back(i - 1);
  OUTRIDER_ASSIGN_OR_RETURN(g->stop, ipc::CreateEventFd());
  g->watchdog = std::thread(Watch, channel_.fd(), g->stop.get(), &g->last_op, &g->agent_gone, FenceSlots(control_));
  gpu_ = std::move(g);
  return Status::Ok();
}

Status Client::RegisterHost(const void* p) {
  auto it = regions_.upper_bound(reinterpret_cast<uintptr_t>(p));
  if (it == regions_.begin()) return Internal("staging buffer outside every region");
  --it;
  if (std::find(gpu_->registered.begin(), gpu_->registered.end(), it->first) != gpu_->registered.end()) return Status::Ok();
  const cuda::Driver& d = Drv(gpu_->driver);
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuMemHostRegister(it->second.mapping.data(), it->second.bytes, 0),
                                       "pinning a shared-memory region for staging (cuMemHostRegister)"));
  gpu_->registered.push_back(it->first);
  return Status::Ok();
}

Result<uint64_t> Client::SubmitStaged(const OpArgs& a) {
  if (a.kind != ipc::OpKind::kAllreduce) {
    return InvalidArgument(std::string(ipc::OpKindName(a.kind)) + ": device buffers are supported by allreduce only so far");
  }
  if (!IsDevice(a.recv)) return InvalidArgument("allreduce: send is device memory but recv is not");
  OUTRIDER_ASSIGN_OR_RETURN(const cuda::Driver* d, cuda::Load());
  OUTRIDER_RETURN_IF_ERROR(GpuSetup(d));
  RetireStaged();
  if (gpu_->free_slots.empty()) {
    return ResourceExhausted(std::to_string(ipc::kFenceSlots) + " ops on device buffers are in flight or being copied back");
  }
  uint64_t bytes = a.send_bytes;
  OUTRIDER_ASSIGN_OR_RETURN(void* stage, arena_->Allocate(bytes));
  if (Status st = RegisterHost(stage); !st.ok()) {
    arena_->Free(stage);
    return st;
  }
  uint32_t slot = gpu_->free_slots.back();
  uint64_t id = next_op_id_;  // the id Submit gives it
  auto s = static_cast<CUstream>(a.stream);
  CUdeviceptr fence = gpu_->fences + uint64_t{slot} * sizeof(ipc::FenceSlot);
  Status st = cuda::Check(*d, d->cuMemcpyDtoHAsync(stage, reinterpret_cast<CUdeviceptr>(a.send), bytes, s),
                          "copying the inputs to staging (cuMemcpyDtoHAsync)");
  if (st.ok()) {
    st = cuda::Check(*d, d->cuStreamWriteValue64(s, fence + offsetof(ipc::FenceSlot, ready), id, CU_STREAM_WRITE_VALUE_DEFAULT),
                     "writing the ready fence (cuStreamWriteValue64)");
  }
  if (!st.ok()) {
    arena_->Free(stage);  // the stream may still copy into it: nothing reads it, and ops are ordered
    return st;
  }
  gpu_->last_op.store(id);  // before the op exists: a watchdog that fires from now on releases it
  OpArgs b = a;
  b.send = stage;
  b.recv = stage;
  b.recv_bytes = bytes;
  b.fence = static_cast<int32_t>(slot);
  auto r = Submit(b, false);
  if (!r.ok()) return r.status();  // the fence stays unused; the staging buffer leaks (the copy may be queued)
  gpu_->free_slots.pop_back();
  OpState& state = ops_.at(*r);
  state.staging = stage;
  state.fence = static_cast<int32_t>(slot);
  // The rest of the stream's part: wait for the agent, copy back, say so.
  st = cuda::Check(*d, d->cuStreamWaitValue64(s, fence + offsetof(ipc::FenceSlot, done), id, CU_STREAM_WAIT_VALUE_GEQ),
                   "waiting for the done fence (cuStreamWaitValue64)");
  if (st.ok()) {
    st = cuda::Check(*d, d->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(a.recv), stage, bytes, s),
                     "copying the result back (cuMemcpyHtoDAsync)");
  }
  if (st.ok()) {
    st = cuda::Check(*d, d->cuStreamWriteValue64(s, gpu_->released_dev + uint64_t{slot} * 8, id, CU_STREAM_WRITE_VALUE_DEFAULT),
                     "writing the released word (cuStreamWriteValue64)");
  }
  if (!st.ok()) {
    // The op runs, but its result will not reach the device: its staging is never released
    // (the stream may still use it), and the caller learns why now.
    state.staging = nullptr;
    state.fence = -1;
    return st;
  }
  if (gpu_->agent_gone.load()) ReleaseFences();  // the watchdog fired before the stream's wait was queued
  return *r;
}

bool Client::Retired(uint64_t op, const OpState& s) const {
  return std::atomic_ref<uint64_t>(gpu_->released[static_cast<size_t>(s.fence)]).load(std::memory_order_acquire) == op;
}

void Client::FreeStaging(const OpState& s) {
  arena_->Free(s.staging);
  gpu_->free_slots.push_back(static_cast<uint32_t>(s.fence));
}

void Client::RetireStaged() {
  if (gpu_ == nullptr) return;
  auto done = [this](const std::pair<uint64_t, OpState>& e) {
    if (!Retired(e.first, e.second)) return false;
    FreeStaging(e.second);
    return true;
  };
  retiring_.erase(std::remove_if(retiring_.begin(), retiring_.end(), done), retiring_.end());
}

void Client::ReleaseFences(Code code) {
  if (gpu_ == nullptr) return;
  ipc::FenceSlot* fences = FenceSlots(control_);
  for (const auto& [op, s] : ops_) {
    if (s.fence < 0) continue;
    ipc::FenceSlot& f = fences[s.fence];
    if (std::atomic_ref<uint64_t>(f.done).load(std::memory_order_acquire) >= op) continue;
    std::atomic_ref<int32_t>(f.status).store(static_cast<int32_t>(code), std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(f.done).store(op, std::memory_order_release);
  }
}

void Client::StopGpu() {
  if (gpu_ == nullptr) return;
  ReleaseFences(gone_.ok() ? Code::kCancelled : Code::kUnavailable);
  for (auto& [op, s] : ops_) {
    if (s.staging != nullptr) retiring_.emplace_back(op, std::exchange(s, OpState{}));
  }
  // Streams run queued work before they reach an op's copy back; a stream that takes longer than
  // the timeout is stalled behind work of the caller's.
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(config_.timeout_ms) * 1000000;
  for (;;) {
    RetireStaged();
    if (retiring_.empty()) break;
    if (ipc::MonotonicNs() >= deadline) {
      last_error_ = std::to_string(retiring_.size()) +
                    " ops on device buffers still had their streams copying at disconnect: their "
                    "shared memory stays mapped and pinned";
      std::fprintf(stderr, "outrider: %s\n", last_error_.c_str());
      gpu_->StopWatchdog();  // the rest is left as the streams need it
      (void)gpu_.release();
      (void)new ipc::Mapping(std::move(control_));
      (void)new std::map<uintptr_t, Region>(std::move(regions_));
      (void)arena_.release();
      return;
    }
    timespec ms{0, 1000000};
    ::nanosleep(&ms, nullptr);
  }
  const cuda::Driver& d = Drv(gpu_->driver);
  for (uintptr_t base : gpu_->registered) (void)d.cuMemHostUnregister(reinterpret_cast<void*>(base));
  (void)d.cuMemHostUnregister(gpu_->released.get());
  (void)d.cuMemHostUnregister(control_.data());
  gpu_.reset();
}

#else

bool Client::IsDevice(const void*) const { return false; }
Result<uint64_t> Client::SubmitStaged(const OpArgs&) { return FailedPrecondition("built without CUDA"); }
void Client::RetireStaged() {}
bool Client::Retired(uint64_t, const OpState&) const { return true; }
void Client::FreeStaging(const OpState&) {}
void Client::ReleaseFences(Code) {}
void Client::StopGpu() {}
Status Client::GpuSetup(const void*) { return FailedPrecondition("built without CUDA"); }
Status Client::RegisterHost(const void*) { return FailedPrecondition("built without CUDA"); }

#endif

}  // namespace outrider::shim
