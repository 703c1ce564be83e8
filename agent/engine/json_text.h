// JSON as the agent writes it out (/status, the flight recorder in the log). Error texts in it can
// hold bytes another agent sent (an abort's reason, a failed job's cause), so a string that is not
// valid UTF-8 is written with U+FFFD in place of the bad bytes instead of throwing.
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace outrider::agent {

// `indent` as nlohmann::json::dump takes it: -1 for one line.
inline std::string JsonText(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace outrider::agent
