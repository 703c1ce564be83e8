// The C ABI, ops half: collectives, sparse ops and waiting for them. Converts between C types and
// the Client; no exception or C++ type crosses it.
#include <cstddef>
#include <cstring>
#include <string>

#include "ipc/defaults.h"
#include "outrider/outrider.h"
#include "shim/c_api_internal.h"
#include "shim/client.h"

using outrider::Code;
using outrider::Status;
using outrider::shim::capi::Fail;
using outrider::shim::capi::Guard;
using outrider::shim::capi::Report;

namespace {

// Callers built against API version 1 pass options without `comm`.
constexpr size_t kOptionsV1Bytes = offsetof(outrider_op_options_t, comm);

// Whether the caller's options struct is large enough to hold `field` (older callers pass a
// smaller one).
#define OUTRIDER_HAS_FIELD(opts, field) \
  ((opts) != nullptr &&                 \
   (opts)->size >= offsetof(outrider_op_options_t, field) + sizeof((opts)->field))

outrider_comm_t CommOf(const outrider_op_options_t* opts) {
  return OUTRIDER_HAS_FIELD(opts, comm) ? opts->comm : OUTRIDER_COMM_WORLD;
}

// Ranks of the op's communicator (0 if it is unknown: the submission then fails naming it).
uint64_t RanksOf(const outrider_client_t* c, const outrider_op_options_t* opts) {
  if (c == nullptr) return 0;
  auto n = c->impl->CommSize(CommOf(opts));
  return n.ok() ? static_cast<uint64_t>(*n) : 0;
}

int SubmitOp(outrider_client_t* c, outrider::shim::OpArgs args, const outrider_op_options_t* opts,
             outrider_op_t* op, const char* kind_name) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (op == nullptr) return Fail(c, outrider::InvalidArgument("op handle pointer is NULL"));
  *op = 0;
  if (opts != nullptr && opts->size < kOptionsV1Bytes) {
    return Fail(
        c, outrider::InvalidArgument("outrider_op_options_t.size is " + std::to_string(opts->size) +
                                     "; initialize it with outrider_op_options_init"));
  }
  args.comm = CommOf(opts);
  if (!outrider::ipc::IsPointToPoint(args.kind))  // a send's or receive's key is its tag
    args.key = (opts && opts->key) ? opts->key : outrider::shim::HashKey(kind_name);
  args.priority = opts ? opts->priority : 0;
  args.stream = OUTRIDER_HAS_FIELD(opts, cuda_stream) ? opts->cuda_stream : nullptr;
  size_t elem = outrider::ipc::DTypeSize(args.dtype);
  if (args.kind != outrider::ipc::OpKind::kBarrier && elem == 0) {
    return Fail(c, outrider::InvalidArgument("unknown dtype " +
                                             std::to_string(static_cast<int>(args.dtype))));
  }
  if (elem != 0 && args.count > outrider::ipc::kMaxOpBytes / elem) {
    return Fail(c, outrider::InvalidArgument("count " + std::to_string(args.count) +
                                             " exceeds the 1 TiB per-op limit"));
  }
  // Refused here as the agent would refuse it, before anything is queued.
  if (args.kind == outrider::ipc::OpKind::kAllreduce ||
      args.kind == outrider::ipc::OpKind::kReduceScatter) {
    std::string refusal = outrider::ipc::ReduceRefusal(args.dtype, args.reduce_op);
    if (!refusal.empty()) return Fail(c, outrider::InvalidArgument(refusal));
  }
  return Guard(c, [&]() -> int {
    auto r = c->impl->Submit(args);
    if (!r.ok()) return Fail(c, r.status());
    *op = *r;
    return OUTRIDER_OK;
  });
}

}  // namespace

extern "C" {

int outrider_allreduce(outrider_client_t* c, const void* send, void* recv, uint64_t count,
                       outrider_dtype_t dtype, outrider_redop_t redop,
                       const outrider_op_options_t* opts, outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kAllreduce};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.reduce_op = static_cast<outrider::ipc::ReduceOp>(redop);
  a.count = count;
  uint64_t bytes = count * outrider::ipc::DTypeSize(a.dtype);
  a.send = send;
  a.send_bytes = bytes;
  a.recv = recv;
  a.recv_bytes = bytes;
  return SubmitOp(c, a, opts, op, "allreduce");
}

int outrider_send(outrider_client_t* c, const void* buf, uint64_t count, outrider_dtype_t dtype,
                  int peer, int tag, const outrider_op_options_t* opts, outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kSend};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.root = peer;
  a.count = count;
  a.send = buf;
  a.send_bytes = count * outrider::ipc::DTypeSize(a.dtype);
  a.key = static_cast<uint32_t>(tag);
  return SubmitOp(c, a, opts, op, "send");
}

int outrider_recv(outrider_client_t* c, void* buf, uint64_t count, outrider_dtype_t dtype, int peer,
                  int tag, const outrider_op_options_t* opts, outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kRecv};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.root = peer;
  a.count = count;
  a.recv = buf;
  a.recv_bytes = count * outrider::ipc::DTypeSize(a.dtype);
  a.key = static_cast<uint32_t>(tag);
  return SubmitOp(c, a, opts, op, "recv");
}

int outrider_broadcast(outrider_client_t* c, void* buf, uint64_t count, outrider_dtype_t dtype,
                       int root, const outrider_op_options_t* opts, outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kBroadcast};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.root = root;
  a.count = count;
  uint64_t bytes = count * outrider::ipc::DTypeSize(a.dtype);
  a.send = buf;
  a.send_bytes = bytes;
  a.recv = buf;
  a.recv_bytes = bytes;
  return SubmitOp(c, a, opts, op, "broadcast");
}

int outrider_allgather(outrider_client_t* c, const void* send, void* recv, uint64_t count,
                       outrider_dtype_t dtype, const outrider_op_options_t* opts,
                       outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kAllgather};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.count = count;
  uint64_t bytes = count * outrider::ipc::DTypeSize(a.dtype);
  a.send = send;
  a.send_bytes = bytes;
  a.recv = recv;
  a.recv_bytes = bytes * RanksOf(c, opts);
  return SubmitOp(c, a, opts, op, "allgather");
}

int outrider_reduce_scatter(outrider_client_t* c, const void* send, void* recv, uint64_t recv_count,
                            outrider_dtype_t dtype, outrider_redop_t redop,
                            const outrider_op_options_t* opts, outrider_op_t* op) {
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kReduceScatter};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  a.reduce_op = static_cast<outrider::ipc::ReduceOp>(redop);
  a.count = recv_count;
  uint64_t bytes = recv_count * outrider::ipc::DTypeSize(a.dtype);
  a.send = send;
  a.send_bytes = bytes * RanksOf(c, opts);
  a.recv = recv;
  a.recv_bytes = bytes;
  return SubmitOp(c, a, opts, op, "reduce_scatter");
}

int outrider_alltoallv(outrider_client_t* c, const void* send, const int64_t* send_counts,
                       void* recv, const int64_t* recv_counts, outrider_dtype_t dtype,
                       const outrider_op_options_t* opts, outrider_op_t* op) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (send_counts == nullptr || recv_counts == nullptr) {
    return Fail(c, outrider::InvalidArgument("alltoallv needs send_counts and recv_counts"));
  }
  outrider::shim::OpArgs a{outrider::ipc::OpKind::kAlltoallv};
  a.dtype = static_cast<outrider::ipc::DType>(dtype);
  uint64_t elem = outrider::ipc::DTypeSize(a.dtype);
  uint64_t send_total = 0, recv_total = 0;
  for (uint64_t r = 0; r < RanksOf(c, opts); ++r) {
    if (send_counts[r] < 0 || recv_counts[r] < 0) {
      return Fail(c, outrider::InvalidArgument("alltoallv counts for rank " + std::to_string(r) +
                                               " are negative"));
    }
    send_total += static_cast<uint64_t>(send_counts[r]);
    recv_total += static_cast<uint64_t>(recv_counts[r]);
    if (send_total > outrider::ipc::kMaxOpBytes || recv_total > outrider::ipc::kMaxOpBytes) {
      return Fail(c, outrider::InvalidArgument("alltoallv counts exceed the 1 TiB per-op limit"));
    }
  }
  a.send = send;
  a.send_bytes = send_total * elem;
  a.recv = recv;
  a.recv_bytes = recv_total * elem;
  a.send_counts = send_counts;
  a.recv_counts = recv_counts;
  return SubmitOp(c, a, opts, op, "alltoallv");
}

int outrider_barrier(outrider_client_t* c, const outrider_op_options_t* opts, outrider_op_t* op) {
  return SubmitOp(c, outrider::shim::OpArgs{outrider::ipc::OpKind::kBarrier}, opts, op, "barrier");
}

void outrider_sparse_init(outrider_sparse_t* s) {
  if (s == nullptr) return;
  std::memset(s, 0, sizeof(*s));
  s->size = sizeof(*s);
  s->dtype = OUTRIDER_F32;
  s->id_dtype = OUTRIDER_I64;
}

static int SubmitSparse(outrider_client_t* c, outrider::ipc::OpKind kind,
                        const outrider_sparse_t* s, const outrider_op_options_t* opts,
                        outrider_op_t* op, const char* what) {
  using outrider::InvalidArgument;
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  // Callers built against a header without the demand fields pass a smaller size.
  if (s == nullptr || s->size < offsetof(outrider_sparse_t, demand_ids)) {
    return Fail(c,
                InvalidArgument(std::string(what) +
                                ": sparse arguments missing or from an older header (set size)"));
  }
  outrider::shim::OpArgs a{kind};
  a.dtype = static_cast<outrider::ipc::DType>(s->dtype);
  a.id_dtype = static_cast<outrider::ipc::DType>(s->id_dtype);
  a.count = s->dim;
  a.rows = s->rows;
  a.algo = s->algo;
  uint64_t elem = outrider::ipc::DTypeSize(a.dtype);
  uint64_t id_size = outrider::ipc::DTypeSize(a.id_dtype);
  if (elem == 0)
    return Fail(c, InvalidArgument(std::string(what) + ": unknown value dtype " +
                                   std::to_string(s->dtype)));
  if (a.id_dtype != outrider::ipc::DType::kI32 && a.id_dtype != outrider::ipc::DType::kI64) {
    return Fail(c, InvalidArgument(std::string(what) + ": ids must be I32 or I64"));
  }
  uint64_t row_bytes, in_bytes, out_rows, out_bytes;
  out_rows = s->capacity;
  if (__builtin_mul_overflow(s->dim, elem, &row_bytes) ||
      __builtin_mul_overflow(s->nnz, row_bytes, &in_bytes) ||
      __builtin_mul_overflow(out_rows, row_bytes, &out_bytes) ||
      s->nnz > outrider::ipc::kMaxOpBytes || s->capacity > outrider::ipc::kMaxOpBytes) {
    return Fail(c, InvalidArgument(std::string(what) + ": nnz, capacity or dim too large"));
  }
  a.ids = s->ids;
  a.ids_bytes = s->nnz * id_size;
  a.send = s->values;
  a.send_bytes = in_bytes;
  if (kind == outrider::ipc::OpKind::kSparseLookup) {
    // The shard travels in `values`: its rows follow from the scheme, not from nnz.
    uint64_t first = 0, count = 0;
    auto rank = c->impl->CommRank(CommOf(opts));
    outrider_shard_range(s->rows, static_cast<int>(RanksOf(c, opts)), rank.ok() ? *rank : -1,
                         &first, &count);
    if (__builtin_mul_overflow(count, row_bytes, &a.send_bytes)) {
      return Fail(c, InvalidArgument(std::string(what) + ": shard too large"));
    }
  } else {
    a.out_ids = s->out_ids;
    a.out_ids_bytes = s->capacity * id_size;
  }
  a.recv = s->out_values;
  a.recv_bytes = out_bytes;
  if (s->size >= sizeof(outrider_sparse_t) && s->demand_nnz > 0) {
    if (kind != outrider::ipc::OpKind::kSparseAllreduce) {
      return Fail(c,
                  InvalidArgument(std::string(what) + ": row demand is for sparse_allreduce only"));
    }
    if (s->demand_ids == nullptr || s->demand_nnz > outrider::ipc::kMaxOpBytes) {
      return Fail(
          c, InvalidArgument(std::string(what) + ": demand_ids missing or demand_nnz too large"));
    }
    a.demand = s->demand_ids;
    a.demand_bytes = s->demand_nnz * id_size;
  }
  return SubmitOp(c, a, opts, op, what);
}

int outrider_sparse_allreduce(outrider_client_t* c, const outrider_sparse_t* s,
                              const outrider_op_options_t* opts, outrider_op_t* op) {
  return SubmitSparse(c, outrider::ipc::OpKind::kSparseAllreduce, s, opts, op, "sparse_allreduce");
}

int outrider_sparse_shard(outrider_client_t* c, const outrider_sparse_t* s,
                          const outrider_op_options_t* opts, outrider_op_t* op) {
  return SubmitSparse(c, outrider::ipc::OpKind::kSparseShard, s, opts, op, "sparse_shard");
}

int outrider_sparse_lookup(outrider_client_t* c, const outrider_sparse_t* s,
                           const outrider_op_options_t* opts, outrider_op_t* op) {
  return SubmitSparse(c, outrider::ipc::OpKind::kSparseLookup, s, opts, op, "sparse_lookup");
}

void outrider_shard_range(uint64_t rows, int world_size, int rank, uint64_t* first,
                          uint64_t* count) {
  uint64_t f = 0, n = 0;
  if (world_size > 0 && rank >= 0 && rank < world_size) {
    f = outrider::ipc::ShardFirstRow(rows, world_size, rank);
    n = outrider::ipc::ShardFirstRow(rows, world_size, rank + 1) - f;
  }
  if (first != nullptr) *first = f;
  if (count != nullptr) *count = n;
}

namespace {
constexpr size_t kOpResultV1 = offsetof(outrider_op_result_t, demand_rows);

void FillResult(const outrider::shim::OpResult& info, outrider_op_result_t* result) {
  result->result_rows = info.result_rows;
  result->algo = info.algo;
  result->predicted_bytes = info.predicted_bytes;
  result->wire_bytes_sent = info.wire_bytes_sent;
  result->wire_bytes_recv = info.wire_bytes_recv;
  result->agent_ns = info.agent_ns;
  if (result->size >= offsetof(outrider_op_result_t, demand_rows) + sizeof(result->demand_rows))
    result->demand_rows = info.demand_rows;
  if (result->size >= sizeof(outrider_op_result_t)) result->source = info.source;
}
}  // namespace

int outrider_wait_result(outrider_client_t* c, outrider_op_t op, int64_t timeout_ms,
                         outrider_op_result_t* result) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (result != nullptr && result->size < kOpResultV1) {
    return Fail(c, outrider::InvalidArgument(
                       "outrider_wait_result: result.size must be sizeof(outrider_op_result_t)"));
  }
  return Guard(c, [&]() -> int {
    outrider::shim::OpResult info;
    Status st = c->impl->Wait(op, timeout_ms, &info);
    if (result != nullptr && st.code() != Code::kDeadlineExceeded) FillResult(info, result);
    return Report(c, st);
  });
}

int outrider_wait_demand(outrider_client_t* c, outrider_op_t op, int64_t timeout_ms,
                         outrider_op_result_t* result) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (result != nullptr && result->size < sizeof(outrider_op_result_t)) {
    return Fail(c, outrider::InvalidArgument(
                       "outrider_wait_demand: result.size must be sizeof(outrider_op_result_t)"));
  }
  return Guard(c, [&]() -> int {
    outrider::shim::OpResult info;
    Status st = c->impl->WaitDemand(op, timeout_ms, &info);
    if (result != nullptr && st.code() != Code::kDeadlineExceeded) FillResult(info, result);
    return Report(c, st);
  });
}

int outrider_wait(outrider_client_t* c, outrider_op_t op, int64_t timeout_ms) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int { return Report(c, c->impl->Wait(op, timeout_ms)); });
}

int outrider_wait_event(outrider_client_t* c, int wake_fd, int64_t timeout_ms) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int { return Report(c, c->impl->WaitEvent(wake_fd, timeout_ms)); });
}

int outrider_test(outrider_client_t* c, outrider_op_t op, int* done) {
  return outrider_test_result(c, op, done, nullptr);
}

int outrider_test_result(outrider_client_t* c, outrider_op_t op, int* done,
                         outrider_op_result_t* result) {
  if (c == nullptr || done == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (result != nullptr && result->size < kOpResultV1) {
    return Fail(c, outrider::InvalidArgument(
                       "outrider_test_result: result.size must be sizeof(outrider_op_result_t)"));
  }
  return Guard(c, [&]() -> int {
    bool d = false;
    outrider::shim::OpResult info;
    Status st = c->impl->Test(op, &d, &info);
    *done = d ? 1 : 0;
    if (d && result != nullptr) FillResult(info, result);
    return Report(c, st);
  });
}

}  // extern "C"
