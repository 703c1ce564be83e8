// Helpers for integration and fault tests: a real agent process, forked client processes,
// pipes to wait on events instead of sleeping, shared result memory, leak probes, and a raw
// protocol client that can send what the shim never would.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unix_channel.h"
#include "outrider/outrider.h"
#include "tools/harness/agent_process.h"

namespace outrider::testing {

// Starts an agent (fails the current test on error).
std::unique_ptr<harness::AgentProcess> StartAgent(std::vector<std::string> extra_args = {});

// Forks a child that runs fn() and _exits with its return value.
pid_t Spawn(const std::function<int()>& fn);
// Waits for the child: its exit code, or 128 + signal.
int Reap(pid_t pid);

// One-direction event channel between processes.
class Pipe {
 public:
  Pipe();
  ~Pipe();
  void Send(char c);
  // Waits up to timeout_ms for one byte; false on timeout or EOF.
  bool Receive(char* c, int timeout_ms);

 private:
  int fds_[2];
};

// A fixed text buffer for reports from child processes.
struct Text {
  char s[256];
};

// Anonymous shared memory visible to forked children.
template <typename T>
class SharedValue {
 public:
  SharedValue();
  ~SharedValue();
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }

 private:
  T* p_;
};
void* MapSharedAnon(size_t bytes);
void UnmapShared(void* p, size_t bytes);
template <typename T>
SharedValue<T>::SharedValue() : p_(new (MapSharedAnon(sizeof(T))) T()) {}
template <typename T>
SharedValue<T>::~SharedValue() {
  UnmapShared(p_, sizeof(T));
}

// Child-side helpers (call only inside Spawn()ed processes: they _exit on failure).
outrider_client_t* ConnectOrExit(const std::string& socket, const std::string& job, int rank,
                                 int size);
outrider_client_t* ConnectOrExitWith(const outrider_connect_options_t* options);

// Copies a C string into a fixed buffer (NUL-terminated).
void CopyText(char* dst, size_t cap, const char* src);

int CountOpenFds(pid_t pid);
// CPU time (user + system) `pid` has used so far, in seconds.
double CpuSeconds(pid_t pid);
// A TCP port on 127.0.0.1 that was free a moment ago, outside the kernel's ephemeral range (so
// only an explicit bind can take it before the caller's); successive calls return different ports.
uint16_t FreePort();

// An HTTP answer: the status (0: no answer) and the body.
struct HttpReply {
  int status = 0;
  std::string body;
};
// GET (or `method`) http://host:port/path (host: an IPv4 address).
HttpReply HttpFetch(uint16_t port, const std::string& path, const std::string& method = "GET",
                    const std::string& host = "127.0.0.1");
// The body, or "" on any failure.
inline std::string HttpGet(uint16_t port, const std::string& path) {
  return HttpFetch(port, path).body;
}
inline int HttpStatus(uint16_t port, const std::string& path) {
  return HttpFetch(port, path).status;
}

// A TCP connection to 127.0.0.1:`port` (invalid, with errno set, if it was refused).
UniqueFd ConnectLoopback(uint16_t port);
std::set<std::string> DevShmEntries();
// Re-checks `cond` (yielding the CPU) until it holds or timeout_ms passes.
bool WaitUntil(const std::function<bool()>& cond, int timeout_ms);

// Speaks the wire protocol directly, for sending what the shim never would.
class RawClient {
 public:
  static Result<std::unique_ptr<RawClient>> Connect(const std::string& path);
  // `version`: the protocol version the client speaks from its hello on (12: the previous
  // release's shim, whose hello is ipc::kHelloRequestV12Bytes long).
  ipc::HelloRequest MakeHello(const std::string& job, int rank, int size,
                              uint16_t version = ipc::kProtocolVersion) const;
  // Sends `hello` (at its version's size, with `fd` if >= 0) and reads the reply; on success maps
  // the control segment and rings, and speaks the hello's version.
  Result<ipc::HelloReply> Hello(const ipc::HelloRequest& hello, int fd = -1);
  // The control segment's memfd (after Hello).
  int control_fd() const { return control_fd_.get(); }
  Result<uint32_t> RegisterRegion(size_t bytes);
  // Asks the agent to forget region `id` and waits for its answer; the local mapping is dropped
  // too (as a client that frees the memory would).
  Status ReleaseRegion(uint32_t id);
  uint8_t* region_base(uint32_t id) { return regions_.at(id).data(); }
  void Push(const ipc::SubmitEntry& e);
  // Wakes the agent without publishing anything.
  void Kick();
  ipc::RingIndices* sq_indices() { return sq_idx_; }
  const ipc::ControlHeader& control_header() const {
    return *reinterpret_cast<const ipc::ControlHeader*>(control_.data());
  }
  // Fence slot `i` of the control segment (after Hello).
  ipc::FenceSlot& fence(uint32_t i) {
    auto* h = reinterpret_cast<ipc::ControlHeader*>(control_.data());
    return reinterpret_cast<ipc::FenceSlot*>(control_.data() + h->fences_offset)[i];
  }
  // Waits for one completion; DeadlineExceeded on timeout, Unavailable if the agent hung up.
  Result<ipc::CompletionEntry> NextCompletion(int timeout_ms);
  // Waits for the agent to send a Goodbye (or close); returns its text.
  Result<std::string> AwaitGoodbye(int timeout_ms);
  ipc::UnixChannel& channel() { return channel_; }

 private:
  ipc::UnixChannel channel_;
  ipc::Mapping control_;
  UniqueFd control_fd_;
  UniqueFd sq_efd_, cq_efd_;
  ipc::RingIndices* sq_idx_ = nullptr;
  ipc::RingProducer<ipc::SubmitEntry> sq_;
  ipc::RingConsumer<ipc::CompletionEntry> cq_;
  std::map<uint32_t, ipc::Mapping> regions_;
  std::vector<UniqueFd> region_fds_;
  uint32_t next_request_ = 100;
  uint16_t version_ = ipc::kProtocolVersion;
};

// A raw client of the agent at `socket` that joined `job` as rank `rank` of `size` and registered
// one 4 KiB region (its id in *region).
Result<std::unique_ptr<RawClient>> JoinRawJob(const std::string& socket, const std::string& job,
                                              int rank, int size, uint32_t* region);

// A SubmitEntry for an f32 sum allreduce of `count` elements at `offset` of `region` (in place).
ipc::SubmitEntry AllreduceEntry(uint64_t op_id, uint32_t region, uint64_t offset, uint64_t count);

}  // namespace outrider::testing
