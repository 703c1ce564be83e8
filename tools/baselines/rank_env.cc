// Reading and checking the launcher's environment.
#include "rank_env.h"

#include <cerrno>
#include <cstdlib>

namespace outrider::baselines {
namespace {

std::string Get(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool ParseInt(const std::string& s, long lo, long hi, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

std::optional<RankEnv> ReadRankEnv(std::string* error) {
  RankEnv e;
  struct IntVar {
    const char* name;
    int* out;
    long lo, hi;
    bool required;
  };
  const IntVar ints[] = {
      {"RANK", &e.rank, 0, 1 << 20, true},
      {"WORLD_SIZE", &e.world_size, 1, 1 << 20, true},
      {"LOCAL_RANK", &e.local_rank, 0, 1 << 20, false},
      {"LOCAL_WORLD_SIZE", &e.local_world_size, 1, 1 << 20, false},
      {"MASTER_PORT", &e.master_port, 1, 65535, true},
  };
  for (const auto& v : ints) {
    std::string s = Get(v.name);
    if (s.empty() && !v.required) continue;
    if (!ParseInt(s, v.lo, v.hi, v.out)) {
      *error = std::string(v.name) +
               (s.empty() ? " is not set" : " is not a valid number: '" + s + "'") +
               " (start ranks with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT like torchrun)";
      return std::nullopt;
    }
  }
  if (e.rank >= e.world_size) {
    *error = "RANK " + std::to_string(e.rank) + " >= WORLD_SIZE " + std::to_string(e.world_size);
    return std::nullopt;
  }
  e.master_addr = Get("MASTER_ADDR");
  if (e.master_addr.empty()) e.master_addr = "127.0.0.1";
  e.nodes = e.world_size;
  if (std::string s = Get("OUTRIDER_NODES"); !s.empty() && !ParseInt(s, 1, 1 << 20, &e.nodes)) {
    *error = "OUTRIDER_NODES is not a valid number: '" + s + "'";
    return std::nullopt;
  }
  if (std::string s = Get("OUTRIDER_RATE_GBIT"); !s.empty()) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && v > 0) e.rate_gbit = v;  // "2", "2.5", "2gbit" all read as numbers
  }
  e.netns = Get("OUTRIDER_NETNS") == "1";
  e.job_id = Get("OUTRIDER_JOB_ID");
  e.run_dir = Get("OUTRIDER_RUN_DIR");
  return e;
}

std::optional<unsigned long long> ParseBytes(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str()) return std::nullopt;
  std::string suffix = end;
  unsigned long long mult = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB" || suffix == "KB")
    mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB" || suffix == "MB")
    mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB" || suffix == "GB")
    mult = 1ull << 30;
  else if (!suffix.empty() && suffix != "B")
    return std::nullopt;
  return v * mult;
}

}  // namespace outrider::baselines
