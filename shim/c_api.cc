// The C ABI, setup half: connecting, errors, communicators and shared memory. Converts between C
// types and the Client; no exception or C++ type crosses it (ops and waits: c_api_ops.cc).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "outrider/outrider.h"
#include "shim/c_api_internal.h"
#include "shim/client.h"

using outrider::Code;
using outrider::Status;
using outrider::shim::Client;
using outrider::shim::capi::Fail;
using outrider::shim::capi::Guard;
using outrider::shim::capi::Report;

static_assert(OUTRIDER_ERR_CANCELLED == static_cast<int>(Code::kCancelled));
static_assert(OUTRIDER_ERR_OUTPUT_TOO_SMALL == static_cast<int>(Code::kOutputTooSmall));
static_assert(OUTRIDER_SPARSE_DENSE == static_cast<int>(outrider::ipc::SparseAlgo::kDense));
static_assert(OUTRIDER_SHARD_HASH == static_cast<int>(outrider::ipc::ShardScheme::kHash));
static_assert(OUTRIDER_ERR_PEER_LOST == static_cast<int>(Code::kPeerLost));
static_assert(OUTRIDER_BF16 == static_cast<int>(outrider::ipc::DType::kBF16));
static_assert(OUTRIDER_I64 == static_cast<int>(outrider::ipc::DType::kI64));
static_assert(OUTRIDER_U8 == static_cast<int>(outrider::ipc::DType::kU8));
static_assert(OUTRIDER_I8 == static_cast<int>(outrider::ipc::DType::kI8));
static_assert(OUTRIDER_I16 == static_cast<int>(outrider::ipc::DType::kI16));
static_assert(OUTRIDER_BOOL == static_cast<int>(outrider::ipc::DType::kBool));
static_assert(OUTRIDER_C64 == static_cast<int>(outrider::ipc::DType::kC64));
static_assert(OUTRIDER_C128 == static_cast<int>(outrider::ipc::DType::kC128));
static_assert(OUTRIDER_PROD == static_cast<int>(outrider::ipc::ReduceOp::kProd));

namespace {

thread_local std::string t_connect_error;

}  // namespace

extern "C" {

void outrider_connect_options_init(outrider_connect_options_t* o) {
  std::memset(o, 0, sizeof(*o));
  o->size = sizeof(*o);
  o->rank = o->world_size = o->local_rank = o->local_world_size = -1;
}

void outrider_op_options_init(outrider_op_options_t* o) {
  std::memset(o, 0, sizeof(*o));
  o->size = sizeof(*o);
}

int outrider_connect(const outrider_connect_options_t* options, outrider_client_t** client) {
  if (client == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  *client = nullptr;
  try {
    outrider::shim::ConnectRequest req;
    if (options != nullptr) {
      // Version 3's options end before `flags`.
      if (options->size < offsetof(outrider_connect_options_t, flags)) {
        t_connect_error =
            "INVALID_ARGUMENT: outrider_connect_options_t.size is wrong; initialize it with "
            "outrider_connect_options_init";
        return OUTRIDER_ERR_INVALID_ARGUMENT;
      }
      req.socket_path = options->socket_path;
      req.job_id = options->job_id;
      req.rank = options->rank;
      req.world_size = options->world_size;
      req.local_rank = options->local_rank;
      req.local_world_size = options->local_world_size;
      req.arena_bytes = options->arena_bytes;
      req.timeout_ms = options->timeout_ms;
      // Version 4's options end before `job_class`.
      if (options->size >= offsetof(outrider_connect_options_t, job_class)) {
        if ((options->flags & ~OUTRIDER_CONNECT_JOINER) != 0) {
          t_connect_error = "INVALID_ARGUMENT: unknown outrider_connect_options_t.flags";
          return OUTRIDER_ERR_INVALID_ARGUMENT;
        }
        req.joiner = (options->flags & OUTRIDER_CONNECT_JOINER) != 0;
      }
      if (options->size >= sizeof(outrider_connect_options_t)) {
        if (options->job_class < 0) {
          t_connect_error = "INVALID_ARGUMENT: outrider_connect_options_t.job_class " +
                            std::to_string(options->job_class) + " is negative";
          return OUTRIDER_ERR_INVALID_ARGUMENT;
        }
        req.job_class = static_cast<uint32_t>(options->job_class);
        req.job_weight = options->job_weight;
      }
    }
    auto config = outrider::shim::ResolveConnectConfig(req);
    if (!config.ok()) {
      t_connect_error = config.status().ToString();
      return static_cast<int>(config.status().code());
    }
    auto impl = Client::Connect(*config);
    if (!impl.ok()) {
      t_connect_error = impl.status().ToString();
      return static_cast<int>(impl.status().code());
    }
    *client = new outrider_client{std::move(*impl)};
    return OUTRIDER_OK;
  } catch (const std::exception& e) {
    t_connect_error = std::string("INTERNAL: ") + e.what();
    return OUTRIDER_ERR_INTERNAL;
  }
}

void outrider_disconnect(outrider_client_t* client) { delete client; }

const char* outrider_error_string(int code) {
  if (code < 0 || code > outrider::kMaxCode) return "UNKNOWN_ERROR";
  return outrider::CodeName(static_cast<Code>(code)).data();
}

const char* outrider_last_error(const outrider_client_t* client) {
  if (client == nullptr) return t_connect_error.c_str();
  return client->impl->last_error().c_str();
}

namespace {
void FillMembership(const outrider::shim::Client::Membership& m, outrider_membership_t* out) {
  if (out == nullptr) return;
  out->generation = m.generation;
  out->rank = m.rank;
  out->world_size = m.world_size;
  out->local_rank = m.local_rank;
  out->local_world_size = m.local_world_size;
  out->joiners_waiting = m.joiners_waiting;
  std::memset(out->root_addr, 0, sizeof(out->root_addr));
  std::memcpy(out->root_addr, m.root_addr.data(),
              std::min(m.root_addr.size(), sizeof(out->root_addr) - 1));
}
}  // namespace

int outrider_membership(outrider_client_t* c, outrider_membership_t* out) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int {
    outrider::shim::Client::Membership m;
    Status st = c->impl->GetMembership(&m);
    FillMembership(m, out);
    return st.ok() ? OUTRIDER_OK : Fail(c, st);
  });
}

int outrider_reconfigure(outrider_client_t* c, int32_t timeout_ms, outrider_membership_t* out) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (timeout_ms < 0) return Fail(c, outrider::InvalidArgument("timeout_ms must not be negative"));
  return Guard(c, [&]() -> int {
    outrider::shim::Client::Membership m;
    Status st = c->impl->Reconfigure(static_cast<uint32_t>(timeout_ms), &m);
    FillMembership(m, out);
    return st.ok() ? OUTRIDER_OK : Fail(c, st);
  });
}

int outrider_comm_split(outrider_client_t* c, outrider_comm_t parent, int color, int key,
                        outrider_comm_t* comm) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (comm == nullptr) return Fail(c, outrider::InvalidArgument("communicator pointer is NULL"));
  *comm = OUTRIDER_COMM_NULL;
  return Guard(c, [&]() -> int {
    auto r = c->impl->CommSplit(parent, color, key);
    if (!r.ok()) return Fail(c, r.status());
    if (*r) *comm = **r;
    return OUTRIDER_OK;
  });
}

int outrider_comm_create(outrider_client_t* c, outrider_comm_t parent, const int* ranks, int nranks,
                         outrider_comm_t* comm) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  if (comm == nullptr) return Fail(c, outrider::InvalidArgument("communicator pointer is NULL"));
  *comm = OUTRIDER_COMM_NULL;
  if (nranks <= 0 || ranks == nullptr)
    return Fail(c, outrider::InvalidArgument("a communicator needs at least one rank"));
  return Guard(c, [&]() -> int {
    auto r = c->impl->CommCreate(parent, std::vector<int32_t>(ranks, ranks + nranks));
    if (!r.ok()) return Fail(c, r.status());
    *comm = *r;
    return OUTRIDER_OK;
  });
}

int outrider_comm_destroy(outrider_client_t* c, outrider_comm_t comm) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int { return Report(c, c->impl->CommDestroy(comm)); });
}

int outrider_comm_rank(const outrider_client_t* c, outrider_comm_t comm) {
  if (c == nullptr) return -1;
  auto r = c->impl->CommRank(comm);
  return r.ok() ? *r : -1;
}

int outrider_comm_size(const outrider_client_t* c, outrider_comm_t comm) {
  if (c == nullptr) return -1;
  auto r = c->impl->CommSize(comm);
  return r.ok() ? *r : -1;
}

int outrider_rank(const outrider_client_t* c) { return c ? c->impl->config().rank : -1; }
int outrider_world_size(const outrider_client_t* c) {
  return c ? c->impl->config().world_size : -1;
}
int outrider_local_rank(const outrider_client_t* c) {
  return c ? c->impl->config().local_rank : -1;
}
int outrider_local_world_size(const outrider_client_t* c) {
  return c ? c->impl->config().local_world_size : -1;
}

void* outrider_alloc(outrider_client_t* c, size_t bytes) {
  if (c == nullptr) return nullptr;
  void* out = nullptr;
  Guard(c, [&]() -> int {
    auto r = c->impl->Alloc(bytes);
    if (!r.ok()) return Fail(c, r.status());
    out = *r;
    return OUTRIDER_OK;
  });
  return out;
}

void outrider_free(outrider_client_t* c, void* p) {
  if (c == nullptr) return;
  Status st = c->impl->Free(p);
  if (!st.ok()) Fail(c, st);
}

int outrider_region_create(outrider_client_t* c, size_t bytes, void** base) {
  if (c == nullptr || base == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int {
    auto r = c->impl->CreateRegion(bytes);
    if (!r.ok()) return Fail(c, r.status());
    *base = *r;
    return OUTRIDER_OK;
  });
}

int outrider_region_register_fd(outrider_client_t* c, int memfd, size_t bytes, void** base) {
  if (c == nullptr || base == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int {
    auto r = c->impl->RegisterFd(memfd, bytes);
    if (!r.ok()) return Fail(c, r.status());
    *base = *r;
    return OUTRIDER_OK;
  });
}

int outrider_region_release(outrider_client_t* c, void* base) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int { return Report(c, c->impl->ReleaseRegion(base)); });
}

int outrider_release_device_memory(outrider_client_t* c, const void* ptr, size_t bytes) {
  if (c == nullptr) return OUTRIDER_ERR_INVALID_ARGUMENT;
  return Guard(c, [&]() -> int { return Report(c, c->impl->ReleaseDeviceMemory(ptr, bytes)); });
}

uint64_t outrider_key(const char* name) { return outrider::shim::HashKey(name); }

}  // extern "C"
