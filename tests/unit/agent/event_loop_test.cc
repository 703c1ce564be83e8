// The progress loop's hand-off from other threads: a task posted runs on the loop; once the loop
// is closed, what waited is dropped unrun (its promise broken, so no thread waits out a timeout)
// and later posts are refused.
#include "agent/event_loop.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <thread>

namespace outrider::agent {
namespace {

TEST(EventLoopTest, APostedTaskRunsOnTheLoop) {
  Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create(0);
  ASSERT_TRUE(loop.ok()) << loop.status().ToString();
  EventLoop* l = loop->get();
  std::thread::id ran_on;
  std::thread poster([&] {
    EXPECT_TRUE(l->Post([&] {
      ran_on = std::this_thread::get_id();
      l->Stop();
    }));
  });
  EventLoop::Hooks hooks;
  hooks.poll = [] { return false; };
  hooks.prepare_sleep = [] { return true; };
  hooks.after_wake = [] {};
  hooks.timeout_ms = [] { return -1; };
  l->Run(hooks);
  poster.join();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(EventLoopTest, AClosedLoopDropsWhatWaitedAndRefusesMore) {
  Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create(0);
  ASSERT_TRUE(loop.ok()) << loop.status().ToString();
  auto promise = std::make_shared<std::promise<int>>();
  std::future<int> answer = promise->get_future();
  bool ran = false;
  ASSERT_TRUE((*loop)->Post([promise = std::move(promise), &ran] {
    ran = true;
    promise->set_value(1);
  }));
  (*loop)->Close();
  // Broken, not pending: the waiter learns at once.
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_THROW(answer.get(), std::future_error);
  EXPECT_FALSE(ran);
  EXPECT_FALSE((*loop)->Post([&ran] { ran = true; }));
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace outrider::agent
