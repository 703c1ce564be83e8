// Offload of NCCL calls to the node's agent through liboutrider.so, where asked
// ($OUTRIDER_NCCL_OFFLOAD, e.g. "allreduce>=64MB,allgather"): the job's world communicator (as
// torchrun numbers ranks: $RANK of $WORLD_SIZE) joins the agent as a job of its own when it is
// created, and its ranks agree on the plan through one allreduce there (ranks whose plans differ
// all keep to NCCL). Matching calls then go through liboutrider.so on the caller's stream; calls
// inside an NCCL group, under CUDA graph capture, or of a dtype or reduce op the agent lacks go to
// NCCL, and the process says once why.
// Thread-safety: every function from any thread.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace outrider::shim {

// At a communicator's creation (`id`: the same on all of its ranks): joins the agent and agrees on
// the plan, if offload is asked for.
void MaybeOffload(ncclComm_t comm, uint64_t id, int nranks, int rank);
// Before a communicator goes: waits (bounded) for what it submitted, then leaves the agent.
void EndOffload(ncclComm_t comm);

// Each: the call's result if it went through the agent, nothing if it goes to NCCL. `bytes` is
// what the call moves as the plan's sizes count it (a reduce-scatter: its whole input). Once
// submitted a call cannot go to NCCL instead: the other ranks' agents may have taken it, and NCCL
// would wait for them forever; a submission the agent refuses fails the call.
std::optional<ncclResult_t> OffloadAllReduce(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes);
// The agent's broadcast is in place: a root whose `send` is not `recv` copies its data first.
std::optional<ncclResult_t> OffloadBroadcast(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, int root, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes);
std::optional<ncclResult_t> OffloadAllGather(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes);
std::optional<ncclResult_t> OffloadReduceScatter(const void* send, void* recv, size_t count,
                                                 ncclDataType_t dtype, ncclRedOp_t op,
                                                 ncclComm_t comm, cudaStream_t stream,
                                                 size_t bytes);

}  // namespace outrider::shim
