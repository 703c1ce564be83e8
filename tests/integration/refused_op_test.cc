// An op refused at submission (by the agent, or by the rank's own shim) fails its collective on
// every rank, on one node and across nodes, naming the rank and the reason; the key's sequence
// stays aligned, so the ranks' next collective of the same key gives the exact sum (never OK with
// another instance's data).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;

struct Shape {
  int nodes;
  int local;
  bool by_shim;  // the refusing rank's own shim refuses it (a buffer outside shared memory), not
                 // its agent
};

class RefusedOpTest : public MultiNodeTest, public ::testing::WithParamInterface<Shape> {};

TEST_P(RefusedOpTest, FailsTheCollectiveOnEveryRankAndTheNextOneOfTheKeyIsExact) {
  const Shape shape = GetParam();
  const int world = shape.nodes * shape.local;
  const int refuser = world - 1;
  constexpr uint64_t kCount = 8;
  StartAgents(shape.nodes);
  // Every rank's first allreduce uses the default key of its kind; the last rank's is refused:
  // by its agent (buffers that overlap without being in place) or by its shim (a buffer on the
  // heap). The second allreduce (the same key) must be exact on every rank: rank r contributes
  // 100 * (r + 1).
  RunJob(
      "refused", shape.nodes, shape.local, "tok",
      [&](outrider_client_t* c, int r) {
        auto* x = static_cast<float*>(outrider_alloc(c, 4 * (kCount + 1)));
        float heap[kCount + 1];
        for (uint64_t i = 0; i <= kCount; ++i) x[i] = heap[i] = static_cast<float>(r + 1);
        outrider_op_t h;
        float* send = x;
        float* recv = x;
        if (r == refuser) {
          if (shape.by_shim) {
            send = recv = heap;
          } else {
            recv = x + 1;
          }
        }
        int first = Wait(
            c, outrider_allreduce(c, send, recv, kCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h),
            &h);
        // The first op's error, kept apart from the one RunJob records at the end.
        CopyText(reinterpret_cast<char*>(results_->out[r]), 256, outrider_last_error(c));
        for (uint64_t i = 0; i < kCount; ++i) x[i] = static_cast<float>(100 * (r + 1));
        int second = Wait(
            c, outrider_allreduce(c, x, x, kCount, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h), &h);
        if (second != OUTRIDER_OK) return 200 + second;
        const float expected = static_cast<float>(100 * world * (world + 1) / 2);
        for (uint64_t i = 0; i < kCount; ++i) {
          if (x[i] != expected) return 300;  // OK with another instance's data
        }
        return first;
      },
      false);
  for (int r = 0; r < world; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::string first(reinterpret_cast<const char*>(results_->out[r]));
    EXPECT_EQ(results_->rc[r], OUTRIDER_ERR_INVALID_ARGUMENT)
        << first << " / " << results_->error[r];
    // Within one node the job names local ranks; across nodes, job ranks.
    std::string who = shape.nodes == 1 ? "local rank " + std::to_string(refuser)
                                       : "rank " + std::to_string(refuser);
    if (shape.by_shim) {
      EXPECT_THAT(first, HasSubstr(r == refuser ? "send buffer" : who + "'s op was refused"));
      if (r != refuser) {
        EXPECT_THAT(first, HasSubstr("refused by the shim of rank " + std::to_string(refuser)));
      }
      continue;
    }
    EXPECT_THAT(first, HasSubstr("overlap"));
    if (r != refuser) {
      EXPECT_THAT(first, HasSubstr(who + "'s op was refused"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RefusedOpTest,
                         ::testing::Values(Shape{1, 2, false}, Shape{1, 4, false},
                                           Shape{2, 1, false}, Shape{2, 2, false},
                                           Shape{1, 2, true}, Shape{2, 2, true}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           return std::to_string(info.param.nodes) + "x" +
                                  std::to_string(info.param.local) +
                                  (info.param.by_shim ? "_RefusedByTheShim" : "_RefusedByTheAgent");
                         });

}  // namespace
}  // namespace outrider::testing
