// The interposer's messages: one line each on stderr, "outrider-nccl: ...". What a call would
// repeat on every call (why it keeps to NCCL, say) is said once per process instead.
// Thread-safety: both from any thread.
#pragma once

#include <string>

namespace outrider::shim {

void Say(const std::string& what);
// Says `what` unless something was said under `key` before in this process.
void SayOnce(const std::string& key, const std::string& what);

}  // namespace outrider::shim
