// What the fake NCCL's parts share (fake_nccl_comm.cc: communicators and their segment;
// fake_nccl_reduce.cc: dtypes and reductions; fake_nccl_calls.cc: collectives, point-to-point
// groups and their launch on a stream). The library's behaviour is described in
// fake_nccl_comm.cc.
#pragma once

#include <nccl.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))
// As NCCL exports them: every entry strong as pnccl*, and weak as nccl* (so that a library put
// before this one, with LD_PRELOAD, takes the nccl* names and still reaches these). An alias lives
// in the file that defines its entry.
#define FAKE_WEAK(name)                                  \
  extern "C" __attribute__((visibility("default"), weak, \
                            alias("pnccl" #name))) decltype(pnccl##name) nccl##name;

namespace outrider::fake_nccl {

constexpr uint64_t kMagic = 0x4c43434e454b4146ull;  // "FAKENCCL"
constexpr int kMaxRanks = 64;
constexpr size_t kSlotBytes = size_t{1} << 20;  // each rank's staging space in the segment

struct IdBytes {
  uint64_t magic;
  uint64_t nonce;
};
static_assert(sizeof(IdBytes) <= NCCL_UNIQUE_ID_BYTES);

// What a rank launched at one position of the order.
struct Desc {
  int32_t kind;  // 1 allreduce, 2 broadcast, 3 allgather, 4 reduce-scatter, 5 point-to-point group
  int32_t dtype, op, root;
  uint64_t count;
};

struct RankSlot {
  std::atomic<int32_t> pid;
  char uuid[48];
  std::atomic<uint64_t> step;  // barriers passed
  Desc desc;
  uint64_t p2p_bytes;  // point-to-point: bytes this rank sends in the current round
};

struct Segment {
  uint64_t magic;
  int32_t nranks;
  std::atomic<int32_t> joined;
  std::atomic<int32_t> failed;  // ncclResult_t of the first failure, 0 while none
  std::atomic<int32_t> failing_rank;
  char why[512];
  RankSlot ranks[kMaxRanks];
};

inline size_t SegmentBytes(int nranks) {
  return sizeof(Segment) + static_cast<size_t>(nranks) * kSlotBytes;
}

// Thread-locals take static TLS: the library is dlopen'ed (see the fake driver's t_context).
// The last error of a call without a communicator (ncclGetLastError(nullptr)).
[[gnu::tls_model("initial-exec")]] extern thread_local std::string t_last_error;

struct Comm {
  int nranks = 0, rank = 0;
  std::string name;
  Segment* seg = nullptr;
  uint8_t* slots = nullptr;
  std::atomic<int> state{ncclInProgress};  // what ncclCommGetAsyncError says
  std::atomic<bool> abort{false};
  std::mutex mu;
  std::string error;  // ncclGetLastError(comm)
  uint64_t step = 0;  // barriers this rank entered (its stream only)
  std::string uuid;
  std::thread init;

  uint8_t* Slot(int r) const { return slots + static_cast<size_t>(r) * kSlotBytes; }
  void Fail(ncclResult_t rc, const std::string& why, bool tell_peers) {
    {
      std::lock_guard<std::mutex> l(mu);
      if (error.empty()) error = why;
    }
    int expect = ncclSuccess;
    state.compare_exchange_strong(expect, rc);
    expect = ncclInProgress;
    state.compare_exchange_strong(expect, rc);
    if (tell_peers && seg != nullptr) {
      int none = 0;
      if (seg->failed.compare_exchange_strong(none, rc)) {
        seg->failing_rank.store(rank);
        std::snprintf(seg->why, sizeof(seg->why), "%s", why.c_str());
      }
    }
  }
  std::string Error() {
    std::lock_guard<std::mutex> l(mu);
    return error;
  }
  ~Comm() {
    if (init.joinable()) init.join();
    if (seg != nullptr) ::munmap(seg, SegmentBytes(nranks));
  }
};

// The handle NCCL gives out owns a reference: collectives still queued on a stream hold another.
struct Handle {
  std::shared_ptr<Comm> comm;
};

inline Comm* Of(ncclComm_t c) { return reinterpret_cast<Handle*>(c)->comm.get(); }

// Spins a little, then sleeps 50 µs at a time.
void Pause(int& spins);
// Waits until every rank passed `step` barriers; false (the communicator failed) if it was
// aborted or a peer is gone.
bool Barrier(Comm& c);
// Maps the communicator's segment and waits for every rank (its state says how it went).
void Join(const std::shared_ptr<Comm>& c, IdBytes id);

// Bytes of an element of `t` (0: not a dtype the fake has).
size_t Size(ncclDataType_t t);
// out[i] = in_0[i] op in_1[i] op ... (ranks in order, as NCCL's result is the same on every
// rank); false for a dtype the fake cannot reduce.
bool Reduce(const std::vector<const uint8_t*>& in, uint8_t* out, size_t n, ncclDataType_t t,
            ncclRedOp_t op);

}  // namespace outrider::fake_nccl
