// The flight recorder's dump (written to the log when a job fails for good) and JsonText (how the
// agent writes /status): error texts holding bytes that are not UTF-8, as another agent may send,
// are written with replacement characters instead of throwing.
#include "agent/engine/flight_recorder.h"

#include <gtest/gtest.h>

#include <string>

#include "agent/engine/json_text.h"

namespace outrider::agent {
namespace {

const std::string kNotUtf8 = "abort from node 1: \xff\xfe\xbf";
const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD

TEST(FlightRecorderTest, DumpsAnOpWhoseErrorIsNotUtf8WithReplacementCharacters) {
  FlightRecorder recorder;
  recorder.Begin(1, 0, ipc::OpKind::kAllreduce, ipc::DType::kF32, 16, 2);
  recorder.Ended(1, 0, Mismatch(kNotUtf8));
  std::string dump;
  ASSERT_NO_THROW(dump = recorder.Dump());
  EXPECT_NE(dump.find("abort from node 1: " + kReplacement), std::string::npos) << dump;
}

TEST(JsonTextTest, WritesStringsThatAreNotUtf8WithReplacementCharacters) {
  nlohmann::json j = {{"failure", kNotUtf8}, {"ok", "fine"}};
  std::string text;
  ASSERT_NO_THROW(text = JsonText(j, 2));
  EXPECT_NE(text.find(kReplacement), std::string::npos) << text;
  EXPECT_NE(text.find("\"fine\""), std::string::npos) << text;
}

}  // namespace
}  // namespace outrider::agent
