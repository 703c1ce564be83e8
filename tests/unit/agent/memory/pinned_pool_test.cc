// The pinned staging pool: buffers are reused by size, bounded in total, and given back once idle
// for the configured time; pinning is the driver's (here a fake that records what is pinned).
#include "agent/memory/pinned_pool.h"

#include <gtest/gtest.h>

#include <map>

namespace outrider::agent {
namespace {

constexpr uint64_t kMs = 1'000'000;

class PinnedPoolTest : public ::testing::Test {
 protected:
  PinnedPool Make(uint64_t max_bytes, uint64_t idle_ms) {
    return PinnedPool(
        {max_bytes, idle_ms * kMs},
        [this](void* p, uint64_t n) {
          if (refuse_) return ResourceExhausted("pinning refused");
          pinned_[p] = n;
          return Status::Ok();
        },
        [this](void* p, uint64_t) { pinned_.erase(p); });
  }
  uint64_t Pinned() const {
    uint64_t n = 0;
    for (const auto& [p, bytes] : pinned_) n += bytes;
    return n;
  }
  std::map<void*, uint64_t> pinned_;  // what the fake driver has pinned now
  bool refuse_ = false;
};

TEST_F(PinnedPoolTest, ReusesAnIdleBufferOfTheSameSize) {
  PinnedPool pool = Make(64 << 20, 1000);
  auto a = pool.Take(100 << 10);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->bytes, 128u << 10);  // a power of two
  a->data[0] = 7;                   // the memory is usable
  pool.Give(*a, 0);
  auto b = pool.Take(70 << 10);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->data, a->data);
  EXPECT_EQ(Pinned(), 128u << 10);
  pool.Give(*b, 0);
}

TEST_F(PinnedPoolTest, GivesIdleBuffersBackAfterTheIdleTimeAndOnlyThen) {
  PinnedPool pool = Make(64 << 20, 1000);
  auto a = pool.Take(1 << 20), b = pool.Take(4 << 20);
  ASSERT_TRUE(a.ok() && b.ok());
  pool.Give(*a, 100 * kMs);
  pool.Give(*b, 600 * kMs);
  EXPECT_EQ(pool.pinned_bytes(), 5u << 20);
  EXPECT_EQ(pool.idle_bytes(), 5u << 20);
  EXPECT_EQ(pool.NextTrimNs(), 1100 * kMs);
  EXPECT_EQ(pool.Trim(1099 * kMs), 0u);
  EXPECT_EQ(pool.Trim(1100 * kMs), 1u << 20);
  EXPECT_EQ(Pinned(), 4u << 20);
  EXPECT_EQ(pool.Trim(1600 * kMs), 4u << 20);
  EXPECT_EQ(Pinned(), 0u);
  EXPECT_EQ(pool.pinned_bytes(), 0u);
  EXPECT_EQ(pool.NextTrimNs(), UINT64_MAX);
}

TEST_F(PinnedPoolTest, WithoutAnIdleTimeABufferGoesBackAtOnce) {
  PinnedPool pool = Make(64 << 20, 0);
  auto a = pool.Take(1 << 20);
  ASSERT_TRUE(a.ok());
  pool.Give(*a, 0);
  EXPECT_EQ(Pinned(), 0u);
}

TEST_F(PinnedPoolTest, StaysUnderItsBoundGivingIdleBuffersOfOtherSizesBackFirst) {
  PinnedPool pool = Make(8 << 20, 60'000);
  auto a = pool.Take(4 << 20), b = pool.Take(2 << 20);
  ASSERT_TRUE(a.ok() && b.ok());
  // In use: 6 MiB. 4 more would pass the bound.
  auto c = pool.Take(4 << 20);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kResourceExhausted);
  EXPECT_NE(c.status().message().find("gpu_pinned_max_bytes=8388608"), std::string::npos)
      << c.status().message();
  // Idle buffers of another size make room.
  pool.Give(*b, 0);
  pool.Give(*a, 0);
  auto d = pool.Take(8 << 20);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(Pinned(), 8u << 20);
  pool.Give(*d, 0);
}

TEST_F(PinnedPoolTest, APinThatFailsLeavesNothingBehind) {
  PinnedPool pool = Make(64 << 20, 1000);
  refuse_ = true;
  auto a = pool.Take(1 << 20);
  EXPECT_EQ(a.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(pool.pinned_bytes(), 0u);
}

TEST_F(PinnedPoolTest, TheDefaultBoundIsAnEighthOfTheHostWithinItsLimits) {
  uint64_t d = PinnedPool::DefaultMaxBytes();
  EXPECT_GE(d, uint64_t{256} << 20);
  EXPECT_LE(d, uint64_t{64} << 30);
  EXPECT_EQ(Make(0, 1).max_bytes(), d);
}

}  // namespace
}  // namespace outrider::agent
