// The ranks of a test job as child processes: each runs `body(rank)` and exits with what it
// returns. A test kills and reaps the ranks its story needs; whatever it leaves (a failed ASSERT
// returns early) the destructor kills and reaps, so no rank outlives its test.
// Thread-safety: the test's thread.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <vector>

namespace outrider::testing {

class Ranks {
 public:
  Ranks() = default;
  // Starts ranks 0 .. n - 1.
  Ranks(int n, const std::function<int(int rank)>& body) { Add(n, body); }
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  // Starts `n` more processes, numbered on from size(); `body` gets 0 .. n - 1.
  void Add(int n, const std::function<int(int index)>& body);
  int size() const { return static_cast<int>(pids_.size()); }
  pid_t pid(int rank) const { return pids_[static_cast<size_t>(rank)]; }
  // Sends `sig` to the rank (it stays to be reaped): kill(2)'s result.
  int Kill(int rank, int sig = SIGKILL);
  // Waits for the rank: its exit code, or 128 + signal (as Reap). Once per rank.
  int Reap(int rank);
  // Reaps every rank not reaped yet and expects each to exit 0 (a failure names the rank).
  void ExpectAllExitZero();
  // Reaps every rank not reaped yet, whatever their exit.
  void ReapAll();

 private:
  std::vector<pid_t> pids_;
  std::vector<bool> reaped_;
};

}  // namespace outrider::testing
