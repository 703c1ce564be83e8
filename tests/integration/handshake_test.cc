// Connections to the control socket that never say hello: they are closed at the handshake
// deadline, never lock trainers out (they are not clients, and past a bound the oldest goes), and
// an agent out of file descriptors pauses accepting instead of spinning a core. A hello that
// brings the fences of an earlier agent's control segment (ipc::kHelloFences): the agent signals
// the client's fences there, and refuses any fd but a sealed segment whose fences fit.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

// A connection that never sends anything (blocking: connect waits while the backlog is full).
UniqueFd Silent(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  EXPECT_TRUE(fd.valid()) << std::strerror(errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), std::min(path.size(), sizeof(addr.sun_path) - 1));
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0)
      << std::strerror(errno);
  return fd;
}

// Whether the agent closed `fd` within `ms` (EOF or reset).
bool ClosedWithin(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, ms) != 1) return false;
  char c;
  ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

// A one-rank job of a fresh trainer completes an allreduce: the agent serves.
int TrainerRuns(const std::string& socket, const std::string& job) {
  pid_t pid = Spawn([&] {
    outrider_client_t* c = ConnectOrExit(socket, job, 0, 1);
    auto* x = static_cast<float*>(outrider_alloc(c, 4));
    if (x == nullptr) {
      std::fprintf(stderr, "outrider_alloc: %s\n", outrider_last_error(c));
      return 9;
    }
    *x = 3.0f;
    outrider_op_t h;
    int e = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
    if (e == OUTRIDER_OK) e = outrider_wait(c, h, 10000);
    int rc = e == OUTRIDER_OK && *x == 3.0f ? 0 : 10 + e;  // read before disconnect unmaps it
    outrider_disconnect(c);
    return rc;
  });
  return Reap(pid);
}

TEST(HandshakeTest, SilentConnectionsCloseAtTheDeadlineAndNeverLockTrainersOut) {
  auto agent = StartAgent({"--handshake-timeout-ms", "400", "--max-clients", "4"});
  ASSERT_NE(agent, nullptr);
  std::vector<UniqueFd> silent;
  for (int i = 0; i < 300; ++i) silent.push_back(Silent(agent->socket_path()));
  // More silent connections than max_clients and than the agent keeps waiting: a trainer still
  // gets in at once.
  EXPECT_EQ(TrainerRuns(agent->socket_path(), "after-silent"), 0);
  // Every silent connection is closed: the oldest to make room, the rest at their deadline.
  for (size_t i = 0; i < silent.size(); ++i)
    ASSERT_TRUE(ClosedWithin(silent[i].get(), 10000)) << "connection " << i;
  EXPECT_NE(agent->ReadLog().find("no hello within handshake_timeout_ms=400"), std::string::npos);
}

TEST(HandshakeTest, OutOfFileDescriptorsTheAgentPausesAcceptingInsteadOfSpinning) {
  auto agent = StartAgent({"--handshake-timeout-ms", "1000"});
  ASSERT_NE(agent, nullptr);
  // Room for a few more descriptors than the agent has open now (the soft limit: raising a hard
  // limit again would need CAP_SYS_RESOURCE).
  rlimit old{};
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, nullptr, &old), 0) << std::strerror(errno);
  rlimit lim{static_cast<rlim_t>(CountOpenFds(agent->pid())) + 6, old.rlim_max};
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, &lim, nullptr), 0) << std::strerror(errno);
  std::vector<UniqueFd> silent;
  for (int i = 0; i < 40; ++i)
    silent.push_back(Silent(agent->socket_path()));  // queued past the limit
  // The agent says so once it hits the limit (an event in its log, waited for with a deadline).
  uint64_t deadline = ipc::MonotonicNs() + 10'000'000'000ull;
  while (agent->ReadLog().find("cannot accept connections") == std::string::npos &&
         ipc::MonotonicNs() < deadline) {
    ::poll(nullptr, 0, 10);
  }
  ASSERT_NE(agent->ReadLog().find("cannot accept connections"), std::string::npos);
  // While connections stay queued that it cannot accept, it uses next to no CPU: a spinning
  // loop would burn the whole interval.
  double before = CpuSeconds(agent->pid());
  ::poll(nullptr, 0, 500);
  EXPECT_LT(CpuSeconds(agent->pid()) - before, 0.2) << "the agent spins at the fd limit";
  // Once the silent ones are gone, the agent accepts again and serves a trainer.
  silent.clear();
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, &old, nullptr), 0) << std::strerror(errno);
  EXPECT_EQ(TrainerRuns(agent->socket_path(), "after-emfile"), 0);
}

// A hello of a client whose agent handed it over, bringing `fd` (if >= 0) as its fences.
Result<ipc::HelloReply> HelloWithFences(const std::string& socket, const std::string& job, int fd,
                                        std::unique_ptr<RawClient>* out = nullptr,
                                        uint32_t flags = ipc::kHelloReconnect |
                                                         ipc::kHelloAfterGoodbye |
                                                         ipc::kHelloFences) {
  OUTRIDER_ASSIGN_OR_RETURN(std::unique_ptr<RawClient> raw, RawClient::Connect(socket));
  ipc::HelloRequest h = raw->MakeHello(job, 0, 1);
  h.flags = flags;
  Result<ipc::HelloReply> reply = raw->Hello(h, fd);
  if (out != nullptr) *out = std::move(raw);
  return reply;
}

TEST(HandshakeTest, AHelloWithFencesHasTheAgentSignalThemInTheSegmentItBrings) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  // The segment an earlier agent gave the client (here: this agent's, to another client).
  uint32_t region = 0;
  Result<std::unique_ptr<RawClient>> earlier = JoinRawJob(agent->socket_path(), "a", 0, 1, &region);
  ASSERT_TRUE(earlier.ok()) << earlier.status().ToString();
  std::unique_ptr<RawClient> raw;
  Result<ipc::HelloReply> reply =
      HelloWithFences(agent->socket_path(), "b", (*earlier)->control_fd(), &raw);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  ASSERT_EQ(reply->code, 0) << reply->message;
  Result<uint32_t> r = raw->RegisterRegion(4096);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // A fenced op, ready in the brought segment only: the agent runs it and signals it there.
  ipc::SubmitEntry e = AllreduceEntry(7, *r, 0, 16);
  e.flags = ipc::kSubmitFenced;
  e.fence = 5;
  std::atomic_ref<uint64_t>((*earlier)->fence(5).ready).store(7, std::memory_order_release);
  raw->Push(e);
  Result<ipc::CompletionEntry> done = raw->NextCompletion(10000);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->op_id, 7u);
  EXPECT_EQ(done->code, 0) << done->message;
  EXPECT_EQ(std::atomic_ref<uint64_t>((*earlier)->fence(5).done).load(), 7u);
  EXPECT_EQ(std::atomic_ref<uint64_t>(raw->fence(5).done).load(), 0u);  // its own: untouched
}

TEST(HandshakeTest, AHelloWithFencesIsRefusedUnlessItBringsASealedSegmentWhoseFencesFit) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  const std::string socket = agent->socket_path();
  auto refused = [&](int fd, uint32_t flags, const std::string& why) {
    Result<ipc::HelloReply> r = HelloWithFences(socket, "refused", fd, nullptr, flags);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_NE(r->code, 0);
    EXPECT_NE(std::string(r->message).find(why), std::string::npos) << r->message;
  };
  constexpr uint32_t kBack = ipc::kHelloReconnect | ipc::kHelloAfterGoodbye;
  refused(-1, kBack | ipc::kHelloFences, "carries one fd with flag kHelloFences");
  Result<UniqueFd> made = ipc::CreateSealedMemfd("control", 1 << 20);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  UniqueFd sealed = std::move(*made);
  refused(sealed.get(), kBack, "none without it");
  refused(sealed.get(), ipc::kHelloReconnect | ipc::kHelloFences,
          "kHelloFences without kHelloAfterGoodbye");
  UniqueFd unsealed(::memfd_create("unsealed", MFD_CLOEXEC));
  ASSERT_EQ(::ftruncate(unsealed.get(), 1 << 20), 0);
  refused(unsealed.get(), kBack | ipc::kHelloFences, "the fences that came with the hello");
  made = ipc::CreateSealedMemfd("control", sizeof(ipc::ControlHeader) + 64);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  UniqueFd small = std::move(*made);
  refused(small.get(), kBack | ipc::kHelloFences, "are not inside its");
  // A segment whose header puts its fences past its end.
  {
    Result<ipc::Mapping> m = ipc::MapShared(sealed.get(), 1 << 20);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    reinterpret_cast<ipc::ControlHeader*>(m->data())->fences_offset = (1 << 20) - 64;
  }
  refused(sealed.get(), kBack | ipc::kHelloFences, "are not inside its");
  // And it still serves.
  EXPECT_EQ(TrainerRuns(socket, "after-bad-fences"), 0);
}

}  // namespace
}  // namespace outrider::testing
