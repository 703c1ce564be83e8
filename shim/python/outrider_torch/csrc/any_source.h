// Receives from any source (c10d's recvAnysource) for the "outrider" backend.
//
// Point-to-point messages travel through the agents as broadcasts in each pair's communicator, and
// a receive must name its pair. To find the sender of an any-source receive, every send also
// counts itself in the group's c10d store (key: receiver, tag, sender) and rings the receiver's
// bell (key: receiver, tag), from a background thread, so sends do not wait for the store. An
// any-source receive compares those counts with what this rank has received from each sender, and
// when no sender is ahead, looks at the bell until it rings (every 1 to 32 ms: a blocking wait
// would hold the store client, which runs one request at a time, and with it this rank's own
// counting). The store holds one key per (receiver, tag, sender) and one per (receiver, tag),
// however many messages pass; each send costs it two requests. Setting
// OUTRIDER_TORCH_ANY_SOURCE=0 turns this off for jobs that never receive from any source.
//
// Order: receives of one tag are posted in the order they were made. A named receive made while an
// earlier any-source receive of its tag is still looking for its sender waits behind it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <utility>

namespace outrider::torch_backend {

class AnySource {
 public:
  // `store` is the group's own (prefixed) store; `rank`/`size` are group ranks; `timeout` bounds
  // the wait of an any-source receive for its sender. Shared, so that StopAll can hold one while
  // its group is destroyed.
  static std::shared_ptr<AnySource> Create(c10::intrusive_ptr<c10d::Store> store, int rank,
                                           int size, std::chrono::milliseconds timeout);
  ~AnySource();
  AnySource(const AnySource&) = delete;
  AnySource& operator=(const AnySource&) = delete;

  // Stops both threads and waits for them: an any-source receive still looking for its sender
  // fails, and the sends posted so far are counted first. Idempotent, and safe from two threads at
  // once (the exit hook and the group's destructor): each returns once the threads are gone. The
  // destructor calls it; the group calls it before it goes, since StopAll may hold this longer.
  void Stop();
  // Stops every AnySource of the process, from the backend's exit hook: the works they fail
  // complete while the interpreter can still run their callbacks (which may make or destroy
  // groups).
  static void StopAll();

  // Whether sends are counted (OUTRIDER_TORCH_ANY_SOURCE is not 0, and the group has a store).
  bool enabled() const { return enabled_; }
  // A send to `dst` with `tag` was posted.
  void Sent(int dst, int tag);
  // A receive from `src` with `tag`: runs `post` (which posts it) now, or, while an any-source
  // receive of `tag` made before it still looks for its sender, after that one.
  void Recv(int src, int tag, std::function<void()> post);
  // An any-source receive of `tag`: once a sender with a message this rank has not received yet is
  // known, runs post(src); `fail` gets why none was found (timeout, store failure, shutdown).
  void RecvAny(int tag, std::function<void(int src)> post,
               std::function<void(std::exception_ptr)> fail);

 private:
  AnySource(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
            std::chrono::milliseconds timeout);
  std::string CountKey(int dst, int tag, int src) const;
  std::string BellKey(int dst, int tag) const;
  void Announce();  // thread: counts sends in the store
  void Resolve();   // thread: finds senders, posts receives in order
  int FindSender(int tag);

  c10::intrusive_ptr<c10d::Store> store_;
  const int rank_;
  const int size_;
  const std::chrono::milliseconds timeout_;
  const bool enabled_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                           // guarded by mu_
  std::deque<std::pair<int, int>> sends_;       // guarded by mu_: (dst, tag) to count
  std::deque<std::function<void()>> resolves_;  // guarded by mu_: in the order made
  std::map<int, int> looking_;  // guarded by mu_: any-source receives pending, by tag
  std::map<std::pair<int, int>, int64_t>
      received_;                          // guarded by mu_: receives posted, by (tag, src)
  std::map<int, int> next_src_;           // resolver only: where the search starts, by tag
  std::thread announcer_, resolver_;      // guarded by mu_: started on first use
  std::mutex join_mu_;                    // held by the Stop() that joins them
  bool announce_error_reported_ = false;  // announcer only
};

}  // namespace outrider::torch_backend
