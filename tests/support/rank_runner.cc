// Ranks of a test job as child processes (rank_runner.h).
#include "tests/support/rank_runner.h"

#include <gtest/gtest.h>

#include "tests/support/test_support.h"

namespace outrider::testing {

Ranks::~Ranks() {
  for (size_t r = 0; r < pids_.size(); ++r) {
    if (reaped_[r]) continue;
    ::kill(pids_[r], SIGKILL);
    outrider::testing::Reap(pids_[r]);
  }
}

void Ranks::Add(int n, const std::function<int(int index)>& body) {
  for (int i = 0; i < n; ++i) {
    pids_.push_back(Spawn([&body, i] { return body(i); }));
    reaped_.push_back(false);
  }
}

int Ranks::Kill(int rank, int sig) {
  return reaped_[static_cast<size_t>(rank)] ? -1 : ::kill(pid(rank), sig);
}

int Ranks::Reap(int rank) {
  EXPECT_FALSE(reaped_[static_cast<size_t>(rank)]) << "rank " << rank << " reaped twice";
  reaped_[static_cast<size_t>(rank)] = true;
  return outrider::testing::Reap(pid(rank));
}

void Ranks::ExpectAllExitZero() {
  for (int r = 0; r < size(); ++r) {
    if (!reaped_[static_cast<size_t>(r)]) {
      EXPECT_EQ(Reap(r), 0) << "rank " << r;
    }
  }
}

void Ranks::ReapAll() {
  for (int r = 0; r < size(); ++r) {
    if (!reaped_[static_cast<size_t>(r)]) Reap(r);
  }
}

}  // namespace outrider::testing
