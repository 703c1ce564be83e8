// JobClassCeiling: the job_class_ceiling parameter's text, both ways.
#include "agent/control/job_class_ceiling.h"

#include <charconv>
#include <optional>

#include "base/text.h"

namespace outrider::agent {

Result<JobClassCeiling> JobClassCeiling::Parse(std::string_view text) {
  JobClassCeiling out;
  for (std::string_view item : SplitList(text)) {
    size_t eq = item.find('=');
    std::string_view who = eq == std::string_view::npos ? "*" : item.substr(0, eq);
    std::string_view cls = eq == std::string_view::npos ? item : item.substr(eq + 1);
    std::optional<ipc::JobClass> c = ipc::ParseJobClass(cls);
    if (!c) {
      return InvalidArgument("'" + std::string(item) +
                             "' is not CLASS or UID=CLASS (CLASS: high, normal or low)");
    }
    if (who == "*") {
      out.others = *c;
      continue;
    }
    uint32_t uid = 0;
    auto [end, ec] = std::from_chars(who.data(), who.data() + who.size(), uid);
    if (who.empty() || ec != std::errc() || end != who.data() + who.size()) {
      return InvalidArgument("'" + std::string(item) + "': '" + std::string(who) +
                             "' is not a uid or *");
    }
    out.by_uid[uid] = *c;
  }
  return out;
}

std::string JobClassCeiling::ToString() const {
  std::string s;
  for (const auto& [uid, c] : by_uid) {
    s += std::to_string(uid) + "=" + std::string(ipc::JobClassName(c)) + ",";
  }
  if (s.empty()) return std::string(ipc::JobClassName(others));
  return s + "*=" + std::string(ipc::JobClassName(others));
}

}  // namespace outrider::agent
