// The agents' names for a job's generations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace outrider::agent::membership {

// The agents' name of generation `generation` of job `base`: `base` itself for generation 0, else
// "<base>~g<generation>" (the base cut so that the whole fits in ipc::kJobIdBytes - 1).
std::string GenerationJobId(const std::string& base, uint32_t generation);
// Whether `id` has the form of a generation's id, "<job>~g<N>" (N decimal digits).
bool IsGenerationId(std::string_view id);
// The job a generation's id names ("" when `id` names generation 0 or no generation).
std::string BaseOfGeneration(const std::string& id);

}  // namespace outrider::agent::membership
