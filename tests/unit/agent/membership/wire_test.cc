// The next generation's messages come from other machines: every length, count and range is
// checked before it is read, and a body that is not what an agent sends is refused naming what is
// wrong, never thrown on or trusted in part.
#include "agent/membership/wire.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "agent/membership/generation_id.h"

namespace outrider::agent::membership {
namespace {

ReformRequest NodeReport() {
  ReformRequest r;
  r.generation = 3;
  r.port = 29400;
  r.node = 2;
  r.timeout_ms = 5000;
  r.ranks = {4, 5};
  return r;
}

ReformDecision TwoNodes() {
  ReformDecision d;
  d.generation = 2;
  d.world_size = 3;
  d.node_ranks = {2, 1};  // nodes may run different numbers of ranks
  d.root = "10.0.0.1:29400";
  d.agents = {"10.0.0.1:29400", "10.0.0.2:29400"};
  d.assign = {{2, 0, ""}, {-1, -1, "its node runs 64 ranks"}, {-1, -1, ""}};
  return d;
}

// `body` with the bytes at `offset` replaced by `v`'s.
template <typename T>
std::string Patched(std::string body, size_t offset, T v) {
  std::memcpy(body.data() + offset, &v, sizeof(v));
  return body;
}

// Offsets in a request: header (magic 4, version 2, kind 2), joiner 1, generation 4, port 2,
// node 4, timeout 4, count 4, ranks.
constexpr size_t kJoinerAt = 8, kNodeAt = 15, kTimeoutAt = 19, kCountAt = 23, kRanksAt = 27;

TEST(MembershipWireTest, RequestsRoundTrip) {
  ReformRequest r = NodeReport();
  Result<ReformRequest> back = ParseReformRequest(EncodeReformRequest(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->joiner);
  EXPECT_EQ(back->generation, 3u);
  EXPECT_EQ(back->port, 29400);
  EXPECT_EQ(back->node, 2);
  EXPECT_EQ(back->timeout_ms, 5000u);
  EXPECT_EQ(back->ranks, (std::vector<int32_t>{4, 5}));
  r.joiner = true;  // a joiner's ask carries no ranks
  back = ParseReformRequest(EncodeReformRequest(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->joiner);
  EXPECT_TRUE(back->ranks.empty());
}

TEST(MembershipWireTest, RefusesRequestFieldsOutOfRangeNamingThem) {
  std::string good = EncodeReformRequest(NodeReport());
  struct Case {
    std::string body;
    const char* field;
  } cases[] = {
      {Patched<uint8_t>(good, kJoinerAt, 2), "joiner"},
      {Patched<int32_t>(good, kNodeAt, -2), "node"},
      {Patched<uint32_t>(good, kTimeoutAt, 0), "timeout_ms"},
      {Patched<uint32_t>(good, kTimeoutAt, ReformRequest::kMaxTimeoutMs + 1), "timeout_ms"},
      {Patched<int32_t>(good, kRanksAt, -3), "ranks"},
      {Patched<int32_t>(good, kRanksAt, 1 << 30), "ranks"},
      {Patched<uint32_t>(good, kCountAt, 3), "ranks"},            // more ranks than the body holds
      {Patched<uint32_t>(good, kCountAt, 0xffffffffu), "ranks"},  // never allocated
      {good.substr(0, kTimeoutAt + 2), "timeout_ms"},
      {Patched<uint16_t>(good, 6, 2), "kind"},  // a decision's kind
  };
  for (const Case& c : cases) {
    Result<ReformRequest> r = ParseReformRequest(c.body);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), Code::kProtocol) << c.field;
    EXPECT_NE(r.status().message().find(c.field), std::string::npos)
        << c.field << ": " << r.status().message();
  }
  std::string with_ranks = Patched<uint8_t>(good, kJoinerAt, 1);  // a "joiner" with two ranks
  EXPECT_FALSE(ParseReformRequest(with_ranks).ok());
  EXPECT_FALSE(ParseReformRequest(good + "x").ok()) << "trailing bytes";
}

TEST(MembershipWireTest, RefusesWhatIsNotAGenerationMessageAndNamesBothVersions) {
  for (const char* body : {"", "{\"kind\":\"node\"}", "ORG", "\xff\xfe"})
    EXPECT_FALSE(ParseReformRequest(body).ok()) << body;
  std::string newer = Patched<uint16_t>(EncodeReformRequest(NodeReport()), 4, kWireVersion + 1);
  Result<ReformRequest> r = ParseReformRequest(newer);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version " + std::to_string(kWireVersion + 1)),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("speaks version " + std::to_string(kWireVersion)),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(ParseReformDecision(EncodeReformRequest(NodeReport())).ok());
}

TEST(MembershipWireTest, DecisionsRoundTrip) {
  ReformDecision d = TwoNodes();
  Result<ReformDecision> back = ParseReformDecision(EncodeReformDecision(d));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->code, 0);
  EXPECT_EQ(back->generation, 2u);
  EXPECT_EQ(back->world_size, 3);
  EXPECT_EQ(back->node_ranks, d.node_ranks);
  EXPECT_EQ(back->root, d.root);
  EXPECT_EQ(back->agents, d.agents);
  ASSERT_EQ(back->assign.size(), 3u);
  EXPECT_EQ(back->assign[0].rank, 2);
  EXPECT_EQ(back->assign[0].local_rank, 0);
  EXPECT_EQ(back->assign[1].why, "its node runs 64 ranks");
  EXPECT_EQ(back->assign[2].why, "no place for this rank");  // none given: no place
}

TEST(MembershipWireTest, RefusesDecisionsThatCannotBeFollowed) {
  auto refused = [](ReformDecision d) {
    return !ParseReformDecision(EncodeReformDecision(d)).ok();
  };
  ReformDecision d = TwoNodes();
  d.world_size = 4;  // 2 + 1 != 4
  EXPECT_TRUE(refused(d));
  d = TwoNodes();
  d.node_ranks = {3, 0};  // an empty node
  EXPECT_TRUE(refused(d));
  d = TwoNodes();
  d.assign = {{2, 1, ""}};  // rank 2 is the first on node 1: local rank 0
  EXPECT_TRUE(refused(d));
  d = TwoNodes();
  d.assign = {{3, 0, ""}};  // past the world
  EXPECT_TRUE(refused(d));
  d = TwoNodes();
  d.world_size = 0;
  d.node_ranks.clear();
  d.agents.clear();
  EXPECT_TRUE(refused(d));
  std::string good = EncodeReformDecision(TwoNodes());
  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_FALSE(ParseReformDecision(good.substr(0, cut)).ok()) << "cut at " << cut;
  // Header 8, absent 1, code 4, message 2: an entry tag of another kind at the last slot.
  std::string bad_tag = Patched<uint8_t>(good, good.size() - 1, 9);
  EXPECT_FALSE(ParseReformDecision(bad_tag).ok());
  // A message claiming more than kMaxText.
  std::string long_message = Patched<uint16_t>(good, 13, kMaxText + 1);
  Result<ReformDecision> r = ParseReformDecision(long_message);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("message"), std::string::npos) << r.status().message();
}

TEST(MembershipWireTest, AFailureNeedsNoGenerationAndAnUnknownCodeIsInternal) {
  Result<ReformDecision> d = ParseReformDecision(
      EncodeReformDecision(ReformDecision::Refusal(Code::kPeerLost, "rank 2 died")));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->status_code(), Code::kPeerLost);
  EXPECT_EQ(d->message, "rank 2 died");
  ReformDecision unknown;
  unknown.code = 999;
  d = ParseReformDecision(EncodeReformDecision(unknown));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->status_code(), Code::kInternal);
  d = ParseReformDecision(EncodeReformDecision(ReformDecision::Absent()));
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->absent);
}

TEST(MembershipWireTest, NamesGenerationsWithinTheJobIdLimit) {
  EXPECT_EQ(GenerationJobId("train", 0), "train");
  EXPECT_EQ(GenerationJobId("train", 3), "train~g3");
  EXPECT_EQ(BaseOfGeneration("train~g3"), "train");
  EXPECT_EQ(BaseOfGeneration("train"), "");
  EXPECT_TRUE(IsGenerationId("train~g3"));
  EXPECT_TRUE(IsGenerationId(GenerationJobId(std::string(63, 'j'), 12)));
  for (const char* id : {"train", "train~g", "train~gx", "train~g3a"})
    EXPECT_FALSE(IsGenerationId(id)) << id;
  std::string longest(63, 'j');
  EXPECT_EQ(GenerationJobId(longest, 12).size(), 63u);
}

}  // namespace
}  // namespace outrider::agent::membership
