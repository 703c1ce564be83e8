// The op the local ranks of the peer target submit: read from the input (ReadShape), laid out in
// the rank's memory as a client would, and validated by ValidateEntry (MakeOp). Shared by
// the peer target and the seed generator, which runs the same op on real node groups.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "agent/control/entry_validator.h"
#include "agent/memory/region_table.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"

namespace outrider::fuzz {

inline constexpr uint64_t kKey = 0x5eed;  // the collective key of every instance

// The op every local rank submits, as a client lays it out in one region of its own.
struct OpShape {
  ipc::OpKind kind = ipc::OpKind::kAllreduce;
  ipc::DType dtype = ipc::DType::kF32;
  ipc::ReduceOp reduce_op = ipc::ReduceOp::kSum;
  uint64_t count = 1;
  int32_t root = 0;
  uint64_t per_rank = 0;  // alltoallv: elements to and from every rank
  uint64_t rows = 0;      // sparse
  uint32_t algo = 0;
  std::vector<uint64_t> ids;  // sparse: this rank's ids (lookup: the ids it asks for)
  uint64_t capacity = 0;      // sparse: output rows
  bool demand = false;        // sparse allreduce: the first id is demanded
};

inline OpShape ReadShape(FuzzInput& in, int world) {
  OpShape s;
  uint8_t kind = in.Read<uint8_t>() % 10;
  s.count = 1 + in.Read<uint8_t>() % 64;
  switch (kind) {
    case 0:
      break;
    case 1:
      s.dtype = ipc::DType::kF16;
      s.reduce_op = ipc::ReduceOp::kAvg;
      break;
    case 2:
      s.kind = ipc::OpKind::kBroadcast;
      s.root = in.Read<uint8_t>() % world;
      break;
    case 3:
      s.kind = ipc::OpKind::kAllgather;
      break;
    case 4:
      s.kind = ipc::OpKind::kReduceScatter;
      s.dtype = ipc::DType::kI32;
      s.reduce_op = ipc::ReduceOp::kMax;
      break;
    case 5:
      s.kind = ipc::OpKind::kBarrier;
      break;
    case 6:
      s.kind = ipc::OpKind::kAlltoallv;
      s.per_rank = in.Read<uint8_t>() % 5;
      break;
    default: {
      s.kind = kind == 7   ? ipc::OpKind::kSparseAllreduce
               : kind == 8 ? ipc::OpKind::kSparseShard
                           : ipc::OpKind::kSparseLookup;
      s.count = 1 + s.count % 8;  // dim
      s.dtype = in.Read<uint8_t>() & 1 ? ipc::DType::kBF16 : ipc::DType::kF32;
      // Lookup ranks hold their whole shard: its table stays small.
      s.rows = 1 + in.Read<uint32_t>() % (s.kind == ipc::OpKind::kSparseLookup ? 4096u : 1u << 20);
      uint8_t algo = in.Read<uint8_t>();
      s.algo = s.kind == ipc::OpKind::kSparseAllreduce ? algo % ipc::kNumSparseAlgos
               : s.kind == ipc::OpKind::kSparseShard   ? algo % ipc::kNumShardSchemes
                                                       : 0;
      size_t nnz = in.Read<uint8_t>() % 8;
      for (size_t i = 0; i < nnz; ++i) s.ids.push_back(in.Read<uint32_t>() % s.rows);
      s.capacity = 64;
      s.demand = s.kind == ipc::OpKind::kSparseAllreduce && !s.ids.empty() && (algo & 0x80);
    }
  }
  return s;
}

// One local rank's memory and its op, validated as the agent validates a client's entry. Each
// buffer the op names is a heap block of its exact size (a region of its own), so a write past
// any of them is caught.
struct RankOp {
  std::vector<std::vector<uint8_t>> buffers;  // by region id - 1: send, recv, aux, out_ids, demand
  agent::ValidatedOp op;
};

inline RankOp MakeOp(const OpShape& s, int rank, int world) {
  RankOp out;
  out.buffers.resize(5);
  // The buffer in `slot`, `bytes` long (an empty one names no memory).
  auto ref = [&out](uint32_t slot, uint64_t bytes) {
    out.buffers[slot].resize(bytes);
    return ipc::BufferRef{slot + 1, 0, 0, bytes};
  };
  uint64_t elem = ipc::DTypeSize(s.dtype), n = static_cast<uint64_t>(world), bytes = s.count * elem;
  ipc::SubmitEntry e{};
  e.op_id = 1;
  e.key = kKey;
  e.kind = static_cast<uint32_t>(s.kind);
  e.dtype = static_cast<uint32_t>(s.dtype);
  e.reduce_op = static_cast<uint32_t>(s.reduce_op);
  e.root = s.root;
  e.count = s.count;
  switch (s.kind) {
    case ipc::OpKind::kAllreduce:
      e.send = ref(0, bytes);
      e.recv = ref(1, bytes);
      break;
    case ipc::OpKind::kBroadcast:
      e.send = e.recv = ref(0, bytes);
      break;
    case ipc::OpKind::kAllgather:
      e.send = ref(0, bytes);
      e.recv = ref(1, bytes * n);
      break;
    case ipc::OpKind::kReduceScatter:
      e.send = ref(0, bytes * n);
      e.recv = ref(1, bytes);
      break;
    case ipc::OpKind::kBarrier:
      e.dtype = e.reduce_op = 0;
      e.count = 0;
      break;
    case ipc::OpKind::kAlltoallv: {
      e.count = 0;
      e.reduce_op = 0;
      e.aux = ref(2, 16 * n);
      std::vector<int64_t> counts(2 * n, static_cast<int64_t>(s.per_rank));
      std::memcpy(out.buffers[2].data(), counts.data(), counts.size() * 8);
      e.send = ref(0, s.per_rank * n * elem);
      e.recv = ref(1, s.per_rank * n * elem);
      break;
    }
    default: {  // sparse
      e.reduce_op = 0;
      e.rows = s.rows;
      e.id_dtype = static_cast<uint32_t>(ipc::DType::kI64);
      e.algo = s.algo;
      uint64_t row_bytes = s.count * elem;
      e.aux = ref(2, s.ids.size() * 8);
      if (!s.ids.empty()) std::memcpy(out.buffers[2].data(), s.ids.data(), s.ids.size() * 8);
      uint64_t in_rows = s.ids.size();
      if (s.kind == ipc::OpKind::kSparseLookup) {
        in_rows =
            ipc::ShardFirstRow(s.rows, world, rank + 1) - ipc::ShardFirstRow(s.rows, world, rank);
      }
      e.send = ref(0, in_rows * row_bytes);
      e.recv = ref(1, s.capacity * row_bytes);
      if (s.kind != ipc::OpKind::kSparseLookup) e.out_ids = ref(3, s.capacity * 8);
      if (s.demand) {
        e.demand = ref(4, 8);
        std::memcpy(out.buffers[4].data(), s.ids.data(), 8);
      }
    }
  }
  std::vector<agent::Region> regions(out.buffers.size());
  for (uint32_t i = 0; i < regions.size(); ++i) {
    regions[i].id = i + 1;
    regions[i].span = agent::BufferSpan::Host(out.buffers[i].data(), out.buffers[i].size());
  }
  agent::RegionLookup lookup = [&regions](uint32_t id) -> const agent::Region* {
    return id >= 1 && id <= regions.size() && !regions[id - 1].span.empty() ? &regions[id - 1]
                                                                            : nullptr;
  };
  Result<agent::ValidatedOp> op = agent::ValidateEntry(e, rank, world, lookup);
  OUTRIDER_CHECK(op.ok());
  out.op = std::move(*op);
  return out;
}

// A send (to `peer`) or receive (from `peer`, or any source) of `bytes` with `tag`, laid out and
// validated like MakeOp's ops.
inline RankOp MakePointOp(bool send, int peer, int32_t tag, uint64_t bytes, int rank, int world) {
  RankOp out;
  out.buffers.resize(1);
  out.buffers[0].resize(bytes);
  ipc::SubmitEntry e{};
  e.op_id = 1;
  e.key = static_cast<uint32_t>(tag);
  e.kind = static_cast<uint32_t>(send ? ipc::OpKind::kSend : ipc::OpKind::kRecv);
  e.dtype = static_cast<uint32_t>(ipc::DType::kU8);
  e.root = peer;
  e.count = bytes;
  (send ? e.send : e.recv) = ipc::BufferRef{1, 0, 0, bytes};
  agent::Region region;
  region.id = 1;
  region.span = agent::BufferSpan::Host(out.buffers[0].data(), bytes);
  agent::RegionLookup lookup = [&region](uint32_t id) -> const agent::Region* {
    return id == 1 && !region.span.empty() ? &region : nullptr;
  };
  Result<agent::ValidatedOp> op = agent::ValidateEntry(e, rank, world, lookup);
  OUTRIDER_CHECK(op.ok());
  out.op = std::move(*op);
  return out;
}

}  // namespace outrider::fuzz
