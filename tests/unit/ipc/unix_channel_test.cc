// SOCK_SEQPACKET control channel: fd passing, peer credentials, orderly and abrupt close,
// oversized and fd-stuffed messages from an untrusted peer, timeouts, and the socket-file rules
// of ListenUnix (never clobber a file or a live agent; do replace a stale socket).
#include "ipc/unix_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "ipc/memfd.h"

namespace outrider::ipc {
namespace {

// Generous: every Recv below either has its message queued already or expects an error at once;
// the timeout only bounds a hang if the channel is broken.
constexpr int kNoHangMs = 30'000;

class UnixChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/outrider-unix-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr) << std::strerror(errno);
    dir_ = tmpl;
    path_ = dir_ + "/agent.sock";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Listens on path_, connects a client and accepts it.
  void Connect(UnixChannel* client, UnixChannel* server) {
    auto listener = ListenUnix(path_, 4);
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    auto c = UnixChannel::Connect(path_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    auto s = AcceptUnix(listener->get());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    *client = std::move(*c);
    *server = UnixChannel(std::move(*s));
  }

  std::string dir_;
  std::string path_;
};

bool HasFdFlag(int fd, int flag) { return (::fcntl(fd, F_GETFD) & flag) != 0; }
bool HasFlFlag(int fd, int flag) { return (::fcntl(fd, F_GETFL) & flag) != 0; }

TEST_F(UnixChannelTest, MessageWithThreeFdsArrivesWithWorkingFds) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  auto efd1 = CreateEventFd();
  auto efd2 = CreateEventFd();
  auto mfd = CreateSealedMemfd("outrider-channel-test", 4096);
  ASSERT_TRUE(efd1.ok() && efd2.ok() && mfd.ok());
  const char text[] = "hello with fds";
  int fds[3] = {efd1->get(), efd2->get(), mfd->get()};
  ASSERT_TRUE(client.Send(text, sizeof(text), fds, 3).ok());

  char buf[kMaxMessageBytes];
  std::vector<UniqueFd> got;
  auto n = server.Recv(buf, sizeof(buf), &got, kNoHangMs);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, sizeof(text));
  EXPECT_STREQ(buf, text);
  ASSERT_EQ(got.size(), 3u);
  for (const UniqueFd& fd : got) EXPECT_TRUE(HasFdFlag(fd.get(), FD_CLOEXEC));

  // The received eventfds are the same counters as the sent ones, in order.
  uint64_t v = 0;
  SignalEventFd(got[0].get());
  ASSERT_EQ(::read(efd1->get(), &v, sizeof(v)), static_cast<ssize_t>(sizeof(v)));
  EXPECT_EQ(v, 1u);
  SignalEventFd(efd2->get());
  ASSERT_EQ(::read(got[1].get(), &v, sizeof(v)), static_cast<ssize_t>(sizeof(v)));
  EXPECT_EQ(v, 1u);
  // The received memfd is still sealed and shares memory with the sender's.
  auto size = CheckSealedMemfd(got[2].get());
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 4096u);
  auto theirs = MapShared(mfd->get(), 4096);
  auto ours = MapShared(got[2].get(), 4096);
  ASSERT_TRUE(theirs.ok() && ours.ok());
  theirs->data()[100] = 42;
  EXPECT_EQ(ours->data()[100], 42);
}

TEST_F(UnixChannelTest, MessagesKeepTheirBoundaries) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  ASSERT_TRUE(client.Send("abc", 3).ok());
  ASSERT_TRUE(client.Send("defgh", 5).ok());
  char buf[64];
  auto n1 = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n1.ok());
  EXPECT_EQ(std::string(buf, *n1), "abc");
  auto n2 = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n2.ok());
  EXPECT_EQ(std::string(buf, *n2), "defgh");
}

TEST_F(UnixChannelTest, ServerToClientWorksWithBlockingRecv) {
  // The connecting side's socket is blocking, so timeout -1 waits for (here: finds) the message.
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  ASSERT_TRUE(server.Send("reply", 5).ok());
  char buf[16];
  auto n = client.Recv(buf, sizeof(buf), nullptr, -1);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(std::string(buf, *n), "reply");
}

TEST_F(UnixChannelTest, AcceptedSocketIsNonBlockingAndCloseOnExec) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  EXPECT_TRUE(HasFlFlag(server.fd(), O_NONBLOCK));
  EXPECT_TRUE(HasFdFlag(server.fd(), FD_CLOEXEC));
  EXPECT_TRUE(HasFdFlag(client.fd(), FD_CLOEXEC));
}

TEST_F(UnixChannelTest, RecvWithoutTimeoutOnAcceptedSocketReturnsUnavailableWhenEmpty) {
  // The agent relies on this: it calls Recv(-1) only when epoll reports the socket readable and
  // treats Unavailable (EAGAIN) as a spurious wakeup. (The header's "-1 forever" holds only for
  // blocking sockets.)
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  char buf[16];
  auto n = server.Recv(buf, sizeof(buf), nullptr, -1);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), Code::kUnavailable);
}

TEST_F(UnixChannelTest, PeerReturnsOurOwnCredentials) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  for (const UnixChannel* side : {&client, &server}) {
    auto peer = side->Peer();
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    EXPECT_EQ(peer->pid, ::getpid());
    EXPECT_EQ(peer->uid, ::geteuid());
    EXPECT_EQ(peer->gid, ::getegid());
  }
}

TEST_F(UnixChannelTest, RecvReturnsZeroAfterPeerCloses) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  client = UnixChannel();
  char buf[16];
  auto n = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0u);
}

TEST_F(UnixChannelTest, QueuedMessageIsStillDeliveredAfterPeerCloses) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  ASSERT_TRUE(client.Send("bye", 3).ok());
  client = UnixChannel();
  char buf[16];
  auto n = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "bye");
  n = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
}

TEST_F(UnixChannelTest, PeerGoneIsFalseWhileThePeerIsOpen) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  EXPECT_FALSE(server.PeerGone());
  EXPECT_FALSE(client.PeerGone());
  ASSERT_TRUE(client.Send("x", 1).ok());
  EXPECT_FALSE(server.PeerGone());  // a pending message is not a hang-up
  char c;
  auto n = server.Recv(&c, 1, nullptr, kNoHangMs);  // PeerGone only peeked
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1u);
}

TEST_F(UnixChannelTest, PeerGoneIsTrueAfterThePeerClosed) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  server = UnixChannel();
  EXPECT_TRUE(client.PeerGone());
}

TEST_F(UnixChannelTest, SendToClosedPeerFailsWithoutSigpipe) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  server = UnixChannel();
  Status st = client.Send("x", 1);  // SIGPIPE would kill the test binary here
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kUnavailable) << st.ToString();
}

TEST_F(UnixChannelTest, MessageLongerThanBufferIsProtocolError) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  std::string big(100, 'z');
  ASSERT_TRUE(client.Send(big.data(), big.size()).ok());
  char buf[64];
  auto n = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), Code::kProtocol) << n.status().ToString();
  EXPECT_NE(n.status().message().find("64"), std::string::npos) << n.status().ToString();
}

TEST_F(UnixChannelTest, TruncatedMessageStillHandsOverItsFds) {
  // Whatever is wrong with a message, its fds must be owned by someone, never leaked.
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  auto efd = CreateEventFd();
  ASSERT_TRUE(efd.ok());
  int fd = efd->get();
  std::string big(100, 'z');
  ASSERT_TRUE(client.Send(big.data(), big.size(), &fd, 1).ok());
  char buf[8];
  std::vector<UniqueFd> got;
  auto n = server.Recv(buf, sizeof(buf), &got, kNoHangMs);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), Code::kProtocol);
  EXPECT_EQ(got.size(), 1u);
}

TEST_F(UnixChannelTest, MessageWithTooManyFdsIsProtocolError) {
  // A hostile client bypasses Send() and attaches more fds than the receiver has room for.
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  constexpr size_t kFds = kMaxFdsPerMessage + 1;
  std::vector<UniqueFd> owned;
  int raw[kFds];
  for (size_t i = 0; i < kFds; ++i) {
    owned.emplace_back(::eventfd(0, EFD_CLOEXEC));
    ASSERT_TRUE(owned.back().valid());
    raw[i] = owned.back().get();
  }
  char byte = 'x';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(raw))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(raw));
  std::memcpy(CMSG_DATA(c), raw, sizeof(raw));
  ASSERT_EQ(::sendmsg(client.fd(), &msg, MSG_NOSIGNAL), 1) << std::strerror(errno);

  char buf[16];
  std::vector<UniqueFd> got;
  auto n = server.Recv(buf, sizeof(buf), &got, kNoHangMs);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), Code::kProtocol) << n.status().ToString();
  EXPECT_LE(got.size(), kMaxFdsPerMessage);
}

TEST_F(UnixChannelTest, SendRejectsMoreThanMaxFds) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  int fds[kMaxFdsPerMessage + 1];
  for (int& fd : fds) fd = client.fd();
  Status st = client.Send("x", 1, fds, kMaxFdsPerMessage + 1);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
}

TEST_F(UnixChannelTest, RecvWithoutFdVectorClosesReceivedFds) {
  // Send a pipe's write end; once the receiver drops it and we close ours, the read end sees EOF.
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
  UniqueFd read_end(p[0]), write_end(p[1]);
  int w = write_end.get();
  ASSERT_TRUE(client.Send("x", 1, &w, 1).ok());
  char buf[16];
  auto n = server.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  write_end.reset();
  char c;
  EXPECT_EQ(::read(read_end.get(), &c, 1), 0) << "a received write end is still open";
}

TEST_F(UnixChannelTest, RecvTimesOutWhenNothingArrives) {
  UnixChannel client, server;
  ASSERT_NO_FATAL_FAILURE(Connect(&client, &server));
  char buf[16];
  for (int timeout_ms : {0, 1}) {
    auto n = server.Recv(buf, sizeof(buf), nullptr, timeout_ms);
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(n.status().code(), Code::kDeadlineExceeded) << n.status().ToString();
  }
}

TEST_F(UnixChannelTest, AcceptWithNothingPendingReturnsUnavailable) {
  auto listener = ListenUnix(path_, 4);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  auto fd = AcceptUnix(listener->get());
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Code::kUnavailable);  // EAGAIN: the listener is non-blocking
}

TEST_F(UnixChannelTest, ConnectToMissingPathFailsWithUnavailableNamingThePath) {
  auto c = UnixChannel::Connect(path_);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
  EXPECT_NE(c.status().message().find(path_), std::string::npos) << c.status().ToString();
}

TEST_F(UnixChannelTest, ListenRefusesToReplaceARegularFile) {
  std::FILE* f = std::fopen(path_.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("precious", f);
  std::fclose(f);
  auto listener = ListenUnix(path_, 4);
  ASSERT_FALSE(listener.ok());
  EXPECT_EQ(listener.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(listener.status().message().find(path_), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 8);
}

TEST_F(UnixChannelTest, ListenReplacesAStaleSocketFile) {
  {
    // A crashed agent leaves its socket file behind with nobody listening.
    UniqueFd stale(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    ASSERT_EQ(::bind(stale.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  struct stat st {};
  ASSERT_EQ(::lstat(path_.c_str(), &st), 0);
  ASSERT_TRUE(S_ISSOCK(st.st_mode));

  auto listener = ListenUnix(path_, 4);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  auto c = UnixChannel::Connect(path_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(AcceptUnix(listener->get()).ok());
}

TEST_F(UnixChannelTest, ListenRefusesWhenAnotherListenerIsLive) {
  auto first = ListenUnix(path_, 4);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = ListenUnix(path_, 4);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(second.status().message().find(path_), std::string::npos);
  // The live agent's socket file is untouched: clients still reach it.
  auto c = UnixChannel::Connect(path_);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
}

TEST_F(UnixChannelTest, PathLongerThanSunPathIsRejected) {
  std::string long_path = dir_ + "/" + std::string(sizeof(sockaddr_un::sun_path), 'p');
  auto listener = ListenUnix(long_path, 4);
  ASSERT_FALSE(listener.ok());
  EXPECT_EQ(listener.status().code(), Code::kInvalidArgument);
  auto c = UnixChannel::Connect(long_path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
}

TEST_F(UnixChannelTest, PathOfExactlyMaxLengthIsAccepted) {
  // sun_path holds 107 characters plus the terminating NUL.
  const size_t max_len = sizeof(sockaddr_un::sun_path) - 1;
  ASSERT_LT(dir_.size() + 1, max_len);
  std::string path = dir_ + "/" + std::string(max_len - dir_.size() - 1, 'p');
  ASSERT_EQ(path.size(), max_len);
  auto listener = ListenUnix(path, 4);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  EXPECT_TRUE(UnixChannel::Connect(path).ok());
  auto too_long = ListenUnix(path + "p", 4);
  EXPECT_EQ(too_long.status().code(), Code::kInvalidArgument);
}

TEST_F(UnixChannelTest, EmptyPathIsRejected) {
  EXPECT_EQ(ListenUnix("", 4).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(UnixChannel::Connect("").status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace outrider::ipc
