// The NCCL path's launch order (agent/engine/gpu/nccl_path.h) in one process, on the fake CUDA
// driver and the fake NCCL: a job of one rank on GPU 0, its instances cut into chunks, tickets
// handed out most urgent first (priorities aged by the wait), at most two chunks' bytes of them
// unfinished.
#include "agent/engine/gpu/nccl_path.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <vector>

#include "agent/memory/cuda_memory.h"
#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"

namespace outrider::agent {
namespace {

constexpr uint64_t kChunk = 4096;

// The fakes, before anything loads a driver or NCCL in this process.
const cuda::Driver& FakeCuda() {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  ::setenv("OUTRIDER_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
  ::setenv("OUTRIDER_FAKE_CUDA_DEVICES", "1", 1);
  auto d = cuda::Load();
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  CUcontext ctx = nullptr;
  EXPECT_EQ((*d)->cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  EXPECT_EQ((*d)->cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  return **d;
}

// The GPU memory the tests' NCCL paths use, over the fake driver.
GpuMemory& Memory() {
  static GpuMemory memory;
  return memory;
}

// An in-place f32 sum allreduce of `n` floats on GPU 0, the values i % 251.
ValidatedOp Allreduce(const cuda::Driver& d, uint64_t key, uint64_t n) {
  CUdeviceptr p = 0;
  EXPECT_EQ(d.cuMemAlloc(&p, n * 4), CUDA_SUCCESS);
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 251);
  EXPECT_EQ(d.cuMemcpyHtoDAsync(p, v.data(), n * 4, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  ValidatedOp op;
  op.key = key;
  op.kind = ipc::OpKind::kAllreduce;
  op.dtype = ipc::DType::kF32;
  op.count = n;
  op.recv = BufferSpan{MemoryKind::kCudaFd, 0, static_cast<uint64_t>(p), n * 4};
  return op;
}

TEST(NcclPathTest, AnUrgentInstanceGetsTheNextTicketAfterAtMostTwoChunksOfABigOne) {
  const cuda::Driver& d = FakeCuda();
  ASSERT_TRUE(Memory().Get().ok()) << Memory().Get().status().ToString();
  std::vector<std::pair<uint64_t, NcclTicket>> tickets;  // (key, ticket) in the order handed out
  NcclPath::Links links;
  links.send_ticket = [&](uint64_t key, uint64_t, const NcclTicket& t) {
    tickets.emplace_back(key, t);
  };
  NcclPath path("order", /*node=*/0, /*world=*/1,
                {uint64_t{10'000'000'000}, kChunk, uint64_t{100'000'000}, {}, nullptr, &Memory()},
                links);
  path.SetRanks({0});
  ValidatedOp big = Allreduce(d, 1, 16 * kChunk / 4);  // 16 chunks
  ValidatedOp urgent = Allreduce(d, 2, 100);
  std::vector<uint64_t> finished;
  path.Add(1, 0, {&big}, /*priority=*/0, [&](const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
    finished.push_back(1);
  });
  path.Agreed(1, 0);
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
  while (tickets.empty() && ipc::MonotonicNs() < deadline)
    path.Pump();  // communicator start, first tickets
  // A pump hands out tickets up to the window (two chunks), and once more after completions: at
  // most four, however fast the chunks finish; without the window all sixteen would go at once.
  size_t before = tickets.size();
  ASSERT_GE(before, 2u) << path.StatusJson().dump();
  ASSERT_LE(before, 4u) << path.StatusJson().dump();
  path.Add(2, 0, {&urgent}, /*priority=*/-100, [&](const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
    finished.push_back(2);
  });
  path.Agreed(2, 0);
  while (path.busy() && ipc::MonotonicNs() < deadline) path.Pump();
  ASSERT_FALSE(path.busy()) << path.StatusJson().dump();
  ASSERT_EQ(tickets.size(), 17u);
  EXPECT_EQ(tickets[before].first,
            2u);  // the next ticket, ahead of the big instance's remaining chunks
  EXPECT_EQ(tickets[before].second.count, 100u);
  for (size_t i = 0; i < tickets.size(); ++i) EXPECT_EQ(tickets[i].second.number, i);
  uint64_t covered = 0;  // the big instance's chunks cover it once, in order
  for (auto& [key, t] : tickets) {
    if (key != 1) continue;
    EXPECT_EQ(t.first, covered);
    EXPECT_LE(t.count, kChunk / 4);
    covered += t.count;
  }
  EXPECT_EQ(covered, big.count);
  EXPECT_EQ(finished, (std::vector<uint64_t>{2, 1}));  // before the big one's last chunk
  // One rank: the sum is the rank's own values.
  std::vector<float> out(big.count);
  ASSERT_EQ(d.cuMemcpyDtoHAsync(out.data(), big.recv.address, big.recv.length, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  for (uint64_t i = 0; i < big.count; ++i) ASSERT_EQ(out[i], static_cast<float>(i % 251)) << i;
}

// Tickets age like the send scheduler's chunks: an instance ready for long goes ahead of a more
// urgent one that just became ready, so a stream of urgent ops cannot starve it. Without aging the
// priorities alone decide.
TEST(NcclPathTest, AnInstanceReadyForLongGoesAheadOfAFreshMoreUrgentOneUnlessAgingIsOff) {
  const cuda::Driver& d = FakeCuda();
  ASSERT_TRUE(Memory().Get().ok());
  for (uint64_t aging_ns : {uint64_t{100'000'000}, uint64_t{0}}) {
    SCOPED_TRACE(aging_ns ? "aging" : "no aging");
    uint64_t now = 0;
    std::vector<uint64_t> keys;  // by ticket
    NcclPath::Links links;
    links.send_ticket = [&](uint64_t key, uint64_t, const NcclTicket&) { keys.push_back(key); };
    NcclPath path(
        "aging", 0, 1,
        {uint64_t{10'000'000'000}, kChunk, aging_ns, [&] { return now; }, nullptr, &Memory()},
        links);
    path.SetRanks({0});
    ValidatedOp low = Allreduce(d, 1, kChunk / 4), first = Allreduce(d, 2, 2 * kChunk / 4),
                fresh = Allreduce(d, 3, 2 * kChunk / 4);
    int done = 0;
    auto finish = [&](const Status& st) {
      EXPECT_TRUE(st.ok()) << st.ToString();
      ++done;
    };
    // Ready at 0: a low-priority instance and an urgent one; 1.5 s later (15 aging levels) another
    // urgent one, before any ticket (the communicator starts on the first pump).
    path.Add(1, 0, {&low}, /*priority=*/10, finish);
    path.Agreed(1, 0);
    path.Add(2, 0, {&first}, /*priority=*/0, finish);
    path.Agreed(2, 0);
    now = 1'500'000'000;
    path.Add(3, 0, {&fresh}, /*priority=*/0, finish);
    path.Agreed(3, 0);
    uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
    while (path.busy() && ipc::MonotonicNs() < deadline) path.Pump();
    ASSERT_EQ(done, 3) << path.StatusJson().dump();
    // The urgent one ready since 0 first (its two chunks fill the window), then the low one ahead
    // of the fresh urgent one: 10 - 15 levels against 0.
    EXPECT_EQ(keys, aging_ns ? (std::vector<uint64_t>{2, 2, 1, 3, 3})
                             : (std::vector<uint64_t>{2, 2, 3, 3, 1}));
  }
}

TEST(NcclPathTest, AnInstanceDroppedAfterItsLaunchWasOrderedFailsTheRestNamingWhy) {
  const cuda::Driver& d = FakeCuda();
  ASSERT_TRUE(Memory().Get().ok());
  NcclPath path("drop", 0, 1,
                {uint64_t{10'000'000'000}, kChunk, uint64_t{100'000'000}, {}, nullptr, &Memory()});
  path.SetRanks({0});
  ValidatedOp a = Allreduce(d, 1, 16 * kChunk / 4), b = Allreduce(d, 2, 100);
  Status a_done = Internal("not run"), b_done = Internal("not run");
  path.Add(1, 0, {&a}, 0, [&](const Status& st) { a_done = st; });
  path.Add(2, 0, {&b}, 0, [&](const Status& st) { b_done = st; });
  path.Agreed(1, 0);
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
  while (path.StatusJson()["next_launch"] == 0 && ipc::MonotonicNs() < deadline) path.Pump();
  path.Drop(1, 0, Mismatch("node 1 disagrees"));
  EXPECT_EQ(a_done.message(), "not run");  // the dropped one's owner knows already
  EXPECT_EQ(b_done.code(), Code::kMismatch);
  EXPECT_NE(b_done.message().find("failed after its NCCL launch was ordered"), std::string::npos)
      << b_done.ToString();
  EXPECT_NE(b_done.message().find("node 1 disagrees"), std::string::npos) << b_done.ToString();
  // Later instances fail at once with the same error.
  Status c_done;
  path.Add(3, 0, {&b}, 0, [&](const Status& st) { c_done = st; });
  EXPECT_EQ(c_done.code(), Code::kMismatch);
}

}  // namespace
}  // namespace outrider::agent
