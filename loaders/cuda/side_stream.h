// Host functions that a working stream does not wait for. The driver holds a stream until a host
// function queued on it has returned, and its thread for them may call one late (tens of
// microseconds on an H200): work queued behind it waits that long. A SideStream runs them on a
// stream of its own, which waits, through an event the working stream records, for the working
// stream to pass the point of the call; the working stream goes on at once.
#pragma once

#include "base/status.h"
#include "loaders/cuda/driver.h"

#if OUTRIDER_HAVE_CUDA

namespace outrider::cuda {

struct SideStream {
  CUstream stream = nullptr;  // where the host functions run; made on the first launch
  CUevent passed = nullptr;   // recorded on the working stream, waited for by `stream`
};

// Queues fn(arg) on `side`, to run once `working` passed what is queued on it now. `side`'s stream
// and event are made in the current context on first use (the working stream's context must be
// current). On an error fn is not queued and the caller still owns arg; `working` is unaffected
// apart from a recorded event.
Status LaunchHostFuncAfter(const Driver& d, SideStream* side, CUstream working, CUhostFn fn,
                           void* arg);

// Destroys `side`'s stream and event (its context current); a no-op if none was made. Host
// functions already queued still run: the driver releases both once they have.
void DestroySideStream(const Driver& d, SideStream* side);

}  // namespace outrider::cuda

#endif
