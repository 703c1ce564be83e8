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

TEST(FlightRecorderTest, KeepsTheTraceOfAFinishedOpForStatus) {
  FlightRecorder recorder;
  recorder.Begin(1, 0, ipc::OpKind::kAllreduce, ipc::DType::kF32, 16, 1);
  recorder.Begin(1, 1, ipc::OpKind::kAllreduce, ipc::DType::kF32, 16, 1);
  OpTrace trace;
  trace.Start(1'000'000);
  trace.Begin(OpTrace::kWire, 1'000'000);
  trace.End(OpTrace::kWire, 3'000'000);
  trace.Finish(4'000'000);
  recorder.Ended(1, 0, Status::Ok(), &trace);
  OpTrace never_started;
  recorder.Ended(1, 1, Status::Ok(), &never_started);  // a local op: no trace to show
  nlohmann::json j = recorder.Json();
  ASSERT_EQ(j.size(), 2u);
  ASSERT_TRUE(j[0].contains("trace")) << j.dump();
  EXPECT_DOUBLE_EQ(j[0]["trace"]["busy_ms"]["wire"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j[0]["trace"]["duration_ms"].get<double>(), 3.0);
  EXPECT_FALSE(j[1].contains("trace")) << j.dump();
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
