// The agent's GPU memory (see cuda_memory.h).
#include "agent/memory/cuda_memory.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "loaders/cuda/side_stream.h"

namespace outrider::agent {

#if OUTRIDER_HAVE_CUDA

namespace {

// A stream and the pinned word it writes its last finished ticket into. The wake-up host functions
// run beside it (made on the first WakeWhenDone), so that the lane's own work never waits for the
// driver's thread to call them.
struct Lane {
  int device = 0;
  CUstream stream = nullptr;
  uint64_t* progress = nullptr;
  CUdeviceptr progress_dev = 0;
  uint64_t next_ticket = 1;
  cuda::SideStream wakes;
};

struct Device {
  int ordinal = 0;
  std::string uuid;
  CUcontext ctx = nullptr;
};

}  // namespace

struct CudaMemory::Impl {
  const cuda::Driver* d = nullptr;
  std::vector<Device> devices;  // by ordinal
  // By stream id: first each device's copy stream (id = ordinal), then streams of their own
  // (NewStream; null once released, reused).
  std::vector<std::unique_ptr<Lane>> lanes;
  std::unique_ptr<PinnedPool> pinned;
  int completion_fd = -1;  // WakeWhenDone's host functions write it

  Status Current(int ordinal) {
    return cuda::Check(*d, d->cuCtxSetCurrent(devices[static_cast<size_t>(ordinal)].ctx),
                       "cuCtxSetCurrent");
  }
  Status NewLane(int ordinal, Lane* lane) {
    lane->device = ordinal;
    OUTRIDER_RETURN_IF_ERROR(Current(ordinal));
    OUTRIDER_RETURN_IF_ERROR(cuda::Check(
        *d, d->cuStreamCreate(&lane->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
    lane->progress = static_cast<uint64_t*>(std::aligned_alloc(4096, 4096));
    if (lane->progress == nullptr) return ResourceExhausted("no memory for a stream progress word");
    std::memset(lane->progress, 0, 4096);
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(*d, d->cuMemHostRegister(lane->progress, 4096, CU_MEMHOSTREGISTER_DEVICEMAP),
                    "registering a stream progress word (cuMemHostRegister)"));
    return cuda::Check(*d, d->cuMemHostGetDevicePointer(&lane->progress_dev, lane->progress, 0),
                       "cuMemHostGetDevicePointer");
  }
  Result<Lane*> LaneOf(int id) {
    if (id < 0 || static_cast<size_t>(id) >= lanes.size() ||
        lanes[static_cast<size_t>(id)] == nullptr) {
      return Internal("no GPU stream " + std::to_string(id));
    }
    return lanes[static_cast<size_t>(id)].get();
  }
  Result<int> Ordinal(const std::string& uuid) {
    for (const Device& dev : devices) {
      if (dev.uuid == uuid) return dev.ordinal;
    }
    return FailedPrecondition("GPU " + uuid + " is not visible to the agent (it sees " +
                              std::to_string(devices.size()) +
                              "; give the agent's container every GPU its clients use)");
  }
};

Result<std::unique_ptr<CudaMemory>> CudaMemory::Open(PinnedPool::Options pinned,
                                                     int completion_fd) {
  OUTRIDER_ASSIGN_OR_RETURN(const cuda::Driver* d, cuda::Load());
  auto impl = std::make_unique<Impl>();
  impl->d = d;
  impl->completion_fd = completion_fd;
  OUTRIDER_ASSIGN_OR_RETURN(std::vector<cuda::Device> devices, cuda::Devices(*d));
  for (const cuda::Device& found : devices) {
    Device dev;
    dev.ordinal = found.ordinal;
    dev.uuid = found.uuid;
    CUdevice handle = 0;
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(*d, d->cuDeviceGet(&handle, found.ordinal), "cuDeviceGet"));
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(*d, d->cuDevicePrimaryCtxRetain(&dev.ctx, handle), "cuDevicePrimaryCtxRetain"));
    impl->devices.push_back(std::move(dev));
    impl->lanes.push_back(std::make_unique<Lane>());
    OUTRIDER_RETURN_IF_ERROR(impl->NewLane(found.ordinal, impl->lanes.back().get()));
  }
  impl->pinned = std::make_unique<PinnedPool>(
      pinned,
      [d](void* data, uint64_t bytes) {
        return cuda::Check(*d, d->cuMemHostRegister(data, bytes, 0),
                           "pinning GPU staging (cuMemHostRegister)");
      },
      [d](void* data, uint64_t) { (void)d->cuMemHostUnregister(data); });
  return std::unique_ptr<CudaMemory>(new CudaMemory(std::move(impl)));
}

CudaMemory::CudaMemory(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaMemory::~CudaMemory() = default;

namespace {

// Each import closes its mapping when destroyed: made in place, never copied.
struct FdImport {
  FdImport(const cuda::Driver* d, CUcontext ctx, CUdeviceptr base, uint64_t bytes)
      : d(d), ctx(ctx), base(base), bytes(bytes) {}
  FdImport(const FdImport&) = delete;
  FdImport& operator=(const FdImport&) = delete;
  const cuda::Driver* d;
  CUcontext ctx;
  CUdeviceptr base;
  uint64_t bytes;
  ~FdImport() {
    (void)d->cuCtxSetCurrent(ctx);
    (void)d->cuMemUnmap(base, bytes);
    (void)d->cuMemAddressFree(base, bytes);
  }
};

struct IpcImport {
  IpcImport(const cuda::Driver* d, CUcontext ctx, CUdeviceptr base) : d(d), ctx(ctx), base(base) {}
  IpcImport(const IpcImport&) = delete;
  IpcImport& operator=(const IpcImport&) = delete;
  const cuda::Driver* d;
  CUcontext ctx;
  CUdeviceptr base;
  ~IpcImport() {
    (void)d->cuCtxSetCurrent(ctx);
    (void)d->cuIpcCloseMemHandle(base);
  }
};

}  // namespace

Result<std::shared_ptr<const void>> CudaMemory::ImportFd(UniqueFd fd, uint64_t bytes,
                                                         const std::string& uuid,
                                                         BufferSpan* span) {
  const cuda::Driver& d = *impl_->d;
  OUTRIDER_ASSIGN_OR_RETURN(int ordinal, impl_->Ordinal(uuid));
  OUTRIDER_RETURN_IF_ERROR(impl_->Current(ordinal));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  size_t granularity = 0;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(
      d, d.cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
      "cuMemGetAllocationGranularity"));
  if (bytes == 0 || granularity == 0 || bytes % granularity != 0) {
    return InvalidArgument("a cuMem allocation is a multiple of the GPU's granularity (" +
                           std::to_string(granularity) + " bytes), not " + std::to_string(bytes));
  }
  CUmemGenericAllocationHandle handle = 0;
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(
      d,
      d.cuMemImportFromShareableHandle(&handle,
                                       reinterpret_cast<void*>(static_cast<intptr_t>(fd.get())),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      "importing a cuMem allocation (cuMemImportFromShareableHandle)"));
  CUdeviceptr base = 0;
  Status st = cuda::Check(d, d.cuMemAddressReserve(&base, bytes, 0, 0, 0), "cuMemAddressReserve");
  if (st.ok()) {
    st = cuda::Check(d, d.cuMemMap(base, bytes, 0, handle, 0), "cuMemMap");
    if (!st.ok()) (void)d.cuMemAddressFree(base, bytes);
  }
  (void)d.cuMemRelease(handle);  // the mapping holds the memory now
  OUTRIDER_RETURN_IF_ERROR(st);
  auto import = std::make_shared<const FdImport>(
      &d, impl_->devices[static_cast<size_t>(ordinal)].ctx, base, bytes);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuMemSetAccess(base, bytes, &access, 1), "cuMemSetAccess"));
  *span = BufferSpan{MemoryKind::kCudaFd, ordinal, static_cast<uint64_t>(base), bytes};
  return std::shared_ptr<const void>(import);
}

Result<std::shared_ptr<const void>> CudaMemory::ImportIpcHandle(const uint8_t* handle,
                                                                uint64_t bytes,
                                                                const std::string& uuid,
                                                                BufferSpan* span) {
  const cuda::Driver& d = *impl_->d;
  OUTRIDER_ASSIGN_OR_RETURN(int ordinal, impl_->Ordinal(uuid));
  OUTRIDER_RETURN_IF_ERROR(impl_->Current(ordinal));
  CUipcMemHandle h{};
  static_assert(sizeof(h.reserved) == 64);
  std::memcpy(h.reserved, handle, sizeof(h.reserved));
  CUdeviceptr base = 0;
  if (CUresult rc = d.cuIpcOpenMemHandle(&base, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
      rc != CUDA_SUCCESS) {
    Status st = cuda::Check(d, rc, "cuIpcOpenMemHandle");
    if (st.code() == Code::kResourceExhausted) return st;  // the agent's GPU is full
    // Anything else is the handle's fault, so the client's: it was forged, sent before (a handle
    // opens once per process), its allocation was freed, or its exporter is in another PID
    // namespace than the agent.
    return InvalidArgument(
        "the client's handle cannot be opened here (" + st.message() +
        "): forged, registered already, freed, or exported from outside the agent's PID "
        "namespace (run trainers with hostPID, or use cuMem allocations)");
  }
  auto import =
      std::make_shared<const IpcImport>(&d, impl_->devices[static_cast<size_t>(ordinal)].ctx, base);
  CUdeviceptr start = 0;
  size_t size = 0;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuMemGetAddressRange(&start, &size, base), "cuMemGetAddressRange"));
  if (bytes == 0 || bytes > size) {
    return InvalidArgument("the IPC handle's allocation is " + std::to_string(size) +
                           " bytes; the registration says " + std::to_string(bytes));
  }
  *span = BufferSpan{MemoryKind::kCudaIpc, ordinal, static_cast<uint64_t>(base), bytes};
  return std::shared_ptr<const void>(import);
}

void CudaMemory::TrimIdlePinned(uint64_t now_ns) { impl_->pinned->Trim(now_ns); }

Result<CudaMemory::Pinned> CudaMemory::TakePinned(uint64_t bytes) {
  return impl_->pinned->Take(bytes);
}

void CudaMemory::GivePinned(Pinned p) { impl_->pinned->Give(p, ipc::MonotonicNs()); }

uint64_t CudaMemory::pinned_bytes() const { return impl_->pinned->pinned_bytes(); }
uint64_t CudaMemory::idle_pinned_bytes() const { return impl_->pinned->idle_bytes(); }

Result<uint64_t> CudaMemory::Enqueue(int stream, const std::vector<Copy>& copies) {
  const cuda::Driver& d = *impl_->d;
  OUTRIDER_ASSIGN_OR_RETURN(Lane * lane, impl_->LaneOf(stream));
  OUTRIDER_RETURN_IF_ERROR(impl_->Current(lane->device));
  for (const Copy& c : copies) {
    CUresult rc = c.to_host
                      ? d.cuMemcpyDtoHAsync(c.host, static_cast<CUdeviceptr>(c.device.address),
                                            c.device.length, lane->stream)
                      : d.cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(c.device.address), c.host,
                                            c.device.length, lane->stream);
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(d, rc, c.to_host ? "cuMemcpyDtoHAsync" : "cuMemcpyHtoDAsync"));
  }
  uint64_t ticket = lane->next_ticket++;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d,
                  d.cuStreamWriteValue64(lane->stream, lane->progress_dev, ticket,
                                         CU_STREAM_WRITE_VALUE_DEFAULT),
                  "cuStreamWriteValue64"));
  return ticket;
}

bool CudaMemory::Done(int stream, uint64_t ticket) const {
  const Lane& lane = *impl_->lanes[static_cast<size_t>(stream)];
  return __atomic_load_n(lane.progress, __ATOMIC_ACQUIRE) >= ticket;
}

Status CudaMemory::WakeWhenDone(int stream) {
  const cuda::Driver& d = *impl_->d;
  OUTRIDER_ASSIGN_OR_RETURN(Lane * lane, impl_->LaneOf(stream));
  OUTRIDER_RETURN_IF_ERROR(impl_->Current(lane->device));
  // Runs on the driver's thread: an eventfd write only (no CUDA call is allowed there).
  auto wake = [](void* fd) {
    uint64_t one = 1;
    ssize_t n = ::write(*static_cast<const int*>(fd), &one, sizeof(one));
    (void)n;  // EAGAIN: the counter is already non-zero, the loop wakes anyway
  };
  return cuda::LaunchHostFuncAfter(d, &lane->wakes, lane->stream, wake, &impl_->completion_fd);
}

Status CudaMemory::Failed(int stream) const {
  auto lane = impl_->LaneOf(stream);
  if (!lane.ok()) return lane.status();
  (void)impl_->Current((*lane)->device);
  CUresult rc = impl_->d->cuStreamQuery((*lane)->stream);
  if (rc == CUDA_SUCCESS || rc == CUDA_ERROR_NOT_READY) return Status::Ok();
  return cuda::Check(*impl_->d, rc, "the agent's GPU stream failed");
}

Result<void*> CudaMemory::UseStream(int stream) {
  OUTRIDER_ASSIGN_OR_RETURN(Lane * lane, impl_->LaneOf(stream));
  OUTRIDER_RETURN_IF_ERROR(impl_->Current(lane->device));
  return static_cast<void*>(lane->stream);
}

Result<int> CudaMemory::NewStream(int device) {
  if (device < 0 || static_cast<size_t>(device) >= impl_->devices.size())
    return Internal("no GPU " + std::to_string(device));
  auto lane = std::make_unique<Lane>();
  Status st = impl_->NewLane(device, lane.get());
  if (!st.ok()) {
    if (lane->stream != nullptr) (void)impl_->d->cuStreamDestroy(lane->stream);
    std::free(lane->progress);  // registration failed, or never happened
    return st;
  }
  size_t id = impl_->devices.size();
  while (id < impl_->lanes.size() && impl_->lanes[id] != nullptr) ++id;
  if (id == impl_->lanes.size()) impl_->lanes.emplace_back();
  impl_->lanes[id] = std::move(lane);
  return static_cast<int>(id);
}

void CudaMemory::ReleaseStream(int stream) {
  if (stream < static_cast<int>(impl_->devices.size()))
    return;  // a copy stream lives with the process
  auto lane = impl_->LaneOf(stream);
  if (!lane.ok()) return;
  const cuda::Driver& d = *impl_->d;
  (void)impl_->Current((*lane)->device);
  (void)d.cuStreamSynchronize((*lane)->stream);
  (void)d.cuStreamDestroy((*lane)->stream);
  cuda::DestroySideStream(d, &(*lane)->wakes);  // its host functions only write the completion fd
  (void)d.cuMemHostUnregister((*lane)->progress);
  std::free((*lane)->progress);
  impl_->lanes[static_cast<size_t>(stream)].reset();
}

void CudaMemory::Drain() {
  for (auto& lane : impl_->lanes) {
    if (lane == nullptr) continue;
    (void)impl_->Current(lane->device);
    (void)impl_->d->cuStreamSynchronize(lane->stream);
  }
}

#else

struct CudaMemory::Impl {};
CudaMemory::CudaMemory(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CudaMemory::~CudaMemory() = default;
Result<std::unique_ptr<CudaMemory>> CudaMemory::Open(PinnedPool::Options, int) {
  return FailedPrecondition(
      "this agent was built without CUDA (configure with -DOUTRIDER_WITH_CUDA=ON)");
}
Result<std::shared_ptr<const void>> CudaMemory::ImportFd(UniqueFd, uint64_t, const std::string&,
                                                         BufferSpan*) {
  return FailedPrecondition("built without CUDA");
}
Result<std::shared_ptr<const void>> CudaMemory::ImportIpcHandle(const uint8_t*, uint64_t,
                                                                const std::string&, BufferSpan*) {
  return FailedPrecondition("built without CUDA");
}
void CudaMemory::TrimIdlePinned(uint64_t) {}
Result<CudaMemory::Pinned> CudaMemory::TakePinned(uint64_t) {
  return FailedPrecondition("built without CUDA");
}
void CudaMemory::GivePinned(Pinned) {}
uint64_t CudaMemory::pinned_bytes() const { return 0; }
uint64_t CudaMemory::idle_pinned_bytes() const { return 0; }
Result<uint64_t> CudaMemory::Enqueue(int, const std::vector<Copy>&) {
  return FailedPrecondition("built without CUDA");
}
Status CudaMemory::WakeWhenDone(int) { return FailedPrecondition("built without CUDA"); }
Result<void*> CudaMemory::UseStream(int) { return FailedPrecondition("built without CUDA"); }
Result<int> CudaMemory::NewStream(int) { return FailedPrecondition("built without CUDA"); }
void CudaMemory::ReleaseStream(int) {}
bool CudaMemory::Done(int, uint64_t) const { return true; }
Status CudaMemory::Failed(int) const { return Status::Ok(); }
void CudaMemory::Drain() {}

#endif

}  // namespace outrider::agent
