// Sparse ops on device buffers in gpu_mode ipc whose rows the agent coalesces on the GPU before
// copying them (liboutrider_gpu_sparse.so; here its algorithm built for the host, on the fake
// CUDA driver's memory): the first op of a key is staged as it is, and once its rows were seen
// unsorted the next ones are coalesced, with the same results; without the library every op is
// staged as it is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tests/integration/fake_gpu.h"
#include "tests/integration/gpu_sparse_steps.h"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

using sparse_steps::SparseSteps;

void RunTwoRanks(const harness::AgentProcess& agent, const char* job) {
  Ranks ranks(2, [&](int r) {
    const cuda::Driver& d = ChildCuda("ipc");
    outrider_client_t* c = ConnectOrExit(agent.socket_path(), job, r, 2);
    int rc = SparseSteps(d, c, r);
    outrider_disconnect(c);
    return rc;
  });
  ranks.ExpectAllExitZero();
}

TEST(GpuSparseTest, RowsSeenUnsortedAreCoalescedOnTheGpuFromTheNextOpOnWithTheSameResults) {
  ::setenv("OUTRIDER_GPU_SPARSE_LIBRARY", GPU_SPARSE_HOST_LIBRARY, 1);
  auto agent = StartGpuAgent();
  ::unsetenv("OUTRIDER_GPU_SPARSE_LIBRARY");
  ASSERT_NE(agent, nullptr);
  RunTwoRanks(*agent, "gpu-sparse-coalesce");
  std::string log = AgentLog(*agent);
  EXPECT_NE(log.find("are coalesced there before they are copied (op 2: 30000 rows;"),
            std::string::npos)
      << "the second op of each rank (its first was seen unsorted) is coalesced:\n"
      << log;
  EXPECT_EQ(log.find("op 1: 30000 rows"), std::string::npos) << "the first is staged as it is:\n"
                                                             << log;
}

TEST(GpuSparseTest, WithoutTheLibraryRowsAreStagedAsTheyAre) {
  ::setenv("OUTRIDER_GPU_SPARSE_LIBRARY", "/nonexistent/liboutrider_gpu_sparse.so", 1);
  auto agent = StartGpuAgent();
  ::unsetenv("OUTRIDER_GPU_SPARSE_LIBRARY");
  ASSERT_NE(agent, nullptr);
  RunTwoRanks(*agent, "gpu-sparse-staged");
  EXPECT_EQ(AgentLog(*agent).find("coalesced there"), std::string::npos);
}

}  // namespace
}  // namespace outrider::testing
