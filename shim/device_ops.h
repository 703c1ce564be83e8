// Ops on device buffers, ordered on the caller's CUDA stream with the control segment's fences
// (docs/design.md#gpu-path): the staging buffers or registered GPU allocations an op uses, its
// fence slot, and the stream work around its submission.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ipc/unique_fd.h"
#include "shim/connect_config.h"
#include "shim/connection.h"
#include "shim/device_memory.h"
#include "shim/fence_watchdog.h"
#include "shim/op.h"

#if OUTRIDER_HAVE_CUDA
#include "loaders/cuda/side_stream.h"
#endif

namespace outrider::cuda {
struct Driver;
}  // namespace outrider::cuda

namespace outrider::shim {

class Regions;

// Thread-safety: one thread at a time (the owning Client's); its fence watchdog runs on a thread
// of its own, and host functions it queues run on the driver's threads.
class DeviceOps {
 public:
  // `ops`: the client's ops in flight, whose fence slots this releases.
  DeviceOps(const ConnectConfig* config, Connection* conn, Regions* regions, OpMap* ops)
      : config_(config), conn_(conn), regions_(regions), ops_(ops), memory_(conn, regions) {}
  ~DeviceOps();
  DeviceOps(const DeviceOps&) = delete;
  DeviceOps& operator=(const DeviceOps&) = delete;

  static bool IsDevice(const void* p) { return DeviceMemory::IsDevice(p); }
  // Whether ops on GPU memory ran (their streams wait on fences in the fence segment).
  bool started() const { return gpu_ != nullptr; }
  // The memfd of the control segment whose fences this client's streams wait on: the agent's at
  // the first op on device buffers, which later agents signal after a hand-over
  // (ipc::kHelloFences); -1 before that op.
  int fence_segment_fd() const;
  // The agent went, handing the client over, and the streams of the ops it gave back wait for
  // the next agent (gpu_mode staging; the watchdog has not let them go).
  bool StreamsWaitForNextAgent() const;
  // Before the client connects to the next agent: the watchdog stops watching the last one.
  void Unwatch();
  // At the current agent (the first, or the next after a reconnect): its doorbell rings after ready
  // fences, and the watchdog watches its socket.
  Status Rewatch();
  // Lets op `op`'s stream go on (done = op, status `code`) unless its fence `slot` holds it.
  void ReleaseFence(uint64_t op, int32_t slot, Code code);

  // Submits an op on host memory (fenced: args.fence >= 0) and returns its id.
  using Submit = std::function<Result<uint64_t>(const OpArgs& args)>;
  // An op on device buffers, ordered on args.stream: staged through the arena (gpu_mode staging)
  // or on the GPU allocations themselves, registered with the agent on first use (ipc). `id` is
  // the id `submit` gives the op.
  Result<uint64_t> SubmitOnStream(const OpArgs& args, uint64_t id, const Submit& submit);

  // Takes the fence slot and staging of a released op (fence >= 0): freed now if its stream is
  // done with them, else once it is.
  void Retire(uint64_t op, OpState&& s);
  // Frees what staged ops whose streams are done held (their handles are gone already).
  void RetireStaged();
  // Every fenced op's stream is let go (done = its id, status `code`): the agent is gone, or the
  // client leaves.
  void ReleaseFences(Code code = Code::kUnavailable);
  // Before the client's memory goes: lets every stream of a staged op go on and waits (up to the
  // connect timeout) until none uses the control segment or staging any more. Streams still
  // using them then keep them: the memory is left mapped and pinned for good (said in
  // *last_error) rather than freed under a running copy.
  void Stop(std::string* last_error);

 private:
  struct Gpu {
    const cuda::Driver* driver = nullptr;  // Not owned; loaded for the process's lifetime.
    void* ctx = nullptr;                   // CUcontext of the first op: where disconnect unpins
    // The control segment whose fences the streams use, kept mapped and pinned; its fence
    // slots, here and as the device sees them.
    std::shared_ptr<const ControlSegment> segment;
    ipc::FenceSlot* fence_slots = nullptr;
    uint64_t fences = 0;
    std::unique_ptr<uint64_t[]> released;  // per slot: the op whose result the stream copied back
    uint64_t released_dev = 0;             // its device address
    std::vector<uint32_t> free_slots;
    std::vector<uintptr_t> registered;  // region bases registered with CUDA (pinned)
    // A copy of the submission ring's doorbell: each op's stream rings it once it wrote the ready
    // fence, so the agent sees the inputs ready at once, not at its next timed look. Shared with
    // the host functions still queued on streams (the last one closes it).
    std::shared_ptr<const UniqueFd> agent_wake;
#if OUTRIDER_HAVE_CUDA
    // Per context of the ops' streams: where the doorbell rings once an op's stream passed its
    // ready fence, so that the op's stream goes on to wait for the done fence at once.
    struct Notifier {
      void* ctx;  // CUcontext
      cuda::SideStream side;
    };
    std::vector<Notifier> notifiers;
#endif
    // A stream may use the control segment or staging in ways the shim no longer tracks (a CUDA
    // call failed halfway through an op's stream work): the memory is never unmapped.
    bool untracked = false;
    FenceWatchdog watchdog;
  };
  // Made on the first op on device buffers.
  Status Setup(const cuda::Driver* driver);
  // What the watchdog watches: the current connection's socket and departure word.
  FenceWatchdog::Watch WatchOf() const;
  // Pins the region holding the staging buffer `p` for the driver, once.
  Status RegisterHost(const void* p);
  // Queues the agent's doorbell behind what `stream` (of context `ctx`, current) has queued, on the
  // context's notifier.
  void RingAfter(const cuda::Driver& d, void* ctx, void* stream);
  bool Retired(uint64_t op, const OpState& s) const;
  void FreeStaging(const OpState& s);

  const ConnectConfig* config_;  // Not owned; the owning Client's.
  Connection* conn_;             // Not owned; outlives this.
  Regions* regions_;             // Not owned; outlives this.
  OpMap* ops_;                   // Not owned; outlives this.
  DeviceMemory memory_;
  std::unique_ptr<Gpu> gpu_;
  std::vector<std::pair<uint64_t, OpState>> retiring_;  // released staged ops the stream still uses
};

}  // namespace outrider::shim
