// The client's arena on its own, over regions from a test factory (plain heap memory standing for
// the memfd regions the client maps): alignment, reuse after free, growth by new regions, and
// what it refuses.
#include "shim/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

namespace outrider::shim {
namespace {

class ArenaTest : public ::testing::Test {
 protected:
  Arena::RegionFactory Factory() {
    return [this](size_t bytes) -> Result<void*> {
      if (fail_) return Unavailable("no more regions");
      size_t pages = (bytes + 4095) / 4096 * 4096;  // aligned_alloc takes whole alignments
      regions_.emplace_back(static_cast<char*>(std::aligned_alloc(4096, pages)), &std::free);
      sizes_.push_back(bytes);
      return static_cast<void*>(regions_.back().get());
    };
  }
  // Whether [p, p + n) lies inside one region the factory made.
  bool InsideARegion(const void* p, size_t n) const {
    auto a = reinterpret_cast<uintptr_t>(p);
    for (size_t i = 0; i < regions_.size(); ++i) {
      auto base = reinterpret_cast<uintptr_t>(regions_[i].get());
      if (a >= base && a + n <= base + sizes_[i]) return true;
    }
    return false;
  }

  std::vector<std::unique_ptr<char, decltype(&std::free)>> regions_;
  std::vector<size_t> sizes_;
  bool fail_ = false;
};

TEST_F(ArenaTest, AllocationsAreAlignedInsideItsRegionsAndDisjoint) {
  Arena arena(1 << 20, Factory());
  std::set<uintptr_t> seen;
  for (size_t bytes : {1u, 63u, 64u, 4096u, 100000u}) {
    Result<void*> p = arena.Allocate(bytes);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 64, 0u) << bytes;
    EXPECT_TRUE(InsideARegion(*p, bytes)) << bytes;
    EXPECT_TRUE(seen.insert(reinterpret_cast<uintptr_t>(*p)).second);
  }
  EXPECT_EQ(regions_.size(), 1u);
}

TEST_F(ArenaTest, GrowsByANewRegionWhenFullAndReusesWhatIsFreed) {
  Arena arena(1 << 20, Factory());
  const size_t bytes = 700 << 10;
  std::vector<void*> first_region;
  while (regions_.size() < 2 && first_region.size() < 16) {
    size_t before = regions_.size();
    Result<void*> p = arena.Allocate(bytes);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(InsideARegion(*p, bytes));
    if (regions_.size() == before || before == 0) first_region.push_back(*p);
  }
  ASSERT_EQ(regions_.size(), 2u) << "a full arena grows by a region";
  ASSERT_GE(first_region.size(), 1u);
  EXPECT_TRUE(arena.Free(first_region.front()));
  Result<void*> again = arena.Allocate(bytes);  // fits where the freed one was
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(regions_.size(), 2u);
}

TEST_F(ArenaTest, AnAllocationLargerThanAChunkGetsARegionOfItsOwn) {
  Arena arena(1 << 20, Factory());
  Result<void*> big = arena.Allocate(3 << 20);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_TRUE(InsideARegion(*big, 3 << 20));
}

TEST_F(ArenaTest, FreeRefusesWhatItDidNotAllocateAndAFailingFactoryIsAnError) {
  Arena arena(1 << 20, Factory());
  int outside = 0;
  EXPECT_FALSE(arena.Free(&outside));
  Result<void*> first = arena.Allocate(900 << 10);
  ASSERT_TRUE(first.ok());
  fail_ = true;
  Result<void*> p = first;
  for (int i = 0; i < 16 && p.ok(); ++i) p = arena.Allocate(900 << 10);  // until a region is needed
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Code::kUnavailable) << p.status().ToString();
  EXPECT_TRUE(arena.Free(*first));
}

}  // namespace
}  // namespace outrider::shim
