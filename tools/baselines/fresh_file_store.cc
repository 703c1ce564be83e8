// FreshFileStore: FileStore paths, a freshness rule on reads and replacing writes.
#include "fresh_file_store.h"

#include <gloo/common/error.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace outrider::baselines {

FreshFileStore::FreshFileStore(const std::string& dir,
                               std::chrono::system_clock::time_point not_before,
                               std::chrono::milliseconds timeout)
    : gloo::rendezvous::FileStore(dir), not_before_(not_before), timeout_(timeout) {}

void FreshFileStore::set(const std::string& key, const std::vector<char>& data) {
  const std::string tmp = tmpPath(key) + "." + std::to_string(::getpid());
  const std::string path = objectPath(key);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw gloo::IoException("store: cannot write " + tmp + ": " + std::strerror(errno));
  }
  // rename(2) replaces a stale file atomically: a reader sees the old or the new one, whole.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw gloo::IoException("store: rename to " + path + ": " + std::strerror(e));
  }
  written_.push_back(path);
}

std::vector<char> FreshFileStore::get(const std::string& key) {
  wait({key});
  const std::string path = objectPath(key);
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.empty()) throw gloo::IoException("store: cannot read key '" + key + "' from " + path);
  return data;
}

void FreshFileStore::wait(const std::vector<std::string>& keys,
                          const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& key : keys) {
    const std::string path = objectPath(key);
    while (!IsFresh(path)) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw gloo::IoException("store: timed out after " + std::to_string(timeout.count()) +
                                " ms waiting for key '" + key + "' (" + path +
                                "); did every rank start with the same store dir and prefix?");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

void FreshFileStore::RemoveOwnKeys() {
  for (const auto& path : written_) ::unlink(path.c_str());
  written_.clear();
}

bool FreshFileStore::IsFresh(const std::string& path) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  auto mtime = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
  return mtime >= not_before_;
}

}  // namespace outrider::baselines
