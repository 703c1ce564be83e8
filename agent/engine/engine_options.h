// How the engine runs a job's inter-node collectives: where allreduces switch from the direct
// exchange to the ring, the ring's chunk, the sparse block size and the link bandwidth the
// sparse cost model assumes. One value per agent; every agent of a job must agree on
// sparse_block_rows (the node group checks it).
#pragma once

#include <cstdint>

#include "base/status.h"

namespace outrider::agent {

struct EngineOptions {
  // Allreduces at most this large exchange directly: one round, but (N-1) x the buffer on each
  // link, against the ring's 2(N-1)/N x in 2(N-1) rounds. On 4 nodes at 2 Gbit/s the ring is
  // faster from about 32 KiB (64 KiB: 0.42 ms against 0.83 ms; 256 KiB: 1.6 against 3.3).
  uint64_t direct_max_bytes = 64 << 10;
  uint64_t chunk_bytes = 1 << 20;  // ring chunk, the unit of pipelining
  uint64_t sparse_block_rows = 8;  // block size of the sparse `block` algorithm
  // Bandwidth the sparse cost model assumes until it has measured one. Not an agent parameter:
  // until some node has measured, each node decides with its own value, and all nodes of a job
  // must decide alike.
  double link_bytes_per_s = 1.25e9;
  uint64_t nccl_chunk_bytes = uint64_t{32}
                              << 20;  // NCCL launches of allreduce and broadcast at most this large
  uint32_t nccl_init_timeout_ms = 60000;  // the agent's NCCL communicators must start within this
  // A job across nodes waits this long for a node's next agent after the node's agent handed it
  // over (and that next agent as long for the other nodes) before it fails with PEER_LOST.
  uint32_t hand_over_wait_ms = 60000;
  // Whether GPU collectives of gpu_mode ipc jobs run on the agent's own NCCL (GpuNcclPolicy::on,
  // decided at the agent's start from gpu_nccl; off in an engine made without an agent).
  bool gpu_nccl = false;
  uint64_t aging_ns = 100'000'000;  // an op waiting for its NCCL launch gains a priority level per
                                    // this (the scheduler's aging)

  // The first bad field, named by its agent parameter (chunk_bytes is ring_chunk_bytes):
  // "ring_chunk_bytes must be at least 4096, got 100".
  Status Validate() const;
};

}  // namespace outrider::agent
