// The fixture of the agent configuration's tests: a fake environment map, config files in a
// per-test mkdtemp directory, and helpers that load, expect errors and find effective values.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/config.h"

namespace outrider::agent::config_testing {

// gtest only (no gmock): reports both strings on failure.
inline ::testing::AssertionResult Contains(const std::string& haystack, const std::string& needle) {
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

}  // namespace outrider::agent::config_testing
