// The agent's TCP congestion control: set on every TCP socket it holds, inherited by connections
// accepted on a listener that has it, refused with a clear error, and applied by the UCX
// transport to its listeners and connections.
#include "agent/transport/tcp_congestion.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "agent/transport/ucx/ucx_transport.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {
namespace {

std::string ProcLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string KernelDefault() { return ProcLine("/proc/sys/net/ipv4/tcp_congestion_control"); }

// Every process may pick reno: the kernel keeps it in the allowed list.
constexpr const char* kTarget = "reno";

// A loopback listener, a client connected to it and the accepted end.
struct Loopback {
  UniqueFd listener, client, accepted;
  uint16_t port = 0;
};

UniqueFd Connect(uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  return fd;
}

Loopback MakeLoopback() {
  Loopback l;
  l.listener.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(l.listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  EXPECT_EQ(::listen(l.listener.get(), 4), 0);
  socklen_t len = sizeof(a);
  EXPECT_EQ(::getsockname(l.listener.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  l.port = ntohs(a.sin_port);
  l.client = Connect(l.port);
  l.accepted.reset(::accept4(l.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  return l;
}

std::string Algorithm(int fd) {
  Result<std::string> r = TcpCongestionControl(fd);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : "";
}

TEST(TcpCongestionTest, ValidatesNames) {
  EXPECT_TRUE(ValidateCongestionControlName("system").ok());
  EXPECT_TRUE(ValidateCongestionControlName("cubic").ok());
  EXPECT_TRUE(ValidateCongestionControlName("a_name_of_15_ch").ok());
  EXPECT_EQ(ValidateCongestionControlName("a_name_of_16_chr").code(), Code::kInvalidArgument);
  EXPECT_EQ(ValidateCongestionControlName("").code(), Code::kInvalidArgument);
  EXPECT_EQ(ValidateCongestionControlName("BBR").code(), Code::kInvalidArgument);
}

TEST(TcpCongestionTest, ListsOnlyTcpSockets) {
  Loopback l = MakeLoopback();
  UniqueFd udp(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  UniqueFd u0(pair[0]), u1(pair[1]);
  std::vector<int> fds = OwnTcpSockets();
  EXPECT_EQ(fds, (std::vector<int>{l.listener.get(), l.client.get(), l.accepted.get()}));
}

TEST(TcpCongestionTest, SetsEverySocketAndAcceptedConnectionsInheritTheListeners) {
  if (KernelDefault() == kTarget) GTEST_SKIP() << "the kernel's default is already " << kTarget;
  Loopback l = MakeLoopback();
  EXPECT_EQ(Algorithm(l.client.get()), KernelDefault());
  Result<int> changed = SetTcpCongestionControlOnOwnSockets(kTarget);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_EQ(*changed, 3);
  for (int fd : {l.listener.get(), l.client.get(), l.accepted.get()})
    EXPECT_EQ(Algorithm(fd), kTarget);
  // Set already: nothing to change.
  changed = SetTcpCongestionControlOnOwnSockets(kTarget);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, 0);
  // A connection accepted later takes the listener's algorithm; a new outgoing one does not.
  UniqueFd client2 = Connect(l.port);
  UniqueFd accepted2(::accept4(l.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  EXPECT_EQ(Algorithm(accepted2.get()), kTarget);
  EXPECT_EQ(Algorithm(client2.get()), KernelDefault());
}

TEST(TcpCongestionTest, AnAlgorithmTheKernelLacksIsInvalid) {
  Loopback l = MakeLoopback();
  Result<int> r = SetTcpCongestionControlOnOwnSockets("no_such_cc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "TCP congestion control 'no_such_cc' is not in this kernel (available: " +
                ProcLine("/proc/sys/net/ipv4/tcp_available_congestion_control") + ")");
  EXPECT_EQ(Algorithm(l.client.get()), KernelDefault());
}

// Two UCX workers over TCP on loopback, one connected to the other, one message delivered.
class UcxCongestionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("UCX_TLS", "tcp", 1);
    ::setenv("UCX_NET_DEVICES", "lo", 1);
  }

  Result<std::unique_ptr<UcxTransport>> Make(const std::string& cc) {
    Transport::Callbacks cb;
    cb.on_message = [this](Lane, const uint8_t*, size_t, const uint8_t*, size_t) { ++delivered_; };
    cb.on_peer_error = [](PeerId, const Status& why) { ADD_FAILURE() << why.ToString(); };
    return UcxTransport::Create(std::move(cb), cc);
  }

  void Exchange(UcxTransport* a, UcxTransport* b) {
    Result<PeerId> peer = a->Connect(b->address());
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    uint32_t header = 7;
    static const char kData[] = "payload";
    ASSERT_TRUE(
        a->Send(*peer, Lane::kBulk, &header, sizeof(header), kData, sizeof(kData), nullptr).ok());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (delivered_ == 0 && std::chrono::steady_clock::now() < deadline) {
      a->Progress();
      b->Progress();
    }
    ASSERT_EQ(delivered_, 1);
  }

  int delivered_ = 0;
};

TEST_F(UcxCongestionTest, GivesItsListenersAndConnectionsTheAlgorithm) {
  if (KernelDefault() == kTarget) GTEST_SKIP() << "the kernel's default is already " << kTarget;
  auto a = Make(kTarget);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Make(kTarget);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*a)->tcp_congestion_control(), kTarget);
  Exchange(a->get(), b->get());
  std::vector<int> fds = OwnTcpSockets();
  EXPECT_GE(fds.size(), 4u);  // two listeners, both ends of the connection
  for (int fd : fds) EXPECT_EQ(Algorithm(fd), kTarget) << "socket " << fd;
}

TEST_F(UcxCongestionTest, SystemKeepsTheKernelsDefault) {
  auto a = Make("system");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Make("system");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*a)->tcp_congestion_control(), "system");
  Exchange(a->get(), b->get());
  std::vector<int> fds = OwnTcpSockets();
  EXPECT_GE(fds.size(), 4u);
  for (int fd : fds) EXPECT_EQ(Algorithm(fd), KernelDefault()) << "socket " << fd;
}

TEST_F(UcxCongestionTest, AnAlgorithmTheKernelLacksFailsCreation) {
  auto a = Make("no_such_cc");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kInvalidArgument);
  EXPECT_NE(a.status().message().find("'no_such_cc' is not in this kernel"), std::string::npos);
}

// An algorithm the kernel has but does not allow this process: the transport is created, logs the
// refusal and keeps the kernel's default. Run in a child that drops CAP_NET_ADMIN.
TEST_F(UcxCongestionTest, AnAlgorithmNotPermittedKeepsTheKernelsDefault) {
  std::vector<std::string> allowed =
      Words(ProcLine("/proc/sys/net/ipv4/tcp_allowed_congestion_control"));
  std::string refused;
  for (const std::string& name :
       Words(ProcLine("/proc/sys/net/ipv4/tcp_available_congestion_control"))) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) refused = name;
  }
  if (refused.empty()) GTEST_SKIP() << "every available algorithm is allowed to every process here";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0) ::_exit(10);
    data[CAP_NET_ADMIN / 32].effective &= ~(1u << (CAP_NET_ADMIN % 32));
    if (::syscall(SYS_capset, &header, data) != 0) ::_exit(11);
    auto t = Make(refused);
    if (!t.ok()) ::_exit(12);
    if ((*t)->tcp_congestion_control() != "system") ::_exit(13);
    for (int fd : OwnTcpSockets()) {
      if (Algorithm(fd) != KernelDefault()) ::_exit(14);
    }
    if (OwnTcpSockets().empty()) ::_exit(15);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  // 10/11: capabilities not readable or not droppable; 12: creation failed; 13: it claims the
  // algorithm; 14: a socket has another than the default; 15: no listener.
  EXPECT_EQ(WEXITSTATUS(status), 0) << "refused algorithm " << refused;
}

}  // namespace
}  // namespace outrider::agent
