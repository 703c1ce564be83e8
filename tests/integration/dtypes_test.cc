// The dtypes beyond f32/f64/f16/bf16/i32/i64 through real agents and the shim: u8, i8, bool and
// c128 allreduce and allgather across two nodes (direct and ring paths) against hand-computed
// references; whole elements through every data-moving collective on one node; and the shim
// refusing the reduce ops the agent would refuse, before anything is queued.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/multinode_fixture.h"

namespace outrider::testing {
namespace {

using ::testing::HasSubstr;
using C128 = std::complex<double>;

class DTypesTest : public MultiNodeTest {};

// Rank r's element i: every byte value for u8 and i8 (sums and products wrap), bytes other than 0
// and 1 for bool, small halves for c128 (so sums are exact in any order and avg divides by 4
// exactly).
uint8_t U8Input(int r, size_t i) {
  return static_cast<uint8_t>(i * 37 + static_cast<size_t>(r) * 101 + (i >> 3));
}
uint8_t BoolInput(int r, size_t i) {
  return (i + static_cast<size_t>(r)) % 3 == 0 ? 0 : (r % 2 ? 0x10 : 1);
}
C128 C128Input(int r, size_t i) {
  return {(r + 1) * static_cast<double>(i % 7) + 0.5 * r, -static_cast<double>(i % 11) * (r + 2)};
}

// The fold over `world` ranks, as the agents must compute it.
uint8_t U8Want(outrider_redop_t op, int world, size_t i) {
  uint8_t acc = U8Input(0, i);
  for (int r = 1; r < world; ++r) {
    uint8_t x = U8Input(r, i);
    switch (op) {
      case OUTRIDER_SUM:
      case OUTRIDER_AVG:
        acc = static_cast<uint8_t>(acc + x);
        break;
      case OUTRIDER_PROD:
        acc = static_cast<uint8_t>(acc * x);
        break;
      case OUTRIDER_MIN:
        acc = std::min(acc, x);
        break;
      case OUTRIDER_MAX:
        acc = std::max(acc, x);
        break;
    }
  }
  return op == OUTRIDER_AVG ? static_cast<uint8_t>(acc / world) : acc;
}
int8_t I8AvgWant(int world, size_t i) {
  int8_t sum = 0;
  for (int r = 0; r < world; ++r)
    sum = static_cast<int8_t>(sum + static_cast<int8_t>(U8Input(r, i)));
  return static_cast<int8_t>(sum / world);  // truncates toward zero
}
uint8_t BoolWant(outrider_redop_t op, int world, size_t i) {
  bool any = false, all = true;
  for (int r = 0; r < world; ++r) {
    any = any || BoolInput(r, i) != 0;
    all = all && BoolInput(r, i) != 0;
  }
  return op == OUTRIDER_SUM || op == OUTRIDER_MAX ? any : all;
}
C128 C128Want(outrider_redop_t op, int world, size_t i) {
  C128 sum = C128Input(0, i);  // not 0 + ...: -0 + -0 stays -0
  for (int r = 1; r < world; ++r) sum += C128Input(r, i);
  return op == OUTRIDER_AVG ? sum / static_cast<double>(world) : sum;
}

// One case of an allreduce: its name (part of a job id), its dtype, element size, input and
// expected bytes of element i.
struct Case {
  const char* name;
  outrider_dtype_t dtype;
  outrider_redop_t op;
  size_t elem;
  std::function<void(int r, size_t i, uint8_t* out)> input;
  std::function<void(size_t i, uint8_t* out)> want;
};

std::vector<Case> AllreduceCases(int world) {
  std::vector<Case> cases;
  const std::pair<outrider_redop_t, const char*> ops[] = {{OUTRIDER_SUM, "u8-sum"},
                                                          {OUTRIDER_AVG, "u8-avg"},
                                                          {OUTRIDER_MIN, "u8-min"},
                                                          {OUTRIDER_MAX, "u8-max"},
                                                          {OUTRIDER_PROD, "u8-prod"}};
  for (auto [op, name] : ops) {
    cases.push_back({name, OUTRIDER_U8, op, 1,
                     [](int r, size_t i, uint8_t* o) { *o = U8Input(r, i); },
                     [op, world](size_t i, uint8_t* o) { *o = U8Want(op, world, i); }});
  }
  cases.push_back(
      {"i8-avg", OUTRIDER_I8, OUTRIDER_AVG, 1,
       [](int r, size_t i, uint8_t* o) { *o = U8Input(r, i); },
       [world](size_t i, uint8_t* o) { *o = static_cast<uint8_t>(I8AvgWant(world, i)); }});
  for (outrider_redop_t op : {OUTRIDER_SUM, OUTRIDER_PROD}) {
    cases.push_back({op == OUTRIDER_SUM ? "bool-or" : "bool-and", OUTRIDER_BOOL, op, 1,
                     [](int r, size_t i, uint8_t* o) { *o = BoolInput(r, i); },
                     [op, world](size_t i, uint8_t* o) { *o = BoolWant(op, world, i); }});
  }
  for (outrider_redop_t op : {OUTRIDER_SUM, OUTRIDER_AVG}) {
    cases.push_back({op == OUTRIDER_SUM ? "c128-sum" : "c128-avg", OUTRIDER_C128, op, 16,
                     [](int r, size_t i, uint8_t* o) {
                       C128 v = C128Input(r, i);
                       std::memcpy(o, &v, 16);
                     },
                     [op, world](size_t i, uint8_t* o) {
                       C128 v = C128Want(op, world, i);
                       std::memcpy(o, &v, 16);
                     }});
  }
  return cases;
}

// Ring chunks of 4100 bytes: many per op, and not a whole number of c128 elements (the agents
// round them down to 4096).
const std::vector<std::string> kSmallChunks = {"--ring-chunk-bytes", "4100"};

TEST_F(DTypesTest, AllreduceOfU8I8BoolAndC128AcrossTwoNodesMatchesReference) {
  StartAgents(2, false, kSmallChunks);
  const int nodes = 2, local = 2, world = 4;
  for (const Case& k : AllreduceCases(world)) {
    // One small op (direct exchange) and one past --direct-max-bytes (the chunked ring).
    for (size_t count : {size_t{5}, k.elem == 16 ? size_t{20001} : size_t{300001}}) {
      SCOPED_TRACE(std::string(k.name) + " count " + std::to_string(count));
      RunJob(std::string("ar-") + k.name + "-" + std::to_string(count), nodes, local, "tok",
             [&](outrider_client_t* c, int r) {
               auto* buf = static_cast<uint8_t*>(outrider_alloc(c, count * k.elem));
               for (size_t i = 0; i < count; ++i) k.input(r, i, buf + i * k.elem);
               outrider_op_t h;
               int rc =
                   Wait(c, outrider_allreduce(c, buf, buf, count, k.dtype, k.op, nullptr, &h), &h);
               std::memcpy(results_->out[r], buf, count * k.elem);
               return rc;
             });
      std::vector<uint8_t> want(count * k.elem);
      for (size_t i = 0; i < count; ++i) k.want(i, want.data() + i * k.elem);
      for (int r = 0; r < world; ++r) {
        EXPECT_EQ(std::memcmp(results_->out[r], want.data(), want.size()), 0) << "rank " << r;
      }
    }
  }
}

TEST_F(DTypesTest, AllgatherOfU8AndC128AcrossTwoNodesDeliversEveryRanksElements) {
  StartAgents(2, false, kSmallChunks);
  const int nodes = 2, local = 2, world = 4;
  struct Gather {
    outrider_dtype_t dtype;
    size_t elem;
    size_t large;  // a node's share past the direct limit: around the ring
  };
  for (Gather g : {Gather{OUTRIDER_U8, 1, 300001}, Gather{OUTRIDER_C128, 16, 20001}}) {
    for (size_t count : {size_t{7}, g.large}) {
      SCOPED_TRACE("elem " + std::to_string(g.elem) + " count " + std::to_string(count));
      auto fill = [&](int r, size_t i, uint8_t* o) {
        if (g.elem == 1) {
          *o = U8Input(r, i);
        } else {
          C128 v = C128Input(r, i);
          std::memcpy(o, &v, 16);
        }
      };
      RunJob("ag-" + std::to_string(g.elem) + "-" + std::to_string(count), nodes, local, "tok",
             [&](outrider_client_t* c, int r) {
               auto* send = static_cast<uint8_t*>(outrider_alloc(c, count * g.elem));
               auto* recv = static_cast<uint8_t*>(outrider_alloc(c, count * g.elem * world));
               for (size_t i = 0; i < count; ++i) fill(r, i, send + i * g.elem);
               outrider_op_t h;
               int rc = Wait(c, outrider_allgather(c, send, recv, count, g.dtype, nullptr, &h), &h);
               if (rc != OUTRIDER_OK) return rc;
               std::vector<uint8_t> want(g.elem);
               for (int src = 0; src < world; ++src) {
                 for (size_t i = 0; i < count; ++i) {
                   fill(src, i, want.data());
                   if (std::memcmp(recv + (src * count + i) * g.elem, want.data(), g.elem) != 0)
                     return 100 + src;
                 }
               }
               return 0;
             });
    }
  }
}

TEST_F(DTypesTest, EveryDataMovingCollectiveMovesWholeElementsOnOneNode) {
  StartAgents(1);
  const int n = 3;
  const size_t count = 1001;
  RunJob("moves", 1, n, "tok", [&](outrider_client_t* c, int r) {
    // Broadcast of bool bytes: copied as they are (only reductions read them as true/false).
    auto* b = static_cast<uint8_t*>(outrider_alloc(c, count));
    for (size_t i = 0; i < count; ++i) b[i] = r == 1 ? static_cast<uint8_t>(i * 7) : 0xee;
    outrider_op_t h;
    int rc = Wait(c, outrider_broadcast(c, b, count, OUTRIDER_BOOL, 1, nullptr, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    for (size_t i = 0; i < count; ++i) {
      if (b[i] != static_cast<uint8_t>(i * 7)) return 101;
    }
    // Reduce-scatter of c128: rank r gets block r summed.
    auto* s = static_cast<C128*>(outrider_alloc(c, count * 16 * n));
    auto* rs = static_cast<C128*>(outrider_alloc(c, count * 16));
    for (size_t i = 0; i < count * n; ++i) s[i] = C128Input(r, i);
    rc = Wait(c, outrider_reduce_scatter(c, s, rs, count, OUTRIDER_C128, OUTRIDER_SUM, nullptr, &h),
              &h);
    if (rc != OUTRIDER_OK) return rc;
    for (size_t i = 0; i < count; ++i) {
      C128 want = 0;
      for (int src = 0; src < n; ++src) want += C128Input(src, r * count + i);
      if (rs[i] != want) return 102;
    }
    // Alltoallv of i16 and c64: rank i sends (i + j + 1) elements valued 100 * i + j to rank j,
    // so it sends and receives the same counts.
    const int64_t counts[n] = {r + 1, r + 2, r + 3};
    const int64_t total = 3 * r + 6;
    auto* s16 = static_cast<int16_t*>(outrider_alloc(c, total * 2));
    auto* r16 = static_cast<int16_t*>(outrider_alloc(c, total * 2));
    auto* s64 = static_cast<std::complex<float>*>(outrider_alloc(c, total * 8));
    auto* r64 = static_cast<std::complex<float>*>(outrider_alloc(c, total * 8));
    for (int j = 0, k = 0; j < n; ++j) {
      for (int64_t e = 0; e < counts[j]; ++e, ++k) {
        s16[k] = static_cast<int16_t>(-100 * r - j);
        s64[k] = {static_cast<float>(100 * r + j), -0.5f};
      }
    }
    rc = Wait(c, outrider_alltoallv(c, s16, counts, r16, counts, OUTRIDER_I16, nullptr, &h), &h);
    if (rc == OUTRIDER_OK)
      rc = Wait(c, outrider_alltoallv(c, s64, counts, r64, counts, OUTRIDER_C64, nullptr, &h), &h);
    if (rc != OUTRIDER_OK) return rc;
    for (int i = 0, k = 0; i < n; ++i) {
      for (int64_t e = 0; e < counts[i]; ++e, ++k) {
        if (r16[k] != -100 * i - r) return 103;
        if (r64[k] != std::complex<float>(static_cast<float>(100 * i + r), -0.5f)) return 104;
      }
    }
    return 0;
  });
}

TEST_F(DTypesTest, ShimRefusesWhatTheAgentWouldRefuseBeforeQueueingAnything) {
  StartAgents(1);
  RunJob("refused", 1, 1, "tok", [&](outrider_client_t* c, int) {
    auto* x = static_cast<uint8_t*>(outrider_alloc(c, 64 * 2));
    struct Refused {
      bool scatter;
      outrider_dtype_t dtype;
      outrider_redop_t op;
      const char* text;
    };
    for (const Refused& f :
         {Refused{false, OUTRIDER_C64, OUTRIDER_MIN,
                  "INVALID_ARGUMENT: reduce op min is not supported for c64: complex numbers have "
                  "no order"},
          Refused{false, OUTRIDER_C128, OUTRIDER_MAX, "reduce op max is not supported for c128"},
          Refused{true, OUTRIDER_C64, OUTRIDER_PROD, "reduce op prod is not supported for c64"},
          Refused{true, OUTRIDER_C128, OUTRIDER_MIN, "reduce op min is not supported for c128"},
          Refused{false, OUTRIDER_BOOL, OUTRIDER_AVG, "reduce op avg is not supported for bool"}}) {
      outrider_op_t h = 77;
      int rc = f.scatter ? outrider_reduce_scatter(c, x, x + 64, 4, f.dtype, f.op, nullptr, &h)
                         : outrider_allreduce(c, x, x, 4, f.dtype, f.op, nullptr, &h);
      if (rc != OUTRIDER_ERR_INVALID_ARGUMENT || h != 0) return 100;
      if (std::strstr(outrider_last_error(c), f.text) == nullptr) {
        std::fprintf(stderr, "got '%s', want '%s'\n", outrider_last_error(c), f.text);
        return 101;
      }
    }
    // The client is fine: the same buffers reduce with the ops these dtypes take.
    outrider_op_t h;
    int rc = Wait(c, outrider_allreduce(c, x, x, 4, OUTRIDER_C64, OUTRIDER_AVG, nullptr, &h), &h);
    if (rc == OUTRIDER_OK)
      rc = Wait(c, outrider_allreduce(c, x, x, 32, OUTRIDER_BOOL, OUTRIDER_MIN, nullptr, &h), &h);
    return rc;
  });
}

TEST_F(DTypesTest, DtypeMismatchAcrossNodesNamesBothDtypes) {
  StartAgents(2);
  RunJob(
      "c-mismatch", 2, 1, "tok",
      [&](outrider_client_t* c, int r) {
        auto* x = static_cast<uint8_t*>(outrider_alloc(c, 16 * 4));
        outrider_op_t h;
        return Wait(
            c,
            outrider_allreduce(c, x, x, r == 0 ? 4 : 2, r == 0 ? OUTRIDER_C64 : OUTRIDER_C128,
                               OUTRIDER_SUM, nullptr, &h),
            &h);
      },
      false);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(results_->rc[r], OUTRIDER_ERR_MISMATCH) << results_->error[r];
    EXPECT_THAT(results_->error[r], HasSubstr("c64"));
    EXPECT_THAT(results_->error[r], HasSubstr("c128"));
  }
}

}  // namespace
}  // namespace outrider::testing
