// The one way from a host-memory span to its bytes. Data planes, the transport's zero-copy sends
// and the host-only sparse row codecs use it; algorithms never do.
#pragma once

#include <cstdint>

#include "agent/memory/buffer_span.h"
#include "base/check.h"

namespace outrider::agent {

// Invariant: `s` is host memory mapped into the agent.
inline uint8_t* HostBytes(const BufferSpan& s) {
  OUTRIDER_CHECK(s.host());
  return reinterpret_cast<uint8_t*>(s.address);
}

}  // namespace outrider::agent
