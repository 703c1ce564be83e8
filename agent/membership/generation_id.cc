// The names of a job's generations (generation_id.h).
#include "agent/membership/generation_id.h"

#include "ipc/protocol.h"

namespace outrider::agent::membership {

std::string GenerationJobId(const std::string& base, uint32_t generation) {
  if (generation == 0) return base;
  std::string suffix = "~g" + std::to_string(generation);
  return base.substr(0, ipc::kJobIdBytes - 1 - suffix.size()) + suffix;
}

std::string BaseOfGeneration(const std::string& id) {
  size_t tilde = id.rfind("~g");
  return tilde == std::string::npos ? std::string() : id.substr(0, tilde);
}

}  // namespace outrider::agent::membership
