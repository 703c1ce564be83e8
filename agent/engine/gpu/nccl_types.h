// Conversions between the agent's types and NCCL's, for the NCCL path (nccl_path.cc). NCCL builds
// only.
#pragma once

#if OUTRIDER_HAVE_NCCL
#include <nccl.h>

#include "ipc/protocol.h"

namespace outrider::agent::nccl_types {

inline bool DtypeOf(ipc::DType t, ncclDataType_t* out) {
  switch (t) {
    case ipc::DType::kF32:
      *out = ncclFloat32;
      return true;
    case ipc::DType::kF64:
      *out = ncclFloat64;
      return true;
    case ipc::DType::kF16:
      *out = ncclFloat16;
      return true;
    case ipc::DType::kBF16:
      *out = ncclBfloat16;
      return true;
    case ipc::DType::kI32:
      *out = ncclInt32;
      return true;
    case ipc::DType::kI64:
      *out = ncclInt64;
      return true;
    case ipc::DType::kU8:
      *out = ncclUint8;
      return true;
    case ipc::DType::kI8:
      *out = ncclInt8;
      return true;
    default:
      return false;  // int16, bool, complex: no NCCL type
  }
}

inline ncclRedOp_t RedOpOf(ipc::ReduceOp op) {
  switch (op) {
    case ipc::ReduceOp::kAvg:
      return ncclAvg;
    case ipc::ReduceOp::kMin:
      return ncclMin;
    case ipc::ReduceOp::kMax:
      return ncclMax;
    case ipc::ReduceOp::kProd:
      return ncclProd;
    default:
      return ncclSum;
  }
}

inline ncclComm_t Comm(void* c) { return static_cast<ncclComm_t>(c); }

// Kinds whose element ranges are collectives of their own (allgather and reduce-scatter lay out
// their buffers by rank: they go whole).
inline bool Chunkable(ipc::OpKind kind) {
  return kind == ipc::OpKind::kAllreduce || kind == ipc::OpKind::kBroadcast;
}

}  // namespace outrider::agent::nccl_types
#endif
