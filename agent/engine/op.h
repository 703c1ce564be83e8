// One client's part of a collective, as the engine sees it after validation: what to do and which
// memory to do it in, named as spans (never raw pointers), with every size already checked.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "agent/memory/buffer_span.h"
#include "ipc/protocol.h"

namespace outrider::agent {

struct ValidatedOp {
  uint64_t op_id = 0;
  uint64_t key = 0;
  ipc::OpKind kind = ipc::OpKind::kBarrier;
  ipc::DType dtype = ipc::DType::kF32;
  ipc::ReduceOp reduce_op = ipc::ReduceOp::kSum;
  int32_t root = 0;  // broadcast: the root's rank in the job
  int32_t priority = 0;
  uint64_t count = 0;
  // Inside regions of the submitting client; an empty span names no memory.
  BufferSpan send;
  BufferSpan recv;
  // alltoallv only: elements to / from each rank, copied out of shared memory once.
  std::vector<int64_t> send_counts, recv_counts;
  // Sparse ops: count = dim, dtype = value dtype, send = values (nnz rows; lookup: the shard),
  // recv = result values (capacity rows), ids/out_ids in id_dtype.
  uint64_t rows = 0;
  ipc::DType id_dtype = ipc::DType::kI64;
  uint32_t algo = 0;
  BufferSpan ids;
  uint64_t nnz = 0;
  BufferSpan out_ids;
  uint64_t capacity = 0;
  // Sparse allreduce: ids (id_dtype) whose rows the rank needs first; checked when read.
  BufferSpan demand;
  uint64_t demand_n = 0;
  // The regions the spans lie in (at most one per span), held so they stay mapped while any copy
  // of the op lives; an op on GPU regions also holds the agent's host copies of them.
  std::array<std::shared_ptr<const void>, 10> holds;
  // Some span names GPU memory.
  bool NamesDevice() const {
    return send.on_device() || recv.on_device() || ids.on_device() || out_ids.on_device() ||
           demand.on_device();
  }
  // The GPU (the agent's ordinal) of the first span that names one, or -1.
  int Device() const {
    for (const BufferSpan* s : {&recv, &send, &ids, &out_ids, &demand}) {
      if (s->on_device()) return s->device;
    }
    return -1;
  }
  void Hold(const std::shared_ptr<const void>& region) {
    for (auto& h : holds) {
      if (h == region) return;
      if (h == nullptr) {
        h = region;
        return;
      }
    }
  }
};

// Byte offset of rank r's block in an alltoallv buffer laid out by `counts` (elements).
inline uint64_t BlockOffset(const std::vector<int64_t>& counts, size_t r, uint64_t elem) {
  uint64_t off = 0;
  for (size_t k = 0; k < r; ++k) off += static_cast<uint64_t>(counts[k]);
  return off * elem;
}

}  // namespace outrider::agent
