// Checks one submission entry copied out of a client's ring. Everything in it is untrusted: a
// rejection names the field and the bad value; an accepted entry is resolved into pointers inside
// regions the client owns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ipc/protocol.h"
#include "ipc/status.h"

namespace outrider::agent {

struct RegionView {
  uint8_t* base;   // agent-side mapping
  uint64_t bytes;
};

struct ValidatedOp {
  uint64_t op_id = 0;
  uint64_t key = 0;
  ipc::OpKind kind = ipc::OpKind::kBarrier;
  ipc::DType dtype = ipc::DType::kF32;
  ipc::ReduceOp reduce_op = ipc::ReduceOp::kSum;
  int32_t root = 0;
  int32_t priority = 0;
  uint64_t count = 0;
  uint8_t* send = nullptr;  // inside a region of the submitting client
  uint64_t send_bytes = 0;
  uint8_t* recv = nullptr;
  uint64_t recv_bytes = 0;
  // alltoallv only: elements to / from each rank, copied out of shared memory once.
  std::vector<int64_t> send_counts, recv_counts;
  // Sparse ops: count = dim, dtype = value dtype, send = values (nnz rows; lookup: the shard),
  // recv = result values (capacity rows), ids/out_ids in id_dtype.
  uint64_t rows = 0;
  ipc::DType id_dtype = ipc::DType::kI64;
  uint32_t algo = 0;
  const uint8_t* ids = nullptr;
  uint64_t nnz = 0;
  uint8_t* out_ids = nullptr;
  uint64_t capacity = 0;
  // Sparse allreduce: ids (id_dtype) whose rows the rank needs first; checked when read.
  const uint8_t* demand = nullptr;
  uint64_t demand_n = 0;
};

// Largest buffer one op may name (1 TiB): keeps every size product far from overflow.
inline constexpr uint64_t kMaxOpBytes = uint64_t{1} << 40;

using RegionLookup = std::function<const RegionView*(uint32_t region_id)>;

// `rank`/`world_size` (the job's, across nodes) shape the expected buffer sizes (allgather,
// reduce-scatter), the in-place positions and the valid broadcast roots.
Result<ValidatedOp> ValidateEntry(const ipc::SubmitEntry& e, int rank, int world_size,
                                  const RegionLookup& regions);

}  // namespace outrider::agent
