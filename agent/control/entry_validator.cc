// Submission-entry validation: enums, sizes (overflow-safe), region bounds, aliasing.
#include "agent/control/entry_validator.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "agent/engine/dataplane/host_memory.h"

namespace outrider::agent {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "u8", or "dtype 77" for a value outside the enum.
std::string DTypeText(uint32_t dtype) {
  if (dtype >= ipc::kNumDTypes) return "dtype " + std::to_string(dtype);
  return std::string(ipc::DTypeName(static_cast<ipc::DType>(dtype)));
}

// The span `ref` names, checked against the client's regions; the op holds its region.
Result<BufferSpan> Resolve(const char* which, const ipc::BufferRef& ref, uint64_t expected_bytes,
                           const RegionLookup& regions, ValidatedOp* op) {
  if (ref.reserved != 0) return InvalidArgument(std::string(which) + ".reserved must be 0");
  if (ref.length != expected_bytes) {
    return InvalidArgument(std::string(which) + " buffer is " + std::to_string(ref.length) +
                           " bytes but the op needs " + std::to_string(expected_bytes));
  }
  if (expected_bytes == 0) return BufferSpan{};  // empty: names no memory
  const Region* region = regions(ref.region_id);
  if (region == nullptr) {
    return InvalidArgument(std::string(which) + " names region " + std::to_string(ref.region_id) +
                           ", which this client has not registered");
  }
  const BufferSpan* r = &region->span;
  uint64_t end;
  if (__builtin_add_overflow(ref.offset, ref.length, &end) || end > r->length) {
    return InvalidArgument(std::string(which) + " buffer [offset " + std::to_string(ref.offset) +
                           ", length " + std::to_string(ref.length) + ") leaves region " +
                           std::to_string(ref.region_id) + " of " + std::to_string(r->length) +
                           " bytes");
  }
  if (region->import) op->Hold(region->import);
  return r->Sub(ref.offset, ref.length);
}

// Counts live in the client's memory: copy them once, then check them and the buffer sizes.
Result<ValidatedOp> ValidateAlltoallv(const ipc::SubmitEntry& e, ValidatedOp op, uint64_t elem,
                                      int world_size, const RegionLookup& regions) {
  uint64_t n = static_cast<uint64_t>(world_size);
  OUTRIDER_ASSIGN_OR_RETURN(BufferSpan aux, Resolve("aux", e.aux, 16 * n, regions, &op));
  if (!aux.host()) return InvalidArgument("alltoallv counts must be in host memory");
  const uint8_t* counts = HostBytes(aux);
  op.send_counts.resize(n);
  op.recv_counts.resize(n);
  std::memcpy(op.send_counts.data(), counts, 8 * n);
  std::memcpy(op.recv_counts.data(), counts + 8 * n, 8 * n);
  uint64_t send_total = 0, recv_total = 0;
  for (uint64_t r = 0; r < n; ++r) {
    if (op.send_counts[r] < 0 || op.recv_counts[r] < 0) {
      return InvalidArgument("alltoallv counts for rank " + std::to_string(r) + " are negative");
    }
    send_total += static_cast<uint64_t>(op.send_counts[r]);
    recv_total += static_cast<uint64_t>(op.recv_counts[r]);
    if (send_total > ipc::kMaxOpBytes / elem || recv_total > ipc::kMaxOpBytes / elem) {
      return InvalidArgument("alltoallv counts exceed the per-op limit of " +
                             std::to_string(ipc::kMaxOpBytes) + " bytes");
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(op.send, Resolve("send", e.send, send_total * elem, regions, &op));
  OUTRIDER_ASSIGN_OR_RETURN(op.recv, Resolve("recv", e.recv, recv_total * elem, regions, &op));
  op.count = 0;
  if (!op.send.Disjoint(op.recv)) {
    return InvalidArgument("alltoallv send and recv buffers must not overlap");
  }
  return op;
}

// Sizes only: ids live in the client's memory and are range-checked when the agent copies them.
Result<ValidatedOp> ValidateSparse(const ipc::SubmitEntry& e, ValidatedOp op, int rank,
                                   int world_size, const RegionLookup& regions) {
  std::string what(ipc::OpKindName(op.kind));
  if (e.dtype != static_cast<uint32_t>(ipc::DType::kF32) &&
      e.dtype != static_cast<uint32_t>(ipc::DType::kF16) &&
      e.dtype != static_cast<uint32_t>(ipc::DType::kBF16)) {
    return InvalidArgument(what + " values must be f32, f16 or bf16, got " + DTypeText(e.dtype));
  }
  op.dtype = static_cast<ipc::DType>(e.dtype);
  if (e.id_dtype != static_cast<uint32_t>(ipc::DType::kI32) &&
      e.id_dtype != static_cast<uint32_t>(ipc::DType::kI64)) {
    return InvalidArgument(what + " ids must be i32 or i64, got " + DTypeText(e.id_dtype));
  }
  op.id_dtype = static_cast<ipc::DType>(e.id_dtype);
  if (e.reduce_op != static_cast<uint32_t>(ipc::ReduceOp::kSum)) {
    return InvalidArgument(what + " only sums rows (reduce op must be sum)");
  }
  if (e.count == 0 || e.count > (uint64_t{1} << 24)) {
    return InvalidArgument(what + " dim must be in [1, 2^24], got " + std::to_string(e.count));
  }
  if (e.rows == 0 || e.rows > ipc::kMaxOpBytes) {
    return InvalidArgument(what + " rows must be in [1, 2^40], got " + std::to_string(e.rows));
  }
  uint32_t algo_limit =
      op.kind == ipc::OpKind::kSparseAllreduce ? ipc::kNumSparseAlgos : ipc::kNumShardSchemes;
  if (e.algo >= algo_limit)
    return InvalidArgument(what + ": unknown algorithm/scheme " + std::to_string(e.algo));
  if (op.kind == ipc::OpKind::kSparseLookup &&
      e.algo != static_cast<uint32_t>(ipc::ShardScheme::kRange)) {
    return InvalidArgument("sparse_lookup needs the range shard scheme");
  }
  if (op.id_dtype == ipc::DType::kI32 && e.rows > (uint64_t{1} << 31)) {
    return InvalidArgument(what + " ids of a table with " + std::to_string(e.rows) +
                           " rows need i64");
  }
  op.rows = e.rows;
  op.algo = e.algo;
  uint64_t elem = ipc::DTypeSize(op.dtype), id_size = ipc::DTypeSize(op.id_dtype);
  uint64_t row_bytes = e.count * elem;
  if (e.aux.length % id_size != 0) {
    return InvalidArgument(what + " ids buffer of " + std::to_string(e.aux.length) +
                           " bytes is not a whole number of " + std::to_string(id_size) +
                           "-byte ids");
  }
  op.nnz = e.aux.length / id_size;
  if (op.nnz > ipc::kMaxOpBytes / row_bytes)
    return InvalidArgument(what + " nnz x dim exceeds the per-op limit");
  OUTRIDER_ASSIGN_OR_RETURN(op.ids, Resolve("ids", e.aux, e.aux.length, regions, &op));
  if (e.demand.length % id_size != 0) {
    return InvalidArgument(what + " demand buffer of " + std::to_string(e.demand.length) +
                           " bytes is not a whole number of " + std::to_string(id_size) +
                           "-byte ids");
  }
  if (e.demand.length != 0) {
    if (op.kind != ipc::OpKind::kSparseAllreduce)
      return InvalidArgument(what + " takes no demand ids (sparse_allreduce only)");
    op.demand_n = e.demand.length / id_size;
    OUTRIDER_ASSIGN_OR_RETURN(op.demand,
                              Resolve("demand", e.demand, e.demand.length, regions, &op));
  } else if (e.demand.region_id != 0 || e.demand.offset != 0 || e.demand.reserved != 0) {
    return InvalidArgument(what + ": an empty demand buffer must be all zero");
  }
  uint64_t in_rows = op.nnz;
  if (op.kind == ipc::OpKind::kSparseLookup) {
    in_rows = ipc::ShardFirstRow(op.rows, world_size, rank + 1) -
              ipc::ShardFirstRow(op.rows, world_size, rank);
    if (in_rows > ipc::kMaxOpBytes / row_bytes)
      return InvalidArgument("sparse_lookup shard exceeds the per-op limit");
  }
  if (e.send.length != in_rows * row_bytes) {
    return InvalidArgument(what + (op.kind == ipc::OpKind::kSparseLookup ? " shard" : " values") +
                           " buffer is " + std::to_string(e.send.length) + " bytes but " +
                           std::to_string(in_rows) + " rows x dim " + std::to_string(e.count) +
                           " x " + std::to_string(elem) + " bytes need " +
                           std::to_string(in_rows * row_bytes));
  }
  OUTRIDER_ASSIGN_OR_RETURN(op.send, Resolve("values", e.send, e.send.length, regions, &op));
  if (e.recv.length % row_bytes != 0) {
    return InvalidArgument(what + " output values buffer of " + std::to_string(e.recv.length) +
                           " bytes is not a whole number of rows of " + std::to_string(row_bytes) +
                           " bytes");
  }
  op.capacity = e.recv.length / row_bytes;
  OUTRIDER_ASSIGN_OR_RETURN(op.recv, Resolve("out_values", e.recv, e.recv.length, regions, &op));
  if (op.kind == ipc::OpKind::kSparseLookup) {
    if (e.out_ids.length != 0 || e.out_ids.region_id != 0 || e.out_ids.offset != 0) {
      return InvalidArgument("sparse_lookup takes no out_ids buffer");
    }
    if (op.capacity < op.nnz) {
      return OutputTooSmall("sparse_lookup output holds " + std::to_string(op.capacity) +
                            " rows but " + std::to_string(op.nnz) + " ids were requested");
    }
  } else {
    if (e.out_ids.length != op.capacity * id_size) {
      return InvalidArgument(what + " out_ids buffer is " + std::to_string(e.out_ids.length) +
                             " bytes but " + std::to_string(op.capacity) + " rows of output need " +
                             std::to_string(op.capacity * id_size));
    }
    OUTRIDER_ASSIGN_OR_RETURN(op.out_ids,
                              Resolve("out_ids", e.out_ids, e.out_ids.length, regions, &op));
  }
  // Outputs are written after the inputs were read, but never into them.
  if (!op.recv.Disjoint(op.send) || !op.recv.Disjoint(op.ids) || !op.out_ids.Disjoint(op.send) ||
      !op.out_ids.Disjoint(op.ids) || !op.out_ids.Disjoint(op.recv)) {
    return InvalidArgument(what + " output buffers must not overlap the inputs or each other");
  }
  return op;
}

// A send names its peer and its input, a receive its sender (or any) and its output; the other
// buffer is empty. Host memory only: the agents carry the bytes themselves.
Result<ValidatedOp> ValidatePointToPoint(const ipc::SubmitEntry& e, ValidatedOp op, uint64_t elem,
                                         int rank, int world_size, const RegionLookup& regions) {
  bool sends = op.kind == ipc::OpKind::kSend;
  const char* what = sends ? "send" : "recv";
  bool any = !sends && e.root == ipc::kAnySource;
  if (!any && (e.root < 0 || e.root >= world_size || e.root == rank)) {
    return InvalidArgument(std::string(what) + (sends ? " to rank " : " from rank ") +
                           std::to_string(e.root) + ": not another rank of the job (size " +
                           std::to_string(world_size) + ", this rank " + std::to_string(rank) +
                           ")");
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(e.count, elem, &bytes) || bytes > ipc::kMaxOpBytes) {
    return InvalidArgument("count " + std::to_string(e.count) + " exceeds the per-op limit of " +
                           std::to_string(ipc::kMaxOpBytes) + " bytes");
  }
  OUTRIDER_ASSIGN_OR_RETURN(op.send, Resolve("send", e.send, sends ? bytes : 0, regions, &op));
  OUTRIDER_ASSIGN_OR_RETURN(op.recv, Resolve("recv", e.recv, sends ? 0 : bytes, regions, &op));
  if (op.NamesDevice()) {
    return InvalidArgument(
        std::string(what) +
        " takes host memory (the shim stages device buffers through it in either "
        "gpu_mode)");
  }
  return op;
}

}  // namespace

Result<ValidatedOp> ValidateEntry(const ipc::SubmitEntry& e, int rank, int world_size,
                                  const RegionLookup& regions) {
  ValidatedOp op;
  op.op_id = e.op_id;
  op.key = e.key;
  op.root = e.root;
  op.priority = e.priority;
  op.count = e.count;
  if ((e.flags & ~ipc::kSubmitFenced) != 0) return InvalidArgument("unknown flags " + Hex(e.flags));
  if ((e.flags & ipc::kSubmitFenced) != 0 && e.fence >= ipc::kFenceSlots) {
    return InvalidArgument("fence slot " + std::to_string(e.fence) + " is out of range (" +
                           std::to_string(ipc::kFenceSlots) + " slots)");
  }
  if ((e.flags & ipc::kSubmitFenced) == 0 && e.fence != 0)
    return InvalidArgument("fence must be 0 without kSubmitFenced");
  if (e.kind >= ipc::kNumOpKinds)
    return InvalidArgument("unknown op kind " + std::to_string(e.kind));
  op.kind = static_cast<ipc::OpKind>(e.kind);
  if (ipc::IsSparse(op.kind)) return ValidateSparse(e, op, rank, world_size, regions);
  if (e.kind != static_cast<uint32_t>(ipc::OpKind::kAlltoallv) &&
      (e.aux.region_id != 0 || e.aux.offset != 0 || e.aux.length != 0 || e.aux.reserved != 0)) {
    return InvalidArgument(
        "aux buffer is only for alltoallv and sparse ops and must be zero otherwise");
  }
  if (e.rows != 0 || e.id_dtype != 0 || e.algo != 0 || e.out_ids.region_id != 0 ||
      e.out_ids.offset != 0 || e.out_ids.length != 0 || e.out_ids.reserved != 0 ||
      e.demand.region_id != 0 || e.demand.offset != 0 || e.demand.length != 0 ||
      e.demand.reserved != 0) {
    return InvalidArgument(
        "rows, id_dtype, algo, out_ids and demand are only for sparse ops and must be zero "
        "otherwise");
  }
  if (op.kind == ipc::OpKind::kBarrier) {
    if (e.count != 0 || e.send.length != 0 || e.recv.length != 0 || e.send.region_id != 0 ||
        e.recv.region_id != 0 || e.send.offset != 0 || e.recv.offset != 0) {
      return InvalidArgument(
          "barrier takes no buffers (count, regions, offsets and lengths must be 0)");
    }
    return op;
  }
  if (e.dtype >= ipc::kNumDTypes)
    return InvalidArgument("unknown dtype " + std::to_string(e.dtype));
  op.dtype = static_cast<ipc::DType>(e.dtype);
  bool reduces = op.kind == ipc::OpKind::kAllreduce || op.kind == ipc::OpKind::kReduceScatter;
  if (reduces) {
    if (e.reduce_op >= ipc::kNumReduceOps) {
      return InvalidArgument("unknown reduce op " + std::to_string(e.reduce_op));
    }
    op.reduce_op = static_cast<ipc::ReduceOp>(e.reduce_op);
    if (std::string refusal = ipc::ReduceRefusal(op.dtype, op.reduce_op); !refusal.empty()) {
      return InvalidArgument(refusal);
    }
  }
  if (op.kind == ipc::OpKind::kBroadcast && (e.root < 0 || e.root >= world_size)) {
    return InvalidArgument("broadcast root " + std::to_string(e.root) +
                           " is not a rank of the job (size " + std::to_string(world_size) + ")");
  }
  uint64_t elem = ipc::DTypeSize(op.dtype);
  if (ipc::IsPointToPoint(op.kind))
    return ValidatePointToPoint(e, op, elem, rank, world_size, regions);
  if (op.kind == ipc::OpKind::kAlltoallv)
    return ValidateAlltoallv(e, op, elem, world_size, regions);
  uint64_t bytes;
  if (__builtin_mul_overflow(e.count, elem, &bytes) || bytes > ipc::kMaxOpBytes) {
    return InvalidArgument("count " + std::to_string(e.count) + " exceeds the per-op limit of " +
                           std::to_string(ipc::kMaxOpBytes) + " bytes");
  }
  uint64_t n = static_cast<uint64_t>(world_size);
  uint64_t send_bytes = bytes, recv_bytes = bytes;
  if (op.kind == ipc::OpKind::kAllgather) recv_bytes = bytes * n;
  if (op.kind == ipc::OpKind::kReduceScatter) send_bytes = bytes * n;
  if (op.kind == ipc::OpKind::kBroadcast) {
    if (e.send.region_id != e.recv.region_id || e.send.offset != e.recv.offset) {
      return InvalidArgument("broadcast is in place: send and recv must name the same buffer");
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(op.send, Resolve("send", e.send, send_bytes, regions, &op));
  OUTRIDER_ASSIGN_OR_RETURN(op.recv, Resolve("recv", e.recv, recv_bytes, regions, &op));
  // Send and recv must be the same buffer in the op's in-place position, or disjoint: results
  // are written block by block, so a partial overlap would feed outputs back into inputs.
  bool same;
  if (op.kind == ipc::OpKind::kAllgather) {
    same = op.send.SameStart(op.recv.Sub(bytes * rank, bytes));
  } else if (op.kind == ipc::OpKind::kReduceScatter) {
    same = op.recv.SameStart(op.send.Sub(bytes * rank, bytes));
  } else {
    same = op.send.SameStart(op.recv);
  }
  if (!same && !op.send.Disjoint(op.recv)) {
    return InvalidArgument("send and recv buffers overlap without being the op's in-place layout");
  }
  return op;
}

}  // namespace outrider::agent
