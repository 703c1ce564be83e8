// Offload of NCCL calls to the agent through liboutrider.so (offload.h): the plan parsed from
// $OUTRIDER_NCCL_OFFLOAD and agreed on by the world communicator's ranks, and the calls it matches
// submitted on the caller's stream.
#include "shim/nccl/offload.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "outrider/outrider.h"
#include "shim/nccl/call_stats.h"
#include "shim/nccl/cuda_stream.h"
#include "shim/nccl/real_nccl.h"
#include "shim/nccl/say.h"

namespace outrider::shim {
namespace {

using ipc::NcclOp;

struct Rule {
  NcclOp op;
  uint64_t min_bytes;
};

// "allreduce>=64MB,allgather" -> rules; false (and *why) on a bad one.
bool ParseOffload(const std::string& spec, std::vector<Rule>* rules, std::string* why) {
  static const struct {
    const char* name;
    NcclOp op;
  } kOps[] = {{"allreduce", NcclOp::kAllReduce},
              {"broadcast", NcclOp::kBroadcast},
              {"allgather", NcclOp::kAllGather},
              {"reducescatter", NcclOp::kReduceScatter}};
  size_t at = 0;
  while (at <= spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    size_t ge = item.find(">=");
    std::string name = item.substr(0, ge);
    Rule r{NcclOp::kAllReduce, 0};
    bool known = false;
    for (const auto& k : kOps) {
      if (name == k.name) {
        r.op = k.op;
        known = true;
      }
    }
    if (!known) {
      *why = "'" + name +
             "' is not an offloadable call (allreduce, broadcast, allgather, reducescatter)";
      return false;
    }
    if (ge != std::string::npos) {
      std::string size = item.substr(ge + 2);
      char* unit = nullptr;
      double v = std::strtod(size.c_str(), &unit);
      std::string u = unit != nullptr ? unit : "";
      double scale = u.empty() || u == "B"                 ? 1
                     : u == "K" || u == "KB" || u == "KiB" ? 1024.0
                     : u == "M" || u == "MB" || u == "MiB" ? 1048576.0
                     : u == "G" || u == "GB" || u == "GiB" ? 1073741824.0
                                                           : -1;
      if (size.empty() || unit == size.c_str() || scale < 0 || !(v >= 0 && v < 1e15)) {
        *why = "'" + size + "' is not a size (a number, then B, K, M or G)";
        return false;
      }
      r.min_bytes = static_cast<uint64_t>(v * scale);
    }
    rules->push_back(r);
  }
  if (rules->empty()) {
    *why = "no call named";
    return false;
  }
  return true;
}

struct Offload {
  outrider_client_t* client = nullptr;
  std::vector<Rule> rules;
  std::deque<outrider_op_t> pending;  // submitted, not yet seen done
};

Mutex g_offload_mu;
std::unordered_map<ncclComm_t, Offload*>& Offloads() OUTRIDER_REQUIRES(g_offload_mu) {
  static auto* m = new std::unordered_map<ncclComm_t, Offload*>;
  return *m;
}

bool EnvInt(const char* name, int* out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0') return false;
  *out = static_cast<int>(x);
  return true;
}

// Done submissions leave the queue; a failed one is said once. g_offload_mu held.
void ReapLocked(Offload* o) {
  while (!o->pending.empty()) {
    int done = 0;
    int rc = outrider_test(o->client, o->pending.front(), &done);
    if (rc == OUTRIDER_OK && !done) return;
    if (rc != OUTRIDER_OK)
      SayOnce("failed", std::string("offload: an op failed: ") + outrider_last_error(o->client));
    o->pending.pop_front();
  }
}

bool DtypeOf(ncclDataType_t t, outrider_dtype_t* out) {
  switch (t) {
    case ncclFloat32:
      *out = OUTRIDER_F32;
      return true;
    case ncclFloat64:
      *out = OUTRIDER_F64;
      return true;
    case ncclFloat16:
      *out = OUTRIDER_F16;
      return true;
    case ncclBfloat16:
      *out = OUTRIDER_BF16;
      return true;
    case ncclInt32:
      *out = OUTRIDER_I32;
      return true;
    case ncclInt64:
      *out = OUTRIDER_I64;
      return true;
    case ncclUint8:
      *out = OUTRIDER_U8;
      return true;
    case ncclInt8:
      *out = OUTRIDER_I8;
      return true;
    default:
      return false;
  }
}

bool RedopOf(ncclRedOp_t op, outrider_redop_t* out) {
  switch (op) {
    case ncclSum:
      *out = OUTRIDER_SUM;
      return true;
    case ncclProd:
      *out = OUTRIDER_PROD;
      return true;
    case ncclMax:
      *out = OUTRIDER_MAX;
      return true;
    case ncclMin:
      *out = OUTRIDER_MIN;
      return true;
    case ncclAvg:
      *out = OUTRIDER_AVG;
      return true;
    default:
      return false;
  }
}

// The offload of `comm` if this call goes through the agent: the same answer on every rank, as
// every input is the call's (kind, size, dtype, group, capture) or the agreed plan.
Offload* OffloadFor(ncclComm_t comm, NcclOp op, uint64_t bytes, ncclDataType_t dtype,
                    const ncclRedOp_t* redop, cudaStream_t stream, outrider_dtype_t* odt,
                    outrider_redop_t* orop) {
  Offload* o = nullptr;
  {
    MutexLock l(&g_offload_mu);
    auto it = Offloads().find(comm);
    if (it == Offloads().end()) return nullptr;
    o = it->second;
    ReapLocked(o);
  }
  bool match = false;
  for (const Rule& r : o->rules) match = match || (r.op == op && bytes >= r.min_bytes);
  if (!match) return nullptr;
  if (t_group > 0) {
    SayOnce("group", "offload: calls inside ncclGroupStart/ncclGroupEnd go to NCCL");
    return nullptr;
  }
  if (!DtypeOf(dtype, odt) || (redop != nullptr && !RedopOf(*redop, orop))) {
    SayOnce("dtype", "offload: a call of an NCCL dtype or reduce op the agent lacks goes to NCCL");
    return nullptr;
  }
  if (Capturing(stream)) {
    SayOnce(
        "capture",
        "offload: calls under CUDA graph capture go to NCCL (a graph replays NCCL's kernels only)");
    return nullptr;
  }
  return o;
}

// After a submission through the agent (`rc` its result, `h` its handle, read after the call
// returned): queued (ncclSuccess), or the call fails. It cannot go to
// NCCL instead: the other ranks' agents may have taken it, and NCCL would wait for them forever.
ncclResult_t Submitted(Offload* o, int rc, outrider_op_t h) {
  MutexLock l(&g_offload_mu);
  if (rc == OUTRIDER_OK) {
    o->pending.push_back(h);
    return ncclSuccess;
  }
  SayOnce("submit", std::string("offload: the agent refused a call (") +
                        outrider_last_error(o->client) + "): the call fails with ncclSystemError");
  return ncclSystemError;
}

outrider_op_options_t OnStream(cudaStream_t stream) {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = stream;
  return o;
}

}  // namespace

void MaybeOffload(ncclComm_t comm, uint64_t id, int nranks, int rank) {
  const char* spec = std::getenv("OUTRIDER_NCCL_OFFLOAD");
  if (spec == nullptr || *spec == '\0' || comm == nullptr || t_inside > 0) return;
  std::vector<Rule> rules;
  std::string why;
  if (!ParseOffload(spec, &rules, &why)) {
    SayOnce("spec", std::string("OUTRIDER_NCCL_OFFLOAD='") + spec + "': " + why +
                        "; every call goes to NCCL");
    return;
  }
  int env_rank = -1, env_world = -1;
  if (!EnvInt("RANK", &env_rank) || !EnvInt("WORLD_SIZE", &env_world) || env_world != nranks ||
      env_rank != rank) {
    SayOnce("world",
            "offload serves the job's world communicator ($RANK of $WORLD_SIZE, as torchrun sets "
            "them): "
            "a communicator of " +
                std::to_string(nranks) + " ranks (this one rank " + std::to_string(rank) +
                ") goes to NCCL");
    return;
  }
  char idhex[17];
  std::snprintf(idhex, sizeof(idhex), "%016llx", static_cast<unsigned long long>(id));
  std::string job = Telemetry().job().empty() ? "default" : Telemetry().job();
  job = job.substr(0, 40) + "-nccl-" + idhex;
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.job_id = job.c_str();
  outrider_client_t* c = nullptr;
  if (outrider_connect(&o, &c) != OUTRIDER_OK) {
    SayOnce("connect", std::string("offload: cannot reach the agent (") +
                           outrider_last_error(nullptr) + "): every call goes to NCCL");
    return;
  }
  // The plan (as parsed: "1M" and "1MiB" are one plan) must be the same on every rank:
  // max(h) == -max(-h) iff every rank has h.
  uint64_t plan = HashBytes(nullptr, 0);
  for (const Rule& r : rules) {
    uint64_t words[2] = {static_cast<uint64_t>(r.op), r.min_bytes};
    plan = HashBytes(words, sizeof(words), plan);
  }
  auto h = static_cast<int64_t>(plan >> 1);
  auto* agree = static_cast<int64_t*>(outrider_alloc(c, 2 * sizeof(int64_t)));
  outrider_op_t op = 0;
  bool same = false;
  if (agree != nullptr) {
    agree[0] = h;
    agree[1] = -h;
    if (outrider_allreduce(c, agree, agree, 2, OUTRIDER_I64, OUTRIDER_MAX, nullptr, &op) ==
            OUTRIDER_OK &&
        outrider_wait(c, op, 60000) == OUTRIDER_OK) {
      same = agree[0] == -agree[1];
      if (!same) {
        SayOnce("differ",
                std::string("offload: the ranks' OUTRIDER_NCCL_OFFLOAD differ (this one: '") +
                    spec + "'): every call of the communicator goes to NCCL");
      }
    } else {
      SayOnce("agree",
              std::string("offload: the ranks could not agree on a plan through the agent (") +
                  outrider_last_error(c) + "): every call goes to NCCL");
    }
    outrider_free(c, agree);
  }
  if (!same) {
    outrider_disconnect(c);
    return;
  }
  SayOnce("on", std::string("offloading ") + spec + " of communicator " + idhex + " (" +
                    std::to_string(nranks) + " ranks) through the agent as job '" + job + "'");
  auto* off = new Offload{c, std::move(rules), {}};
  MutexLock l(&g_offload_mu);
  Offloads()[comm] = off;
}

void EndOffload(ncclComm_t comm) {
  Offload* o = nullptr;
  {
    MutexLock l(&g_offload_mu);
    auto it = Offloads().find(comm);
    if (it == Offloads().end()) return;
    o = it->second;
    Offloads().erase(it);
  }
  for (outrider_op_t h : o->pending) (void)outrider_wait(o->client, h, 60000);
  outrider_disconnect(o->client);
  delete o;
}

std::optional<ncclResult_t> OffloadAllReduce(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes) {
  outrider_dtype_t dt;
  outrider_redop_t ro;
  Offload* o = OffloadFor(comm, NcclOp::kAllReduce, bytes, dtype, &op, stream, &dt, &ro);
  if (o == nullptr) return std::nullopt;
  outrider_op_options_t opts = OnStream(stream);
  outrider_op_t h = 0;
  int rc = outrider_allreduce(o->client, send, recv, count, dt, ro, &opts, &h);
  return Submitted(o, rc, h);
}

std::optional<ncclResult_t> OffloadBroadcast(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, int root, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes) {
  outrider_dtype_t dt;
  Offload* o = OffloadFor(comm, NcclOp::kBroadcast, bytes, dtype, nullptr, stream, &dt, nullptr);
  if (o == nullptr) return std::nullopt;
  if (send != recv && RankIn(comm) == root && !CopyOnStream(recv, send, bytes, stream)) {
    SayOnce("copy",
            "offload: a broadcast's root could not copy its data on the stream: "
            "the call fails with ncclUnhandledCudaError");
    return ncclUnhandledCudaError;
  }
  outrider_op_options_t opts = OnStream(stream);
  outrider_op_t h = 0;
  int rc = outrider_broadcast(o->client, recv, count, dt, root, &opts, &h);
  return Submitted(o, rc, h);
}

std::optional<ncclResult_t> OffloadAllGather(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclComm_t comm,
                                             cudaStream_t stream, size_t bytes) {
  outrider_dtype_t dt;
  Offload* o = OffloadFor(comm, NcclOp::kAllGather, bytes, dtype, nullptr, stream, &dt, nullptr);
  if (o == nullptr) return std::nullopt;
  outrider_op_options_t opts = OnStream(stream);
  outrider_op_t h = 0;
  int rc = outrider_allgather(o->client, send, recv, count, dt, &opts, &h);
  return Submitted(o, rc, h);
}

std::optional<ncclResult_t> OffloadReduceScatter(const void* send, void* recv, size_t count,
                                                 ncclDataType_t dtype, ncclRedOp_t op,
                                                 ncclComm_t comm, cudaStream_t stream,
                                                 size_t bytes) {
  outrider_dtype_t dt;
  outrider_redop_t ro;
  Offload* o = OffloadFor(comm, NcclOp::kReduceScatter, bytes, dtype, &op, stream, &dt, &ro);
  if (o == nullptr) return std::nullopt;
  outrider_op_options_t opts = OnStream(stream);
  outrider_op_t h = 0;
  int rc = outrider_reduce_scatter(o->client, send, recv, count, dt, ro, &opts, &h);
  return Submitted(o, rc, h);
}

}  // namespace outrider::shim
