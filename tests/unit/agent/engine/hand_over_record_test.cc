// The records an agent that hands jobs across nodes over leaves beside its socket, and the stop
// point the nodes agree on (engine/hand_over_record.h, engine/job_hand_over.h).
#include "agent/engine/hand_over_record.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <string>

#include "agent/engine/job_hand_over.h"

namespace outrider::agent {
namespace {

class HandOverRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/hand-over-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = HandOverRecordPath(dir_ + "/agent.sock");
  }
  void TearDown() override {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  static HandOverRecord Record(std::string job) {
    HandOverRecord r;
    r.job_id = std::move(job);
    r.token = "tok";
    r.node_rank = 1;
    r.transports = {std::string("\x00\x01\xff", 3), std::string("\x7f", 1)};
    r.agents = {"10.0.0.1:7500", "10.0.0.2:7500"};
    r.stop = {{0xaa069420e42a706cULL, 7}, {3, 0}};
    r.written_unix_s = static_cast<uint64_t>(std::time(nullptr));
    return r;
  }
  std::string dir_, path_;
};

TEST_F(HandOverRecordTest, ARecordReadsBackAsWrittenBinaryAddressesIncluded) {
  ASSERT_TRUE(WriteHandOverRecords(path_, {Record("a"), Record("b")}).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // it holds the jobs' tokens
  auto read = ReadHandOverRecords(path_, 600);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 2u);
  const HandOverRecord& r = (*read)[1];
  HandOverRecord want = Record("b");
  EXPECT_EQ(r.job_id, "b");
  EXPECT_EQ(r.token, want.token);
  EXPECT_EQ(r.node_rank, 1);
  EXPECT_EQ(r.transports, want.transports);
  EXPECT_EQ(r.agents, want.agents);
  EXPECT_EQ(r.stop, want.stop);
}

TEST_F(HandOverRecordTest, NoFileIsNoRecordAndAnEmptyListRemovesTheFile) {
  auto none = ReadHandOverRecords(path_, 600);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(WriteHandOverRecords(path_, {Record("a")}).ok());
  ASSERT_TRUE(WriteHandOverRecords(path_, {}).ok());
  EXPECT_NE(::access(path_.c_str(), F_OK), 0);
}

TEST_F(HandOverRecordTest, ARecordOlderThanTheMaximumAgeIsLeftOut) {
  HandOverRecord old = Record("old");
  old.written_unix_s -= 700;
  ASSERT_TRUE(WriteHandOverRecords(path_, {old, Record("new")}).ok());
  auto read = ReadHandOverRecords(path_, 600);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].job_id, "new");
}

TEST_F(HandOverRecordTest, AFileThatIsNotRecordsIsAnErrorNamingIt) {
  for (const char* text : {"not json", "{\"hand_over\": 3}", "{\"hand_over\": [{\"job\": \"a\"}]}",
                           "{\"hand_over\": [{\"job\": \"a\", \"token\": \"t\", \"node_rank\": 5, "
                           "\"agents\": [\"x\"], \"transports\": [\"00\"], \"stop\": [], "
                           "\"written_unix_s\": 1}]}",
                           "{\"hand_over\": [{\"job\": \"a\", \"token\": \"t\", \"node_rank\": 0, "
                           "\"agents\": [\"x\"], \"transports\": [\"0g\"], \"stop\": [], "
                           "\"written_unix_s\": 1}]}"}) {
    std::ofstream(path_) << text;
    auto read = ReadHandOverRecords(path_, UINT64_MAX / 2);
    ASSERT_FALSE(read.ok()) << text;
    EXPECT_NE(read.status().message().find(path_), std::string::npos) << read.status().ToString();
  }
}

TEST(JobHandOverTest, TheStopPointIsEachKeysHighestMarkOnceEveryNodeMarked) {
  JobHandOver h(3, 0, 2);
  EXPECT_FALSE(h.Mark(0, {{1, 5}, {2, 3}}));
  EXPECT_FALSE(h.Mark(2, {{1, 4}}));
  EXPECT_FALSE(h.stop_known());
  EXPECT_FALSE(h.MayStart(1, 0));  // nothing starts before the nodes agree
  EXPECT_TRUE(h.Mark(1, {{1, 6}, {9, 1}}));
  JobHandOver::SeqMap want = {{1, 6}, {2, 3}, {9, 1}};
  EXPECT_EQ(h.stop(), want);
  EXPECT_TRUE(h.MayStart(1, 5));
  EXPECT_FALSE(h.MayStart(1, 6));
  EXPECT_TRUE(h.PastStop(7, 0));  // a key no node started stops at 0
  EXPECT_FALSE(h.leaving_here());
}

TEST(JobHandOverTest, TheNextAgentStartsNothingUntilEveryOtherNodeWelcomedIt) {
  JobHandOver h = JobHandOver::Resuming(3, 1, {{1, 6}});
  EXPECT_TRUE(h.resuming());
  EXPECT_FALSE(h.leaving_here());
  EXPECT_FALSE(h.MayStart(1, 6));
  EXPECT_FALSE(h.Welcome(0));
  EXPECT_FALSE(h.Welcome(0));  // a second welcome from the same node counts once
  EXPECT_FALSE(h.Welcome(1));  // its own
  EXPECT_TRUE(h.Welcome(2));
  EXPECT_TRUE(h.MayStart(1, 6));
}

TEST(JobHandOverTest, ASeqMapCrossesTheWireAndAPayloadOfAnotherLengthIsRefused) {
  JobHandOver::SeqMap m = {{1, 2}, {UINT64_MAX, 0}};
  std::string wire = EncodeSeqMap(m);
  auto back = DecodeSeqMap(reinterpret_cast<const uint8_t*>(wire.data()), wire.size());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, m);
  EXPECT_FALSE(DecodeSeqMap(reinterpret_cast<const uint8_t*>(wire.data()), wire.size() - 1));
  std::string huge(8, '\xff');  // a count no payload holds
  EXPECT_FALSE(DecodeSeqMap(reinterpret_cast<const uint8_t*>(huge.data()), huge.size()));
  EXPECT_FALSE(DecodeSeqMap(nullptr, 0));
}

}  // namespace
}  // namespace outrider::agent
