// An unmodified NCCL program, for the interposer's tests (run with and without
// LD_PRELOAD=liboutrider_nccl.so): linked against libnccl.so.2 (the tests' fake one, over the fake
// CUDA driver), it forks `ranks` processes, one per GPU, which each make a communicator and run
//   3 allreduces of 1024 f32, 1 allreduce of 256 u32 (a dtype the agent lacks), 1 ncclBcast of 1024
//   f32 from rank 0 (which NCCL runs through its own ncclBroadcast), a group of one send to and one
//   receive from the next and previous ranks (256 i32), and with --capture one more allreduce while
//   the stream is being captured,
// checks every result, and destroys the communicator. Exit status 0 if every rank did. With
// WORLD_SIZE set, each rank gets RANK and LOCAL_RANK as torchrun would give them.
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"

namespace {

#define CHECK(cond, code)                                                                     \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "nccl_app rank %d: %s failed (line %d)\n", rank, #cond, __LINE__); \
      return code;                                                                            \
    }                                                                                         \
  } while (0)

int Rank(int rank, int ranks, ncclUniqueId id, bool capture) {
  auto loaded = outrider::cuda::Load();
  CHECK(loaded.ok(), 10);
  const outrider::cuda::Driver& d = **loaded;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CHECK(d.cuDeviceGet(&dev, rank) == CUDA_SUCCESS, 11);
  CHECK(d.cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
            d.cuCtxSetCurrent(ctx) == CUDA_SUCCESS,
        12);
  CUstream s = nullptr;
  CHECK(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, 13);
  ncclComm_t comm = nullptr;
  CHECK(ncclCommInitRank(&comm, ranks, id, rank) == ncclSuccess, 14);
  constexpr size_t n = 1024, m = 256;
  CUdeviceptr buf = 0, out = 0, p2p_in = 0, p2p_out = 0;
  CHECK(d.cuMemAlloc(&buf, n * 4) == CUDA_SUCCESS && d.cuMemAlloc(&out, n * 4) == CUDA_SUCCESS, 15);
  CHECK(
      d.cuMemAlloc(&p2p_in, m * 4) == CUDA_SUCCESS && d.cuMemAlloc(&p2p_out, m * 4) == CUDA_SUCCESS,
      15);
  std::vector<float> v(n, static_cast<float>(rank + 1));
  CHECK(d.cuMemcpyHtoDAsync(buf, v.data(), n * 4, s) == CUDA_SUCCESS, 16);
  auto* sbuf = reinterpret_cast<void*>(buf);
  auto* rbuf = reinterpret_cast<void*>(out);
  auto cs = reinterpret_cast<cudaStream_t>(s);
  for (int i = 0; i < 3; ++i)
    CHECK(ncclAllReduce(sbuf, rbuf, n, ncclFloat32, ncclSum, comm, cs) == ncclSuccess, 17);
  CHECK(d.cuMemcpyDtoHAsync(v.data(), out, n * 4, s) == CUDA_SUCCESS &&
            d.cuStreamSynchronize(s) == CUDA_SUCCESS,
        18);
  CHECK(v[0] == static_cast<float>(ranks * (ranks + 1) / 2) && v[n - 1] == v[0], 19);
  // An allreduce of a dtype the agent does not have (uint32).
  std::vector<uint32_t> u(m, static_cast<uint32_t>(rank + 1));
  CHECK(d.cuMemcpyHtoDAsync(p2p_in, u.data(), m * 4, s) == CUDA_SUCCESS, 36);
  auto* ubuf = reinterpret_cast<void*>(p2p_in);
  CHECK(ncclAllReduce(ubuf, ubuf, m, ncclUint32, ncclSum, comm, cs) == ncclSuccess, 37);
  CHECK(d.cuMemcpyDtoHAsync(u.data(), p2p_in, m * 4, s) == CUDA_SUCCESS &&
            d.cuStreamSynchronize(s) == CUDA_SUCCESS,
        38);
  CHECK(u[0] == static_cast<uint32_t>(ranks * (ranks + 1) / 2) && u[m - 1] == u[0], 39);
  // Broadcast in place from rank 0.
  std::vector<float> b(n, rank == 0 ? 42.0f : -1.0f);
  CHECK(d.cuMemcpyHtoDAsync(out, b.data(), n * 4, s) == CUDA_SUCCESS, 20);
  CHECK(ncclBcast(rbuf, n, ncclFloat32, 0, comm, cs) == ncclSuccess, 21);
  CHECK(d.cuMemcpyDtoHAsync(b.data(), out, n * 4, s) == CUDA_SUCCESS &&
            d.cuStreamSynchronize(s) == CUDA_SUCCESS,
        22);
  CHECK(b[0] == 42.0f && b[n - 1] == 42.0f, 23);
  // A ring step: send to the next rank, receive from the previous one.
  std::vector<int32_t> mine(m, 100 * rank), got(m, -1);
  CHECK(d.cuMemcpyHtoDAsync(p2p_out, mine.data(), m * 4, s) == CUDA_SUCCESS, 24);
  CHECK(ncclGroupStart() == ncclSuccess, 25);
  CHECK(ncclSend(reinterpret_cast<void*>(p2p_out), m, ncclInt32, (rank + 1) % ranks, comm, cs) ==
            ncclSuccess,
        26);
  CHECK(ncclRecv(reinterpret_cast<void*>(p2p_in), m, ncclInt32, (rank + ranks - 1) % ranks, comm,
                 cs) == ncclSuccess,
        27);
  CHECK(ncclGroupEnd() == ncclSuccess, 28);
  CHECK(d.cuMemcpyDtoHAsync(got.data(), p2p_in, m * 4, s) == CUDA_SUCCESS &&
            d.cuStreamSynchronize(s) == CUDA_SUCCESS,
        29);
  CHECK(got[0] == 100 * ((rank + ranks - 1) % ranks) && got[m - 1] == got[0], 30);
  if (capture) {
    CHECK(d.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS, 31);
    CHECK(ncclAllReduce(sbuf, rbuf, n, ncclFloat32, ncclSum, comm, cs) == ncclSuccess, 32);
    CUgraph graph = nullptr;
    CHECK(d.cuStreamEndCapture(s, &graph) == CUDA_SUCCESS, 33);
    CHECK(d.cuStreamSynchronize(s) == CUDA_SUCCESS, 34);
  }
  CHECK(ncclCommDestroy(comm) == ncclSuccess, 35);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = argc > 1 ? std::atoi(argv[1]) : 2;
  bool capture = argc > 2 && std::strcmp(argv[2], "--capture") == 0;
  if (ranks < 1 || ranks > 8) {
    std::fprintf(stderr, "usage: nccl_app RANKS [--capture]\n");
    return 2;
  }
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) return 3;
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    pid_t p = ::fork();
    if (p == 0) {
      // What torchrun gives each process, where the test asks for it by setting WORLD_SIZE; and
      // NCCL_APP_OFFLOAD_<r>, a different OUTRIDER_NCCL_OFFLOAD for rank r.
      if (std::getenv("WORLD_SIZE") != nullptr) {
        ::setenv("RANK", std::to_string(r).c_str(), 1);
        ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      }
      if (const char* mine = std::getenv(("NCCL_APP_OFFLOAD_" + std::to_string(r)).c_str())) {
        ::setenv("OUTRIDER_NCCL_OFFLOAD", mine, 1);
      }
      int rc = Rank(r, ranks, id, capture);
      std::fflush(stderr);
      std::exit(rc);  // static destructors run: the interposer sends its last counts
    }
    pids.push_back(p);
  }
  int failed = 0;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      std::fprintf(stderr, "nccl_app: rank pid %d ended with status %d\n", p, st);
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}
