// A client's region table: sealed memfds are imported and named as host spans; everything else
// is refused with the reason, and limits hold.
#include "agent/memory/region_table.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "ipc/memfd.h"

namespace outrider::agent {
namespace {

std::vector<UniqueFd> Sealed(size_t bytes) {
  auto fd = ipc::CreateSealedMemfd("outrider-region-test", bytes);
  EXPECT_TRUE(fd.ok()) << fd.status().ToString();
  std::vector<UniqueFd> fds;
  fds.push_back(std::move(*fd));
  return fds;
}

TEST(RegionTableTest, ImportsASealedMemfdAsAHostSpanOfItsSize) {
  RegionTable t(4, 1 << 20);
  auto id = t.ImportHost(Sealed(8192), 8192);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  const Region* r = t.Find(*id);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->span.host());
  EXPECT_EQ(r->span.length, 8192u);
  EXPECT_NE(r->span.address, 0u);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.bytes(), 8192u);
}

TEST(RegionTableTest, GivesEveryRegionItsOwnId) {
  RegionTable t(4, 1 << 20);
  auto a = t.ImportHost(Sealed(4096), 4096);
  auto b = t.ImportHost(Sealed(4096), 4096);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST(RegionTableTest, RefusesAnUnsealedMemfd) {
  RegionTable t(4, 1 << 20);
  std::vector<UniqueFd> fds;
  fds.emplace_back(::memfd_create("outrider-unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(::ftruncate(fds[0].get(), 4096), 0);
  auto id = t.ImportHost(std::move(fds), 4096);
  EXPECT_FALSE(id.ok());
  EXPECT_EQ(t.size(), 0u);
}

TEST(RegionTableTest, RefusesASizeOtherThanTheMemfds) {
  RegionTable t(4, 1 << 20);
  auto id = t.ImportHost(Sealed(4096), 8192);
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("memfd is 4096 bytes"), std::string::npos)
      << id.status().message();
}

TEST(RegionTableTest, RefusesAnythingButExactlyOneFd) {
  RegionTable t(4, 1 << 20);
  auto none = t.ImportHost({}, 4096);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("exactly one memfd, got 0"), std::string::npos);
}

TEST(RegionTableTest, RefusesMoreRegionsThanItsLimit) {
  RegionTable t(1, 1 << 20);
  ASSERT_TRUE(t.ImportHost(Sealed(4096), 4096).ok());
  auto second = t.ImportHost(Sealed(4096), 4096);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kResourceExhausted);
}

TEST(RegionTableTest, RefusesARegionOverTheByteLimit) {
  RegionTable t(4, 4096);
  auto id = t.ImportHost(Sealed(8192), 8192);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kInvalidArgument);
}

TEST(RegionTableTest, ReleaseForgetsTheRegionAndRefusesAnUnknownId) {
  RegionTable t(4, 1 << 20);
  auto id = t.ImportHost(Sealed(4096), 4096);
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(t.Release(*id).ok());
  EXPECT_EQ(t.Find(*id), nullptr);
  EXPECT_FALSE(t.Release(*id).ok());
}

TEST(RegionTableTest, ReleasedRegionStaysMappedWhileSomethingHoldsIt) {
  RegionTable t(4, 1 << 20);
  auto id = t.ImportHost(Sealed(4096), 4096);
  ASSERT_TRUE(id.ok());
  std::shared_ptr<const void> held = t.Find(*id)->import;  // what an op that names it keeps
  BufferSpan span = t.Find(*id)->span;
  ASSERT_TRUE(t.Release(*id).ok());
  auto* bytes = reinterpret_cast<uint8_t*>(span.address);
  bytes[0] = 7;  // would fault if the region had been unmapped
  bytes[4095] = 9;
  EXPECT_EQ(bytes[0] + bytes[4095], 16);
  EXPECT_EQ(held.use_count(), 1);
}

}  // namespace
}  // namespace outrider::agent
