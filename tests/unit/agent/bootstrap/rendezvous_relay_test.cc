// A communicator whose node 0 is not the job's: the root agent relays its rendezvous without
// taking part, and refuses a node 0 that announces an impossible shape.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "agent/bootstrap/rendezvous.h"
#include "agent/event_loop.h"

namespace outrider::agent {
namespace {

EventLoop::Hooks Idle() {
  return {[] { return false; }, [] { return true; }, [] {}, [] { return 100; }};
}

struct Relay {
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<RendezvousServer> server;
  std::string root;

  Relay() {
    auto l = EventLoop::Create(0);
    EXPECT_TRUE(l.ok());
    loop = std::move(*l);
    server = std::make_unique<RendezvousServer>(loop.get(), 5000);
    EXPECT_TRUE(server->Listen("127.0.0.1", 0).ok());
    root = "127.0.0.1:" + std::to_string(server->port());
  }
  // Joins as each of `nodes` with `shape` and runs the loop until every join has its answer.
  std::vector<Result<NodeTable>> JoinAll(const JobShape& shape, const std::vector<int32_t>& nodes) {
    std::vector<Result<NodeTable>> got(nodes.size(), Internal("no answer"));
    size_t answered = 0;
    std::vector<std::unique_ptr<RendezvousClient>> clients;
    for (size_t i = 0; i < nodes.size(); ++i) {
      clients.push_back(std::make_unique<RendezvousClient>(loop.get(), shape, nodes[i], root,
                                                           "node" + std::to_string(nodes[i]), 5000,
                                                           [&, i](Result<NodeTable> t) {
                                                             got[i] = std::move(t);
                                                             if (++answered == nodes.size())
                                                               loop->Stop();
                                                           }));
    }
    loop->Run(Idle());
    return got;
  }
};

TEST(RendezvousRelayTest, NodesOfACommunicatorWithoutMembersAtTheRootMeetThere) {
  Relay relay;
  JobShape shape{"job/00000000000000aa", "tok", 3, 2};
  std::vector<Result<NodeTable>> got = relay.JoinAll(shape, {2, 0, 1});
  for (const auto& t : got) {
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(*t, (NodeTable{"node0", "node1", "node2"}));
  }
}

TEST(RendezvousRelayTest, RefusesANodeZeroWithAnImpossibleShape) {
  Relay relay;
  JobShape shape{"job/00000000000000bb", "tok", 1 << 30, 1};
  std::vector<Result<NodeTable>> got = relay.JoinAll(shape, {0});
  ASSERT_FALSE(got[0].ok());
  EXPECT_NE(got[0].status().message().find("cannot meet here"), std::string::npos)
      << got[0].status().ToString();
}

TEST(RendezvousRelayTest, JoinersWhoseTokenDiffersFromNodeZerosNeverMeetIt) {
  Relay relay;
  JobShape good{"job/00000000000000cc", "tok", 2, 1};
  JobShape bad = good;
  bad.token = "other";
  std::vector<Result<NodeTable>> got(2, Internal("no answer"));
  size_t answered = 0;
  auto done = [&](size_t i) {
    return [&, i](Result<NodeTable> t) {
      got[i] = std::move(t);
      if (++answered == 2) relay.loop->Stop();
    };
  };
  RendezvousClient zero(relay.loop.get(), good, 0, relay.root, "node0", 1500, done(0));
  RendezvousClient one(relay.loop.get(), bad, 1, relay.root, "node1", 1500, done(1));
  relay.loop->Run(Idle());
  EXPECT_FALSE(got[0].ok());  // no node 1 with node 0's token: both time out
  EXPECT_FALSE(got[1].ok());
}

TEST(RendezvousRelayTest, AForgedNodeZeroThatCameFirstTakesNothingOver) {
  Relay relay;
  JobShape forged{"job/00000000000000dd", "guess", 2, 1};
  JobShape real = forged;
  real.token = "tok";
  std::vector<Result<NodeTable>> got(3, Internal("no answer"));
  size_t answered = 0;
  auto done = [&](size_t i) {
    return [&, i](Result<NodeTable> t) {
      got[i] = std::move(t);
      if (++answered == 3) relay.loop->Stop();
    };
  };
  RendezvousClient forger(relay.loop.get(), forged, 0, relay.root, "forger", 5000, done(0));
  // The forger's join is held before the real nodes come.
  EventLoop::Hooks until_held = Idle();
  until_held.poll = [&] {
    if (relay.server->joins_waiting() == 1) relay.loop->Stop();
    return false;
  };
  relay.loop->Run(until_held);
  RendezvousClient zero(relay.loop.get(), real, 0, relay.root, "node0", 5000, done(1));
  RendezvousClient one(relay.loop.get(), real, 1, relay.root, "node1", 5000, done(2));
  relay.loop->Run(Idle());
  ASSERT_TRUE(got[1].ok()) << got[1].status().ToString();
  ASSERT_TRUE(got[2].ok()) << got[2].status().ToString();
  EXPECT_EQ(*got[1], (NodeTable{"node0", "node1"}));
  ASSERT_FALSE(got[0].ok());
  EXPECT_NE(got[0].status().message().find("wrong job token"), std::string::npos)
      << got[0].status().ToString();
}

}  // namespace
}  // namespace outrider::agent
