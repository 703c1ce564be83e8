// A local client as its job sees it: who it is, and where the results of its ops go. The control
// layer's Session implements it; the engine never sees sockets or rings.
#pragma once

#include <cstdint>
#include <string>

#include "agent/engine/op_report.h"
#include "base/status.h"
#include "ipc/protocol.h"
#include "ipc/unix_channel.h"

namespace outrider::agent {

struct ClientIdentity {
  uint32_t client_id = 0;
  std::string job_id;
  int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  std::string root_addr;  // host:port of the job's root agent (multi-node)
  std::string token;
  ipc::PeerCredentials peer{};
  // A member of a communicator of a job (a group of its ranks), and the node of the client in
  // that job: the agent of the job's node 0 hosts the rendezvous of all its communicators.
  bool comm = false;
  int32_t job_node = 0;
  ipc::GpuMode gpu_mode = ipc::GpuMode::kStaging;  // how the client hands over device buffers
};

// Thread-safety: loop thread only.
class Member {
 public:
  virtual ~Member() = default;
  virtual const ClientIdentity& identity() const = 0;
  // The op finished (for good).
  virtual void Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                        const OpReport* report = nullptr) = 0;
  // The op's demanded rows are in its output; Complete follows.
  virtual void Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) = 0;
};

}  // namespace outrider::agent
