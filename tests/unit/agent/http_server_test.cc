// The agent's HTTP listener on loopback: GET routes answer GET only, POST routes POST only, and
// a POST route is served to clients on the agent's host only (IsLoopback).
#include "agent/http/http_server.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace outrider::agent {
namespace {

using testing::FreePort;
using testing::HttpFetch;

TEST(HttpServerTest, GetAndPostRoutesAnswerTheirOwnMethodOnly) {
  uint16_t port = FreePort();
  int drains = 0;
  Result<std::unique_ptr<HttpServer>> server =
      HttpServer::Start("127.0.0.1", port,
                        {{"/status",
                          [] {
                            return HttpResponse{200, "text/plain", "fine\n"};
                          }}},
                        {{"/drain", [&drains] {
                            ++drains;
                            return HttpResponse{202, "application/json", "{}\n"};
                          }}});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(HttpFetch(port, "/status").status, 200);
  EXPECT_EQ(HttpFetch(port, "/status").body, "fine\n");
  EXPECT_EQ(HttpFetch(port, "/status", "POST").status, 405);
  EXPECT_EQ(HttpFetch(port, "/drain").status, 405);
  EXPECT_EQ(drains, 0);
  testing::HttpReply drained = HttpFetch(port, "/drain", "POST");
  EXPECT_EQ(drained.status, 202);
  EXPECT_EQ(drains, 1);
}

TEST(HttpServerTest, OnlyThisHostsLoopbackAddressesCountAsLocal) {
  for (const char* local : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"})
    EXPECT_TRUE(IsLoopback(local)) << local;
  for (const char* remote :
       {"10.0.0.1", "192.168.1.127", "::2", "fe80::1", "::ffff:10.0.0.1", "", "1127.0.0.1"})
    EXPECT_FALSE(IsLoopback(remote)) << remote;
  EXPECT_FALSE(IsLoopback(nullptr));
}

}  // namespace
}  // namespace outrider::agent
