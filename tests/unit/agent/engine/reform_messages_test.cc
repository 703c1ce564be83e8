// The next generation's JSON bodies come from other machines: every field is read with its type
// and range checked, and a body that is not what an agent sends is refused, never thrown on.
#include "agent/engine/reform_messages.h"

#include <gtest/gtest.h>

#include <string>

namespace outrider::agent {
namespace {

TEST(ReformMessagesTest, RequestsRoundTrip) {
  ReformRequest r;
  r.generation = 3;
  r.port = 29400;
  r.node = 2;
  r.timeout_ms = 5000;
  r.ranks = {4, 5};
  Result<ReformRequest> back = ParseReformRequest(EncodeReformRequest(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->joiner);
  EXPECT_EQ(back->generation, 3u);
  EXPECT_EQ(back->port, 29400);
  EXPECT_EQ(back->node, 2);
  EXPECT_EQ(back->timeout_ms, 5000u);
  EXPECT_EQ(back->ranks, (std::vector<int32_t>{4, 5}));
  r.joiner = true;
  back = ParseReformRequest(EncodeReformRequest(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->joiner);
  EXPECT_TRUE(back->ranks.empty());
}

TEST(ReformMessagesTest, RefusesRequestFieldsOfAnotherTypeNamingThem) {
  const char* bodies[][2] = {
      {R"({"kind":"node","timeout_ms":"x"})", "timeout_ms"},
      {R"({"kind":"node","port":null})", "port"},
      {R"({"kind":"node","generation":-1})", "generation"},
      {R"({"kind":"node","generation":1.5})", "generation"},
      {R"({"kind":"node","node":{}})", "node"},
      {R"({"kind":"node","ranks":5})", "ranks"},
      {R"({"kind":"node","ranks":["a"]})", "ranks"},
      {R"({"kind":"node","ranks":[-3]})", "ranks"},
      {R"({"kind":"node","ranks":[18446744073709551615]})", "ranks"},
      {R"({"kind":"node","port":70000})", "port"},
      {R"({"kind":"node","timeout_ms":0})", "timeout_ms"},
      {R"({"kind":7})", "kind"},
      {R"({"kind":"nod"})", "kind"},
      {R"({"generation":1})", "kind"},
  };
  for (const auto& [body, field] : bodies) {
    Result<ReformRequest> r = ParseReformRequest(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), Code::kProtocol) << body;
    EXPECT_NE(r.status().message().find(field), std::string::npos)
        << body << ": " << r.status().message();
  }
}

TEST(ReformMessagesTest, RefusesBodiesThatAreNotObjects) {
  for (const char* body : {"", "[]", "null", "\"node\"", "{", "{\"kind\":\"node\"", "\xff\xfe"})
    EXPECT_FALSE(ParseReformRequest(body).ok()) << body;
  for (const char* body : {"", "[]", "7", "{"}) EXPECT_FALSE(ParseReformDecision(body).ok());
}

TEST(ReformMessagesTest, DecisionsRoundTrip) {
  ReformDecision d;
  d.generation = 2;
  d.world_size = 3;
  d.node_ranks = {2, 1};  // nodes may run different numbers of ranks
  d.root = "10.0.0.1:29400";
  d.agents = {"10.0.0.1:29400", "10.0.0.2:29400"};
  d.assign = {{2, 0, ""}, {-1, -1, "its node runs 64 ranks"}, {-1, -1, ""}};
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
  EXPECT_EQ(back->assign[2].why, "no place for this rank");  // null: no place
}

TEST(ReformMessagesTest, RefusesDecisionsThatCannotBeFollowed) {
  const char* bodies[] = {
      R"({"code":"0"})",
      R"({"code":0,"world_size":"4","node_ranks":[4],"agents":["a"]})",
      R"({"code":0,"node_ranks":[1],"agents":["a"]})",
      R"({"code":0,"world_size":2,"node_ranks":[1],"agents":["a"]})",        // 1 != 2
      R"({"code":0,"world_size":2,"node_ranks":[1,1],"agents":["a"]})",      // 2 nodes, 1 agent
      R"({"code":0,"world_size":2,"node_ranks":[2,0],"agents":["a","b"]})",  // an empty node
      R"({"code":0,"world_size":2,"node_ranks":["2"],"agents":["a"]})",
      R"({"code":0,"world_size":2,"agents":["a"]})",
      R"({"code":0,"world_size":2,"node_ranks":[2],"agents":["a"],"assign":[{"rank":2,"local_rank":0}]})",
      R"({"code":0,"world_size":3,"node_ranks":[1,2],"agents":["a","b"],"assign":[{"rank":2,"local_rank":0}]})",
      R"({"code":0,"world_size":2,"node_ranks":[2],"agents":["a"],"assign":[{"local_rank":0}]})",
      R"({"code":0,"world_size":2,"node_ranks":[2],"agents":["a"],"assign":[7]})",
      R"({"code":0,"world_size":2,"node_ranks":[2],"agents":[1]})",
      R"({"code":0,"world_size":2,"node_ranks":[2],"agents":["a"],"root":5})",
      R"({"absent":"yes"})",
      R"({"code":3,"message":7})",
  };
  for (const char* body : bodies) EXPECT_FALSE(ParseReformDecision(body).ok()) << body;
}

TEST(ReformMessagesTest, AFailureNeedsNoGenerationAndAnUnknownCodeIsInternal) {
  Result<ReformDecision> d = ParseReformDecision(R"({"code":5,"message":"rank 2 died"})");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->status_code(), Code::kPeerLost);
  EXPECT_EQ(d->message, "rank 2 died");
  d = ParseReformDecision(R"({"code":999})");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->status_code(), Code::kInternal);
  d = ParseReformDecision(R"({"absent":true})");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->absent);
}

}  // namespace
}  // namespace outrider::agent
