// A gloo rendezvous store in a shared directory (gloo's FileStore layout) that ignores key files
// older than the current run, so files left by an earlier or crashed run with the same directory
// and prefix cannot feed stale addresses into this one.
#pragma once

#include <gloo/rendezvous/file_store.h>

#include <chrono>
#include <string>
#include <vector>

namespace outrider::baselines {

// Thread-safety: one thread per instance (gloo's rendezvous calls it from the rank's main thread).
class FreshFileStore : public gloo::rendezvous::FileStore {
 public:
  // `dir` must exist. Key files last modified before `not_before` (wall clock) are treated as
  // absent. Unlike FileStore::set, set() replaces an existing (stale) key file atomically.
  FreshFileStore(const std::string& dir, std::chrono::system_clock::time_point not_before,
                 std::chrono::milliseconds timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // Unlinks the key files this instance wrote. Call once every rank has read them.
  void RemoveOwnKeys();

 private:
  bool IsFresh(const std::string& path) const;

  std::chrono::system_clock::time_point not_before_;
  std::chrono::milliseconds timeout_;
  std::vector<std::string> written_;
};

}  // namespace outrider::baselines
