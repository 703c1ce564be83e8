// memfd creation, seal checks and shared mappings.
#include "ipc/memfd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <utility>

namespace outrider::ipc {

Mapping::Mapping(Mapping&& o) noexcept
    : addr_(std::exchange(o.addr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

Mapping& Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    if (addr_) ::munmap(addr_, bytes_);
    addr_ = std::exchange(o.addr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

Mapping::~Mapping() {
  if (addr_) ::munmap(addr_, bytes_);
}

Result<UniqueFd> CreateSealedMemfd(const std::string& name, size_t bytes) {
  if (bytes == 0) return InvalidArgument("memfd size must be > 0");
  UniqueFd fd(::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return ErrnoStatus("memfd_create", errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    return ErrnoStatus("ftruncate memfd to " + std::to_string(bytes) + " bytes", errno);
  }
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return ErrnoStatus("sealing memfd", errno);
  }
  return fd;
}

Result<size_t> CheckSealedMemfd(int fd) {
  int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0) return InvalidArgument("fd is not a memfd (F_GET_SEALS failed)");
  if ((seals & kRequiredSeals) != kRequiredSeals) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%x", static_cast<unsigned>(seals));
    return InvalidArgument(std::string("memfd is not sealed against shrink and grow (seals 0x") +
                           hex + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ErrnoStatus("fstat memfd", errno);
  return static_cast<size_t>(st.st_size);
}

Result<Mapping> MapShared(int fd, size_t bytes) {
  if (bytes == 0) return InvalidArgument("cannot map 0 bytes");
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return ErrnoStatus("mmap " + std::to_string(bytes) + " bytes", errno);
  return Mapping(p, bytes);
}

}  // namespace outrider::ipc
