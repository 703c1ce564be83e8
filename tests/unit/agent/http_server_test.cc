// The agent's HTTP listener: GET routes answer GET only, POST routes POST only, and a POST route is
// served over loopback only (IsLoopback).
#include "agent/http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <string>

#include "tests/support/test_support.h"

namespace outrider::agent {
namespace {

using testing::FreePort;
using testing::HttpFetch;

// A listener with a GET route (/status) and a POST route (/drain) that counts its calls.
class HttpServerTest : public ::testing::Test {
 protected:
  void Listen(const std::string& address) {
    port = FreePort();
    Result<std::unique_ptr<HttpServer>> started =
        HttpServer::Start(address, port,
                          {{"/status",
                            [] {
                              return HttpResponse{200, "text/plain", "fine\n"};
                            }}},
                          {{"/drain", [this] {
                              ++drains;
                              return HttpResponse{202, "application/json", "{}\n"};
                            }}});
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server = std::move(*started);
  }

  uint16_t port = 0;
  int drains = 0;
  std::unique_ptr<HttpServer> server;
};

TEST_F(HttpServerTest, GetAndPostRoutesAnswerTheirOwnMethodOnly) {
  ASSERT_NO_FATAL_FAILURE(Listen("127.0.0.1"));
  EXPECT_EQ(HttpFetch(port, "/status").status, 200);
  EXPECT_EQ(HttpFetch(port, "/status").body, "fine\n");
  EXPECT_EQ(HttpFetch(port, "/status", "POST").status, 405);
  EXPECT_EQ(HttpFetch(port, "/drain").status, 405);
  EXPECT_EQ(drains, 0);
  testing::HttpReply drained = HttpFetch(port, "/drain", "POST");
  EXPECT_EQ(drained.status, 202);
  EXPECT_EQ(drains, 1);
}

// One of this host's IPv4 addresses that is not loopback ("" if it has none).
std::string NonLoopbackAddress() {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string found;
  for (ifaddrs* i = all; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr && !IsLoopback(text))
      found = text;
  }
  ::freeifaddrs(all);
  return found;
}

// Listening on every interface, as the DaemonSet's agent does: a POST route is refused to a client
// that reaches it through another address than loopback, and its handler never runs; GET routes
// answer there as before.
TEST_F(HttpServerTest, APostRouteIsRefusedToAClientThatIsNotOnLoopback) {
  std::string address = NonLoopbackAddress();
  if (address.empty()) GTEST_SKIP() << "this host has no IPv4 address but loopback";
  ASSERT_NO_FATAL_FAILURE(Listen("0.0.0.0"));
  testing::HttpReply refused = HttpFetch(port, "/drain", "POST", address);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_NE(refused.body.find("served over loopback only (ask 127.0.0.1 on the agent's host), "
                              "not to " +
                              address),
            std::string::npos)
      << refused.body;
  EXPECT_EQ(HttpFetch(port, "/status", "GET", address).status, 200);
  EXPECT_EQ(drains, 0);
  EXPECT_EQ(HttpFetch(port, "/drain", "POST").status, 202);
  EXPECT_EQ(drains, 1);
}

TEST_F(HttpServerTest, OnlyThisHostsLoopbackAddressesCountAsLocal) {
  for (const char* local : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"})
    EXPECT_TRUE(IsLoopback(local)) << local;
  for (const char* remote :
       {"10.0.0.1", "192.168.1.127", "::2", "fe80::1", "::ffff:10.0.0.1", "", "1127.0.0.1"})
    EXPECT_FALSE(IsLoopback(remote)) << remote;
  EXPECT_FALSE(IsLoopback(nullptr));
}

}  // namespace
}  // namespace outrider::agent
