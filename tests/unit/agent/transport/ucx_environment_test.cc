// The UCX environment the agent runs with: no zero-copy sends unless ucx_zero_copy asks for them,
// whatever the user set (a peer's death under a partly written zero-copy send aborts UCX's TCP
// transport); tuning values of the user's own win.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "agent/transport/ucx/ucx_transport.h"

namespace outrider::agent {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "(unset)";
}

TEST(UcxEnvironmentTest, ZeroCopyIsOffWhateverTheUserSetUnlessAskedFor) {
  ::setenv("UCX_TLS", "tcp", 1);
  ::setenv("UCX_ZCOPY_THRESH", "32K", 1);
  ::setenv("UCX_TCP_PUT_ENABLE", "y", 1);
  ::setenv("UCX_TCP_SNDBUF", "1M", 1);
  ConfigureUcxEnvironment();
  EXPECT_EQ(Env("UCX_ZCOPY_THRESH"), "inf");
  EXPECT_EQ(Env("UCX_TCP_PUT_ENABLE"), "n");
  EXPECT_EQ(Env("UCX_TCP_SNDBUF"), "1M");  // tuning: the user's
  ::setenv("UCX_ZCOPY_THRESH", "64K", 1);
  ::unsetenv("UCX_TCP_PUT_ENABLE");
  ConfigureUcxEnvironment(/*zero_copy=*/true);
  EXPECT_EQ(Env("UCX_ZCOPY_THRESH"), "64K");
  EXPECT_EQ(Env("UCX_TCP_PUT_ENABLE"), "(unset)");
  ::unsetenv("UCX_ZCOPY_THRESH");
  ConfigureUcxEnvironment(/*zero_copy=*/true);
  EXPECT_EQ(Env("UCX_ZCOPY_THRESH"), "32K");  // TCP-only: zero-copy from 32 KiB
  ::unsetenv("UCX_TCP_SNDBUF");
  ConfigureUcxEnvironment();  // as every other test of this process expects
}

}  // namespace
}  // namespace outrider::agent
