// What the two sides of a job's next generation (reform_collect.cc, reform_decide.cc) share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace outrider::agent::reform_internal {

inline constexpr uint64_t kMs = 1'000'000;

// "2, 5, 7", or "none".
inline std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (int32_t r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s.empty() ? "none" : s;
}

}  // namespace outrider::agent::reform_internal
