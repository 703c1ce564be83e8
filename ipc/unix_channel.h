// Unix-domain SOCK_SEQPACKET channel: one control message per datagram, file descriptors
// passed with SCM_RIGHTS, peer identity from SO_PEERCRED.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::ipc {

inline constexpr size_t kMaxFdsPerMessage = 4;
inline constexpr size_t kMaxMessageBytes = 4096;

struct PeerCredentials {
  pid_t pid;
  uid_t uid;
  gid_t gid;
  // Its supplementary groups: a user who joined a socket's group (usermod -aG) has it here, not
  // as gid.
  std::vector<gid_t> groups;

  bool InGroup(gid_t g) const;
};

// The supplementary groups of process `pid` ("Groups:" of /proc/PID/status), for a peer whose
// socket does not give them (a datagram's SCM_CREDENTIALS); empty if the process is gone.
std::vector<gid_t> ProcessGroups(pid_t pid);

// Thread-safety: Send() and Recv() may run on different threads; each one from a single thread.
class UnixChannel {
 public:
  UnixChannel() = default;
  explicit UnixChannel(UniqueFd fd) : fd_(std::move(fd)) {}

  // Connects to the agent socket at `path`.
  static Result<UnixChannel> Connect(const std::string& path);

  // Sends one message with up to kMaxFdsPerMessage fds. Never raises SIGPIPE.
  Status Send(const void* data, size_t bytes, const int* fds = nullptr, size_t num_fds = 0);
  // Receives one message (at most `cap` bytes; a longer one is an error). Waits at most
  // `timeout_ms`; -1 does not poll first, so on a non-blocking socket (the agent's accepted
  // ones) an empty queue returns Unavailable at once, and on a blocking one it waits. Returns the
  // byte count; 0 means the peer closed the channel. Received fds are appended to `fds`
  // (close-on-exec); extra fds beyond what the caller expects must be dropped by the caller, which
  // owns them.
  Result<size_t> Recv(void* data, size_t cap, std::vector<UniqueFd>* fds, int timeout_ms);
  Result<PeerCredentials> Peer() const;
  // True if the peer has closed or the socket failed (non-blocking check).
  bool PeerGone() const;

  int fd() const { return fd_.get(); }

 private:
  UniqueFd fd_;
};

// Creates, binds and listens on a SOCK_SEQPACKET socket at `path` (an existing stale socket
// file is replaced only if nothing answers on it).
Result<UniqueFd> ListenUnix(const std::string& path, int backlog);
Result<UniqueFd> AcceptUnix(int listen_fd);

}  // namespace outrider::ipc
