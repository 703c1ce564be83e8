// GPU memory in the agent, for clients in gpu_mode ipc (docs/design.md#gpu-path): imports of their
// GPU allocations (a cuMem allocation's POSIX fd, or a cudaMalloc allocation's legacy IPC handle),
// and the copies between those and the agent's pinned host buffers, through which the host engine
// reads and writes them. Copies go on one stream per GPU and never block the loop: each batch ends
// with the stream writing its ticket into a pinned word that the loop reads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/memory/buffer_span.h"
#include "agent/memory/pinned_pool.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class CudaMemory {
 public:
  // Sets up CUDA (the driver, a context and a copy stream per GPU), pinned staging memory bounded
  // and given back as `pinned` says (the agent's gpu_pinned_max_bytes and gpu_pinned_idle_ms), and
  // WakeWhenDone writing `completion_fd` (an eventfd that outlives this): why not, if this agent
  // cannot use GPUs (built without CUDA, no driver, no GPU). The agent opens it once, through
  // GpuMemory (gpu_memory.h).
  static Result<std::unique_ptr<CudaMemory>> Open(PinnedPool::Options pinned, int completion_fd);

  // Imports a client's allocation of `bytes` on GPU `uuid`; `*span` names it. What it returns
  // holds the import: the mapping is closed once the last holder (the region, ops naming it) goes.
  Result<std::shared_ptr<const void>> ImportFd(UniqueFd fd, uint64_t bytes, const std::string& uuid,
                                               BufferSpan* span);
  Result<std::shared_ptr<const void>> ImportIpcHandle(const uint8_t* handle, uint64_t bytes,
                                                      const std::string& uuid, BufferSpan* span);

  // Gives back pinned buffers idle for long enough. Call from the loop now and then.
  void TrimIdlePinned(uint64_t now_ns);

  // Pinned host memory of at least `bytes`, reused once given back. All of it together (in use
  // and idle) stays under the pool's bound: beyond, ResourceExhausted.
  using Pinned = PinnedPool::Buffer;
  Result<Pinned> TakePinned(uint64_t bytes);
  void GivePinned(Pinned p);
  // In use and idle, and idle alone (for metrics and /status).
  uint64_t pinned_bytes() const;
  uint64_t idle_pinned_bytes() const;

  struct Copy {
    bool to_host;       // device -> host, else host -> device
    BufferSpan device;  // imported GPU memory
    uint8_t* host;      // pinned, device.length bytes
  };
  // Streams are named by id: each GPU's copy stream by the GPU's ordinal, others by NewStream.
  // Queues the copies on `stream` (all spans on its GPU): the returned ticket is done once all of
  // them ran.
  Result<uint64_t> Enqueue(int stream, const std::vector<Copy>& copies);
  bool Done(int stream, uint64_t ticket) const;
  // Makes the completion fd readable once what is queued on `stream` so far has run (a host
  // function on a stream beside it, so `stream` never waits for the driver's thread to call it), so
  // the loop sees a ticket done at once rather than at its next timed wake.
  Status WakeWhenDone(int stream);
  // Why `stream` failed (a copy faulted: its tickets never come), or OK.
  Status Failed(int stream) const;
  // Blocks until everything queued on every stream has run: before memory it touches is given back.
  void Drain();
  // For work other than copies on `stream` (the agent's NCCL collectives), followed by an
  // Enqueue(stream, {}) whose ticket is done once it ran: makes the stream's GPU context current
  // on this thread and returns the stream (a CUstream).
  Result<void*> UseStream(int stream);
  // A stream of its own on GPU `device` (one per NCCL communicator: kernels of different
  // communicators never queue behind each other, whose order no two agents agreed on).
  Result<int> NewStream(int device);
  // Waits for what `stream` still runs, then destroys it (a copy stream stays).
  void ReleaseStream(int stream);

  struct Impl;
  ~CudaMemory();

 private:
  explicit CudaMemory(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace outrider::agent
