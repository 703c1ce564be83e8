// Names and layout helpers for the wire protocol.
#include "ipc/protocol.h"

#include <algorithm>
#include <cstring>

namespace outrider::ipc {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kF32:
      return 4;
    case DType::kF64:
      return 8;
    case DType::kF16:
      return 2;
    case DType::kBF16:
      return 2;
    case DType::kI32:
      return 4;
    case DType::kI64:
      return 8;
    case DType::kU8:
      return 1;
    case DType::kI8:
      return 1;
    case DType::kI16:
      return 2;
    case DType::kBool:
      return 1;
    case DType::kC64:
      return 8;
    case DType::kC128:
      return 16;
  }
  return 0;
}

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32:
      return "f32";
    case DType::kF64:
      return "f64";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kI32:
      return "i32";
    case DType::kI64:
      return "i64";
    case DType::kU8:
      return "u8";
    case DType::kI8:
      return "i8";
    case DType::kI16:
      return "i16";
    case DType::kBool:
      return "bool";
    case DType::kC64:
      return "c64";
    case DType::kC128:
      return "c128";
  }
  return "unknown";
}

std::string ReduceRefusal(DType t, ReduceOp op) {
  if (static_cast<uint32_t>(t) >= kNumDTypes) {
    return "unknown dtype " + std::to_string(static_cast<uint32_t>(t));
  }
  if (static_cast<uint32_t>(op) >= kNumReduceOps) {
    return "unknown reduce op " + std::to_string(static_cast<uint32_t>(op));
  }
  const bool complex = t == DType::kC64 || t == DType::kC128;
  std::string_view why;
  if (t == DType::kBool && op == ReduceOp::kAvg) {
    why = "the average of booleans is not a boolean";
  } else if (complex && (op == ReduceOp::kMin || op == ReduceOp::kMax)) {
    why = "complex numbers have no order";
  } else if (complex && op == ReduceOp::kProd) {
    why = "complex products are not offered (torch.distributed refuses them too)";
  } else {
    return {};
  }
  return "reduce op " + std::string(ReduceOpName(op)) + " is not supported for " +
         std::string(DTypeName(t)) + ": " + std::string(why);
}

std::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAvg:
      return "avg";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kProd:
      return "prod";
  }
  return "unknown";
}

std::string_view JobClassName(JobClass c) {
  switch (c) {
    case JobClass::kHigh:
      return "high";
    case JobClass::kNormal:
      return "normal";
    case JobClass::kLow:
      return "low";
  }
  return "unknown";
}

std::optional<JobClass> ParseJobClass(std::string_view name) {
  for (JobClass c : {JobClass::kHigh, JobClass::kNormal, JobClass::kLow}) {
    if (name == JobClassName(c)) return c;
  }
  return std::nullopt;
}

std::string_view GpuModeName(GpuMode m) {
  switch (m) {
    case GpuMode::kStaging:
      return "staging";
    case GpuMode::kIpc:
      return "ipc";
  }
  return "unknown";
}

std::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kAllreduce:
      return "allreduce";
    case OpKind::kBroadcast:
      return "broadcast";
    case OpKind::kAllgather:
      return "allgather";
    case OpKind::kReduceScatter:
      return "reduce_scatter";
    case OpKind::kBarrier:
      return "barrier";
    case OpKind::kAlltoallv:
      return "alltoallv";
    case OpKind::kSparseAllreduce:
      return "sparse_allreduce";
    case OpKind::kSparseShard:
      return "sparse_shard";
    case OpKind::kSparseLookup:
      return "sparse_lookup";
    case OpKind::kSend:
      return "send";
    case OpKind::kRecv:
      return "recv";
  }
  return "unknown";
}

std::string_view SparseAlgoName(SparseAlgo a) {
  switch (a) {
    case SparseAlgo::kAuto:
      return "auto";
    case SparseAlgo::kAllgather:
      return "allgather";
    case SparseAlgo::kBalanced:
      return "balanced";
    case SparseAlgo::kBlock:
      return "block";
    case SparseAlgo::kDense:
      return "dense";
  }
  return "unknown";
}

ControlLayout ComputeControlLayout(uint32_t sq_entries, uint32_t cq_entries) {
  auto align = [](uint64_t v) { return (v + 63) & ~uint64_t{63}; };
  ControlLayout l{};
  l.sq_indices_offset = sizeof(ControlHeader);
  l.sq_slots_offset = align(l.sq_indices_offset + sizeof(RingIndices));
  l.cq_indices_offset = align(l.sq_slots_offset + uint64_t{sq_entries} * sizeof(SubmitEntry));
  l.cq_slots_offset = align(l.cq_indices_offset + sizeof(RingIndices));
  l.fences_offset = align(l.cq_slots_offset + uint64_t{cq_entries} * sizeof(CompletionEntry));
  l.total_bytes = align(l.fences_offset + uint64_t{kFenceSlots} * sizeof(FenceSlot));
  l.total_bytes = (l.total_bytes + 4095) & ~uint64_t{4095};
  return l;
}

void InitControlHeader(ControlHeader* h, uint32_t sq_entries, uint32_t cq_entries,
                       const ControlLayout& layout, uint16_t version) {
  std::memset(h, 0, sizeof(*h));
  h->magic = kMagic;
  h->version = version;
  h->sq_entries = sq_entries;
  h->cq_entries = cq_entries;
  h->sq_indices_offset = layout.sq_indices_offset;
  h->sq_slots_offset = layout.sq_slots_offset;
  h->cq_indices_offset = layout.cq_indices_offset;
  h->cq_slots_offset = layout.cq_slots_offset;
  h->fences_offset = layout.fences_offset;
  h->total_bytes = layout.total_bytes;
}

void InitMsgHeader(MsgHeader* h, MsgType type, uint32_t body_bytes, uint32_t request_id,
                   uint16_t version) {
  std::memset(h, 0, sizeof(*h));
  h->magic = kMagic;
  h->version = version;
  h->type = static_cast<uint16_t>(type);
  h->body_bytes = body_bytes;
  h->request_id = request_id;
}

void CopyText(char* dst, size_t cap, std::string_view text) {
  size_t n = std::min(cap - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

uint64_t Fnv1a(const void* data, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; ++i)
    h = (h ^ static_cast<const uint8_t*>(data)[i]) * 1099511628211ull;
  return h;
}

}  // namespace outrider::ipc
