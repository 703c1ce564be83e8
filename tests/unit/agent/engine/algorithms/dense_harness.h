// Helpers of the dense collective algorithm tests: in-process node groups joined by a FakeNetwork,
// ranks whose input values are small multiples of 0.5 (sums are exact whatever order an algorithm
// adds in), references computed here, and checks of how every node finished.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/agent/engine/node_cluster.h"

namespace outrider::agent::dense_test {

using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;

// Large ops take the ring: small thresholds give several chunks per ring segment, and the counts
// below split unevenly into segments and chunks.
inline const EngineOptions kSmall{.direct_max_bytes = 1024, .chunk_bytes = 4096};
inline constexpr uint64_t kSmallCount = 100;  // 400 bytes: direct
inline constexpr uint64_t kLargeCount =
    10007;  // 40028 bytes: 3 ring segments of ~13 KiB, 4 chunks each

// One rank's op and its memory.
struct Rank {
  std::vector<uint8_t> send, recv;
  ValidatedOp op;
};

template <typename T>
T Value(int rank, uint64_t i);
template <>
inline float Value<float>(int rank, uint64_t i) {
  return static_cast<float>(static_cast<int>((rank * 37 + i * 11) % 61) - 30) * 0.5f;
}
template <>
inline int32_t Value<int32_t>(int rank, uint64_t i) {
  return static_cast<int32_t>((rank * 7919 + i * 104729) % 20001) - 10000;
}
template <typename T>
constexpr DType kDType = std::is_same_v<T, float> ? DType::kF32 : DType::kI32;

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Bitwise comparison that names the first differing byte.
inline void ExpectBitwiseEqual(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                               const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  auto diff = std::mismatch(got.begin(), got.end(), want.begin());
  EXPECT_TRUE(diff.first == got.end())
      << what << ": first difference at byte " << (diff.first - got.begin());
}

inline void StartAll(NodeCluster& c, int local, std::vector<Rank>& ranks, uint64_t key = 1,
                     uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    std::vector<const ValidatedOp*> ops;
    for (int l = 0; l < local; ++l) ops.push_back(&ranks[static_cast<size_t>(n * local + l)].op);
    c.group(n).Start(key, seq, ops);
  }
}

inline void ExpectDoneEverywhere(const NodeCluster& c, std::string_view algo, uint64_t key = 1,
                                 uint64_t seq = 0) {
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeDone* d = c.done(n, key, seq);
    ASSERT_NE(d, nullptr) << "node " << n << " never finished";
    EXPECT_TRUE(d->status.ok()) << "node " << n << ": " << d->status.ToString();
    EXPECT_EQ(d->algo, algo) << "node " << n;
    EXPECT_EQ(d->calls, 1) << "node " << n;
  }
}

// Every node finished (key, seq) with `code`, its message containing each of `parts`.
inline void ExpectFailedEverywhere(const NodeCluster& c, Code code,
                                   const std::vector<std::string>& parts, uint64_t key = 1) {
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeDone* d = c.done(n, key, 0);
    ASSERT_NE(d, nullptr) << "node " << n << " never finished";
    EXPECT_EQ(d->status.code(), code) << "node " << n << ": " << d->status.ToString();
    for (const std::string& p : parts)
      EXPECT_NE(d->status.message().find(p), std::string::npos)
          << "node " << n << ": " << d->status.message();
    EXPECT_EQ(d->calls, 1) << "node " << n;
  }
}

// Delivers messages until the next one queued for node 0 is a ring chunk; hands node 0 that
// chunk's header moved by `shift` bytes with a payload of `len` bytes instead. Returns how node 0
// finished instance (1, 0), or nullptr while it has not.
inline const NodeDone* ForgeRingChunkToNode0(NodeCluster& c, uint64_t shift, uint64_t len) {
  for (;;) {
    std::vector<FakeNetwork::Envelope> queued = c.net().InFlight();
    EXPECT_FALSE(queued.empty()) << "no ring chunk for node 0";
    if (queued.empty()) return nullptr;
    PeerHeader h;
    std::memcpy(&h, queued.front().header.data(), sizeof(h));
    if (queued.front().to == 0 && h.type == static_cast<uint16_t>(PeerMsg::kRing)) {
      h.offset += shift;
      std::vector<uint8_t> payload(len, 0x3c);
      c.group(0).OnMessage(h, payload.data(), payload.size());
      return c.done(0, 1, 0);
    }
    c.net().Step();
  }
}

inline void ExpectRingChunkRefused(const NodeDone* d, const std::string& why) {
  ASSERT_NE(d, nullptr) << "node 0 took the chunk";
  EXPECT_EQ(d->status.code(), Code::kProtocol) << d->status.ToString();
  EXPECT_NE(d->status.message().find(why), std::string::npos) << d->status.ToString();
}

// Rank r's op of instance key 1 (op id r + 1); memory is named by the caller.
inline ValidatedOp Op(int r, OpKind kind, DType dtype, uint64_t count) {
  ValidatedOp o;
  o.op_id = static_cast<uint64_t>(r + 1);
  o.key = 1;
  o.kind = kind;
  o.dtype = dtype;
  o.count = count;
  return o;
}

// Every rank's allreduce of `count` elements of T.
template <typename T>
std::vector<Rank> Allreduce(int world, uint64_t count, ReduceOp op) {
  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    Rank& x = ranks[static_cast<size_t>(r)];
    std::vector<T> v(count);
    for (uint64_t i = 0; i < count; ++i) v[i] = Value<T>(r, i);
    x.send = Bytes(v);
    x.recv.assign(x.send.size(), 0xEE);
    x.op = Op(r, OpKind::kAllreduce, kDType<T>, count);
    x.op.reduce_op = op;
    x.op.send = BufferSpan::Host(x.send.data(), x.send.size());
    x.op.recv = BufferSpan::Host(x.recv.data(), x.recv.size());
  }
  return ranks;
}

template <typename T>
std::vector<uint8_t> ReferenceAllreduce(int world, uint64_t count, ReduceOp op) {
  std::vector<T> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    T acc = Value<T>(0, i);
    for (int r = 1; r < world; ++r)
      acc = op == ReduceOp::kMax ? std::max(acc, Value<T>(r, i)) : acc + Value<T>(r, i);
    if (op == ReduceOp::kAvg) acc /= static_cast<T>(world);
    out[i] = acc;
  }
  return Bytes(out);
}

}  // namespace outrider::agent::dense_test
