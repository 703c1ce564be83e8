// The interposer's messages on stderr (say.h).
#include "shim/nccl/say.h"

#include <cstdio>
#include <vector>

#include "base/mutex.h"

namespace outrider::shim {

void Say(const std::string& what) { std::fprintf(stderr, "outrider-nccl: %s\n", what.c_str()); }

void SayOnce(const std::string& key, const std::string& what) {
  static Mutex mu;
  static auto* said = new std::vector<std::string>;
  MutexLock l(&mu);
  for (const std::string& k : *said) {
    if (k == key) return;
  }
  said->push_back(key);
  Say(what);
}

}  // namespace outrider::shim
