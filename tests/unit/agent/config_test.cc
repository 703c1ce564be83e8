// Specification of the agent's configuration: defaults, precedence (flag > env > config file >
// default), effective-value provenance, and each part's parameters reaching its options.
#include "agent/config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ipc/defaults.h"
#include "tests/unit/agent/config_fixture.h"

namespace outrider::agent {
namespace {

using config_testing::ConfigTest;
using config_testing::Contains;

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

TEST_F(ConfigTest, ExpressLaneTakesOneOrZeroOnly) {
  env_["OUTRIDER_EXPRESS_LANE"] = "yes";
  EXPECT_EQ(LoadError(),
            "express_lane must be 1 or 0, got 'yes' (set by env OUTRIDER_EXPRESS_LANE)");
  env_["OUTRIDER_EXPRESS_LANE"] = "0";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->options.network.scheduler.express_lane);
  EXPECT_EQ(Effective(*r, "express_lane").value, "0");
}

TEST_F(ConfigTest, OpYieldTakesOneOrZeroOnlyAndIsOnByDefault) {
  Result<LoadedConfig> d = Load();
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(d->options.network.scheduler.op_yield);
  env_["OUTRIDER_OP_YIELD"] = "on";
  EXPECT_EQ(LoadError(), "op_yield must be 1 or 0, got 'on' (set by env OUTRIDER_OP_YIELD)");
  env_["OUTRIDER_OP_YIELD"] = "0";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->options.network.scheduler.op_yield);
  EXPECT_EQ(Effective(*r, "op_yield").value, "0");
}

TEST_F(ConfigTest, LoopSpinsPastOneSecondAreRefused) {
  env_["OUTRIDER_SPIN_US"] = "1000001";
  EXPECT_EQ(LoadError(),
            "spin_us must be at most 1000000 (1 s), got 1000001 (set by env OUTRIDER_SPIN_US)");
  env_["OUTRIDER_SPIN_US"] = "1000000";
  env_["OUTRIDER_GPU_SPIN_US"] = "1000001";
  EXPECT_EQ(
      LoadError(),
      "gpu_spin_us must be at most 1000000 (1 s), got 1000001 (set by env OUTRIDER_GPU_SPIN_US)");
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

TEST_F(ConfigTest, ReadyFdIsNotReadFromTheEnvironment) {
  env_["OUTRIDER_READY_FD"] = "7";
  Result<LoadedConfig> r = Load();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->options.ready_fd, -1);
}

TEST_F(ConfigTest, NetworkParametersSetTheNetworkOptions) {
  Result<LoadedConfig> r = Load({"--port", "1234", "--listen-address", "10.0.0.1", "--heartbeat-ms",
                                 "200", "--peer-timeout-ms", "2000", "--rendezvous-timeout-ms",
                                 "3000", "--tcp-congestion-control", "reno"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const NetworkOptions& n = r->options.network;
  EXPECT_EQ(n.port, 1234);
  EXPECT_EQ(n.listen_address, "10.0.0.1");
  EXPECT_EQ(n.heartbeat_ms, 200u);
  EXPECT_EQ(n.peer_timeout_ms, 2000u);
  EXPECT_EQ(n.rendezvous_timeout_ms, 3000u);
  EXPECT_EQ(n.tcp_congestion_control, "reno");
  EXPECT_EQ(LoadError({"--tcp-congestion-control", "Reno"}),
            "tcp_congestion_control must be `system` or an algorithm's name (1-15 of a-z, 0-9, _), "
            "got 'Reno' (set by "
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
  Result<LoadedConfig> r = Load({"--scheduler", "fifo", "--credit-window-bytes", "8192",
                                 "--aging-ms", "7", "--solo-window-bytes", "16384"});
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

}  // namespace
}  // namespace outrider::agent
