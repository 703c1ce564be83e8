// Subsystem loggers writing to stderr (journald and container runtimes collect it).
#include "agent/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "base/mutex.h"

namespace outrider::agent {
namespace {
Mutex g_mu;
spdlog::level::level_enum g_level OUTRIDER_GUARDED_BY(g_mu) = spdlog::level::info;
}  // namespace

Status InitLogging(const std::string& level) {
  auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") {
    return InvalidArgument("unknown log level '" + level + "'");
  }
  MutexLock lock(&g_mu);
  g_level = lvl;
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& l) { l->set_level(lvl); });
  return Status::Ok();
}

std::shared_ptr<spdlog::logger> Logger(const std::string& subsystem) {
  MutexLock lock(&g_mu);
  auto l = spdlog::get(subsystem);
  if (l) return l;
  l = spdlog::stderr_color_mt(subsystem);
  l->set_level(g_level);
  l->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
  return l;
}

}  // namespace outrider::agent
