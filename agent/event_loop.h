// The agent's progress loop: epoll over sockets and eventfds, plus a poll hook that drains
// shared-memory rings. After activity the loop keeps polling for a short adaptive spin before it
// arms the rings' sleep flags and blocks in epoll.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>

#include "base/mutex.h"
#include "base/status.h"
#include "ipc/event_fd.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// Thread-safety: everything on the loop thread, except Stop() and Post() (any thread).
class EventLoop {
 public:
  using Handler = std::function<void(uint32_t events)>;
  struct Hooks {
    std::function<bool()> poll;  // drains rings; true if it did any work
    // Arms sleep flags; false if work arrived meanwhile, or the loop should keep polling.
    std::function<bool()> prepare_sleep;
    std::function<void()> after_wake;  // clears sleep flags
    std::function<int()> timeout_ms;   // longest sleep allowed (-1: no limit)
  };

  static Result<std::unique_ptr<EventLoop>> Create(uint32_t spin_us);

  Status Add(int fd, uint32_t events, Handler handler);
  void Remove(int fd);           // safe from inside a handler, also for the fd being dispatched
  void Run(const Hooks& hooks);  // until Stop(); may be called again after it returns
  void Stop();
  bool stopping() const { return stop_; }
  // Runs `task` on the loop thread soon. Thread-safe: the way other threads hand results back.
  // False once the loop is closed: the task will never run.
  bool Post(std::function<void()> task);
  // After the last Run: drops what was posted without running it (a task that holds a promise
  // breaks it), and refuses what is posted from now on, so that no thread waits on a loop that is
  // gone. Any thread.
  void Close();

 private:
  EventLoop(UniqueFd epfd, UniqueFd wake_fd, uint32_t spin_us);
  // Dispatches ready events; waits at most timeout_ms. Returns the number dispatched.
  int Dispatch(int timeout_ms);

  struct Entry {
    uint32_t generation;
    Handler handler;
  };
  UniqueFd epfd_;
  UniqueFd wake_fd_;  // Stop() signals it
  ipc::AdaptiveSpin spin_;
  uint32_t next_generation_ = 1;
  std::unordered_map<int, Entry> handlers_;
  volatile bool stop_ = false;
  Mutex posted_mu_;
  std::deque<std::function<void()>> posted_ OUTRIDER_GUARDED_BY(posted_mu_);
  bool closed_ OUTRIDER_GUARDED_BY(posted_mu_) = false;
  void RunPosted();
};

}  // namespace outrider::agent
