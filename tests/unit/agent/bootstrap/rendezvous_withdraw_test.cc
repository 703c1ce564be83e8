// A withdrawal fails a rendezvous (a rank died before it joined its generation), so only an agent
// that knows the job's token may send one: the offered job's, or one the engine vouches for before
// the offer. Anyone else's is ignored and the rendezvous completes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "agent/bootstrap/rendezvous.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/event_loop.h"

namespace outrider::agent {
namespace {

struct Root {
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<RendezvousServer> server;
  std::string addr;
  Root() {
    auto l = EventLoop::Create(0);
    EXPECT_TRUE(l.ok());
    loop = std::move(*l);
    server = std::make_unique<RendezvousServer>(loop.get(), 5000);
    EXPECT_TRUE(server->Listen("127.0.0.1", 0).ok());
    addr = "127.0.0.1:" + std::to_string(server->port());
  }
  // Sends a withdrawal of `job` with `token` and runs the loop until the server has read it.
  void Withdraw(const std::string& job, const std::string& token) {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(server->port());
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
    JobShape shape{job, token, 0, 0};
    std::string frame = rendezvous::Encode(rendezvous::kWithdraw, shape, 0, {"rank 1 died"});
    ASSERT_EQ(::send(fd.get(), frame.data(), frame.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(frame.size()));
    // The server closes the connection once it has handled the frame.
    EventLoop::Hooks hooks{[&] {
                             char c;
                             ssize_t n = ::recv(fd.get(), &c, 1, MSG_DONTWAIT);
                             if (n == 0) loop->Stop();
                             return false;
                           },
                           [] { return true; }, [] {}, [] { return 10; }};
    loop->Run(hooks);
  }
  // Offers `shape` and joins it as node 1; the root's result.
  Result<NodeTable> Meet(const JobShape& shape) {
    std::optional<Result<NodeTable>> root, joiner;
    server->Offer(shape, "node0", [&](Result<NodeTable> t) { root = std::move(t); });
    RendezvousClient one(loop.get(), shape, 1, addr, "node1", 3000,
                         [&](Result<NodeTable> t) { joiner = std::move(t); });
    EventLoop::Hooks hooks{[&] {
                             if (root && joiner) loop->Stop();
                             return false;
                           },
                           [] { return true; }, [] {}, [] { return 10; }};
    loop->Run(hooks);
    return *root;
  }
};

TEST(RendezvousWithdrawTest, AWithdrawalNobodyVouchesForIsIgnored) {
  Root root;
  JobShape shape{"run7~g1", "tok", 2, 1};
  root.Withdraw(shape.job_id, "");       // no token, before the offer
  root.Withdraw(shape.job_id, "guess");  // a wrong one
  Result<NodeTable> t = root.Meet(shape);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, (NodeTable{"node0", "node1"}));
}

TEST(RendezvousWithdrawTest, AVouchedWithdrawalBeforeTheOfferFailsTheRendezvous) {
  Root root;
  // The generations vouch for the token of a generation decided elsewhere.
  struct Vouching : GenerationFrames {
    void OnReformFrame(const std::string&, const std::string&, std::string, UniqueFd,
                       const std::string&, const std::string&) override {}
    bool Vouches(const std::string& id, const std::string& token) override {
      return id == "run8~g1" && token == "tok";
    }
    void OnNodeLeft(const std::string&, int32_t) override {}
  } vouching;
  root.server->set_generation_frames(&vouching);
  JobShape shape{"run8~g1", "tok", 2, 1};
  root.Withdraw(shape.job_id, "tok");
  Result<NodeTable> t = root.Meet(shape);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kPeerLost);
  EXPECT_NE(t.status().message().find("rank 1 died"), std::string::npos) << t.status().ToString();
}

TEST(RendezvousWithdrawTest, AJoinRefusedForADeadRankSaysSoWithARetriableCode) {
  Root root;
  JobShape shape{"run9~g1", "tok", 2, 1};
  root.server->Abandon(shape.job_id, PeerLost("local rank 0 died before joining"));
  std::optional<Result<NodeTable>> joiner;
  RendezvousClient one(root.loop.get(), shape, 1, root.addr, "node1", 3000,
                       [&](Result<NodeTable> t) { joiner = std::move(t); });
  EventLoop::Hooks hooks{[&] {
                           if (joiner) root.loop->Stop();
                           return false;
                         },
                         [] { return true; }, [] {}, [] { return 10; }};
  root.loop->Run(hooks);
  ASSERT_FALSE(joiner->ok());
  EXPECT_EQ(joiner->status().code(), Code::kPeerLost) << joiner->status().ToString();
}

}  // namespace
}  // namespace outrider::agent
