// The host data plane: copies, reductions and divisions over spans finish inside the call and
// report through their callback; in-place copies are skipped.
#include "agent/engine/dataplane/host_data_plane.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace outrider::agent {
namespace {

template <typename T>
BufferSpan Span(std::vector<T>& v) {
  return BufferSpan::Host(v.data(), v.size() * sizeof(T));
}

TEST(HostDataPlaneTest, CopiesEveryPairAndReportsOnceInsideTheCall) {
  HostDataPlane plane;
  std::vector<int32_t> a{1, 2, 3}, b{4, 5, 6}, x(3), y(3);
  int calls = 0;
  Status result = Internal("not called");
  plane.Copy({{Span(x), Span(a)}, {Span(y), Span(b)}}, [&](const Status& s) {
    ++calls;
    result = s;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(x, a);
  EXPECT_EQ(y, b);
  EXPECT_FALSE(plane.Poll());
}

TEST(HostDataPlaneTest, CopyOntoItselfLeavesTheBytes) {
  HostDataPlane plane;
  std::vector<int32_t> a{7, 8, 9};
  bool done = false;
  plane.Copy(Span(a), Span(a), [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  EXPECT_EQ(a, (std::vector<int32_t>{7, 8, 9}));
}

TEST(HostDataPlaneTest, ReducesIntoEveryDestinationInSourceOrder) {
  HostDataPlane plane;
  std::vector<float> a{1, 2}, b{10, 20}, c{100, 200}, out1(2), out2(2);
  bool done = false;
  plane.Reduce({Span(out1), Span(out2)}, {Span(a), Span(b), Span(c)}, ipc::DType::kF32,
               ipc::ReduceOp::kSum, [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  EXPECT_EQ(out1, (std::vector<float>{111, 222}));
  EXPECT_EQ(out2, out1);
}

TEST(HostDataPlaneTest, ReducesInPlaceIntoTheFirstSource) {
  HostDataPlane plane;
  std::vector<int64_t> a{5, -3}, b{2, 9};
  plane.Reduce({Span(a)}, {Span(a), Span(b)}, ipc::DType::kI64, ipc::ReduceOp::kMax, nullptr);
  EXPECT_EQ(a, (std::vector<int64_t>{5, 9}));
}

TEST(HostDataPlaneTest, ReducesMoreSourcesThanItKeepsInline) {
  HostDataPlane plane;
  std::vector<std::vector<int32_t>> in(20, std::vector<int32_t>{1, 2});
  std::vector<BufferSpan> srcs;
  for (auto& v : in) srcs.push_back(Span(v));
  std::vector<int32_t> out(2);
  plane.Reduce({Span(out)}, srcs, ipc::DType::kI32, ipc::ReduceOp::kSum, nullptr);
  EXPECT_EQ(out, (std::vector<int32_t>{20, 40}));
}

TEST(HostDataPlaneTest, ReducesAndDividesSpansOffTheirElementAlignment) {
  HostDataPlane plane;
  // Floats at byte offset 2, as a transport's receive buffer may hand them over.
  std::vector<uint8_t> raw_a(2 + 3 * 4), raw_b(2 + 3 * 4), raw_out(2 + 3 * 4);
  const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  std::memcpy(raw_a.data() + 2, a, sizeof(a));
  std::memcpy(raw_b.data() + 2, b, sizeof(b));
  BufferSpan sa = BufferSpan::Host(raw_a.data() + 2, 12),
             sb = BufferSpan::Host(raw_b.data() + 2, 12);
  BufferSpan out = BufferSpan::Host(raw_out.data() + 2, 12);
  bool done = false;
  plane.Reduce({out}, {sa, sb}, ipc::DType::kF32, ipc::ReduceOp::kSum,
               [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  plane.Divide(out, ipc::DType::kF32, 11, nullptr);
  float got[3];
  std::memcpy(got, raw_out.data() + 2, sizeof(got));
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[1], 2.0f);
  EXPECT_EQ(got[2], 3.0f);
}

TEST(HostDataPlaneTest, ReducesAndDividesComplexSpansAlignedOnlyForTheirParts) {
  HostDataPlane plane;
  // c128 at 8 bytes past a 16-byte boundary, c64 at 4 past an 8-byte one; and one byte off.
  alignas(16) uint8_t a[8 + 48], b[8 + 48], out[8 + 48];
  const double pa[] = {1, -2, 3, 4, 0.5, 6}, pb[] = {3, 2, -1, 0, 1.5, -6};
  for (size_t off : {size_t{8}, size_t{1}}) {
    std::memcpy(a + off, pa, sizeof(pa));
    std::memcpy(b + off, pb, sizeof(pb));
    BufferSpan sa = BufferSpan::Host(a + off, 48), sb = BufferSpan::Host(b + off, 48),
               so = BufferSpan::Host(out + off, 48);
    plane.Reduce({so}, {sa, sb}, ipc::DType::kC128, ipc::ReduceOp::kSum, nullptr);
    plane.Divide(so, ipc::DType::kC128, 2, nullptr);
    double got[6];
    std::memcpy(got, out + off, sizeof(got));
    EXPECT_EQ(std::vector<double>(got, got + 6), (std::vector<double>{2, 0, 1, 2, 1, 0}))
        << "offset " << off;
  }
  const float fa[] = {1, -2, 3, 4}, fb[] = {3, 2, -1, 0};
  std::memcpy(a + 4, fa, sizeof(fa));
  std::memcpy(b + 4, fb, sizeof(fb));
  plane.Reduce({BufferSpan::Host(out + 4, 16)},
               {BufferSpan::Host(a + 4, 16), BufferSpan::Host(b + 4, 16)}, ipc::DType::kC64,
               ipc::ReduceOp::kAvg, nullptr);
  float got[4];
  std::memcpy(got, out + 4, sizeof(got));
  EXPECT_EQ(std::vector<float>(got, got + 4), (std::vector<float>{2, 0, 1, 2}));
}

TEST(HostDataPlaneTest, ReducesAndDividesEmptySpansOffTheirElementAlignmentToNothing) {
  HostDataPlane plane;
  std::vector<uint8_t> raw(8, 0x5a);
  BufferSpan odd = BufferSpan::Host(raw.data() + 1, 0);
  bool done = false;
  plane.Reduce({odd}, {odd, odd}, ipc::DType::kF32, ipc::ReduceOp::kSum,
               [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  done = false;
  plane.Divide(odd, ipc::DType::kF32, 3, [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  EXPECT_EQ(raw, std::vector<uint8_t>(8, 0x5a));
}

TEST(HostDataPlaneTest, DividesEveryElement) {
  HostDataPlane plane;
  std::vector<double> a{6, 9, -3};
  bool done = false;
  plane.Divide(Span(a), ipc::DType::kF64, 3, [&](const Status& s) { done = s.ok(); });
  EXPECT_TRUE(done);
  EXPECT_EQ(a, (std::vector<double>{2, 3, -1}));
}

TEST(HostDataPlaneTest, ReachesHostMemoryOnly) {
  HostDataPlane plane;
  BufferSpan gpu{MemoryKind::kCudaFd, 0, 0x1000, 64};
  EXPECT_TRUE(plane.Reaches(BufferSpan::Host(nullptr, 0)));
  EXPECT_FALSE(plane.Reaches(gpu));
}

}  // namespace
}  // namespace outrider::agent
