// Shared-memory regions as memfds: created sealed against shrink and grow (so a mapping can
// never SIGBUS), passed over the Unix socket, mapped MAP_SHARED by both sides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::ipc {

// A MAP_SHARED mapping, unmapped on destruction. Move-only.
class Mapping {
 public:
  Mapping() = default;
  Mapping(void* addr, size_t bytes) : addr_(addr), bytes_(bytes) {}
  Mapping(Mapping&& o) noexcept;
  Mapping& operator=(Mapping&& o) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping();

  uint8_t* data() const { return static_cast<uint8_t*>(addr_); }
  size_t size() const { return bytes_; }

 private:
  void* addr_ = nullptr;
  size_t bytes_ = 0;
};

// Seals every region carries: nobody may change its size after creation.
inline constexpr int kRequiredSeals = 0x0002 /*F_SEAL_SHRINK*/ | 0x0004 /*F_SEAL_GROW*/;

// Creates a memfd of `bytes`, sized and sealed (shrink, grow, seal).
Result<UniqueFd> CreateSealedMemfd(const std::string& name, size_t bytes);
// Checks that `fd` is a memfd carrying kRequiredSeals and returns its size.
Result<size_t> CheckSealedMemfd(int fd);
// Maps `bytes` of `fd` read-write, shared.
Result<Mapping> MapShared(int fd, size_t bytes);

}  // namespace outrider::ipc
