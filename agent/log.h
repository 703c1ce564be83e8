// One named spdlog logger per subsystem ("agent", "config", "control", "engine").
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace outrider::agent {

// Sets the level of every subsystem logger (trace..off). Returns an error for an unknown level.
Status InitLogging(const std::string& level);
// Thread-safety: any thread; loggers are created once and cached by spdlog's registry.
std::shared_ptr<spdlog::logger> Logger(const std::string& subsystem);

}  // namespace outrider::agent
