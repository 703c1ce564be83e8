// Point-to-point benchmark through the node agents (p2p_bench.h).
#include "tools/bench/p2p_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace outrider::bench {
namespace {

// Messages per timed stream: about 256 MiB, 8 to 64 of them.
int StreamLength(uint64_t bytes) {
  return static_cast<int>(std::clamp<uint64_t>((uint64_t{256} << 20) / bytes, 8, 64));
}

}  // namespace

int RunPointToPoint(const CommonOptions& common, const CollectiveOptions& o) {
  outrider_client_t* c = ConnectLaunched(common);
  if (c == nullptr) return 1;
  const int rank = outrider_rank(c), world = outrider_world_size(c);
  if (world < 2) {
    std::fprintf(stderr, "outrider-bench p2p: needs 2 ranks, got %d\n", world);
    return 2;
  }
  const char* rate_env = std::getenv("OUTRIDER_RATE_GBIT");
  const double rate = rate_env != nullptr ? std::atof(rate_env) : 0;
  void* buf = nullptr;
  Must(c, outrider_region_create(c, std::max<uint64_t>(o.max_bytes, 8), &buf), "region_create");
  auto* bytes_buf = static_cast<uint8_t*>(buf);
  const int peer = 1 - rank;
  auto send = [&](uint64_t n, outrider_op_t* h) {
    return outrider_send(c, buf, n, OUTRIDER_U8, peer, 0, nullptr, h);
  };
  auto recv = [&](uint64_t n, outrider_op_t* h) {
    return outrider_recv(c, buf, n, OUTRIDER_U8, peer, 0, nullptr, h);
  };
  auto wait = [&](outrider_op_t h) { Must(c, outrider_wait(c, h, 120000), "wait"); };
  auto barrier = [&] {
    outrider_op_t h;
    Must(c, outrider_barrier(c, nullptr, &h), "barrier");
    wait(h);
  };
  nlohmann::json rows = nlohmann::json::array();
  if (rank == 0) {
    std::printf(
        "# outrider-bench p2p: ranks 0 and 1 of %d; up to %llu bytes ping-pong (one way = "
        "half the round trip), above a stream one way\n",
        world, static_cast<unsigned long long>(kPingPongMaxBytes));
    std::printf("# %12s %10s %12s %12s %6s\n", "size", "metric", "time(us)", "algbw(GB/s)",
                "check");
  }
  int wrong_total = 0;
  for (uint64_t bytes = std::max<uint64_t>(o.min_bytes, 1); bytes <= o.max_bytes;
       bytes *= static_cast<uint64_t>(std::max(2, o.factor))) {
    bool ping = bytes <= kPingPongMaxBytes;
    int iters = o.iters > 0 ? o.iters : ping ? 1000 : StreamLength(bytes);
    std::vector<double> times;
    bool ok = true;
    if (rank < 2) {
      for (int round = -std::max(1, o.warmup); round < (ping ? iters : 3); ++round) {
        outrider_op_t h;
        // Rank 0's first byte says which round it is: the receiver checks it.
        uint8_t mark = static_cast<uint8_t>(round + 7);
        double t0 = NowUs();
        if (ping) {
          if (rank == 0) {
            bytes_buf[0] = mark;
            Must(c, send(bytes, &h), "send");
            wait(h);
            Must(c, recv(bytes, &h), "recv");
            wait(h);
            ok = ok && bytes_buf[0] == static_cast<uint8_t>(mark + 1);
          } else {
            Must(c, recv(bytes, &h), "recv");
            wait(h);
            ok = ok && bytes_buf[0] == mark;
            bytes_buf[0] = static_cast<uint8_t>(mark + 1);
            Must(c, send(bytes, &h), "send");
            wait(h);
          }
          if (round >= 0) times.push_back((NowUs() - t0) / 2);
          continue;
        }
        // A stream: every message posted at once, then a one-byte answer when all are in.
        std::vector<outrider_op_t> ops(static_cast<size_t>(iters));
        bytes_buf[0] = mark;
        for (auto& op : ops) Must(c, rank == 0 ? send(bytes, &op) : recv(bytes, &op), "post");
        for (outrider_op_t op : ops) wait(op);
        ok = ok && bytes_buf[0] == mark;
        if (rank == 0) {
          Must(c, outrider_recv(c, buf, 1, OUTRIDER_U8, peer, 1, nullptr, &h), "recv");
        } else {
          Must(c, outrider_send(c, buf, 1, OUTRIDER_U8, peer, 1, nullptr, &h), "send");
        }
        wait(h);
        if (round >= 0) times.push_back((NowUs() - t0) / iters);
      }
    }
    barrier();
    wrong_total += !ok;
    if (rank == 0) {
      double t = Median(times);
      double algbw = static_cast<double>(bytes) / (t * 1e3);
      std::printf("  %12llu %10s %12.2f %12.3f %6s\n", static_cast<unsigned long long>(bytes),
                  ping ? "latency" : "bandwidth", t, algbw, ok ? "ok" : "WRONG");
      nlohmann::json row = {{"system", "outrider"}, {"op", "p2p"},
                            {"algo", nullptr},      {"metric", ping ? "latency" : "bandwidth"},
                            {"bytes", bytes},       {"count", bytes},
                            {"dtype", "u8"},        {"time_us", t},
                            {"algbw_gbps", algbw},  {"busbw_gbps", algbw},
                            {"ranks", world},       {"iters", iters},
                            {"check", ok}};
      row["rate_gbit"] = rate > 0 ? nlohmann::json(rate) : nlohmann::json(nullptr);
      rows.push_back(row);
    }
  }
  outrider_disconnect(c);
  if (rank == 0 && !WriteJsonOrSay(common, rows)) return 1;
  if (wrong_total) {
    std::fprintf(stderr, "outrider-bench p2p: rank %d saw wrong bytes\n", rank);
    return 1;
  }
  return 0;
}

}  // namespace outrider::bench
