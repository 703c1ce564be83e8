// The highest job class each user's jobs may declare on this agent (docs/jobs.md): the agent
// parameter job_class_ceiling, checked at every client's handshake.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

// "high" (anyone may), or "1000=high,1001=low,*=normal" (by uid; `*` is everyone else, normal if
// absent). Unconfigured, nobody may declare high: a class above normal is something an operator
// grants, since it takes the links from every other job on the node.
struct JobClassCeiling {
  ipc::JobClass others = ipc::JobClass::kNormal;
  std::map<uint32_t, ipc::JobClass> by_uid;

  ipc::JobClass For(uint32_t uid) const {
    auto it = by_uid.find(uid);
    return it == by_uid.end() ? others : it->second;
  }
  // A malformed entry is an error naming it.
  static Result<JobClassCeiling> Parse(std::string_view text);
  std::string ToString() const;
};

}  // namespace outrider::agent
