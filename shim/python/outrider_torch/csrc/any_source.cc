// Receives from any source for the "outrider" backend (see any_source.h).
#include "shim/python/outrider_torch/csrc/any_source.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "shim/python/outrider_torch/csrc/gil.h"

namespace outrider::torch_backend {
namespace {

bool AnySourceWanted() {
  const char* v = std::getenv("OUTRIDER_TORCH_ANY_SOURCE");
  return v == nullptr || std::string(v) != "0";
}

const std::vector<uint8_t> kRing{'1'};
constexpr std::chrono::milliseconds kMaxBellPause{32};

// Every live AnySource, for StopAll.
std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<AnySource*, std::weak_ptr<AnySource>>& Registry() {
  // Never destroyed: groups may outlive static destruction.
  static auto* all = new std::map<AnySource*, std::weak_ptr<AnySource>>;
  return *all;
}

}  // namespace

AnySource::AnySource(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                     std::chrono::milliseconds timeout)
    : store_(std::move(store)),
      rank_(rank),
      size_(size),
      timeout_(timeout),
      enabled_(store_ && AnySourceWanted()) {}

std::shared_ptr<AnySource> AnySource::Create(c10::intrusive_ptr<c10d::Store> store, int rank,
                                             int size, std::chrono::milliseconds timeout) {
  std::shared_ptr<AnySource> a(new AnySource(std::move(store), rank, size, timeout));
  std::lock_guard<std::mutex> l(RegistryMutex());
  Registry().emplace(a.get(), a);
  return a;
}

AnySource::~AnySource() {
  {
    std::lock_guard<std::mutex> l(RegistryMutex());
    Registry().erase(this);
  }
  Stop();
}

void AnySource::StopAll() {
  // Held under the registry's lock, stopped outside it: a work's callback run while the threads
  // are joined may make or destroy a group, which takes that lock. One destroyed meanwhile stops
  // its own AnySource first; the last of these references may then be the one dropped here.
  std::vector<std::shared_ptr<AnySource>> live;
  {
    std::lock_guard<std::mutex> l(RegistryMutex());
    for (auto& [raw, weak] : Registry()) {
      if (std::shared_ptr<AnySource> a = weak.lock()) live.push_back(std::move(a));
    }
  }
  for (const std::shared_ptr<AnySource>& a : live) a->Stop();
}

void AnySource::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();      // a resolver between two looks at the bell sees stop_ at once
  GilReleased unlocked;  // the threads complete works, whose callbacks take the GIL
  // A second Stop() meanwhile waits here, so that it too returns only once the threads are gone.
  std::lock_guard<std::mutex> joining(join_mu_);
  std::thread announcer, resolver;
  {
    std::lock_guard<std::mutex> l(mu_);
    announcer = std::move(announcer_);
    resolver = std::move(resolver_);
  }
  if (announcer.joinable()) announcer.join();
  if (resolver.joinable()) resolver.join();
}

std::string AnySource::CountKey(int dst, int tag, int src) const {
  return "outrider/anysrc/" + std::to_string(dst) + "/" + std::to_string(tag) + "/" +
         std::to_string(src);
}

std::string AnySource::BellKey(int dst, int tag) const {
  return "outrider/anysrc/" + std::to_string(dst) + "/" + std::to_string(tag) + "/bell";
}

void AnySource::Sent(int dst, int tag) {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    sends_.emplace_back(dst, tag);
    if (!announcer_.joinable()) announcer_ = std::thread([this] { Announce(); });
  }
  cv_.notify_all();
}

void AnySource::Announce() {
  for (;;) {
    std::pair<int, int> send;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stop_ || !sends_.empty(); });
      if (sends_.empty()) return;  // stopping, and every send is counted
      send = sends_.front();
      sends_.pop_front();
    }
    auto [dst, tag] = send;
    try {
      store_->add(CountKey(dst, tag, rank_), 1);
      store_->set(BellKey(dst, tag), kRing);
    } catch (const std::exception& e) {
      // Only an any-source receive on `dst` misses it (and times out); say so once.
      if (!announce_error_reported_) {
        announce_error_reported_ = true;
        std::fprintf(stderr,
                     "outrider: cannot count a send in the store for any-source receives: %s\n",
                     e.what());
      }
    }
  }
}

void AnySource::Recv(int src, int tag, std::function<void()> post) {
  std::unique_lock<std::mutex> l(mu_);
  if (!enabled_ || looking_.count(tag) == 0) {
    ++received_[{tag, src}];
    l.unlock();
    post();
    return;
  }
  resolves_.push_back([this, src, tag, post = std::move(post)] {
    {
      std::lock_guard<std::mutex> g(mu_);
      ++received_[{tag, src}];
    }
    post();
  });
  l.unlock();
  cv_.notify_all();
}

void AnySource::RecvAny(int tag, std::function<void(int src)> post,
                        std::function<void(std::exception_ptr)> fail) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++looking_[tag];
    resolves_.push_back([this, tag, post = std::move(post), fail = std::move(fail)] {
      int src = -1;
      try {
        src = FindSender(tag);
      } catch (...) {
        fail(std::current_exception());
      }
      if (src >= 0) {
        {
          std::lock_guard<std::mutex> g(mu_);
          ++received_[{tag, src}];
        }
        post(src);  // before looking_ drops: a named receive made meanwhile stays behind this one
      }
      std::lock_guard<std::mutex> g(mu_);
      if (--looking_[tag] == 0) looking_.erase(tag);
    });
    if (!resolver_.joinable()) resolver_ = std::thread([this] { Resolve(); });
  }
  cv_.notify_all();
}

void AnySource::Resolve() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stop_ || !resolves_.empty(); });
      if (resolves_.empty()) return;
      task = std::move(resolves_.front());
      resolves_.pop_front();
    }
    task();  // posts fail their own works; nothing escapes
  }
}

int AnySource::FindSender(int tag) {
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::string bell = BellKey(rank_, tag);
  for (;;) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_) {
        throw std::runtime_error(
            "outrider: the process group was shut down (destroyed, or the process exits) while "
            "recv (any source) waited for a sender");
      }
    }
    // The bell goes first: a send counted after the look below rings it again.
    store_->deleteKey(bell);
    int start = next_src_[tag];
    for (int i = 0; i < size_; ++i) {
      int src = (start + i) % size_;
      if (src == rank_) continue;
      int64_t sent = store_->add(CountKey(rank_, tag, src), 0);
      int64_t got = 0;
      {
        std::lock_guard<std::mutex> l(mu_);
        auto it = received_.find({tag, src});
        if (it != received_.end()) got = it->second;
      }
      if (sent > got) {
        next_src_[tag] = (src + 1) % size_;  // the next search starts past it: no sender starves
        return src;
      }
    }
    // Then the bell, looked at rather than waited for: a store client runs one request at a time,
    // so a blocking wait would hold up this rank's own announcements (and any other use of the
    // group's store) until it ended, and two ranks receiving from any source before they send to
    // each other would wait for each other until the timeout. The looks back off from 1 to 32 ms
    // between looks, on cv_, so Stop() ends them at once.
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, kMaxBellPause)) {
      {
        std::unique_lock<std::mutex> l(mu_);
        if (cv_.wait_for(l, pause, [&] { return stop_; })) break;  // reported at the loop's top
      }
      if (store_->check({bell})) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        throw std::runtime_error("outrider: recv (any source) Timed out after " +
                                 std::to_string(timeout_.count()) +
                                 " ms waiting for a sender (the process group's timeout)");
      }
    }
  }
}

}  // namespace outrider::torch_backend
