// Rendezvous frames: what Encode writes decodes to the same job, shape and blobs; Decode refuses
// frames whose lengths, magic or version are wrong before it reads past them.
#include "agent/bootstrap/rendezvous_frame.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace outrider::agent::rendezvous {
namespace {

const JobShape kShape{"job-7", "token", 3, 2};

// The body of an encoded frame (what follows its length).
std::string Body(const std::string& frame) {
  uint32_t len;
  std::memcpy(&len, frame.data(), 4);
  EXPECT_EQ(len, frame.size() - 4);
  return frame.substr(4);
}

TEST(RendezvousFrameTest, DecodesWhatEncodeWrote) {
  std::string frame = Encode(kTable, kShape, 2, {"fake:0", "", "fake:2"});
  Result<Frame> f = Decode(Body(frame));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->header.type, kTable);
  EXPECT_STREQ(f->header.job_id, "job-7");
  EXPECT_STREQ(f->header.token, "token");
  EXPECT_EQ(f->header.node_rank, 2);
  EXPECT_EQ(f->header.num_nodes, 3);
  EXPECT_EQ(f->header.local_size, 2);
  EXPECT_EQ(f->blobs, (std::vector<std::string>{"fake:0", "", "fake:2"}));
}

TEST(RendezvousFrameTest, RefusesABodyShorterThanItsHeader) {
  std::string body = Body(Encode(kJoin, kShape, 1, {}));
  body.pop_back();
  Result<Frame> f = Decode(body);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "bad rendezvous frame length");
}

TEST(RendezvousFrameTest, RefusesBadMagicOrVersion) {
  std::string body = Body(Encode(kJoin, kShape, 1, {"fake:1"}));
  body[4] = static_cast<char>(kVersion + 1);  // version
  Result<Frame> f = Decode(body);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("bad magic or version"), std::string::npos);
}

TEST(RendezvousFrameTest, RefusesABlobLongerThanWhatFollows) {
  std::string body = Body(Encode(kJoin, kShape, 1, {"fake:1"}));
  body.pop_back();
  Result<Frame> f = Decode(body);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "truncated rendezvous blob");
}

TEST(RendezvousFrameTest, TerminatesAJobIdAndTokenThatFillTheirFields) {
  std::string body = Body(Encode(kJoin, kShape, 1, {}));
  FrameHeader h;
  std::memcpy(&h, body.data(), sizeof(h));
  std::memset(h.job_id, 'j', sizeof(h.job_id));
  std::memset(h.token, 't', sizeof(h.token));
  std::memcpy(body.data(), &h, sizeof(h));
  Result<Frame> f = Decode(body);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(std::string(f->header.job_id), std::string(sizeof(h.job_id) - 1, 'j'));
  EXPECT_EQ(std::string(f->header.token), std::string(sizeof(h.token) - 1, 't'));
}

}  // namespace
}  // namespace outrider::agent::rendezvous
