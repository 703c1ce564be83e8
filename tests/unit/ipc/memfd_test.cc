// Sealed memfds: the size of a region can never change after creation, CheckSealedMemfd accepts
// only such memfds, and MAP_SHARED mappings see each other's writes and unmap exactly once.
#include "ipc/memfd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace outrider::ipc {
namespace {

constexpr size_t kBytes = 64 * 1024;

// True if [addr, addr + bytes) is mapped in this process (mincore fails with ENOMEM otherwise).
bool IsMapped(void* addr, size_t bytes) {
  long page = ::sysconf(_SC_PAGESIZE);
  std::string vec((bytes + page - 1) / page, '\0');
  return ::mincore(addr, bytes, reinterpret_cast<unsigned char*>(vec.data())) == 0;
}

// An unsealed memfd that still allows sealing: what a careless or hostile client might pass.
UniqueFd UnsealedMemfd(size_t bytes) {
  UniqueFd fd(::memfd_create("outrider-test-unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.valid() && ::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) fd.reset();
  return fd;
}

TEST(MemfdTest, CreateSealedMemfdHasTheRequestedSize) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  struct stat st {};
  ASSERT_EQ(::fstat(fd->get(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), kBytes);
}

TEST(MemfdTest, SealedMemfdCannotGrow) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  errno = 0;
  EXPECT_NE(::ftruncate(fd->get(), 2 * kBytes), 0);
  EXPECT_EQ(errno, EPERM);
}

TEST(MemfdTest, SealedMemfdCannotShrink) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  errno = 0;
  EXPECT_NE(::ftruncate(fd->get(), 0), 0);
  EXPECT_EQ(errno, EPERM);
}

TEST(MemfdTest, SealsThemselvesAreSealed) {
  // Otherwise the client could add F_SEAL_WRITE later and make the agent's writes fail.
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  errno = 0;
  EXPECT_NE(::fcntl(fd->get(), F_ADD_SEALS, F_SEAL_WRITE), 0);
  EXPECT_EQ(errno, EPERM);
}

TEST(MemfdTest, CheckSealedMemfdReturnsSize) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto size = CheckSealedMemfd(fd->get());
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, kBytes);
}

TEST(MemfdTest, CreateRejectsZeroSize) {
  auto fd = CreateSealedMemfd("outrider-test", 0);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, CheckRejectsUnsealedMemfd) {
  UniqueFd fd = UnsealedMemfd(kBytes);
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  auto size = CheckSealedMemfd(fd.get());
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
  EXPECT_NE(size.status().message().find("sealed"), std::string::npos) << size.status().ToString();
}

TEST(MemfdTest, CheckRejectsMemfdSealedOnlyAgainstShrink) {
  UniqueFd fd = UnsealedMemfd(kBytes);
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  ASSERT_EQ(::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK), 0);
  auto size = CheckSealedMemfd(fd.get());
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, CheckRejectsMemfdWithoutSealingSupport) {
  // Without MFD_ALLOW_SEALING the kernel reports only F_SEAL_SEAL.
  UniqueFd fd(::memfd_create("outrider-test-nosealing", MFD_CLOEXEC));
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  ASSERT_EQ(::ftruncate(fd.get(), kBytes), 0);
  auto size = CheckSealedMemfd(fd.get());
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, RejectionMessageShowsSealsInHex) {
  // F_SEAL_SHRINK | F_SEAL_WRITE = 0xa: the message prints "0x" and must follow it with hex.
  UniqueFd fd = UnsealedMemfd(kBytes);
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  ASSERT_EQ(::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_WRITE), 0);
  auto size = CheckSealedMemfd(fd.get());
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.status().message().find("0xa"), std::string::npos) << size.status().ToString();
}

TEST(MemfdTest, CheckRejectsRegularFile) {
  char path[] = "/tmp/outrider-memfd-test-XXXXXX";
  UniqueFd fd(::mkstemp(path));
  ASSERT_TRUE(fd.valid()) << std::strerror(errno);
  ::unlink(path);  // the fd keeps the file alive; nothing is left behind
  ASSERT_EQ(::ftruncate(fd.get(), kBytes), 0);
  auto size = CheckSealedMemfd(fd.get());
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, CheckRejectsTmpfile) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  auto size = CheckSealedMemfd(::fileno(f));
  std::fclose(f);
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, CheckRejectsPipe) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  UniqueFd r(p[0]), w(p[1]);
  auto size = CheckSealedMemfd(r.get());
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, CheckRejectsClosedFd) {
  int fd = ::memfd_create("outrider-test-closed", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(fd);
  auto size = CheckSealedMemfd(fd);
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, MapSharedRejectsZeroBytes) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto m = MapShared(fd->get(), 0);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kInvalidArgument);
}

TEST(MemfdTest, MapSharedFailsOnBadFd) {
  auto m = MapShared(-1, kBytes);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kInvalidArgument);  // EBADF
}

TEST(MemfdTest, TwoMappingsOfOneFdShareMemory) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto a = MapShared(fd->get(), kBytes);
  auto b = MapShared(fd->get(), kBytes);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_NE(a->data(), b->data());
  EXPECT_EQ(a->size(), kBytes);
  EXPECT_EQ(b->data()[0], 0);  // a fresh memfd reads as zeros
  a->data()[0] = 0x11;
  a->data()[kBytes - 1] = 0x22;
  EXPECT_EQ(b->data()[0], 0x11);
  EXPECT_EQ(b->data()[kBytes - 1], 0x22);
  b->data()[kBytes / 2] = 0x33;
  EXPECT_EQ(a->data()[kBytes / 2], 0x33);
}

TEST(MemfdTest, MappingOutlivesTheFd) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto m = MapShared(fd->get(), kBytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  fd->reset();
  m->data()[123] = 7;
  EXPECT_EQ(m->data()[123], 7);
}

TEST(MemfdTest, MappingUnmapsOnDestruction) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  void* addr;
  {
    auto m = MapShared(fd->get(), kBytes);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    addr = m->data();
    EXPECT_TRUE(IsMapped(addr, kBytes));
  }
  EXPECT_FALSE(IsMapped(addr, kBytes));
}

TEST(MemfdTest, MoveConstructionTransfersTheMapping) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto m = MapShared(fd->get(), kBytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Mapping a = std::move(*m);
  uint8_t* addr = a.data();
  {
    Mapping b(std::move(a));
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(b.data(), addr);
    EXPECT_EQ(b.size(), kBytes);
  }
  // b unmapped it; a (moved-from) must not unmap again or touch it.
  EXPECT_FALSE(IsMapped(addr, kBytes));
}

TEST(MemfdTest, MoveAssignmentUnmapsTheOldMappingOnce) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto m1 = MapShared(fd->get(), kBytes);
  auto m2 = MapShared(fd->get(), kBytes);
  ASSERT_TRUE(m1.ok() && m2.ok());
  Mapping a = std::move(*m1);
  Mapping b = std::move(*m2);
  uint8_t* old_a = a.data();
  uint8_t* old_b = b.data();
  a = std::move(b);
  EXPECT_FALSE(IsMapped(old_a, kBytes));
  EXPECT_EQ(a.data(), old_b);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_TRUE(IsMapped(old_b, kBytes));
  // Destroying the moved-from b must not unmap what a now owns.
  { Mapping dead = std::move(b); }
  EXPECT_TRUE(IsMapped(a.data(), kBytes));
}

TEST(MemfdTest, SelfMoveAssignmentKeepsTheMapping) {
  auto fd = CreateSealedMemfd("outrider-test", kBytes);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  auto m = MapShared(fd->get(), kBytes);
  ASSERT_TRUE(m.ok());
  Mapping a = std::move(*m);
  uint8_t* addr = a.data();
  Mapping& alias = a;
  a = std::move(alias);
  EXPECT_EQ(a.data(), addr);
  EXPECT_TRUE(IsMapped(addr, kBytes));
}

}  // namespace
}  // namespace outrider::ipc
