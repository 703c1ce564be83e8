// NCCL's profiler plugin interface, versions 5 (NCCL 2.28) and 4 (NCCL 2.27), laid out as NCCL's
// ext-profiler headers have them (NCCL installs no header for it): what
// libnccl-profiler-outrider.so exports and what its tests drive it through.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace outrider::nccl_profiler {

using Result = int;  // ncclResult_t
constexpr Result kSuccess = 0;
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt,
                        ...);

enum : uint64_t { kGroup = 1, kColl = 2, kP2p = 4, kKernelCh = 64 };
constexpr int kStateKernelChStop = 22;

union EventUnion {
  struct {
    bool graph_captured;
    int group_depth;
  } group_api;
  struct {
    const char* func;
    size_t count;
    const char* datatype;
    int root;
    void* stream;
    bool graph_captured;
  } coll_api;
  struct {
    const char* func;
    size_t count;
    const char* datatype;
    void* stream;
    bool graph_captured;
  } p2p_api;
  struct {
    void* stream;
  } kernel_launch;
  struct {
    uint64_t seq;
    const char* func;
    const void* send;
    void* recv;
    size_t count;
    int root;
    const char* datatype;
    uint8_t channels, warps;
    const char* algo;
    const char* proto;
    void* parent_group;  // version 5 only
  } coll;
  struct {
    const char* func;
    void* buff;
    const char* datatype;
    size_t count;
    int peer;
    uint8_t channels;
    void* parent_group;
  } p2p;
  struct {
    pid_t pid;
    uint8_t channel;
    int peer;
    int steps;
    int chunk;
    int is_send;
  } proxy_op;
  struct {
    int step;
  } proxy_step;
  struct {
    uint8_t channel;
    uint64_t timer;
  } kernel_ch;
  struct {
    int64_t id;
    void* data;
  } net_plugin;
};

struct DescrV5 {
  uint64_t type;
  void* parent;
  int rank;
  EventUnion u;
};
struct DescrV4 {
  uint8_t type;
  void* parent;
  int rank;
  EventUnion u;  // the members version 4 has lie where version 5 has them
};
static_assert(sizeof(DescrV5) == 112 && offsetof(DescrV5, u) == 24 && offsetof(DescrV4, u) == 24);
static_assert(offsetof(EventUnion, coll.datatype) == 48 &&
              offsetof(EventUnion, kernel_ch.timer) == 8);

union StateArgs {
  struct {
    size_t size;
  } proxy_step;
  struct {
    int appended;
  } proxy_ctrl;
  struct {
    void* data;
  } net_plugin;
  struct {
    uint64_t timer;
  } kernel_ch;
};

struct ProfilerV5 {
  const char* name;
  Result (*init)(void** ctx, uint64_t comm_id, int* mask, const char* comm_name, int nodes,
                 int nranks, int rank, Logger log);
  Result (*start)(void* ctx, void** handle, DescrV5* d);
  Result (*stop)(void* handle);
  Result (*record)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* ctx);
};
struct ProfilerV4 {
  const char* name;
  Result (*init)(void** ctx, int* mask, const char* comm_name, uint64_t comm_id, int nodes,
                 int nranks, int rank, Logger log);
  Result (*start)(void* ctx, void** handle, DescrV4* d);
  Result (*stop)(void* handle);
  Result (*record)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* ctx);
};

}  // namespace outrider::nccl_profiler
