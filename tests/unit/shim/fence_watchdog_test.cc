// The fence watchdog on its own: a socketpair stands for the agent's socket, an array for the
// control segment's fence slots, a word for its departure. When the agent's end closes, every
// slot behind the newest op is released with UNAVAILABLE and no other is touched; stopped first,
// it touches nothing. An agent that handed the client over leaves the streams waiting for the
// next agent: until the owner stops the watchdog (it reached that agent), or the hold ends.
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

// What the watchdog watches: `s`'s client end, `fences`, and `departure` held `hold_ms`.
FenceWatchdog::Watch Watching(const SocketPair& s, std::vector<ipc::FenceSlot>& fences,
                              const uint16_t* departure = nullptr, int hold_ms = 0) {
  return FenceWatchdog::Watch{.socket_fd = s.client.get(),
                              .fences = fences.data(),
                              .departure = departure,
                              .keep = nullptr,
                              .hold_ms = hold_ms};
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
  ASSERT_TRUE(w.Start(Watching(s, fences)).ok());
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
  ASSERT_TRUE(w.Start(Watching(s, fences)).ok());
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
  ASSERT_TRUE(w.Start(Watching(s, fences)).ok());
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

TEST(FenceWatchdogTest, AnAgentThatHandedTheClientOverLeavesTheStreamsToTheNextAgent) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  fences[3].done = 7;  // a stream waiting for op 9, which the agent gave back
  uint16_t departure = ipc::kDepartureHandedOver;
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(Watching(s, fences, &departure, 60000)).ok());
  w.set_last_op(9);
  s.agent.reset();  // the agent exits after its goodbye
  ASSERT_TRUE(testing::WaitUntil([&] { return w.holding(); }, 10000));
  w.Stop();  // the owner reached the next agent, which signals the fence
  EXPECT_FALSE(w.agent_gone());
  EXPECT_EQ(Done(fences[3]), 7u);
  EXPECT_EQ(fences[3].status, 0);
}

TEST(FenceWatchdogTest, StreamsHeldForANextAgentThatNeverComesGoOnAfterTheHold) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  uint16_t departure = ipc::kDepartureHandedOver;
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(Watching(s, fences, &departure, 50)).ok());
  w.set_last_op(4);
  s.agent.reset();
  ASSERT_TRUE(WaitGone(w));
  w.Stop();
  EXPECT_FALSE(w.holding());
  EXPECT_EQ(Done(fences[3]), 4u);
  EXPECT_EQ(fences[3].status, static_cast<int32_t>(Code::kUnavailable));
}

TEST(FenceWatchdogTest, AnAgentThatWentWithoutHandingOverReleasesAtOnceDespiteAHold) {
  SocketPair s;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  uint16_t departure = 0;  // killed, or stopped without handing the job over
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(Watching(s, fences, &departure, 600000)).ok());
  w.set_last_op(4);
  s.agent.reset();
  ASSERT_TRUE(WaitGone(w));  // within 10 s, not the 600 s hold
  w.Stop();
  EXPECT_EQ(Done(fences[0]), 4u);
}

TEST(FenceWatchdogTest, StartedAgainItWatchesTheNextSocket) {
  SocketPair first, second;
  std::vector<ipc::FenceSlot> fences(ipc::kFenceSlots);
  FenceWatchdog w;
  ASSERT_TRUE(w.Start(Watching(first, fences)).ok());
  EXPECT_FALSE(w.Start(Watching(second, fences)).ok());  // one thread at a time
  w.Stop();
  ASSERT_TRUE(w.Start(Watching(second, fences)).ok());
  w.set_last_op(3);
  second.agent.reset();
  ASSERT_TRUE(WaitGone(w));
  w.Stop();
  EXPECT_EQ(Done(fences[0]), 3u);
}

}  // namespace
}  // namespace outrider::shim
