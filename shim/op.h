// An op as the client sees it: the arguments the C API fills in, what the agent reported about it
// once finished, and the client's record of it while its handle lives.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::shim {

struct OpArgs {
  ipc::OpKind kind;
  uint32_t comm = 0;  // 0: the job; else a communicator handle from CommCreate / CommSplit
  ipc::DType dtype = ipc::DType::kF32;
  ipc::ReduceOp reduce_op = ipc::ReduceOp::kSum;
  int32_t root = 0;
  uint64_t count = 0;
  const void* send = nullptr;
  uint64_t send_bytes = 0;
  void* recv = nullptr;
  uint64_t recv_bytes = 0;
  uint64_t key = 0;
  int32_t priority = 0;
  const int64_t* send_counts = nullptr;  // alltoallv: world_size entries each
  const int64_t* recv_counts = nullptr;
  // Sparse ops: ids travel in `aux`, result ids in `out_ids`.
  uint64_t rows = 0;
  ipc::DType id_dtype = ipc::DType::kI64;
  uint32_t algo = 0;
  const void* ids = nullptr;
  uint64_t ids_bytes = 0;
  void* out_ids = nullptr;
  uint64_t out_ids_bytes = 0;
  const void* demand = nullptr;  // sparse allreduce: demanded ids (id_dtype)
  uint64_t demand_bytes = 0;
  void* stream = nullptr;  // CUstream of an op on device buffers
  int32_t fence = -1;      // internal: the fence slot a staged op waits on (>= 0: submitted fenced)
};

// What the agent reported about a finished op beyond its status.
struct OpResult {
  uint64_t result_rows = 0;
  uint32_t algo = 0;
  uint64_t predicted_bytes = 0;
  uint64_t wire_bytes_sent = 0;
  uint64_t wire_bytes_recv = 0;
  uint64_t agent_ns = 0;
  uint64_t demand_rows = 0;
  int32_t source = -1;  // recv: the sender's rank in the op's communicator
};

// An op whose handle has not been released yet.
struct OpState {
  bool done = false;
  uint32_t comm = 0;
  bool demand_ready = false;  // a partial completion arrived
  bool in_place = false;      // its output overlaps its input (the agent writes what it reads)
  // The agent handed its jobs over before the op started: it goes to the next agent as `entry`
  // (the region ids translated) once the client reaches it.
  bool moved = false;
  ipc::SubmitEntry entry{};
  // Where its entry went in the submission ring (UINT64_MAX: not pushed to this ring): an agent
  // that handed its jobs over and never took it left it unstarted, as if it had given it back.
  uint64_t sq_pos = UINT64_MAX;
  Status result;
  void* aux = nullptr;  // arena memory the agent reads until the op completes
  OpResult info;
  // Device buffers: the staging buffers and the fence slot, held until the stream has copied
  // the result back (the slot's released word holds the op id).
  std::vector<void*> staging;
  int32_t fence = -1;
};

// Ops by id.
using OpMap = std::unordered_map<uint64_t, OpState>;

// An op key from a name (never 0, which means "no key").
uint64_t HashKey(const char* name);

}  // namespace outrider::shim
