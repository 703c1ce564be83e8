// A mutex the compiler checks. Under clang, -Wthread-safety proves at compile time that every
// member marked OUTRIDER_GUARDED_BY(mu) is touched only with `mu` held, and that functions marked
// OUTRIDER_REQUIRES(mu) are called with it held; other compilers see plain attributes-free code.
// CI builds the agent and the shim once with clang and -Wthread-safety -Werror (tools/outrider
// fuzz's build).
//
//   class Counter {
//     void Add() OUTRIDER_EXCLUDES(mu_) { MutexLock l(&mu_); ++n_; }
//     Mutex mu_;
//     int n_ OUTRIDER_GUARDED_BY(mu_) = 0;
//   };
#pragma once

#include <mutex>

#if defined(__clang__)
#define OUTRIDER_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define OUTRIDER_THREAD_ANNOTATION(x)
#endif

#define OUTRIDER_CAPABILITY(x) OUTRIDER_THREAD_ANNOTATION(capability(x))
#define OUTRIDER_SCOPED_CAPABILITY OUTRIDER_THREAD_ANNOTATION(scoped_lockable)
#define OUTRIDER_GUARDED_BY(x) OUTRIDER_THREAD_ANNOTATION(guarded_by(x))
#define OUTRIDER_PT_GUARDED_BY(x) OUTRIDER_THREAD_ANNOTATION(pt_guarded_by(x))
#define OUTRIDER_REQUIRES(...) OUTRIDER_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define OUTRIDER_EXCLUDES(...) OUTRIDER_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define OUTRIDER_ACQUIRE(...) OUTRIDER_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define OUTRIDER_RELEASE(...) OUTRIDER_THREAD_ANNOTATION(release_capability(__VA_ARGS__))

namespace outrider {

// std::mutex, declared a capability. Thread-safety: it is the lock.
class OUTRIDER_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() OUTRIDER_ACQUIRE() { mu_.lock(); }
  void Unlock() OUTRIDER_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds a Mutex for its scope, as std::lock_guard does.
class OUTRIDER_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) OUTRIDER_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() OUTRIDER_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

}  // namespace outrider
