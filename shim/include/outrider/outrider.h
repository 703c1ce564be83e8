/* Outrider shim: the C API a training process uses to hand collectives to its node's
 * outrider-agent. Buffers live in shared memory (memfd regions) the agent maps; ops are submitted
 * asynchronously and completed by the agent.
 *
 * Thread-safety: a client handle may be used by one thread at a time (callers serialize);
 * distinct clients are independent. outrider_error_string() may be called from any thread.
 * Every function returns OUTRIDER_OK (0) or an error code; on error,
 * outrider_last_error(client) says what was wrong. */
#ifndef OUTRIDER_OUTRIDER_H_
#define OUTRIDER_OUTRIDER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OUTRIDER_API_VERSION 6
#define OUTRIDER_EXPORT __attribute__((visibility("default")))

/* Error codes (stable). */
enum {
  OUTRIDER_OK = 0,
  OUTRIDER_ERR_INVALID_ARGUMENT = 1,
  OUTRIDER_ERR_FAILED_PRECONDITION = 2,
  OUTRIDER_ERR_UNAVAILABLE = 3,       /* agent not running, gone, or shutting down; after the agent
                                         went, the next call reconnects to a restarted one within
                                         OUTRIDER_RECONNECT_MS (docs/operations.md) */
  OUTRIDER_ERR_DEADLINE_EXCEEDED = 4, /* a wait's timeout passed; the op is still pending */
  OUTRIDER_ERR_PEER_LOST = 5,         /* another rank of the job died */
  OUTRIDER_ERR_MISMATCH = 6,          /* ranks disagree on an op's shape */
  OUTRIDER_ERR_INTERNAL = 7,
  OUTRIDER_ERR_RESOURCE_EXHAUSTED = 8,
  OUTRIDER_ERR_PERMISSION_DENIED = 9,
  OUTRIDER_ERR_PROTOCOL = 10,
  OUTRIDER_ERR_CANCELLED = 11,
  OUTRIDER_ERR_OUTPUT_TOO_SMALL = 12 /* result larger than the output buffer: nothing written;
                                      outrider_op_result_t.result_rows says how many rows */
};

/* Element types: torch's float32, float64, float16, bfloat16, int32, int64, uint8, int8, int16,
 * bool and complex64, complex128. */
typedef enum {
  OUTRIDER_F32 = 0,
  OUTRIDER_F64 = 1,
  OUTRIDER_F16 = 2,  /* IEEE binary16, bits in a uint16_t */
  OUTRIDER_BF16 = 3, /* bfloat16, bits in a uint16_t */
  OUTRIDER_I32 = 4,
  OUTRIDER_I64 = 5,
  OUTRIDER_U8 = 6,
  OUTRIDER_I8 = 7,
  OUTRIDER_I16 = 8,
  OUTRIDER_BOOL = 9, /* one byte; any nonzero byte is true, results are 0 or 1 */
  OUTRIDER_C64 = 10, /* complex: (real, imaginary) pairs of F32 */
  OUTRIDER_C128 = 11 /* complex: (real, imaginary) pairs of F64 */
} outrider_dtype_t;

/* Reduce ops. Every dtype takes every op except: BOOL has no AVG; C64 and C128 take only SUM and
 * AVG (no order, and no product: torch.distributed refuses those on complex tensors too). Those
 * pairs fail the call with OUTRIDER_ERR_INVALID_ARGUMENT naming the op and the dtype. */
typedef enum {
  OUTRIDER_SUM = 0, /* integers wrap around (two's complement); BOOL: or */
  OUTRIDER_AVG = 1, /* integers: truncating division of the wrapped sum; complex: of each part */
  OUTRIDER_MIN = 2, /* floats: NaN in any input gives NaN; BOOL: and */
  OUTRIDER_MAX = 3, /* BOOL: or */
  OUTRIDER_PROD = 4 /* integers wrap around; BOOL: and */
} outrider_redop_t;

/* Sparse allreduce algorithms (how rows cross nodes; results are the same for every one). */
typedef enum {
  OUTRIDER_SPARSE_AUTO = 0,      /* the cost model picks per op (default) */
  OUTRIDER_SPARSE_ALLGATHER = 1, /* every node sends its rows to every node */
  OUTRIDER_SPARSE_BALANCED = 2,  /* rows hash-partitioned to owner nodes, reduced there, returned */
  OUTRIDER_SPARSE_BLOCK = 3,     /* like balanced, in blocks of consecutive rows (clustered ids) */
  OUTRIDER_SPARSE_DENSE = 4      /* the whole table, reduced by owner partitions */
} outrider_sparse_algo_t;

/* Which rank owns a row of a sharded table. */
typedef enum {
  OUTRIDER_SHARD_RANGE = 0, /* contiguous ranges: see outrider_shard_range */
  OUTRIDER_SHARD_HASH = 1   /* a fixed hash of the row id modulo world size */
} outrider_shard_scheme_t;

typedef struct outrider_client outrider_client_t;
/* An op in flight. 0 is never a valid handle. */
typedef uint64_t outrider_op_t;

typedef struct {
  uint32_t size;            /* sizeof(outrider_connect_options_t) */
  const char* socket_path;  /* NULL: $OUTRIDER_SOCKET, else the agent's default path */
  const char* job_id;       /* NULL: $OUTRIDER_JOB_ID, else from the launcher (docs/jobs.md) */
  int32_t rank;             /* -1: $RANK (default 0) */
  int32_t world_size;       /* -1: $WORLD_SIZE (default 1) */
  int32_t local_rank;       /* -1: $LOCAL_RANK (default: rank) */
  int32_t local_world_size; /* -1: $LOCAL_WORLD_SIZE (default: world_size) */
  uint64_t arena_bytes;     /* 0: $OUTRIDER_ARENA_BYTES, else 256 MiB; 0 there: no arena */
  int32_t timeout_ms;       /* connect/handshake deadline; 0: 5000 */
  uint32_t flags;           /* OUTRIDER_CONNECT_* bits (API version 4) */
  /* The job's class (API version 5): OUTRIDER_JOB_CLASS_*; 0: $OUTRIDER_JOB_PRIORITY (high,
   * normal or low), else normal. The agent refuses a class above its owner's ceiling. */
  int32_t job_class;
  /* The job's share of its class, 1..100; 0: $OUTRIDER_JOB_WEIGHT, else 1. */
  uint32_t job_weight;
} outrider_connect_options_t;
/* Job classes: on every link the agent sends a higher class's data first, shares a class
 * between its jobs by weight, and ages what waits so that no job starves (docs/jobs.md). Every
 * rank of a job must name the same class and weight. */
#define OUTRIDER_JOB_CLASS_HIGH 1
#define OUTRIDER_JOB_CLASS_NORMAL 2
#define OUTRIDER_JOB_CLASS_LOW 3
/* Connect as a joiner: the client joins the running job `job_id` at its next generation (see
 * outrider_reconfigure) and is in no job until then; rank and sizes are ignored. The agent of its
 * node must serve a rank of the job, or $OUTRIDER_ROOT_ADDR (or $MASTER_ADDR) must name an agent
 * that does. */
#define OUTRIDER_CONNECT_JOINER 1u

/* A communicator: a group of the job's ranks with collectives of its own (see
 * outrider_comm_split). OUTRIDER_COMM_WORLD is the whole job. */
typedef uint32_t outrider_comm_t;
#define OUTRIDER_COMM_WORLD ((outrider_comm_t)0)
#define OUTRIDER_COMM_NULL ((outrider_comm_t)0xffffffffu) /* no communicator (split color < 0) */

typedef struct {
  uint32_t size;        /* sizeof(outrider_op_options_t) */
  uint64_t key;         /* names the collective across ranks; 0: one key per op kind */
  int32_t priority;     /* lower = sooner; 0 default */
  outrider_comm_t comm; /* the ranks that take part, and whose numbering root and blocks use;
                           OUTRIDER_COMM_WORLD (default): the whole job (API version 2) */
  void* cuda_stream;    /* a CUstream (API version 3): where an op on device buffers is ordered
                           (NULL: the legacy default stream). The op reads its inputs after the
                           work queued on the stream before it, and work queued after it sees its
                           result; the calling thread does not wait. OUTRIDER_GPU_MODE=staging
                           (default): device buffers are staged through shared memory; =ipc: the
                           agent imports the GPU allocations (see docs/gpu.md). Every op
                           takes device buffers; alltoallv counts stay host arrays. */
} outrider_op_options_t;

OUTRIDER_EXPORT void outrider_connect_options_init(outrider_connect_options_t* options);
OUTRIDER_EXPORT void outrider_op_options_init(outrider_op_options_t* options);

/* Connects to the node's agent and joins the job. `options` may be NULL (all defaults).
 * On failure *client is NULL and outrider_last_error(NULL) explains (per thread). */
OUTRIDER_EXPORT int outrider_connect(const outrider_connect_options_t* options,
                                     outrider_client_t** client);
/* Leaves the job and frees everything the client holds. Pending ops are abandoned (the other
 * ranks see PEER_LOST). NULL is ignored. */
OUTRIDER_EXPORT void outrider_disconnect(outrider_client_t* client);

OUTRIDER_EXPORT const char* outrider_error_string(int code);
/* The last error message on this client (or, for NULL, of the last failed connect on this
 * thread). Valid until the next call on the client. */
OUTRIDER_EXPORT const char* outrider_last_error(const outrider_client_t* client);

OUTRIDER_EXPORT int outrider_rank(const outrider_client_t* client);
OUTRIDER_EXPORT int outrider_world_size(const outrider_client_t* client);
OUTRIDER_EXPORT int outrider_local_rank(const outrider_client_t* client);
OUTRIDER_EXPORT int outrider_local_world_size(const outrider_client_t* client);

/* ---- Generations: a job that loses a rank goes on (docs/elastic.md) ----
 * A job runs as generation 0, 1, 2, ...: after a rank or node is lost (its ops fail with
 * OUTRIDER_ERR_PEER_LOST) or to admit joiners, every surviving rank calls outrider_reconfigure;
 * the agents agree on the members of the next generation (a rank that does not ask within half
 * the timeout is left out, never waited for), renumber them densely node by node (old rank
 * order, joiners last on their node; every node keeps all its ranks, so nodes may run different
 * numbers) and move each client into it. Memory stays registered; communicators end (create them
 * again). */
typedef struct {
  uint32_t generation;
  int32_t rank; /* in the generation; -1 for a joiner not admitted yet */
  int32_t world_size;
  int32_t local_rank;
  int32_t local_world_size; /* ranks on this client's node (nodes of a generation may differ) */
  uint32_t joiners_waiting; /* ranks the next generation would add from those the agent holds
                               (only the job's lowest node with ranks holds them: reduce it with
                               MAX over the ranks) */
  char root_addr[64];       /* host:port of the agent of the generation's node 0 ("" in
                               generation 0: the job's own root) */
} outrider_membership_t;
/* The client's place in its job. Returns OUTRIDER_OK while the generation can go on, else the
 * error that ended it (PEER_LOST naming who was lost); *out is filled in either way. */
OUTRIDER_EXPORT int outrider_membership(outrider_client_t* client, outrider_membership_t* out);
/* Moves the client into its job's next generation and fills *out (may be NULL) with its place
 * there. Every op must have been waited for. The agents take at most `timeout_ms` (0: 30000) to
 * agree; a rank whose node is too small for the new generation waits for the next one (until a
 * generation places it or the timeout); a rank left out otherwise gets
 * OUTRIDER_ERR_FAILED_PRECONDITION saying why, and stays in its old generation (it may connect
 * again as a joiner). */
OUTRIDER_EXPORT int outrider_reconfigure(outrider_client_t* client, int32_t timeout_ms,
                                         outrider_membership_t* out);
/* ---- Communicators ----
 * Any number of groups of the job's ranks over one connection, each with its own collectives
 * (ops name it in outrider_op_options_t.comm). The agents run each one on the nodes of its
 * members only: nodes outside a group take no part in its ops. Ranks of a communicator are
 * numbered 0 .. size - 1 as its creator says. A communicator must have the same number of ranks
 * on every node it spans. Allgather, reduce-scatter, alltoallv and sharded sparse ops further
 * need its ranks in node order (the ranks of each node consecutive, nodes in job order), which
 * communicators made from sorted rank lists of a job always have. */

/* Collective over `parent`: every rank of it calls with a color; ranks with the same color >= 0
 * form a new communicator, ranked by (key, rank in parent). A negative color joins none and
 * gives OUTRIDER_COMM_NULL. */
OUTRIDER_EXPORT int outrider_comm_split(outrider_client_t* client, outrider_comm_t parent,
                                        int color, int key, outrider_comm_t* comm);
/* Called by the members only: rank i of the new communicator is rank ranks[i] of `parent`.
 * Members must create communicators of the same list in the same order. No communication. */
OUTRIDER_EXPORT int outrider_comm_create(outrider_client_t* client, outrider_comm_t parent,
                                         const int* ranks, int nranks, outrider_comm_t* comm);
/* Leaves the communicator and frees its state in the agents (no op on it may be pending).
 * Members still using it see OUTRIDER_ERR_PEER_LOST. */
OUTRIDER_EXPORT int outrider_comm_destroy(outrider_client_t* client, outrider_comm_t comm);
/* This rank's number and the size of a communicator; -1 for an unknown one. */
OUTRIDER_EXPORT int outrider_comm_rank(const outrider_client_t* client, outrider_comm_t comm);
OUTRIDER_EXPORT int outrider_comm_size(const outrider_client_t* client, outrider_comm_t comm);

/* Memory the agent can read and write without copies. */
/* Allocates from the client's shared arena (64-byte aligned). NULL on failure. */
OUTRIDER_EXPORT void* outrider_alloc(outrider_client_t* client, size_t bytes);
OUTRIDER_EXPORT void outrider_free(outrider_client_t* client, void* ptr);
/* Creates a dedicated shared region of `bytes` and maps it at *base. */
OUTRIDER_EXPORT int outrider_region_create(outrider_client_t* client, size_t bytes, void** base);
/* Registers a memfd the caller created (sealed against shrink and grow, or sealable: the shim
 * adds the seals) and maps it at *base. The caller keeps its fd. */
OUTRIDER_EXPORT int outrider_region_register_fd(outrider_client_t* client, int memfd, size_t bytes,
                                                void** base);
/* Releases a region from outrider_region_create / _register_fd (no op on it may be pending). */
OUTRIDER_EXPORT int outrider_region_release(outrider_client_t* client, void* base);
/* GPU memory [ptr, ptr + bytes) is being (or was) given back to CUDA: the agent closes its
 * imports (gpu_mode ipc) of the GPU allocations that start inside it. Call it from an allocator's
 * free hook; ops queued on them must be done. Memory the client never used in an op: a no-op. */
OUTRIDER_EXPORT int outrider_release_device_memory(outrider_client_t* client, const void* ptr,
                                                   size_t bytes);

/* Collectives over the ranks of the job (or of the communicator in opts->comm). Every pointer must
 * lie inside memory from outrider_alloc or a region. `opts` may be NULL. Returns once the op is
 * queued; *op is the handle to wait on. Results are bitwise identical on every rank and across
 * reruns. */
OUTRIDER_EXPORT uint64_t outrider_key(const char* name); /* 64-bit hash of a tensor name */
OUTRIDER_EXPORT int outrider_allreduce(outrider_client_t* client, const void* send, void* recv,
                                       uint64_t count, outrider_dtype_t dtype,
                                       outrider_redop_t redop, const outrider_op_options_t* opts,
                                       outrider_op_t* op);
/* In place: the root's `buf` is copied into every other rank's `buf`. `root` is a rank of the
 * communicator (of the job: 0 .. world_size - 1), on any node. */
OUTRIDER_EXPORT int outrider_broadcast(outrider_client_t* client, void* buf, uint64_t count,
                                       outrider_dtype_t dtype, int root,
                                       const outrider_op_options_t* opts, outrider_op_t* op);
/* `send` holds `count` elements; `recv` holds count * world_size, in rank order. */
OUTRIDER_EXPORT int outrider_allgather(outrider_client_t* client, const void* send, void* recv,
                                       uint64_t count, outrider_dtype_t dtype,
                                       const outrider_op_options_t* opts, outrider_op_t* op);
/* `send` holds recv_count * world_size elements; rank r receives reduced block r. */
OUTRIDER_EXPORT int outrider_reduce_scatter(outrider_client_t* client, const void* send, void* recv,
                                            uint64_t recv_count, outrider_dtype_t dtype,
                                            outrider_redop_t redop,
                                            const outrider_op_options_t* opts, outrider_op_t* op);
/* Rank i sends send_counts[j] elements to rank j and receives recv_counts[j] from rank j
 * (world_size entries each). Blocks are packed in rank order in `send` and `recv`; every
 * recv_counts[i] of rank j must equal send_counts[j] of rank i, or every rank gets
 * OUTRIDER_ERR_MISMATCH. The count arrays may be reused as soon as the call returns. */
OUTRIDER_EXPORT int outrider_alltoallv(outrider_client_t* client, const void* send,
                                       const int64_t* send_counts, void* recv,
                                       const int64_t* recv_counts, outrider_dtype_t dtype,
                                       const outrider_op_options_t* opts, outrider_op_t* op);
OUTRIDER_EXPORT int outrider_barrier(outrider_client_t* client, const outrider_op_options_t* opts,
                                     outrider_op_t* op);

/* ---- Point to point (API version 6). ----
 * `count` elements from `buf` to rank `peer` of the communicator (opts->comm), with `tag`; the
 * receiver names the same count and dtype. Sends and receives of one (sender, receiver, tag) match
 * in the order each side posted them; nobody else takes part. A send of at most 64 KiB to
 * another node completes once its bytes left for the receiver's agent (which holds the message
 * until a receive takes it); a larger one, or one to a rank of the same node, once a receive took
 * it (so a sender runs ahead of its receiver by its own sends in flight at most). Without a
 * priority (opts->priority 0) a message goes ahead of the collectives that have none. opts->key is
 * ignored: the tag names the stream. */
#define OUTRIDER_ANY_SOURCE (-1)
OUTRIDER_EXPORT int outrider_send(outrider_client_t* client, const void* buf, uint64_t count,
                                  outrider_dtype_t dtype, int peer, int tag,
                                  const outrider_op_options_t* opts, outrider_op_t* op);
/* `peer` OUTRIDER_ANY_SOURCE: the first message with `tag` that reaches this rank, each sender's
 * messages still in their order; outrider_wait_result's result->source names the sender. */
OUTRIDER_EXPORT int outrider_recv(outrider_client_t* client, void* buf, uint64_t count,
                                  outrider_dtype_t dtype, int peer, int tag,
                                  const outrider_op_options_t* opts, outrider_op_t* op);

/* ---- Sparse embedding gradients (rows of a table of `rows` x `dim` values). ----
 * A rank's contribution is `nnz` ids (I32 or I64, duplicates allowed and summed) and `nnz * dim`
 * values (F32, F16 or BF16; F16/BF16 are summed in f32 and rounded once per node and once at the
 * end). `ids`, `values`, `out_ids` and `out_values` lie in shared memory (outrider_alloc or a
 * region) or in device memory (ordered on opts->cuda_stream). The result holds at most `capacity`
 * rows: ids in `out_ids` (id_dtype), values in `out_values` (capacity * dim). A result that does
 * not fit fails the op on that rank with OUTRIDER_ERR_OUTPUT_TOO_SMALL and the needed row count in
 * outrider_op_result_t.result_rows; nothing is truncated. Sizing the output for the whole table is
 * safe: memfd pages cost memory only once written. */
typedef struct {
  uint32_t size;             /* sizeof(outrider_sparse_t) */
  uint64_t rows;             /* table rows: ids lie in [0, rows) */
  uint64_t dim;              /* values per row */
  outrider_dtype_t dtype;    /* values */
  outrider_dtype_t id_dtype; /* ids and out_ids */
  const void* ids;
  const void* values;
  uint64_t nnz;
  void* out_ids;
  void* out_values;
  uint64_t capacity; /* rows that out_ids / out_values hold */
  uint32_t algo;     /* allreduce: outrider_sparse_algo_t; shard, lookup: outrider_shard_scheme_t */
  /* Allreduce only, optional: row demand. The ids (id_dtype, shared memory, duplicates allowed)
   * this rank's next forward pass needs. The demanded rows of every rank are exchanged ahead of
   * the rest of the op (and of lower-priority traffic), written to the output first, and
   * announced early: outrider_wait_demand returns once they are there. */
  const void* demand_ids;
  uint64_t demand_nnz;
} outrider_sparse_t;

OUTRIDER_EXPORT void outrider_sparse_init(outrider_sparse_t* s);

/* Replicated table: every rank receives the union of all ranks' rows, sorted by id, each row
 * summed over ranks; bitwise identical on every rank. With row demand, the rows demanded by any
 * rank come first (sorted by id; outrider_op_result_t.demand_rows of them), then the others
 * (sorted by id); each row's bits are the same as without demand. */
OUTRIDER_EXPORT int outrider_sparse_allreduce(outrider_client_t* client, const outrider_sparse_t* s,
                                              const outrider_op_options_t* opts, outrider_op_t* op);
/* Sharded table: every rank receives, sorted by id, only the rows it owns (scheme in `algo`),
 * summed over all ranks. */
OUTRIDER_EXPORT int outrider_sparse_shard(outrider_client_t* client, const outrider_sparse_t* s,
                                          const outrider_op_options_t* opts, outrider_op_t* op);
/* Sharded table, lookup direction (range scheme): `ids`/`nnz` are the rows this rank wants;
 * `values` is this rank's shard (outrider_shard_range rows x dim); the rows arrive in
 * `out_values` in the order of `ids` (capacity >= nnz; out_ids unused). */
OUTRIDER_EXPORT int outrider_sparse_lookup(outrider_client_t* client, const outrider_sparse_t* s,
                                           const outrider_op_options_t* opts, outrider_op_t* op);
/* Rows [*first, *first + *count) that `rank` owns under OUTRIDER_SHARD_RANGE. */
OUTRIDER_EXPORT void outrider_shard_range(uint64_t rows, int world_size, int rank, uint64_t* first,
                                          uint64_t* count);

/* What a finished op reported beyond its status. */
typedef struct {
  uint32_t size;            /* sizeof(outrider_op_result_t) */
  uint64_t result_rows;     /* sparse: rows in the result (or needed, on OUTPUT_TOO_SMALL) */
  uint32_t algo;            /* sparse allreduce: the outrider_sparse_algo_t that ran */
  uint64_t predicted_bytes; /* sparse: this node's inter-node bytes as the cost model predicted */
  uint64_t
      wire_bytes_sent; /* sparse: this node's inter-node bytes for the op (payload + headers) */
  uint64_t wire_bytes_recv;
  uint64_t agent_ns; /* time in the agent from the first rank's submission to completion */
  uint64_t
      demand_rows; /* sparse allreduce with demand: the leading result rows that were demanded */
  int32_t source;  /* outrider_recv (API version 6): the sender's rank in the communicator */
} outrider_op_result_t;

/* outrider_wait that also fills `result` (may be NULL) once the op finished, also on failure. */
OUTRIDER_EXPORT int outrider_wait_result(outrider_client_t* client, outrider_op_t op,
                                         int64_t timeout_ms, outrider_op_result_t* result);

/* Sparse allreduce with row demand: waits up to timeout_ms (-1: no limit; 0: only looks) until the
 * demanded rows are in out_ids/out_values[0, result->demand_rows) (result may be NULL; result_rows
 * then counts just those rows). The rest of the op is still running: the handle stays valid and
 * outrider_wait / outrider_wait_result must still follow. Returns OUTRIDER_OK once the rows are
 * there (also when the op already finished successfully), the op's error if it failed first,
 * or OUTRIDER_ERR_DEADLINE_EXCEEDED. Ops without demand report their rows only when done. */
OUTRIDER_EXPORT int outrider_wait_demand(outrider_client_t* client, outrider_op_t op,
                                         int64_t timeout_ms, outrider_op_result_t* result);

/* Waits for `op` up to timeout_ms (-1: no limit). Returns the op's result and releases the
 * handle, or OUTRIDER_ERR_DEADLINE_EXCEEDED with the op still pending. */
OUTRIDER_EXPORT int outrider_wait(outrider_client_t* client, outrider_op_t op, int64_t timeout_ms);
/* Blocks until a completion of any op (or the demanded rows of one) came in, `wake_fd` is
 * readable, or timeout_ms passed (-1: no limit). `wake_fd` (-1: none) is the caller's, for example
 * an eventfd another thread writes to wake this one; it is polled, never read. Returns
 * OUTRIDER_OK (then outrider_test_result / outrider_wait_demand tell which ops moved),
 * OUTRIDER_ERR_DEADLINE_EXCEEDED, or what ended the connection (OUTRIDER_ERR_UNAVAILABLE when the
 * agent is gone). For a thread that drives many ops without polling. */
OUTRIDER_EXPORT int outrider_wait_event(outrider_client_t* client, int wake_fd, int64_t timeout_ms);
/* Non-blocking: *done = 1 and the op's result when finished (handle released), else *done = 0
 * and OUTRIDER_OK. */
OUTRIDER_EXPORT int outrider_test(outrider_client_t* client, outrider_op_t op, int* done);
/* outrider_test that also fills `result` (may be NULL) once the op finished. */
OUTRIDER_EXPORT int outrider_test_result(outrider_client_t* client, outrider_op_t op, int* done,
                                         outrider_op_result_t* result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OUTRIDER_OUTRIDER_H_ */
