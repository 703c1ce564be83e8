// The names of a job's generations (generation_id.h).
#include "agent/membership/generation_id.h"

#include "ipc/protocol.h"

namespace outrider::agent::membership {

std::string GenerationJobId(const std::string& base, uint32_t generation) {
  if (generation == 0) return base;
  std::string suffix = "~g" + std::to_string(generation);
  return base.substr(0, ipc::kJobIdBytes - 1 - suffix.size()) + suffix;
}

bool IsGenerationId(std::string_view id) {
  size_t tilde = id.rfind("~g");
  if (tilde == std::string_view::npos || tilde + 2 == id.size()) return false;
  for (char c : id.substr(tilde + 2)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string BaseOfGeneration(const std::string& id) {
  size_t tilde = id.rfind("~g");
  return tilde == std::string::npos ? std::string() : id.substr(0, tilde);
}

}  // namespace outrider::agent::membership
