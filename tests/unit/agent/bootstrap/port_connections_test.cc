// The agent port's connections: a connection that sends part of a frame never holds the loop,
// waiting connections and their bytes are capped (the oldest dropped first), a frame that is not a
// request closes its connection, deadlines drop the silent, and a reply the peer does not read is
// written without blocking. Every drop is counted.
#include "agent/bootstrap/port_connections.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "agent/bootstrap/rendezvous_frame.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

using Drop = PortConnections::Drop;

struct Port {
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<PortConnections> conns;
  std::vector<rendezvous::Frame> frames;
  std::vector<UniqueFd> held;  // the connections frames came on

  explicit Port(PortConnections::Limits limits = {}) {
    auto l = EventLoop::Create(0);
    EXPECT_TRUE(l.ok());
    loop = std::move(*l);
    conns = std::make_unique<PortConnections>(loop.get(), limits,
                                              [this](rendezvous::Frame f, UniqueFd fd) {
                                                frames.push_back(std::move(f));
                                                held.push_back(std::move(fd));
                                              });
    EXPECT_TRUE(conns->Listen("127.0.0.1", 0).ok());
  }
  UniqueFd Connect() {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(conns->port());
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0)
        << std::strerror(errno);
    return fd;
  }
  // Runs the loop until `done` holds (false if it did not within 5 s of loop time).
  template <typename F>
  bool RunUntil(F done) {
    uint64_t deadline = ipc::MonotonicNs() + 5'000'000'000ull;
    bool ok = false;
    EventLoop::Hooks hooks{[&] {
                             if (done()) {
                               ok = true;
                               loop->Stop();
                             } else if (ipc::MonotonicNs() > deadline) {
                               loop->Stop();
                             }
                             return false;
                           },
                           [] { return true; }, [] {}, [] { return 10; }};
    loop->Run(hooks);
    return ok;
  }
};

std::string Join(const std::string& job) {
  JobShape shape{job, "tok", 2, 1};
  return rendezvous::Encode(rendezvous::kJoin, shape, 1, {"addr"});
}

void Send(int fd, const std::string& bytes) {
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
}

// Whether the other end closed `fd` (EOF or reset), without waiting.
bool Closed(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) != 1) return false;
  char c;
  ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

TEST(PortConnectionsTest, APartialFrameNeverHoldsTheLoop) {
  Port port;
  UniqueFd slow = port.Connect();
  std::string frame = Join("a");
  Send(slow.get(), frame.substr(0, 10));  // the length and a few bytes, then nothing
  UniqueFd fast = port.Connect();
  Send(fast.get(), Join("b"));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 1; }));
  EXPECT_STREQ(port.frames[0].header.job_id, "b");
  EXPECT_EQ(port.conns->reading(), 1u);
  // The rest arrives in its own time and is read then.
  Send(slow.get(), frame.substr(10));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 2; }));
  EXPECT_STREQ(port.frames[1].header.job_id, "a");
  EXPECT_EQ(port.conns->reading(), 0u);
}

TEST(PortConnectionsTest, PastTheCapTheOldestWaitingConnectionIsDropped) {
  PortConnections::Limits limits;
  limits.max_reading = 4;
  Port port(limits);
  std::vector<UniqueFd> silent;
  for (int i = 0; i < 6; ++i) silent.push_back(port.Connect());
  ASSERT_TRUE(port.RunUntil([&] { return port.conns->dropped(Drop::kCapacity) == 2; }));
  EXPECT_EQ(port.conns->reading(), 4u);
  EXPECT_TRUE(Closed(silent[0].get()));
  EXPECT_TRUE(Closed(silent[1].get()));
  EXPECT_FALSE(Closed(silent[5].get()));
  // A request still gets through, pushing out the oldest again.
  UniqueFd fresh = port.Connect();
  Send(fresh.get(), Join("c"));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 1; }));
}

TEST(PortConnectionsTest, HeldBytesAreCappedOldestFirst) {
  PortConnections::Limits limits;
  limits.max_reading_bytes = 3000;
  limits.max_request_bytes = 2000;
  Port port(limits);
  std::string big = Join(std::string(10, 'x')) + std::string(1800, '\0');
  uint32_t len = static_cast<uint32_t>(big.size() - 4);
  std::memcpy(big.data(), &len, 4);
  UniqueFd a = port.Connect(), b = port.Connect();
  Send(a.get(), big.substr(0, 1500));
  ASSERT_TRUE(port.RunUntil([&] { return port.conns->reading() == 2; }));
  Send(b.get(), big.substr(0, 1700));  // both whole would pass 3000: `a`, the older, goes
  ASSERT_TRUE(port.RunUntil([&] { return port.conns->dropped(Drop::kCapacity) == 1; }));
  EXPECT_TRUE(Closed(a.get()));
  Send(b.get(), big.substr(1700));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 1; }));
}

TEST(PortConnectionsTest, ALengthNoRequestHasClosesTheConnection) {
  Port port;
  for (uint32_t len : {0u, 5u, 64u << 10 | 1u, 0xffffffffu}) {
    UniqueFd fd = port.Connect();
    Send(fd.get(), std::string(reinterpret_cast<const char*>(&len), 4));
    uint64_t before = port.conns->dropped(Drop::kMalformed);
    ASSERT_TRUE(port.RunUntil([&] { return port.conns->dropped(Drop::kMalformed) == before + 1; }))
        << len;
    EXPECT_TRUE(Closed(fd.get())) << len;
  }
  // A whole frame that is not a rendezvous frame (bad magic).
  UniqueFd fd = port.Connect();
  std::string junk = Join("d");
  junk[4] ^= 0x55;
  Send(fd.get(), junk);
  ASSERT_TRUE(port.RunUntil([&] { return port.conns->dropped(Drop::kMalformed) == 5; }));
  EXPECT_TRUE(port.frames.empty());
}

TEST(PortConnectionsTest, ASilentConnectionIsDroppedAtItsDeadline) {
  Port port;
  UniqueFd fd = port.Connect();
  ASSERT_TRUE(port.RunUntil([&] { return port.conns->reading() == 1; }));
  port.conns->Expire(ipc::MonotonicNs());  // before the deadline: kept
  EXPECT_EQ(port.conns->reading(), 1u);
  port.conns->Expire(ipc::MonotonicNs() + PortConnections::Limits().read_timeout_ns);
  EXPECT_EQ(port.conns->reading(), 0u);
  EXPECT_EQ(port.conns->dropped(Drop::kTimeout), 1u);
  EXPECT_TRUE(Closed(fd.get()));
}

TEST(PortConnectionsTest, AReplyThePeerDoesNotReadIsWrittenWithoutBlocking) {
  Port port;
  UniqueFd peer = port.Connect();
  Send(peer.get(), Join("e"));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 1; }));
  std::string reply(8 << 20, 'r');  // far more than the socket buffers hold
  uint64_t t0 = ipc::MonotonicNs();
  port.conns->Send(std::move(port.held[0]), reply);
  EXPECT_LT(ipc::MonotonicNs() - t0, 1'000'000'000ull);  // returned, not waited for the reader
  EXPECT_EQ(port.conns->writing(), 1u);
  // The peer reads it all while the loop runs, then sees the connection close.
  std::string got;
  ASSERT_TRUE(port.RunUntil([&] {
    char buf[65536];
    ssize_t n;
    while ((n = ::recv(peer.get(), buf, sizeof(buf), MSG_DONTWAIT)) > 0)
      got.append(buf, static_cast<size_t>(n));
    return n == 0;
  }));
  EXPECT_EQ(got.size(), reply.size());
  EXPECT_EQ(port.conns->writing(), 0u);
}

TEST(PortConnectionsTest, AReplyNotTakenInTimeIsDropped) {
  Port port;
  UniqueFd peer = port.Connect();
  Send(peer.get(), Join("f"));
  ASSERT_TRUE(port.RunUntil([&] { return port.frames.size() == 1; }));
  port.conns->Send(std::move(port.held[0]), std::string(8 << 20, 'r'));
  ASSERT_EQ(port.conns->writing(), 1u);
  port.conns->Expire(ipc::MonotonicNs() + PortConnections::Limits().write_timeout_ns);
  EXPECT_EQ(port.conns->writing(), 0u);
  EXPECT_EQ(port.conns->dropped(Drop::kWrite), 1u);
}

}  // namespace
}  // namespace outrider::agent
