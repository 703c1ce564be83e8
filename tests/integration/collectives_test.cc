// Real agent, real client processes: every collective, dtype and reduce op gives the reference
// result, bitwise identical on every client and across reruns; jobs are isolated; ranks may
// submit different keys in different orders.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <vector>

#include "agent/engine/dataplane/reduce.h"
#include "outrider/outrider.hpp"
#include "tests/support/rank_runner.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr int kMaxClients = 8;
constexpr size_t kMaxBytes = 1 << 16;

struct Results {
  uint8_t out[kMaxClients][kMaxBytes * kMaxClients];
  int rc[kMaxClients];
  char error[kMaxClients][256];
};

size_t ElemSize(outrider_dtype_t t) { return ipc::DTypeSize(static_cast<ipc::DType>(t)); }

// Deterministic per-rank input; floats include negatives, fractions and (for f16/bf16) values
// whose sum rounds; 8- and 16-bit integers span their whole range (sums wrap); bools include
// bytes other than 0 and 1.
void FillInput(uint8_t* p, size_t count, outrider_dtype_t t, int rank, uint32_t seed) {
  std::mt19937 gen(seed * 131 + static_cast<uint32_t>(rank));
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (size_t i = 0; i < count; ++i) {
    float v = dist(gen);
    uint32_t bits = gen();
    switch (t) {
      case OUTRIDER_F32:
        reinterpret_cast<float*>(p)[i] = v;
        break;
      case OUTRIDER_F64:
        reinterpret_cast<double*>(p)[i] = v;
        break;
      case OUTRIDER_F16:
        reinterpret_cast<uint16_t*>(p)[i] = agent::FloatToHalf(v);
        break;
      case OUTRIDER_BF16:
        reinterpret_cast<uint16_t*>(p)[i] = agent::FloatToBFloat16(v);
        break;
      case OUTRIDER_I32:
        reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v * 1000);
        break;
      case OUTRIDER_I64:
        reinterpret_cast<int64_t*>(p)[i] = static_cast<int64_t>(v * 1e6);
        break;
      case OUTRIDER_U8:
        p[i] = static_cast<uint8_t>(bits);
        break;
      case OUTRIDER_I8:
        reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(bits);
        break;
      case OUTRIDER_I16:
        reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(bits);
        break;
      case OUTRIDER_BOOL:
        p[i] = static_cast<uint8_t>(bits % 4 == 0 ? bits >> 8 : bits >> 8 & 1);
        break;
      case OUTRIDER_C64:
        reinterpret_cast<float*>(p)[2 * i] = v;
        reinterpret_cast<float*>(p)[2 * i + 1] = dist(gen);
        break;
      case OUTRIDER_C128:
        reinterpret_cast<double*>(p)[2 * i] = v;
        reinterpret_cast<double*>(p)[2 * i + 1] = dist(gen);
        break;
    }
  }
}

class CollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent_ = StartAgent();
    ASSERT_NE(agent_, nullptr);
  }
  // Runs `n` client processes, each calling body(client, rank, results) and reporting its rc.
  void RunClients(int n, const std::string& job,
                  const std::function<int(outrider_client_t*, int)>& body) {
    Ranks ranks(n, [&](int r) {
      outrider_client_t* c = ConnectOrExit(agent_->socket_path(), job, r, n);
      int rc = body(c, r);
      if (rc != OUTRIDER_OK) CopyText(results_->error[r], 256, outrider_last_error(c));
      results_->rc[r] = rc;
      outrider_disconnect(c);
      return 0;
    });
    ranks.ExpectAllExitZero();
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(results_->rc[r], OUTRIDER_OK) << "rank " << r << ": " << results_->error[r];
  }

  std::unique_ptr<harness::AgentProcess> agent_;
  SharedValue<Results> results_;
};

TEST_F(CollectivesTest, AllreduceMatchesReferenceForEveryDtypeAndOpOnEveryClient) {
  const int n = 3;
  const size_t count = 1000;
  for (int dt = OUTRIDER_F32; dt <= OUTRIDER_C128; ++dt) {
    for (int op = OUTRIDER_SUM; op <= OUTRIDER_PROD; ++op) {
      if (!agent::IsSupported(static_cast<ipc::DType>(dt), static_cast<ipc::ReduceOp>(op)))
        continue;
      auto t = static_cast<outrider_dtype_t>(dt);
      RunClients(n, "allreduce-" + std::to_string(dt) + "-" + std::to_string(op),
                 [&](outrider_client_t* c, int r) {
                   size_t bytes = count * ElemSize(t);
                   auto* buf = static_cast<uint8_t*>(outrider_alloc(c, bytes));
                   FillInput(buf, count, t, r, 7);
                   outrider_op_t h;
                   int rc = outrider_allreduce(c, buf, buf, count, t,
                                               static_cast<outrider_redop_t>(op), nullptr, &h);
                   if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
                   std::memcpy(results_->out[r], buf, bytes);
                   return rc;
                 });
      // Reference: the same inputs reduced in rank order.
      size_t bytes = count * ElemSize(t);
      std::vector<std::vector<uint8_t>> in(n, std::vector<uint8_t>(bytes));
      std::vector<const void*> ins;
      for (int r = 0; r < n; ++r) {
        FillInput(in[r].data(), count, t, r, 7);
        ins.push_back(in[r].data());
      }
      std::vector<uint8_t> want(bytes);
      void* outs[1] = {want.data()};
      agent::ReduceInto(static_cast<ipc::DType>(dt), static_cast<ipc::ReduceOp>(op), ins.data(), n,
                        outs, 1, count);
      for (int r = 0; r < n; ++r) {
        EXPECT_EQ(std::memcmp(results_->out[r], want.data(), bytes), 0)
            << "dtype " << dt << " op " << op << " rank " << r;
      }
    }
  }
}

TEST_F(CollectivesTest, AllreduceIsBitwiseIdenticalAcrossReruns) {
  const int n = 4;
  const size_t count = 4099;
  std::vector<uint8_t> first;
  for (int run = 0; run < 2; ++run) {
    RunClients(n, "rerun-" + std::to_string(run), [&](outrider_client_t* c, int r) {
      auto* buf = static_cast<uint8_t*>(outrider_alloc(c, count * 2));
      FillInput(buf, count, OUTRIDER_BF16, r, 3);
      outrider_op_t h;
      int rc = outrider_allreduce(c, buf, buf, count, OUTRIDER_BF16, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
      std::memcpy(results_->out[r], buf, count * 2);
      return rc;
    });
    for (int r = 1; r < n; ++r)
      EXPECT_EQ(std::memcmp(results_->out[0], results_->out[r], count * 2), 0);
    if (run == 0)
      first.assign(results_->out[0], results_->out[0] + count * 2);
    else
      EXPECT_EQ(std::memcmp(first.data(), results_->out[0], count * 2), 0);
  }
}

TEST_F(CollectivesTest, BroadcastCopiesRootBufferToEveryClient) {
  const int n = 4, root = 2;
  const size_t count = 5000;
  RunClients(n, "bcast", [&](outrider_client_t* c, int r) {
    auto* buf = static_cast<int32_t*>(outrider_alloc(c, count * 4));
    for (size_t i = 0; i < count; ++i) buf[i] = r == root ? static_cast<int32_t>(i * 3) : -1;
    outrider_op_t h;
    int rc = outrider_broadcast(c, buf, count, OUTRIDER_I32, root, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    std::memcpy(results_->out[r], buf, count * 4);
    return rc;
  });
  for (int r = 0; r < n; ++r) {
    auto* got = reinterpret_cast<int32_t*>(results_->out[r]);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(got[i], static_cast<int32_t>(i * 3)) << "rank " << r;
  }
}

TEST_F(CollectivesTest, AllgatherConcatenatesInRankOrderAlsoInPlace) {
  const int n = 3;
  const size_t count = 777;
  for (bool in_place : {false, true}) {
    RunClients(n, in_place ? "ag-inplace" : "ag", [&](outrider_client_t* c, int r) {
      auto* recv = static_cast<int64_t*>(outrider_alloc(c, count * 8 * n));
      int64_t* send =
          in_place ? recv + count * r : static_cast<int64_t*>(outrider_alloc(c, count * 8));
      for (size_t i = 0; i < count; ++i) send[i] = r * 100000 + static_cast<int64_t>(i);
      outrider_op_t h;
      int rc = outrider_allgather(c, send, recv, count, OUTRIDER_I64, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
      std::memcpy(results_->out[r], recv, count * 8 * n);
      return rc;
    });
    for (int r = 0; r < n; ++r) {
      auto* got = reinterpret_cast<int64_t*>(results_->out[r]);
      for (int src = 0; src < n; ++src) {
        for (size_t i = 0; i < count; ++i)
          ASSERT_EQ(got[src * count + i], src * 100000 + static_cast<int64_t>(i));
      }
    }
  }
}

TEST_F(CollectivesTest, ReduceScatterGivesEachRankItsReducedBlock) {
  const int n = 4;
  const size_t count = 1001;  // per rank
  RunClients(n, "rs", [&](outrider_client_t* c, int r) {
    auto* send = static_cast<double*>(outrider_alloc(c, count * 8 * n));
    auto* recv = static_cast<double*>(outrider_alloc(c, count * 8));
    for (size_t i = 0; i < count * n; ++i) send[i] = static_cast<double>(i) + r;
    outrider_op_t h;
    int rc = outrider_reduce_scatter(c, send, recv, count, OUTRIDER_F64, OUTRIDER_MAX, nullptr, &h);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
    std::memcpy(results_->out[r], recv, count * 8);
    return rc;
  });
  for (int r = 0; r < n; ++r) {
    auto* got = reinterpret_cast<double*>(results_->out[r]);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(got[i], static_cast<double>(r * count + i) + (n - 1));
  }
}

TEST_F(CollectivesTest, BarrierCompletesOnEveryClient) {
  RunClients(5, "barrier", [&](outrider_client_t* c, int r) {
    outrider_op_t h;
    int rc = outrider_barrier(c, nullptr, &h);
    return rc == OUTRIDER_OK ? outrider_wait(c, h, 10000) : rc;
  });
}

TEST_F(CollectivesTest, RanksMaySubmitDifferentKeysInDifferentOrders) {
  const int n = 2;
  const size_t count = 64;
  RunClients(n, "order", [&](outrider_client_t* c, int r) {
    auto* a = static_cast<float*>(outrider_alloc(c, count * 4));
    auto* b = static_cast<float*>(outrider_alloc(c, count * 4));
    for (size_t i = 0; i < count; ++i) {
      a[i] = 1.0f + r;
      b[i] = 10.0f * (1 + r);
    }
    outrider_op_options_t oa, ob;
    outrider_op_options_init(&oa);
    outrider_op_options_init(&ob);
    oa.key = outrider_key("layer.a");
    ob.key = outrider_key("layer.b");
    outrider_op_t ha, hb;
    int rc;
    if (r == 0) {
      rc = outrider_allreduce(c, a, a, count, OUTRIDER_F32, OUTRIDER_SUM, &oa, &ha);
      if (rc == OUTRIDER_OK)
        rc = outrider_allreduce(c, b, b, count, OUTRIDER_F32, OUTRIDER_SUM, &ob, &hb);
    } else {
      rc = outrider_allreduce(c, b, b, count, OUTRIDER_F32, OUTRIDER_SUM, &ob, &hb);
      if (rc == OUTRIDER_OK)
        rc = outrider_allreduce(c, a, a, count, OUTRIDER_F32, OUTRIDER_SUM, &oa, &ha);
    }
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, ha, 10000);
    if (rc == OUTRIDER_OK) rc = outrider_wait(c, hb, 10000);
    std::memcpy(results_->out[r], a, count * 4);
    std::memcpy(results_->out[r] + count * 4, b, count * 4);
    return rc;
  });
  for (int r = 0; r < n; ++r) {
    auto* got = reinterpret_cast<float*>(results_->out[r]);
    EXPECT_EQ(got[0], 3.0f);
    EXPECT_EQ(got[count], 30.0f);
  }
}

TEST_F(CollectivesTest, JobsWithTheSameKeysAreIsolated) {
  const int n = 2;
  const size_t count = 16;
  SharedValue<Results> extra;
  Ranks ranks;
  for (int job = 0; job < 2; ++job) {
    ranks.Add(n, [&, job](int r) {
      outrider_client_t* c =
          ConnectOrExit(agent_->socket_path(), "job" + std::to_string(job), r, n);
      auto* buf = static_cast<int32_t*>(outrider_alloc(c, count * 4));
      for (size_t i = 0; i < count; ++i) buf[i] = (job + 1) * 1000 + r;
      outrider_op_t h;
      int rc = outrider_allreduce(c, buf, buf, count, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &h);
      if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 10000);
      extra->rc[job * n + r] = rc;
      std::memcpy(extra->out[job * n + r], buf, count * 4);
      outrider_disconnect(c);
      return 0;
    });
  }
  ranks.ExpectAllExitZero();
  for (int job = 0; job < 2; ++job) {
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(extra->rc[job * n + r], OUTRIDER_OK);
      EXPECT_EQ(reinterpret_cast<int32_t*>(extra->out[job * n + r])[0], 2 * (job + 1) * 1000 + 1);
    }
  }
}

TEST_F(CollectivesTest, ManyOpsInFlightCompleteInAnyWaitOrder) {
  const int n = 2, ops = 200;
  RunClients(n, "inflight", [&](outrider_client_t* c, int r) {
    auto* buf = static_cast<int32_t*>(outrider_alloc(c, ops * 4));
    std::vector<outrider_op_t> hs(ops);
    for (int i = 0; i < ops; ++i) {
      buf[i] = i + r;
      int rc =
          outrider_allreduce(c, buf + i, buf + i, 1, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &hs[i]);
      if (rc != OUTRIDER_OK) return rc;
    }
    for (int i = ops; i-- > 0;) {
      int rc = outrider_wait(c, hs[i], 10000);
      if (rc != OUTRIDER_OK) return rc;
      if (buf[i] != 2 * i + 1) return 99;
    }
    return 0;
  });
}

TEST_F(CollectivesTest, WaitEventReturnsOnCompletionsAndOnTheWakeFdAndTimesOutOtherwise) {
  const int n = 2;
  RunClients(n, "wait-event", [&](outrider_client_t* c, int r) {
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd < 0) return 90;
    // Nothing in flight, nothing written: the wait times out.
    if (outrider_wait_event(c, efd, 0) != OUTRIDER_ERR_DEADLINE_EXCEEDED) return 91;
    // The wake fd wakes it, and is left for the caller to read.
    uint64_t one = 1;
    if (write(efd, &one, sizeof(one)) != sizeof(one)) return 92;
    if (outrider_wait_event(c, efd, 10000) != OUTRIDER_OK) return 93;
    uint64_t got = 0;
    if (read(efd, &got, sizeof(got)) != sizeof(got) || got != 1) return 94;
    // Ops in flight: every wait ends with a completion, none at the timeout.
    auto* buf = static_cast<int32_t*>(outrider_alloc(c, 64 * 4));
    std::vector<outrider_op_t> hs(64);
    for (int i = 0; i < 64; ++i) {
      buf[i] = i + r;
      int rc =
          outrider_allreduce(c, buf + i, buf + i, 1, OUTRIDER_I32, OUTRIDER_SUM, nullptr, &hs[i]);
      if (rc != OUTRIDER_OK) return rc;
    }
    size_t left = hs.size();
    std::vector<bool> done(hs.size(), false);
    while (left > 0) {
      for (size_t i = 0; i < hs.size(); ++i) {
        if (done[i]) continue;
        int d = 0;
        int rc = outrider_test_result(c, hs[i], &d, nullptr);
        if (rc != OUTRIDER_OK) return rc;
        if (d) {
          done[i] = true;
          --left;
          if (buf[i] != 2 * static_cast<int32_t>(i) + 1) return 95;
        }
      }
      if (left > 0 && outrider_wait_event(c, efd, 10000) != OUTRIDER_OK) return 96;
    }
    close(efd);
    return 0;
  });
}

TEST_F(CollectivesTest, CppWrapperAllreducesAndReportsErrorsAsExceptions) {
  const int n = 2;
  RunClients(n, "cpp", [&](outrider_client_t*, int r) {
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    std::string socket = agent_->socket_path();
    o.socket_path = socket.c_str();
    o.job_id = "cpp-wrapper";
    o.rank = o.local_rank = r;
    o.world_size = o.local_world_size = n;
    try {
      outrider::Client client(&o);
      auto buf = client.Alloc<double>(10);
      for (int i = 0; i < 10; ++i) buf[i] = r + 1;
      client.Allreduce(buf.get(), buf.get(), 10, OUTRIDER_SUM, "w").Wait(10000);
      if (buf[9] != 3.0) return 98;
      double heap = 0;
      try {
        client.Allreduce(&heap, &heap, 1, OUTRIDER_SUM);
        return 97;  // must have thrown
      } catch (const outrider::Error& e) {
        if (e.code() != OUTRIDER_ERR_INVALID_ARGUMENT) return 96;
      }
    } catch (const outrider::Error& e) {
      return e.code();
    }
    return 0;
  });
}

TEST_F(CollectivesTest, AlltoallvDeliversPerRankBlocksAndRejectsDisagreeingCounts) {
  const int n = 3;
  // Rank i sends (i + j + 1) elements to rank j, each valued 1000 * i + j.
  RunClients(n, "a2av", [&](outrider_client_t* c, int r) {
    int64_t sc[n], rc[n];
    int64_t st = 0, rt = 0;
    for (int j = 0; j < n; ++j) {
      sc[j] = r + j + 1;
      rc[j] = j + r + 1;
      st += sc[j];
      rt += rc[j];
    }
    auto* send = static_cast<int32_t*>(outrider_alloc(c, st * 4));
    auto* recv = static_cast<int32_t*>(outrider_alloc(c, rt * 4));
    int64_t k = 0;
    for (int j = 0; j < n; ++j) {
      for (int64_t e = 0; e < sc[j]; ++e) send[k++] = 1000 * r + j;
    }
    outrider_op_t h;
    int e = outrider_alltoallv(c, send, sc, recv, rc, OUTRIDER_I32, nullptr, &h);
    if (e == OUTRIDER_OK) e = outrider_wait(c, h, 10000);
    if (e != OUTRIDER_OK) return e;
    k = 0;
    for (int i = 0; i < n; ++i) {
      for (int64_t x = 0; x < rc[i]; ++x) {
        if (recv[k++] != 1000 * i + r) return 99;
      }
    }
    // Now rank 2 expects one element too many from rank 0: every rank fails, none hangs.
    if (r == 2) rc[0] += 1;
    int64_t rt2 = rt + (r == 2 ? 1 : 0);
    auto* recv2 = static_cast<int32_t*>(outrider_alloc(c, rt2 * 4));
    e = outrider_alltoallv(c, send, sc, recv2, rc, OUTRIDER_I32, nullptr, &h);
    if (e == OUTRIDER_OK) e = outrider_wait(c, h, 10000);
    return e == OUTRIDER_ERR_MISMATCH ? 0 : 100 + e;
  });
}

}  // namespace
}  // namespace outrider::testing
