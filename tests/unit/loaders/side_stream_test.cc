// loaders/cuda/side_stream.h against the fake driver, which holds a stream while a host function
// queued on it runs, as the driver does: the host function runs once the working stream passed the
// point of the call, the working stream goes on while it runs, and a side stream destroyed with
// host functions queued still runs them.
#include "loaders/cuda/side_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "ipc/event_fd.h"

namespace outrider::cuda {
namespace {

const Driver& D() {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  auto d = Load();
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) std::abort();
  CUcontext ctx = nullptr;
  EXPECT_EQ((*d)->cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  EXPECT_EQ((*d)->cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  return **d;
}

// What a host function saw, and when it may return.
struct Call {
  uint64_t* gate = nullptr;
  std::atomic<uint64_t> gate_seen{0};
  std::atomic<bool> started{false};
  std::atomic<bool> ran{false};
  std::atomic<bool> let_go{false};
};

void Blocking(void* p) {
  auto* c = static_cast<Call*>(p);
  c->gate_seen.store(std::atomic_ref<uint64_t>(*c->gate).load(std::memory_order_acquire));
  c->started.store(true);
  while (!c->let_go.load()) std::this_thread::yield();
  c->ran.store(true);
}

// Polls `done` for up to `ms` milliseconds (10 s: for what must come; less: that nothing comes).
template <typename F>
bool Within(uint64_t ms, F done) {
  uint64_t deadline = ipc::MonotonicNs() + ms * 1'000'000;
  while (!done()) {
    if (ipc::MonotonicNs() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(SideStream, AHostFunctionRunsOnceTheWorkingStreamPassedItAndTheWorkingStreamDoesNotWait) {
  const Driver& d = D();
  alignas(64) static uint64_t words[2] = {0, 0};  // the gate (the host opens it), done (the stream)
  ASSERT_EQ(d.cuMemHostRegister(words, sizeof(words), 0), CUDA_SUCCESS);
  CUdeviceptr dwords = 0;
  ASSERT_EQ(d.cuMemHostGetDevicePointer(&dwords, words, 0), CUDA_SUCCESS);
  std::atomic_ref<uint64_t> gate(words[0]), done(words[1]);
  CUstream working = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&working, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  SideStream side;
  Call call;
  call.gate = &words[0];
  ASSERT_EQ(d.cuStreamWaitValue64(working, dwords, 1, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_TRUE(LaunchHostFuncAfter(d, &side, working, Blocking, &call).ok());
  EXPECT_NE(side.stream, nullptr);
  ASSERT_EQ(d.cuStreamWriteValue64(working, dwords + 8, 7, CU_STREAM_WRITE_VALUE_DEFAULT),
            CUDA_SUCCESS);
  // The side stream's thread is free to run it, but the working stream has not passed the gate.
  EXPECT_FALSE(Within(20, [&] { return call.started.load(); }))
      << "it ran before the working stream passed the gate";
  gate.store(1, std::memory_order_release);
  // The host function blocks until let go; the working stream's write behind it lands anyway.
  bool passed = Within(10'000, [&] { return d.cuStreamQuery(working) == CUDA_SUCCESS; });
  EXPECT_TRUE(passed) << "the working stream waited for its host function";
  EXPECT_EQ(done.load(), passed ? 7u : 0u);
  call.let_go.store(true);
  ASSERT_TRUE(Within(10'000, [&] { return call.ran.load(); }));
  EXPECT_EQ(call.gate_seen.load(), 1u) << "it ran before the working stream passed the gate";
  DestroySideStream(d, &side);
  EXPECT_EQ(side.stream, nullptr);
  EXPECT_EQ(d.cuStreamDestroy(working), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemHostUnregister(words), CUDA_SUCCESS);
}

TEST(SideStream, HostFunctionsQueuedWhenItIsDestroyedStillRun) {
  const Driver& d = D();
  alignas(64) static uint64_t gate_word = 0;
  ASSERT_EQ(d.cuMemHostRegister(&gate_word, sizeof(gate_word), 0), CUDA_SUCCESS);
  CUdeviceptr dgate = 0;
  ASSERT_EQ(d.cuMemHostGetDevicePointer(&dgate, &gate_word, 0), CUDA_SUCCESS);
  CUstream working = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&working, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  SideStream side;
  Call first, second;
  first.gate = second.gate = &gate_word;
  first.let_go.store(true);
  second.let_go.store(true);
  ASSERT_TRUE(LaunchHostFuncAfter(d, &side, working, Blocking, &first).ok());
  ASSERT_EQ(d.cuStreamWaitValue64(working, dgate, 1, CU_STREAM_WAIT_VALUE_GEQ), CUDA_SUCCESS);
  ASSERT_TRUE(LaunchHostFuncAfter(d, &side, working, Blocking, &second).ok());
  ASSERT_TRUE(Within(10'000, [&] { return first.ran.load(); }));
  DestroySideStream(d, &side);  // `second` waits for the gate still
  std::atomic_ref<uint64_t>(gate_word).store(1, std::memory_order_release);
  EXPECT_TRUE(Within(10'000, [&] { return second.ran.load(); }));
  EXPECT_EQ(d.cuStreamSynchronize(working), CUDA_SUCCESS);
  EXPECT_EQ(d.cuStreamDestroy(working), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemHostUnregister(&gate_word), CUDA_SUCCESS);
}

TEST(SideStream, WithoutAContextNothingIsQueuedAndTheErrorNamesTheCall) {
  const Driver& d = D();
  CUstream working = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&working, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  SideStream side;
  Status st;
  std::thread([&] {  // a thread with no current context
    st = LaunchHostFuncAfter(
        d, &side, working, [](void*) {}, nullptr);
  })
      .join();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cuStreamCreate (a stream for host functions)"), std::string::npos)
      << st.ToString();
  EXPECT_EQ(side.stream, nullptr);
  EXPECT_EQ(side.passed, nullptr);
  DestroySideStream(d, &side);  // nothing to destroy
  EXPECT_EQ(d.cuStreamDestroy(working), CUDA_SUCCESS);
}

}  // namespace
}  // namespace outrider::cuda
