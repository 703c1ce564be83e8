// The fake CUDA driver's memory (see fake_cuda.cc): device allocations, copies, host registration,
// pointer attributes, legacy IPC handles and VMM allocations.
#include "fake_cuda_internal.h"

namespace fake_cuda {

std::mutex g_mu;
std::map<uintptr_t, Range> g_ranges;
std::map<uint64_t, int> g_vmm;
std::set<std::pair<int, uint64_t>> g_opened;
std::map<uintptr_t, std::pair<int, uint64_t>> g_opened_at;
uint64_t g_next_id = 1;

const std::pair<const uintptr_t, Range>* Find(uintptr_t p, size_t bytes) {
  auto it = g_ranges.upper_bound(p);
  if (it == g_ranges.begin()) return nullptr;
  --it;
  if (p + bytes > it->first + it->second.bytes) return nullptr;
  return &*it;
}

int NewMemfd(size_t bytes) {
  int fd = memfd_create("fake-cuda-device", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

namespace {

constexpr size_t kGranularity = 2 << 20;               // the VMM granularity real GPUs report
constexpr uint64_t kIpcMagic = 0x4655414b45495043ull;  // "FUAKEIPC"

CUresult PointerGetAttribute(void* data, CUpointer_attribute attr, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind == Kind::kReserved) return CUDA_ERROR_INVALID_VALUE;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned int*>(data) =
          r->second.kind == Kind::kHostRegistered ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = r->second.ordinal;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = r->first;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = r->second.bytes;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      // cuMem mappings (id 0) belong to the device, not to a context.
      *static_cast<CUcontext*>(data) = r->second.kind == Kind::kDevice && r->second.id == 0
                                           ? nullptr
                                           : ContextOf(r->second.ordinal);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long*>(data) = r->second.buffer_id;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult MemGetAddressRange(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind == Kind::kHostRegistered || r->second.kind == Kind::kReserved)
    return CUDA_ERROR_NOT_FOUND;
  if (base != nullptr) *base = r->first;
  if (size != nullptr) *size = r->second.bytes;
  return CUDA_SUCCESS;
}

CUresult MemAlloc(CUdeviceptr* p, size_t bytes) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  int fd = NewMemfd(bytes);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_ranges[reinterpret_cast<uintptr_t>(m)] =
      Range{bytes, Kind::kDevice, CurrentOrdinal(), fd, id, id};
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult MemFree(CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kDevice || it->second.id == 0)
    return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(it->first), it->second.bytes);
  close(it->second.memfd);
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult Copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  // A copy on a stream of another context than the current one is refused, as drivers have done.
  if (!IsDefault(s) && StreamOf(s)->ctx() != t_context) return CUDA_ERROR_INVALID_CONTEXT;
  StreamOf(s)->Push([dst, src, bytes] {
    std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  });
  return CUDA_SUCCESS;
}

CUresult MemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  return Copy(dst, src, bytes, s);
}
CUresult MemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
  CUresult r = Copy(reinterpret_cast<CUdeviceptr>(dst), src, bytes, s);
  if (r != CUDA_SUCCESS || bytes == 0) return r;
  bool pinned;
  {
    std::lock_guard<std::mutex> l(g_mu);
    const auto* range = Find(reinterpret_cast<uintptr_t>(dst), bytes);
    pinned = range != nullptr && range->second.kind == Kind::kHostRegistered;
  }
  // Into pageable memory the driver returns once the copy is done, so the caller waits for
  // everything queued before it on the stream.
  if (!pinned) StreamOf(s)->Drain();
  return CUDA_SUCCESS;
}
CUresult MemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
  return Copy(dst, reinterpret_cast<CUdeviceptr>(src), bytes, s);
}

CUresult MemHostRegister(void* p, size_t bytes, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (p == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  auto b = reinterpret_cast<uintptr_t>(p);
  auto it = g_ranges.lower_bound(b);
  if (Find(b) != nullptr || (it != g_ranges.end() && it->first < b + bytes))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  g_ranges[b] = Range{bytes, Kind::kHostRegistered, CurrentOrdinal(), -1, 0};
  return CUDA_SUCCESS;
}

CUresult MemHostUnregister(void* p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kHostRegistered)
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned int flags) {
  NEED_INIT();
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(reinterpret_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind != Kind::kHostRegistered) return CUDA_ERROR_INVALID_VALUE;
  *d = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

// A legacy handle's bytes.
struct IpcHandle {
  uint64_t magic;
  int32_t pid;
  int32_t memfd;
  uint64_t id;
  uint64_t bytes;
  int32_t ordinal;
};
static_assert(sizeof(IpcHandle) <= CU_IPC_HANDLE_SIZE);

CUresult IpcGetMemHandle(CUipcMemHandle* h, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id == 0)
    return CUDA_ERROR_INVALID_VALUE;
  IpcHandle ih{kIpcMagic,    getpid(),        r->second.memfd,
               r->second.id, r->second.bytes, r->second.ordinal};
  std::memset(h, 0, sizeof(*h));
  std::memcpy(h->reserved, &ih, sizeof(ih));
  return CUDA_SUCCESS;
}

CUresult IpcOpenMemHandle(CUdeviceptr* p, CUipcMemHandle h, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;  // the mapping goes into the current context
  IpcHandle ih;
  std::memcpy(&ih, h.reserved, sizeof(ih));
  if (ih.magic != kIpcMagic) return CUDA_ERROR_INVALID_VALUE;
  if (ih.pid == getpid()) return CUDA_ERROR_INVALID_CONTEXT;  // the exporter cannot open its own
  std::lock_guard<std::mutex> l(g_mu);
  if (g_opened.count({ih.pid, ih.id}) != 0) return CUDA_ERROR_ALREADY_MAPPED;
  std::string path = "/proc/" + std::to_string(ih.pid) + "/fd/" + std::to_string(ih.memfd);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return CUDA_ERROR_INVALID_HANDLE;  // the exporter is gone, or in another PID namespace
  void* m = mmap(nullptr, ih.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  auto b = reinterpret_cast<uintptr_t>(m);
  g_ranges[b] = Range{ih.bytes, Kind::kIpcImported, ih.ordinal, fd, 0};
  g_opened.insert({ih.pid, ih.id});
  g_opened_at[b] = {ih.pid, ih.id};
  *p = static_cast<CUdeviceptr>(b);
  return CUDA_SUCCESS;
}

CUresult IpcCloseMemHandle(CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kIpcImported)
    return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(it->first), it->second.bytes);
  close(it->second.memfd);
  g_opened.erase(g_opened_at[it->first]);
  g_opened_at.erase(it->first);
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemGetAllocationGranularity(size_t* g, const CUmemAllocationProp*,
                                     CUmemAllocationGranularity_flags) {
  NEED_INIT();
  *g = kGranularity;
  return CUDA_SUCCESS;
}

CUresult MemCreate(CUmemGenericAllocationHandle* h, size_t bytes, const CUmemAllocationProp* prop,
                   unsigned long long) {
  NEED_INIT();
  if (prop == nullptr || bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  int fd = NewMemfd(bytes);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_vmm[id] = fd;
  *h = id;
  return CUDA_SUCCESS;
}

CUresult MemRelease(CUmemGenericAllocationHandle h) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_vmm.find(h);
  if (it == g_vmm.end()) return CUDA_ERROR_INVALID_VALUE;
  close(it->second);  // mappings keep the memory
  g_vmm.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemExportToShareableHandle(void* out, CUmemGenericAllocationHandle h,
                                    CUmemAllocationHandleType type, unsigned long long) {
  NEED_INIT();
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_vmm.find(h);
  if (it == g_vmm.end()) return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(it->second, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *static_cast<int*>(out) = fd;
  return CUDA_SUCCESS;
}

CUresult MemImportFromShareableHandle(CUmemGenericAllocationHandle* h, void* os_handle,
                                      CUmemAllocationHandleType type) {
  NEED_INIT();
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(os_handle));
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (mine < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_vmm[id] = mine;
  *h = id;
  return CUDA_SUCCESS;
}

CUresult MemAddressReserve(CUdeviceptr* p, size_t bytes, size_t, CUdeviceptr, unsigned long long) {
  NEED_INIT();
  if (bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  void* m = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  g_ranges[reinterpret_cast<uintptr_t>(m)] = Range{bytes, Kind::kReserved, 0, -1, 0};
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult MemAddressFree(CUdeviceptr p, size_t bytes) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  // The reservation may be in pieces (maps split it, unmaps leave the pieces): all of it must be
  // unmapped again, and nothing else may lie in it.
  auto first = g_ranges.find(static_cast<uintptr_t>(p));
  auto it = first;
  uintptr_t at = static_cast<uintptr_t>(p), end = at + bytes;
  while (at < end) {
    if (it == g_ranges.end() || it->first != at || it->second.kind != Kind::kReserved)
      return CUDA_ERROR_INVALID_VALUE;
    at += it->second.bytes;
    ++it;
  }
  if (at != end) return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(p), bytes);
  g_ranges.erase(first, it);
  return CUDA_SUCCESS;
}

CUresult MemMap(CUdeviceptr p, size_t bytes, size_t offset, CUmemGenericAllocationHandle h,
                unsigned long long) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto v = g_vmm.find(h);
  const auto* r = Find(static_cast<uintptr_t>(p), bytes);
  if (v == g_vmm.end() || r == nullptr || r->second.kind != Kind::kReserved ||
      bytes % kGranularity != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // No access until cuMemSetAccess, as on a GPU (a copy before it faults).
  void* m = mmap(reinterpret_cast<void*>(p), bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, v->second,
                 static_cast<off_t>(offset));
  if (m == MAP_FAILED) return CUDA_ERROR_INVALID_VALUE;
  // The mapped piece becomes device memory inside the reservation (which keeps its own entry
  // only where nothing is mapped: simplified to one mapping per reservation start here).
  uintptr_t start = r->first;
  Range reserved = r->second;
  g_ranges.erase(start);
  if (static_cast<uintptr_t>(p) > start)
    g_ranges[start] = Range{static_cast<uintptr_t>(p) - start, Kind::kReserved, 0, -1, 0};
  // The mapping keeps its own reference to the memory: what cuMemRetainAllocationHandle hands out.
  g_ranges[static_cast<uintptr_t>(p)] = Range{
      bytes, Kind::kDevice, CurrentOrdinal(), fcntl(v->second, F_DUPFD_CLOEXEC, 0), 0, g_next_id++};
  uintptr_t end = static_cast<uintptr_t>(p) + bytes;
  if (end < start + reserved.bytes)
    g_ranges[end] = Range{start + reserved.bytes - end, Kind::kReserved, 0, -1, 0};
  return CUDA_SUCCESS;
}

CUresult MemUnmap(CUdeviceptr p, size_t bytes) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kDevice || it->second.id != 0 ||
      it->second.bytes != bytes) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  mmap(reinterpret_cast<void*>(p), bytes, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  if (it->second.memfd >= 0) close(it->second.memfd);
  it->second.memfd = -1;
  it->second.kind = Kind::kReserved;
  return CUDA_SUCCESS;
}

CUresult MemSetAccess(CUdeviceptr p, size_t bytes, const CUmemAccessDesc* desc, size_t count) {
  NEED_INIT();
  if (desc == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p), bytes);
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id != 0)
    return CUDA_ERROR_INVALID_VALUE;  // mapped VMM only
  int prot = desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
             : desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ    ? PROT_READ
                                                               : PROT_NONE;
  return mprotect(reinterpret_cast<void*>(p), bytes, prot) == 0 ? CUDA_SUCCESS
                                                                : CUDA_ERROR_INVALID_VALUE;
}

CUresult MemRetainAllocationHandle(CUmemGenericAllocationHandle* h, void* addr) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(reinterpret_cast<uintptr_t>(addr));
  // VMM mappings only: cuMemAlloc memory (id != 0) is not a cuMem allocation.
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id != 0 || r->second.memfd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(r->second.memfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t id = g_next_id++;
  g_vmm[id] = fd;
  *h = id;
  return CUDA_SUCCESS;
}

}  // namespace

void AddMemoryEntries(EntryTable& entries) {
  FAKE_ENTRY(cuPointerGetAttribute, 4000, PointerGetAttribute)
  FAKE_ENTRY(cuMemGetAddressRange, 3020, MemGetAddressRange)
  FAKE_ENTRY(cuMemAlloc, 3020, MemAlloc)
  FAKE_ENTRY(cuMemFree, 3020, MemFree)
  FAKE_ENTRY(cuMemcpyAsync, 4000, MemcpyAsync)
  FAKE_ENTRY(cuMemcpyDtoHAsync, 3020, MemcpyDtoHAsync)
  FAKE_ENTRY(cuMemcpyHtoDAsync, 3020, MemcpyHtoDAsync)
  FAKE_ENTRY(cuMemHostRegister, 6050, MemHostRegister)
  FAKE_ENTRY(cuMemHostUnregister, 4000, MemHostUnregister)
  FAKE_ENTRY(cuMemHostGetDevicePointer, 3020, MemHostGetDevicePointer)
  FAKE_ENTRY(cuIpcGetMemHandle, 4010, IpcGetMemHandle)
  FAKE_ENTRY(cuIpcOpenMemHandle, 11000, IpcOpenMemHandle)
  FAKE_ENTRY(cuIpcCloseMemHandle, 4010, IpcCloseMemHandle)
  FAKE_ENTRY(cuMemCreate, 10020, MemCreate)
  FAKE_ENTRY(cuMemRelease, 10020, MemRelease)
  FAKE_ENTRY(cuMemExportToShareableHandle, 10020, MemExportToShareableHandle)
  FAKE_ENTRY(cuMemImportFromShareableHandle, 10020, MemImportFromShareableHandle)
  FAKE_ENTRY(cuMemAddressReserve, 10020, MemAddressReserve)
  FAKE_ENTRY(cuMemAddressFree, 10020, MemAddressFree)
  FAKE_ENTRY(cuMemMap, 10020, MemMap)
  FAKE_ENTRY(cuMemUnmap, 10020, MemUnmap)
  FAKE_ENTRY(cuMemSetAccess, 10020, MemSetAccess)
  FAKE_ENTRY(cuMemGetAllocationGranularity, 10020, MemGetAllocationGranularity)
  FAKE_ENTRY(cuMemRetainAllocationHandle, 11000, MemRetainAllocationHandle)
}

}  // namespace fake_cuda
