// Specification of the agent configuration's errors: bad TOML, flags and values, each naming the
// parameter and where its value came from; and allowed_uids in its three forms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/config.h"
#include "tests/unit/agent/config_fixture.h"

namespace outrider::agent {
namespace {

using config_testing::ConfigTest;
using config_testing::Contains;

// --- Parse errors ------------------------------------------------------------------------------

TEST_F(ConfigTest, RejectsUnknownTomlKey) {
  std::string m = LoadError({"--config", WriteConfig("sq_entries = 64\nsq_entires = 64\n")});
  EXPECT_TRUE(Contains(m, "unknown key 'sq_entires'"));
  EXPECT_TRUE(Contains(m, "line 2"));
}

TEST_F(ConfigTest, RejectsFlagOnlyParameterInTomlFile) {
  std::string m = LoadError({"--config", WriteConfig("ready_fd = 3\n")});
  EXPECT_TRUE(Contains(m, "unknown key 'ready_fd'"));
}

TEST_F(ConfigTest, RejectsTomlValueOfWrongType) {
  std::string m = LoadError({"--config", WriteConfig("sq_entries = \"256\"\n")});
  EXPECT_TRUE(Contains(m, "sq_entries"));
  EXPECT_TRUE(Contains(m, "expected an integer"));
}

TEST_F(ConfigTest, RejectsNegativeNumberInTomlFile) {
  std::string m = LoadError({"--config", WriteConfig("max_clients = -1\n")});
  EXPECT_TRUE(Contains(m, "max_clients: bad value '-1'"));
}

TEST_F(ConfigTest, RejectsMalformedToml) {
  std::string path = WriteConfig("sq_entries = = 3\n");
  EXPECT_TRUE(Contains(LoadError({"--config", path}), path));
}

TEST_F(ConfigTest, RejectsMissingConfigFile) {
  std::string m = LoadError({"--config", dir_ + "/absent.toml"});
  EXPECT_TRUE(Contains(m, "absent.toml"));
  EXPECT_TRUE(Contains(m, "--config"));
  EXPECT_TRUE(Contains(m, "No such file"));
}

TEST_F(ConfigTest, RejectsUnknownFlag) {
  EXPECT_TRUE(Contains(LoadError({"--sq-entires", "64"}), "--sq-entires"));
}

TEST_F(ConfigTest, RejectsPositionalArgument) {
  EXPECT_TRUE(Contains(LoadError({"stray"}), "stray"));
}

TEST_F(ConfigTest, RejectsFlagWithoutValue) {
  EXPECT_TRUE(Contains(LoadError({"--sq-entries"}), "--sq-entries"));
}

TEST_F(ConfigTest, RejectsBadNumberInEnvNamingTheVariable) {
  env_["OUTRIDER_MAX_CLIENTS"] = "12x";
  std::string m = LoadError();
  EXPECT_TRUE(Contains(m, "max_clients: bad value '12x' from env OUTRIDER_MAX_CLIENTS"));
}

TEST_F(ConfigTest, RejectsNumberTooLargeForItsField) {
  std::string m = LoadError({"--op-timeout-ms", "4294967296"});
  EXPECT_TRUE(Contains(m, "op_timeout_ms"));
  EXPECT_TRUE(Contains(m, "flag --op-timeout-ms"));
  EXPECT_TRUE(Contains(m, "out of range"));
}

// --- allowed_uids --------------------------------------------------------------------------------

TEST_F(ConfigTest, AllowedUidsFromFlag) {
  Result<LoadedConfig> r = Load({"--allowed-uids", "1000,1001"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.allowed_uids, (std::vector<uint32_t>{1000, 1001}));
  EXPECT_EQ(Effective(*r, "allowed_uids").value, "1000,1001");
}

TEST_F(ConfigTest, AllowedUidsFromEnvToleratesSpaces) {
  env_["OUTRIDER_ALLOWED_UIDS"] = "0, 42";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.allowed_uids, (std::vector<uint32_t>{0, 42}));
}

TEST_F(ConfigTest, AllowedUidsFromTomlArray) {
  Result<LoadedConfig> r = Load({"--config", WriteConfig("allowed_uids = [1000, 2000, 3000]\n")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.allowed_uids, (std::vector<uint32_t>{1000, 2000, 3000}));
}

TEST_F(ConfigTest, EmptyAllowedUidsFlagClearsTheFileList) {
  Result<LoadedConfig> r =
      Load({"--config", WriteConfig("allowed_uids = [1000]\n"), "--allowed-uids", ""});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->options.control.allowed_uids.empty());
}

// --- job_class_ceiling ---------------------------------------------------------------------------

TEST_F(ConfigTest, JobClassCeilingByUidWithADefaultForTheOthers) {
  Result<LoadedConfig> r = Load({"--job-class-ceiling", "1000=high, 1001=low,*=normal"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const JobClassCeiling& c = r->options.control.job_class_ceiling;
  EXPECT_EQ(c.For(1000), ipc::JobClass::kHigh);
  EXPECT_EQ(c.For(1001), ipc::JobClass::kLow);
  EXPECT_EQ(c.For(7), ipc::JobClass::kNormal);
  EXPECT_EQ(Effective(*r, "job_class_ceiling").value, "1000=high,1001=low,*=normal");
  // One class for everyone.
  r = Load({"--job-class-ceiling", "low"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.job_class_ceiling.For(0), ipc::JobClass::kLow);
  r = Load();
  // Unconfigured, nobody declares high: an operator grants it.
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.job_class_ceiling.For(1234), ipc::JobClass::kNormal);
}

TEST_F(ConfigTest, RejectsAMalformedJobClassCeiling) {
  std::string e = LoadError({"--job-class-ceiling", "1000=urgent"});
  EXPECT_TRUE(Contains(e, "job_class_ceiling")) << e;
  EXPECT_TRUE(Contains(e, "'1000=urgent' is not CLASS or UID=CLASS")) << e;
  e = LoadError({"--job-class-ceiling", "alice=high"});
  EXPECT_TRUE(Contains(e, "'alice' is not a uid or *")) << e;
}

TEST_F(ConfigTest, RejectsAllowedUidsWithEmptyItem) {
  EXPECT_TRUE(Contains(LoadError({"--allowed-uids", "1000,,1001"}), "allowed_uids"));
}

TEST_F(ConfigTest, RejectsAllowedUidsTomlArrayOfStrings) {
  std::string m = LoadError({"--config", WriteConfig("allowed_uids = [\"1000\"]\n")});
  EXPECT_TRUE(Contains(m, "expected an array of integers"));
}

}  // namespace
}  // namespace outrider::agent
