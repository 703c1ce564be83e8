// Specification of the agent's configuration: defaults, precedence (flag > env > config file >
// default), effective-value provenance, validation and error messages, --help and friends.
// The environment is a fake map; config files live in a per-test mkdtemp directory.
#include "agent/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ipc/defaults.h"

namespace outrider::agent {
namespace {

// gtest only (no gmock): reports both strings on failure.
::testing::AssertionResult Contains(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << haystack << "' lacks '" << needle << "'";
}

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/outrider_config_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& path : files_) unlink(path.c_str());
    rmdir(dir_.c_str());
  }

  // Writes `contents` to a fresh file in the temp dir and returns its path.
  std::string WriteConfig(const std::string& contents) {
    std::string path = dir_ + "/agent" + std::to_string(files_.size()) + ".toml";
    std::FILE* f = std::fopen(path.c_str(), "w");
    EXPECT_NE(f, nullptr);
    std::fputs(contents.c_str(), f);
    std::fclose(f);
    files_.push_back(path);
    return path;
  }

  Result<LoadedConfig> Load(std::vector<std::string> args = {}) {
    args.insert(args.begin(), "outrider-agent");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    return LoadConfig(static_cast<int>(argv.size()), argv.data(),
                      [this](const std::string& name) -> std::optional<std::string> {
                        auto it = env_.find(name);
                        if (it == env_.end()) return std::nullopt;
                        return it->second;
                      });
  }

  // Loads and expects an error; returns its message.
  std::string LoadError(std::vector<std::string> args = {}) {
    Result<LoadedConfig> r = Load(std::move(args));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    return r.status().message();
  }

  static const EffectiveValue& Effective(const LoadedConfig& c, const std::string& name) {
    for (const EffectiveValue& e : c.effective) {
      if (e.name == name) return e;
    }
    ADD_FAILURE() << "no effective value " << name;
    static EffectiveValue none;
    return none;
  }

  std::string dir_;
  std::vector<std::string> files_;
  std::map<std::string, std::string> env_;
};

TEST_F(ConfigTest, UsesDefaultsWhenNothingIsSet) {
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const AgentOptions& o = r->options;
  EXPECT_EQ(o.control.socket_path, "/run/outrider/agent.sock");
  EXPECT_EQ(o.control.socket_group, "");
  EXPECT_TRUE(o.control.allowed_uids.empty());
  EXPECT_EQ(o.log_level, "info");
  EXPECT_EQ(o.control.sq_entries, 256u);
  EXPECT_EQ(o.control.max_clients, 256u);
  EXPECT_EQ(o.control.limits.max_regions, 64u);
  EXPECT_EQ(o.control.limits.max_region_bytes, 68719476736u);
  EXPECT_EQ(o.op_timeout_ms, 300000u);
  EXPECT_EQ(o.spin_us, 50u);
  EXPECT_EQ(o.config_file, "");
  EXPECT_EQ(o.ready_fd, -1);
  EXPECT_FALSE(r->help_requested);
  for (const EffectiveValue& e : r->effective) {
    EXPECT_EQ(e.source, Source::kDefault) << e.name;
    EXPECT_EQ(e.origin, "default") << e.name;
  }
}

TEST_F(ConfigTest, DefaultSocketPathIsUnderXdgRuntimeDir) {
  env_["XDG_RUNTIME_DIR"] = "/run/user/1000";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.socket_path, "/run/user/1000/outrider/agent.sock");
}

TEST_F(ConfigTest, DefaultSocketPathFallsBackToRunWhenXdgRuntimeDirIsRelative) {
  env_["XDG_RUNTIME_DIR"] = "relative/dir";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.socket_path, "/run/outrider/agent.sock");
}

TEST_F(ConfigTest, ConfigFileOverridesDefault) {
  std::string path =
      WriteConfig("sq_entries = 1024\nlog_level = \"debug\"\nsocket = \"/tmp/a.sock\"\n");
  Result<LoadedConfig> r = Load({"--config", path});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.sq_entries, 1024u);
  EXPECT_EQ(r->options.log_level, "debug");
  EXPECT_EQ(r->options.control.socket_path, "/tmp/a.sock");
  EXPECT_EQ(r->options.config_file, path);
}

TEST_F(ConfigTest, ConfigFileNamedByEnvIsRead) {
  env_["OUTRIDER_CONFIG"] = WriteConfig("max_clients = 7\n");
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.max_clients, 7u);
}

TEST_F(ConfigTest, ConfigFlagOverridesConfigEnv) {
  env_["OUTRIDER_CONFIG"] = WriteConfig("max_clients = 7\n");
  Result<LoadedConfig> r = Load({"--config", WriteConfig("max_clients = 9\n")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.max_clients, 9u);
}

TEST_F(ConfigTest, EnvOverridesConfigFile) {
  env_["OUTRIDER_SQ_ENTRIES"] = "512";
  Result<LoadedConfig> r = Load({"--config", WriteConfig("sq_entries = 1024\n")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.sq_entries, 512u);
}

TEST_F(ConfigTest, FlagOverridesEnv) {
  env_["OUTRIDER_SQ_ENTRIES"] = "512";
  Result<LoadedConfig> r = Load({"--sq-entries", "64"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.sq_entries, 64u);
}

TEST_F(ConfigTest, AcceptsFlagEqualsValueForm) {
  Result<LoadedConfig> r = Load({"--spin-us=0"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.spin_us, 0u);
}

TEST_F(ConfigTest, EffectiveValuesRecordSourceAndOrigin) {
  std::string path = WriteConfig("max_clients = 3\nspin_us = 10\n");
  env_["OUTRIDER_CONFIG"] = path;
  env_["OUTRIDER_SPIN_US"] = "20";
  env_["OUTRIDER_LOG_LEVEL"] = "warn";
  Result<LoadedConfig> r = Load({"--log-level", "error", "--ready-fd", "5"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  const EffectiveValue& clients = Effective(*r, "max_clients");
  EXPECT_EQ(clients.value, "3");
  EXPECT_EQ(clients.source, Source::kConfigFile);
  EXPECT_EQ(clients.origin, path);
  const EffectiveValue& spin = Effective(*r, "spin_us");
  EXPECT_EQ(spin.value, "20");
  EXPECT_EQ(spin.source, Source::kEnv);
  EXPECT_EQ(spin.origin, "OUTRIDER_SPIN_US");
  const EffectiveValue& level = Effective(*r, "log_level");
  EXPECT_EQ(level.value, "error");
  EXPECT_EQ(level.source, Source::kFlag);
  EXPECT_EQ(level.origin, "--log-level");
  const EffectiveValue& config = Effective(*r, "config_file");
  EXPECT_EQ(config.value, path);
  EXPECT_EQ(config.source, Source::kEnv);
  EXPECT_EQ(config.origin, "OUTRIDER_CONFIG");
  const EffectiveValue& ready = Effective(*r, "ready_fd");
  EXPECT_EQ(ready.value, "5");
  EXPECT_EQ(ready.source, Source::kFlag);
  const EffectiveValue& sq = Effective(*r, "sq_entries");
  EXPECT_EQ(sq.value, "256");
  EXPECT_EQ(sq.source, Source::kDefault);
  EXPECT_EQ(sq.origin, "default");
}

TEST_F(ConfigTest, SourceNamesAreShortWords) {
  EXPECT_EQ(SourceName(Source::kDefault), "default");
  EXPECT_EQ(SourceName(Source::kConfigFile), "config");
  EXPECT_EQ(SourceName(Source::kEnv), "env");
  EXPECT_EQ(SourceName(Source::kFlag), "flag");
}

TEST_F(ConfigTest, InvalidNestedValueErrorNamesItsFlag) {
  EXPECT_EQ(LoadError({"--ring-chunk-bytes", "100"}),
            "ring_chunk_bytes must be at least 4096, got 100 (set by flag --ring-chunk-bytes)");
}

TEST_F(ConfigTest, PortPastRangeIsRefusedNamingItsSource) {
  env_["OUTRIDER_PORT"] = "70000";
  EXPECT_EQ(LoadError(), "port must be in [0, 65535], got 70000 (set by env OUTRIDER_PORT)");
}

TEST_F(ConfigTest, UnknownSchedulerFromConfigFileNamesTheFile) {
  std::string path = WriteConfig("scheduler = \"lifo\"\n");
  EXPECT_EQ(LoadError({"--config", path}),
            "scheduler must be priority or fifo, got 'lifo' (set by config file " + path + ")");
}

TEST_F(ConfigTest, InvalidValueErrorNamesParameterAndSource) {
  env_["OUTRIDER_SQ_ENTRIES"] = "100";
  std::string m = LoadError();
  EXPECT_TRUE(Contains(m, "sq_entries must be a power of two"));
  EXPECT_TRUE(Contains(m, "env OUTRIDER_SQ_ENTRIES"));
}

TEST_F(ConfigTest, InvalidValueFromConfigFileNamesTheFile) {
  std::string path = WriteConfig("log_level = \"loud\"\n");
  std::string m = LoadError({"--config", path});
  EXPECT_TRUE(Contains(m, "log_level"));
  EXPECT_TRUE(Contains(m, path));
}

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

TEST_F(ConfigTest, ReadyFdIsNotReadFromTheEnvironment) {
  env_["OUTRIDER_READY_FD"] = "7";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.ready_fd, -1);
}

TEST_F(ConfigTest, NetworkParametersSetTheNetworkOptions) {
  Result<LoadedConfig> r =
      Load({"--port", "1234", "--listen-address", "10.0.0.1", "--heartbeat-ms", "200",
            "--peer-timeout-ms", "2000", "--rendezvous-timeout-ms", "3000", "--tcp-congestion-control", "reno"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const NetworkOptions& n = r->options.network;
  EXPECT_EQ(n.port, 1234);
  EXPECT_EQ(n.listen_address, "10.0.0.1");
  EXPECT_EQ(n.heartbeat_ms, 200u);
  EXPECT_EQ(n.peer_timeout_ms, 2000u);
  EXPECT_EQ(n.rendezvous_timeout_ms, 3000u);
  EXPECT_EQ(n.tcp_congestion_control, "reno");
  EXPECT_EQ(LoadError({"--tcp-congestion-control", "Reno"}),
            "tcp_congestion_control must be `system` or an algorithm's name (1-15 of a-z, 0-9, _), got 'Reno' (set by "
            "flag --tcp-congestion-control)");
}

TEST_F(ConfigTest, EngineParametersSetTheEngineOptions) {
  Result<LoadedConfig> r = Load(
      {"--ring-chunk-bytes", "65536", "--direct-max-bytes", "1024", "--sparse-block-rows", "16"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const EngineOptions& e = r->options.engine;
  EXPECT_EQ(e.chunk_bytes, 65536u);
  EXPECT_EQ(e.direct_max_bytes, 1024u);
  EXPECT_EQ(e.sparse_block_rows, 16u);
}

TEST_F(ConfigTest, SchedulerParametersSetTheSchedulerOptions) {
  Result<LoadedConfig> r =
      Load({"--scheduler", "fifo", "--credit-window-bytes", "8192", "--aging-ms", "7", "--solo-window-bytes", "16384"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const SchedulerOptions& s = r->options.network.scheduler;
  EXPECT_FALSE(s.priority);
  EXPECT_EQ(s.window_bytes, 8192u);
  EXPECT_EQ(s.solo_window_bytes, 16384u);
  EXPECT_EQ(s.aging_ns, 7'000'000u);
  EXPECT_EQ(Effective(*r, "aging_ms").value, "7");
  EXPECT_EQ(Effective(*r, "scheduler").value, "fifo");
}

TEST_F(ConfigTest, SessionParametersSetTheSessionLimits) {
  Result<LoadedConfig> r = Load({"--max-regions-per-client", "3", "--max-region-bytes", "4096"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.control.limits.max_regions, 3u);
  EXPECT_EQ(r->options.control.limits.max_region_bytes, 4096u);
}

TEST_F(ConfigTest, UnknownSchedulerIsRefusedWhenReadEvenIfAFlagOverridesIt) {
  // Values are checked as each source is read, so a valid flag does not excuse a bad file value.
  std::string path = WriteConfig("scheduler = \"lifo\"\n");
  EXPECT_TRUE(Contains(LoadError({"--config", path, "--scheduler", "fifo"}), "got 'lifo'"));
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

TEST_F(ConfigTest, RejectsAllowedUidsWithEmptyItem) {
  EXPECT_TRUE(Contains(LoadError({"--allowed-uids", "1000,,1001"}), "allowed_uids"));
}

TEST_F(ConfigTest, RejectsAllowedUidsTomlArrayOfStrings) {
  std::string m = LoadError({"--config", WriteConfig("allowed_uids = [\"1000\"]\n")});
  EXPECT_TRUE(Contains(m, "expected an array of integers"));
}

// --- --help, --version, --print-config-table ----------------------------------------------------

TEST_F(ConfigTest, HelpListsEveryFlagWithItsEnvVarAndConfigKey) {
  Result<LoadedConfig> r = Load({"--help"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
  const std::string& h = r->help_text;
  for (const char* flag : {"--socket ", "--socket-group", "--allowed-uids", "--log-level",
                           "--sq-entries", "--max-clients", "--max-regions-per-client",
                           "--max-region-bytes", "--op-timeout-ms", "--spin-us", "--config ",
                           "--ready-fd", "--help", "--version", "--print-config-table"}) {
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

TEST_F(ConfigTest, VersionPrintsTheVersion) {
  Result<LoadedConfig> r = Load({"--version"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->help_requested);
  EXPECT_TRUE(Contains(r->help_text, "outrider-agent "));
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
  for (const char* key : {"`socket`", "`socket_group`", "`allowed_uids`", "`log_level`",
                          "`sq_entries`", "`max_clients`", "`max_regions_per_client`",
                          "`max_region_bytes`", "`op_timeout_ms`", "`spin_us`",
                          "`OUTRIDER_CONFIG`"}) {
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

namespace outrider::agent {
namespace {

TEST(ConfigFlagsTest, RepeatedFlagTakesItsLastValue) {
  const char* argv[] = {"outrider-agent", "--socket", "/tmp/x.sock", "--log-level", "info",
                        "--log-level", "debug"};
  auto loaded = LoadConfig(7, argv, [](const std::string&) { return std::optional<std::string>(); });
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->options.log_level, "debug");
}

}  // namespace
}  // namespace outrider::agent
