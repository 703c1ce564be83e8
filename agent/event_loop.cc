// epoll progress loop with adaptive spinning.
#include "agent/event_loop.h"

#include <sched.h>
#include <sys/epoll.h>

#include <cerrno>

namespace outrider::agent {

Result<std::unique_ptr<EventLoop>> EventLoop::Create(uint32_t spin_us) {
  UniqueFd ep(::epoll_create1(EPOLL_CLOEXEC));
  if (!ep.valid()) return ErrnoStatus("epoll_create1", errno);
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd wake, ipc::CreateEventFd());
  auto loop = std::unique_ptr<EventLoop>(new EventLoop(std::move(ep), std::move(wake), spin_us));
  int wfd = loop->wake_fd_.get();
  EventLoop* raw = loop.get();
  OUTRIDER_RETURN_IF_ERROR(loop->Add(wfd, EPOLLIN, [wfd, raw](uint32_t) {
    ipc::DrainEventFd(wfd);
    raw->RunPosted();
  }));
  return loop;
}

EventLoop::EventLoop(UniqueFd epfd, UniqueFd wake_fd, uint32_t spin_us)
    : epfd_(std::move(epfd)), wake_fd_(std::move(wake_fd)), spin_(spin_us) {}

Status EventLoop::Add(int fd, uint32_t events, Handler handler) {
  uint32_t gen = next_generation_++;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = (uint64_t{gen} << 32) | static_cast<uint32_t>(fd);
  if (::epoll_ctl(epfd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
    return ErrnoStatus("epoll_ctl add", errno);
  handlers_[fd] = Entry{gen, std::move(handler)};
  return Status::Ok();
}

void EventLoop::Remove(int fd) {
  ::epoll_ctl(epfd_.get(), EPOLL_CTL_DEL, fd, nullptr);
  handlers_.erase(fd);
}

bool EventLoop::Post(std::function<void()> task) {
  {
    MutexLock lock(&posted_mu_);
    if (closed_) return false;
    posted_.push_back(std::move(task));
  }
  ipc::SignalEventFd(wake_fd_.get());
  return true;
}

void EventLoop::Close() {
  std::deque<std::function<void()>> dropped;
  MutexLock lock(&posted_mu_);
  closed_ = true;
  dropped.swap(posted_);  // destroyed after the lock is released (declared first)
}

void EventLoop::RunPosted() {
  std::deque<std::function<void()>> tasks;
  {
    MutexLock lock(&posted_mu_);
    tasks.swap(posted_);
  }
  for (auto& t : tasks) t();
}

void EventLoop::Stop() {
  stop_ = true;
  ipc::SignalEventFd(wake_fd_.get());
}

int EventLoop::Dispatch(int timeout_ms) {
  epoll_event events[64];
  int n = ::epoll_wait(epfd_.get(), events, 64, timeout_ms);
  if (n <= 0) return 0;
  for (int i = 0; i < n; ++i) {
    int fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
    uint32_t gen = static_cast<uint32_t>(events[i].data.u64 >> 32);
    auto it = handlers_.find(fd);
    // A handler earlier in this batch may have removed (and maybe reused) this fd.
    if (it == handlers_.end() || it->second.generation != gen) continue;
    Handler h = it->second.handler;  // the handler may remove itself
    h(events[i].events);
  }
  return n;
}

void EventLoop::Run(const Hooks& hooks) {
  uint64_t last_work = ipc::MonotonicNs();
  uint32_t iterations = 0;
  while (!stop_) {
    bool worked = hooks.poll();
    // Sockets and eventfds are checked on every 16th spin iteration: a syscall costs more than
    // a ring check.
    if ((++iterations & 15) == 0 || worked) worked |= Dispatch(0) > 0;
    uint64_t now = ipc::MonotonicNs();
    if (worked) {
      if (now - last_work > 1000) spin_.Hit();  // work arrived while we were spinning
      last_work = now;
      continue;
    }
    if (now - last_work < spin_.budget_ns()) {
      // Trainers and agent often outnumber the cores: let whoever we wait for run.
      sched_yield();
      continue;
    }
    if (!hooks.prepare_sleep()) {
      spin_.Hit();
      last_work = ipc::MonotonicNs();
      continue;
    }
    spin_.Miss();
    Dispatch(hooks.timeout_ms());
    hooks.after_wake();
    last_work = ipc::MonotonicNs();
  }
  stop_ = false;  // a later Run runs again
}

}  // namespace outrider::agent
