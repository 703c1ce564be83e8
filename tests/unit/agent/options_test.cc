// Specification of every options struct's Validate(): each names the first bad field by its agent
// parameter, with its value, and the composed AgentOptions reports them in parameter-table order.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "agent/config.h"
#include "ipc/defaults.h"

namespace outrider::agent {
namespace {

// gtest only (no gmock): reports both strings on failure.
::testing::AssertionResult Contains(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << haystack << "' lacks '" << needle << "'";
}

AgentOptions ValidOptions() {
  AgentOptions o;
  o.control.socket_path = "/run/outrider/agent.sock";
  return o;
}

TEST(AgentOptionsTest, DefaultsWithASocketPathAreValid) {
  EXPECT_TRUE(ValidOptions().Validate().ok()) << ValidOptions().Validate().ToString();
}

TEST(AgentOptionsTest, RejectsSqEntriesNotPowerOfTwo) {
  AgentOptions o = ValidOptions();
  o.control.sq_entries = 100;
  Status st = o.Validate();
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "sq_entries must be a power of two in [8, 65536], got 100");
}

TEST(AgentOptionsTest, RejectsSqEntriesOutsideRange) {
  AgentOptions o = ValidOptions();
  o.control.sq_entries = 4;
  EXPECT_TRUE(Contains(o.Validate().message(), "sq_entries"));
  o.control.sq_entries = 131072;
  EXPECT_TRUE(Contains(o.Validate().message(), "got 131072"));
}

TEST(AgentOptionsTest, RejectsUnknownLogLevel) {
  AgentOptions o = ValidOptions();
  o.log_level = "verbose";
  EXPECT_TRUE(Contains(o.Validate().message(), "log_level"));
  EXPECT_TRUE(Contains(o.Validate().message(), "'verbose'"));
}

TEST(AgentOptionsTest, RejectsZeroMaxClients) {
  AgentOptions o = ValidOptions();
  o.control.max_clients = 0;
  EXPECT_TRUE(Contains(o.Validate().message(), "max_clients must be at least 1"));
}

TEST(AgentOptionsTest, RejectsZeroMaxRegionsPerClient) {
  AgentOptions o = ValidOptions();
  o.control.limits.max_regions = 0;
  EXPECT_TRUE(Contains(o.Validate().message(), "max_regions_per_client"));
}

TEST(AgentOptionsTest, RejectsZeroMaxRegionBytes) {
  AgentOptions o = ValidOptions();
  o.control.limits.max_region_bytes = 0;
  EXPECT_TRUE(Contains(o.Validate().message(), "max_region_bytes"));
}

TEST(AgentOptionsTest, RejectsSpinLongerThanOneSecond) {
  AgentOptions o = ValidOptions();
  o.spin_us = 1000001;
  EXPECT_TRUE(Contains(o.Validate().message(), "spin_us"));
}

TEST(AgentOptionsTest, RejectsEmptySocketPath) {
  AgentOptions o = ValidOptions();
  o.control.socket_path = "";
  EXPECT_TRUE(Contains(o.Validate().message(), "socket_path"));
}

TEST(AgentOptionsTest, RejectsSocketPathTooLongForSockaddrUn) {
  AgentOptions o = ValidOptions();
  o.control.socket_path = "/" + std::string(120, 'a');
  EXPECT_TRUE(Contains(o.Validate().message(), "socket_path must be shorter than 108 bytes"));
}

TEST(AgentOptionsTest, RejectsMinusOneUid) {
  AgentOptions o = ValidOptions();
  o.control.allowed_uids = {1000, 4294967295u};
  EXPECT_TRUE(Contains(o.Validate().message(), "allowed_uids"));
}

TEST(AgentOptionsTest, ValidatesTheEngineOptionsInside) {
  AgentOptions o = ValidOptions();
  o.engine.chunk_bytes = 100;
  EXPECT_EQ(o.Validate().message(), "ring_chunk_bytes must be at least 4096, got 100");
}

TEST(AgentOptionsTest, ValidatesTheSessionLimitsInside) {
  AgentOptions o = ValidOptions();
  o.control.limits.max_region_bytes = 0;
  EXPECT_EQ(o.Validate().message(), "max_region_bytes must be at least 1, got 0");
}

TEST(AgentOptionsTest, ReportsTheFirstBadParameterInTableOrder) {
  AgentOptions o = ValidOptions();
  o.http_port = 70000;                   // after the network's rows
  o.network.scheduler.window_bytes = 1;  // last of the network's rows
  o.engine.sparse_block_rows = 0;        // before the scheduler's rows
  EXPECT_EQ(o.Validate().message(), "sparse_block_rows must be in [1, 4096], got 0");
}

TEST(ControlServerOptionsTest, RejectsAnEmptySocketPath) {
  ControlServerOptions o;
  EXPECT_EQ(o.Validate().message(), "socket_path must not be empty");
}

TEST(ControlServerOptionsTest, RejectsSqEntriesThatAreNotAPowerOfTwo) {
  ControlServerOptions o;
  o.socket_path = "/run/outrider/agent.sock";
  o.sq_entries = 100;
  EXPECT_EQ(o.Validate().message(), "sq_entries must be a power of two in [8, 65536], got 100");
}

TEST(ControlServerOptionsTest, RejectsAZeroMaxWorldSize) {
  ControlServerOptions o;
  o.socket_path = "/run/outrider/agent.sock";
  o.max_world_size = 0;
  EXPECT_EQ(o.Validate().message(), "max_world_size must be in [1, 2^30], got 0");
}

TEST(ControlServerOptionsTest, ValidatesTheSessionLimitsInside) {
  ControlServerOptions o;
  o.socket_path = "/run/outrider/agent.sock";
  o.limits.max_regions = 0;
  EXPECT_EQ(o.Validate().message(), "max_regions_per_client must be at least 1, got 0");
}

TEST(EngineOptionsTest, DefaultsAreValid) { EXPECT_TRUE(EngineOptions{}.Validate().ok()); }

TEST(EngineOptionsTest, RejectsZeroChunkBytes) {
  EngineOptions o;
  o.chunk_bytes = 0;
  EXPECT_EQ(o.Validate().code(), Code::kInvalidArgument);
  EXPECT_EQ(o.Validate().message(), "ring_chunk_bytes must be at least 4096, got 0");
}

TEST(EngineOptionsTest, AcceptsChunkBytesOf4096) {
  EngineOptions o;
  o.chunk_bytes = 4096;
  EXPECT_TRUE(o.Validate().ok());
}

TEST(EngineOptionsTest, RejectsZeroSparseBlockRows) {
  EngineOptions o;
  o.sparse_block_rows = 0;
  EXPECT_EQ(o.Validate().message(), "sparse_block_rows must be in [1, 4096], got 0");
}

TEST(EngineOptionsTest, RejectsSparseBlockRowsAbove4096) {
  EngineOptions o;
  o.sparse_block_rows = 4097;
  EXPECT_EQ(o.Validate().message(), "sparse_block_rows must be in [1, 4096], got 4097");
}

TEST(EngineOptionsTest, RejectsZeroLinkBytesPerS) {
  EngineOptions o;
  o.link_bytes_per_s = 0;
  EXPECT_EQ(o.Validate().message(), "link_bytes_per_s must be a positive finite number, got 0");
}

TEST(EngineOptionsTest, RejectsNanLinkBytesPerS) {
  EngineOptions o;
  o.link_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Contains(o.Validate().message(), "link_bytes_per_s must be a positive finite"));
}

TEST(EngineOptionsTest, RejectsInfiniteLinkBytesPerS) {
  EngineOptions o;
  o.link_bytes_per_s = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(Contains(o.Validate().message(), "link_bytes_per_s must be a positive finite"));
}

TEST(SchedulerOptionsTest, DefaultsAreValid) { EXPECT_TRUE(SchedulerOptions{}.Validate().ok()); }

TEST(SchedulerOptionsTest, RejectsWindowBelow4096) {
  SchedulerOptions o;
  o.window_bytes = 4095;
  EXPECT_EQ(o.Validate().message(), "credit_window_bytes must be at least 4096, got 4095");
}

TEST(SchedulerOptionsTest, RejectsASoloWindowBelow4096) {
  SchedulerOptions o;
  o.solo_window_bytes = 100;
  EXPECT_EQ(o.Validate().message(), "solo_window_bytes must be at least 4096, got 100");
}

TEST(NetworkOptionsTest, DefaultsAreValid) { EXPECT_TRUE(NetworkOptions{}.Validate().ok()); }

TEST(NetworkOptionsTest, DefaultPortIsTheAgentPort) {
  EXPECT_EQ(NetworkOptions{}.port, ipc::kDefaultAgentPort);
}

TEST(NetworkOptionsTest, RejectsZeroHeartbeat) {
  NetworkOptions o;
  o.heartbeat_ms = 0;
  EXPECT_EQ(o.Validate().message(), "heartbeat_ms must be at least 1, got 0");
}

TEST(NetworkOptionsTest, RejectsPeerTimeoutNotAboveHeartbeat) {
  NetworkOptions o;
  o.heartbeat_ms = 500;
  o.peer_timeout_ms = 500;
  EXPECT_EQ(o.Validate().message(), "peer_timeout_ms must exceed heartbeat_ms (500), got 500");
}

TEST(NetworkOptionsTest, RejectsZeroRendezvousTimeout) {
  NetworkOptions o;
  o.rendezvous_timeout_ms = 0;
  EXPECT_EQ(o.Validate().message(), "rendezvous_timeout_ms must be at least 1, got 0");
}

TEST(NetworkOptionsTest, TcpCongestionControlIsANameOrSystem) {
  NetworkOptions o;
  EXPECT_EQ(o.tcp_congestion_control, "system");
  for (const char* ok : {"cubic", "reno", "bbr", "dctcp", "htcp_2"}) {
    o.tcp_congestion_control = ok;
    EXPECT_TRUE(o.Validate().ok()) << ok;
  }
  for (const char* bad : {"", "Cubic", "cu bic", "../cubic", "a_name_of_16_chr"}) {
    o.tcp_congestion_control = bad;
    EXPECT_EQ(o.Validate().message(),
              "tcp_congestion_control must be `system` or an algorithm's name (1-15 of a-z, "
              "0-9, _), got '" +
                  std::string(bad) + "'");
  }
}

TEST(NetworkOptionsTest, ValidatesTheSchedulerOptionsInside) {
  NetworkOptions o;
  o.scheduler.window_bytes = 0;
  EXPECT_TRUE(Contains(o.Validate().message(), "credit_window_bytes"));
}

TEST(SessionLimitsTest, DefaultsAreValid) { EXPECT_TRUE(SessionLimits{}.Validate().ok()); }

TEST(SessionLimitsTest, RejectsZeroMaxRegions) {
  SessionLimits o;
  o.max_regions = 0;
  EXPECT_EQ(o.Validate().message(), "max_regions_per_client must be at least 1, got 0");
}

TEST(SessionLimitsTest, RejectsZeroMaxRegionBytes) {
  SessionLimits o;
  o.max_region_bytes = 0;
  EXPECT_EQ(o.Validate().message(), "max_region_bytes must be at least 1, got 0");
}

}  // namespace
}  // namespace outrider::agent
