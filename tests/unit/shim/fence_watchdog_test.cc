// The fence watchdog on its own: a socketpair stands for the agent's socket, an array for the
// control segment's fence slots. When the agent's end closes, every slot behind the newest op is
// released with UNAVAILABLE and no other is touched; stopped first, it touches nothing.
#include "shim/fence_watchdog.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <vector>

#include "ipc/unique_fd.h"
#include "tests/support/test_support.h"

namespace outrider::shim {
namespace {

struct SocketPair {
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    client = UniqueFd(fds[0]);
    agent = UniqueFd(fds[1]);
  }
  UniqueFd client, agent;
};

uint64_t Done(const ipc::FenceSlot& s) {
  return std::atomic_ref<const uint64_t>(s.done).load(std::memory_order_acquire);
}

// Waits (at most 10 s) until the watchdog says the agent is gone.
bool WaitGone(const FenceWatchdog& w) {
  return testing::WaitUntil([&] { return w.agent_gone(); }, 10000);
}

TEST(FenceWatchdogTest, TheAgentHangingUpReleasesEveryFenceBehindTheNewestOp) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  fences[3].done = 7;   // a stream waiting for op 9
  fences[4].done = 9;   // done already
  fences[5].done = 12;  // ahead (a later op the agent finished)
  fences[5].status = static_cast<int32_t>(Code::kOk);
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(s.client.get(), fences.data()).ok());
  w.set_last_op(9);
  EXPECT_FALSE(w.agent_gone());
  s.agent.reset();  // the agent exits
  ASSERT_TRUE(WaitGone(w));
  w.Stop();
  EXPECT_EQ(Done(fences[3]), 9u);
  EXPECT_EQ(fences[3].status, static_cast<int32_t>(Code::kUnavailable));
  EXPECT_EQ(Done(fences[0]), 9u);  // every slot behind: whichever a stream waits on goes on
  EXPECT_EQ(Done(fences[4]), 9u);
  EXPECT_EQ(fences[4].status, static_cast<int32_t>(Code::kOk));  // its own result stands
  EXPECT_EQ(Done(fences[5]), 12u);
  EXPECT_EQ(fences[5].status, static_cast<int32_t>(Code::kOk));
}

TEST(FenceWatchdogTest, StoppedWhileTheAgentLivesItTouchesNothing) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(s.client.get(), fences.data()).ok());
  w.set_last_op(5);
  w.Stop();
  s.agent.reset();  // after Stop: nobody watches any more
  EXPECT_FALSE(w.agent_gone());
  for (const ipc::FenceSlot& f : fences) {
    EXPECT_EQ(Done(f), 0u);
    EXPECT_EQ(f.status, 0);
  }
}

TEST(FenceWatchdogTest, DataFromTheAgentDoesNotWakeIt) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(s.client.get(), fences.data()).ok());
  w.set_last_op(2);
  char byte = 'x';
  ASSERT_EQ(::send(s.agent.get(), &byte, 1, MSG_NOSIGNAL), 1);  // a reply the caller will read
  // The caller's thread reads it, as the client does; the watchdog never reads the socket.
  pollfd p{s.client.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 10000), 1);
  ASSERT_EQ(::recv(s.client.get(), &byte, 1, 0), 1);
  EXPECT_FALSE(w.agent_gone());
  s.agent.reset();
  ASSERT_TRUE(WaitGone(w));
  w.Stop();
  EXPECT_EQ(Done(fences[0]), 2u);
}

}  // namespace
}  // namespace outrider::shim
