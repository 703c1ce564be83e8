// Specification of --help, --version and --print-config-table: every parameter is listed with its
// flag, environment variable and config key, and these answer even when other inputs are bad.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/config.h"
#include "ipc/defaults.h"
#include "tests/unit/agent/config_fixture.h"

namespace outrider::agent {
namespace {

using config_testing::ConfigTest;
using config_testing::Contains;

// --- --help, --version, --print-config-table ----------------------------------------------------

TEST_F(ConfigTest, HelpListsEveryFlagWithItsEnvVarAndConfigKey) {
  Result<LoadedConfig> r = Load({"--help"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
  const std::string& h = r->help_text;
  for (const char* flag :
       {"--socket ", "--socket-group", "--allowed-uids", "--log-level", "--sq-entries",
        "--max-clients", "--max-regions-per-client", "--max-region-bytes", "--op-timeout-ms",
        "--spin-us", "--config ", "--ready-fd", "--help", "--version", "--print-config-table"}) {
    EXPECT_TRUE(Contains(h, flag));
  }
  EXPECT_TRUE(Contains(h, "env OUTRIDER_SQ_ENTRIES"));
  EXPECT_TRUE(Contains(h, "config sq_entries"));
  EXPECT_TRUE(Contains(h, "default 256"));
}

TEST_F(ConfigTest, HelpIsShownEvenWhenOtherInputsAreInvalid) {
  env_["OUTRIDER_SQ_ENTRIES"] = "100";
  env_["OUTRIDER_CONFIG"] = dir_ + "/absent.toml";
  Result<LoadedConfig> r = Load({"-h"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
}

TEST_F(ConfigTest, VersionPrintsTheVersionAndTheProtocolsItServes) {
  Result<LoadedConfig> r = Load({"--version"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
  EXPECT_TRUE(Contains(r->help_text, "outrider-agent "));
  EXPECT_TRUE(Contains(r->help_text, "(protocol " + std::to_string(ipc::kProtocolVersion) +
                                         ", serves shims of versions " +
                                         std::to_string(ipc::kOldestProtocolVersion) + " to " +
                                         std::to_string(ipc::kProtocolVersion) + ")"))
      << r->help_text;
}

TEST_F(ConfigTest, PrintConfigTableReturnsTheMarkdownTable) {
  Result<LoadedConfig> r = Load({"--print-config-table"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
  EXPECT_EQ(r->help_text, ParameterTableMarkdown());
}

TEST(ParameterTableTest, ListsEveryDocumentedParameterButNotReadyFd) {
  std::string t = ParameterTableMarkdown();
  EXPECT_TRUE(Contains(t, "| Parameter | Flag | Environment | Config key | Default | Unit |"));
  for (const char* key :
       {"`socket`", "`socket_group`", "`allowed_uids`", "`log_level`", "`sq_entries`",
        "`max_clients`", "`max_regions_per_client`", "`max_region_bytes`", "`op_timeout_ms`",
        "`spin_us`", "`OUTRIDER_CONFIG`"}) {
    EXPECT_TRUE(Contains(t, key));
  }
  EXPECT_EQ(t.find("ready_fd"), std::string::npos);
  EXPECT_EQ(t.find("--ready-fd"), std::string::npos);
}

TEST(ParameterTableTest, DefaultsAreThoseOfTheOptionsStructs) {
  std::string t = ParameterTableMarkdown();
  EXPECT_TRUE(Contains(
      t, "`ring_chunk_bytes` | " + std::to_string(EngineOptions{}.chunk_bytes) + " | bytes |"));
  EXPECT_TRUE(Contains(t, "`port` | " + std::to_string(ipc::kDefaultAgentPort) + " |"));
  EXPECT_TRUE(Contains(t, "`scheduler` | priority |"));
  EXPECT_TRUE(Contains(
      t, "`aging_ms` | " + std::to_string(SchedulerOptions{}.aging_ns / 1'000'000) + " | ms |"));
}

TEST(ParameterTableTest, WholeGibibyteDefaultsAlsoShowGiB) {
  EXPECT_TRUE(Contains(ParameterTableMarkdown(), "`max_region_bytes` | 68719476736 (64 GiB) |"));
}

TEST(ParameterTableTest, EmptyDefaultsShowAsEmpty) {
  EXPECT_TRUE(Contains(ParameterTableMarkdown(), "`socket_group` | (empty) |"));
}

}  // namespace
}  // namespace outrider::agent
