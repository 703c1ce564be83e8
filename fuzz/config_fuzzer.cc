// Fuzz target: the agent's TOML config file. The input is the file's text; it is loaded the way
// the agent loads it (LoadConfig with --config naming it), from a memfd so no file is written.
// Every document must either load into options that pass Validate() or be refused with an
// INVALID_ARGUMENT error.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "agent/config.h"
#include "agent/log.h"
#include "base/check.h"

namespace {

int ConfigFd() {
  static const int fd = ::memfd_create("outrider-fuzz-config", MFD_CLOEXEC);
  OUTRIDER_CHECK(fd >= 0);
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)outrider::agent::InitLogging("off");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace outrider;
  int fd = ConfigFd();
  OUTRIDER_CHECK(::ftruncate(fd, 0) == 0);
  OUTRIDER_CHECK(::pwrite(fd, data, size, 0) == static_cast<ssize_t>(size));
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  const char* argv[] = {"outrider-agent", "--config", path.c_str()};
  agent::EnvLookup no_env = [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  };
  Result<agent::LoadedConfig> loaded = agent::LoadConfig(3, argv, no_env);
  if (!loaded.ok()) {
    OUTRIDER_CHECK(loaded.status().code() == Code::kInvalidArgument);
    OUTRIDER_CHECK(!loaded.status().message().empty());
    return 0;
  }
  OUTRIDER_CHECK(loaded->options.Validate().ok());
  OUTRIDER_CHECK(!loaded->effective.empty());
  return 0;
}
