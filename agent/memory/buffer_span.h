// Memory the engine moves data in and out of, named without touching it: a kind (host memory
// today; CUDA regions later), the device it lives on, an address in the agent's view of that
// memory, and a length. Ops and algorithms pass spans around; only data planes (and the
// transport, for host memory it sends zero-copy) turn a span into bytes.
#pragma once

#include <cstdint>

#include "base/check.h"

namespace outrider::agent {

enum class MemoryKind : uint8_t {
  kHost = 0,     // host memory: a client's sealed memfd, or the agent's own buffers
  kCudaFd = 1,   // a cuMem allocation imported from a POSIX fd
  kCudaIpc = 2,  // a cudaMalloc segment imported from a legacy IPC handle
};
const char* MemoryKindName(MemoryKind kind);

struct BufferSpan {
  MemoryKind kind = MemoryKind::kHost;
  int32_t device = -1;   // GPU ordinal in the agent's context; -1 for host memory
  uint64_t address = 0;  // host: a pointer; GPU: a device pointer in the agent's context
  uint64_t length = 0;

  static BufferSpan Host(const void* p, uint64_t len) {
    return {MemoryKind::kHost, -1, reinterpret_cast<uint64_t>(p), len};
  }
  bool empty() const { return length == 0; }
  bool host() const { return kind == MemoryKind::kHost; }
  bool on_device() const { return !empty() && !host(); }  // names GPU memory
  bool operator==(const BufferSpan&) const = default;
  // [offset, offset + len) of this span. Invariant: inside it.
  BufferSpan Sub(uint64_t offset, uint64_t len) const {
    OUTRIDER_CHECK(offset <= length && len <= length - offset);
    return {kind, device, address + offset, len};
  }
  BufferSpan From(uint64_t offset) const { return Sub(offset, length - offset); }
  // Same memory, same place (lengths may differ).
  bool SameStart(const BufferSpan& o) const {
    return kind == o.kind && device == o.device && address == o.address;
  }
  // No byte in common (empty spans overlap nothing).
  bool Disjoint(const BufferSpan& o) const {
    return length == 0 || o.length == 0 || kind != o.kind || device != o.device ||
           address + length <= o.address || o.address + o.length <= address;
  }
};

}  // namespace outrider::agent
