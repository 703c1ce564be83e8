// Ops on device buffers, staged through shared memory and ordered on the caller's CUDA stream
// with the control segment's fences (DESIGN §10): on the stream, the inputs are copied to a
// staging buffer in the arena and the op's ready fence is written; the op is submitted fenced (the
// agent starts it once the fence holds its id); the stream then waits for the done fence, copies
// the result back and writes the slot's released word, which lets the shim reuse the staging
// buffer and the slot. The calling thread never waits for the stream.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "ipc/cuda/driver.h"
#include "shim/client.h"

namespace outrider::shim {

#if OUTRIDER_HAVE_CUDA

namespace {
const cuda::Driver& Drv(const void* p) { return *static_cast<const cuda::Driver*>(p); }
}  // namespace

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

void Client::ReleaseFences() {
  if (gpu_ == nullptr) return;
  auto* fences = reinterpret_cast<ipc::FenceSlot*>(control_.data() + reinterpret_cast<const ipc::ControlHeader*>(control_.data())->fences_offset);
  for (const auto& [op, s] : ops_) {
    if (s.fence < 0) continue;
    ipc::FenceSlot& f = fences[s.fence];
    if (std::atomic_ref<uint64_t>(f.done).load(std::memory_order_acquire) == op) continue;
    std::atomic_ref<int32_t>(f.status).store(static_cast<int32_t>(Code::kUnavailable), std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(f.done).store(op, std::memory_order_release);
  }
}

#else

bool Client::IsDevice(const void*) const { return false; }
Result<uint64_t> Client::SubmitStaged(const OpArgs&) { return FailedPrecondition("built without CUDA"); }
void Client::RetireStaged() {}
bool Client::Retired(uint64_t, const OpState&) const { return true; }
void Client::FreeStaging(const OpState&) {}
void Client::ReleaseFences() {}
Status Client::GpuSetup(const void*) { return FailedPrecondition("built without CUDA"); }
Status Client::RegisterHost(const void*) { return FailedPrecondition("built without CUDA"); }

#endif

}  // namespace outrider::shim
