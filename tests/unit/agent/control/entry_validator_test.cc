// ValidateEntry against hand-built submission entries: every rejection path (each names the
// offending field), the in-place layouts that must be accepted, and the resolved pointers.
#include "agent/control/entry_validator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace outrider::agent {
namespace {

using ipc::BufferRef;
using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;
using ipc::SubmitEntry;

constexpr uint32_t kRegion = 1;
constexpr uint32_t kOtherRegion = 2;
constexpr uint32_t kHugeRegion = 3;  // claims more bytes than it has: pointers are never touched
constexpr uint64_t kRegionBytes = 4096;
constexpr int kLocalRank = 1;
constexpr int kLocalSize = 4;
constexpr uint64_t kCount = 16;  // f32 elements
constexpr uint64_t kBytes = kCount * 4;

class EntryValidatorTest : public ::testing::Test {
 protected:
  EntryValidatorTest() : buffer_(kRegionBytes), other_(kRegionBytes) {
    regions_[kRegion] = Region{kRegion, BufferSpan::Host(buffer_.data(), kRegionBytes), nullptr};
    regions_[kOtherRegion] =
        Region{kOtherRegion, BufferSpan::Host(other_.data(), kRegionBytes), nullptr};
    regions_[kHugeRegion] =
        Region{kHugeRegion, BufferSpan::Host(buffer_.data(), uint64_t{1} << 42), nullptr};
  }

  Result<ValidatedOp> Validate(const SubmitEntry& e) {
    return ValidateEntry(e, kLocalRank, kLocalSize, [this](uint32_t id) -> const Region* {
      auto it = regions_.find(id);
      return it == regions_.end() ? nullptr : &it->second;
    });
  }

  // Expects InvalidArgument whose message mentions `field`.
  void ExpectRejected(const SubmitEntry& e, const std::string& field) {
    auto r = Validate(e);
    ASSERT_FALSE(r.ok()) << "accepted an entry that should name " << field;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find(field), std::string::npos) << r.status().ToString();
  }

  std::vector<uint8_t> buffer_;
  std::vector<uint8_t> other_;
  std::map<uint32_t, Region> regions_;
};

BufferRef Buf(uint64_t offset, uint64_t length, uint32_t region = kRegion) {
  return BufferRef{region, 0, offset, length};
}

SubmitEntry Entry(OpKind kind, uint64_t count, BufferRef send, BufferRef recv) {
  SubmitEntry e{};
  e.op_id = 7;
  e.key = 0xabcdef;
  e.kind = static_cast<uint32_t>(kind);
  e.dtype = static_cast<uint32_t>(DType::kF32);
  e.reduce_op = static_cast<uint32_t>(ReduceOp::kSum);
  e.root = 0;
  e.priority = -3;
  e.count = count;
  e.send = send;
  e.recv = recv;
  return e;
}

// A valid out-of-place allreduce: send at 0, recv at 1024.
SubmitEntry Allreduce() {
  return Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(1024, kBytes));
}
SubmitEntry Barrier() { return Entry(OpKind::kBarrier, 0, BufferRef{}, BufferRef{}); }
SubmitEntry Broadcast(int32_t root) {
  SubmitEntry e = Entry(OpKind::kBroadcast, kCount, Buf(0, kBytes), Buf(0, kBytes));
  e.root = root;
  return e;
}
SubmitEntry Allgather(uint64_t send_off, uint64_t recv_off) {
  return Entry(OpKind::kAllgather, kCount, Buf(send_off, kBytes),
               Buf(recv_off, kBytes * kLocalSize));
}
SubmitEntry ReduceScatter(uint64_t send_off, uint64_t recv_off) {
  return Entry(OpKind::kReduceScatter, kCount, Buf(send_off, kBytes * kLocalSize),
               Buf(recv_off, kBytes));
}

TEST_F(EntryValidatorTest, AcceptsOutOfPlaceAllreduce) {
  auto r = Validate(Allreduce());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// ---- Header fields ----

TEST_F(EntryValidatorTest, RejectsUnknownFlags) {
  SubmitEntry e = Allreduce();
  e.flags = 0x10;
  ExpectRejected(e, "unknown flags");
}

TEST_F(EntryValidatorTest, AcceptsAFencedOpNamingASlotAndRejectsASlotOutOfRange) {
  SubmitEntry e = Allreduce();
  e.flags = ipc::kSubmitFenced;
  e.fence = ipc::kFenceSlots - 1;
  auto r = Validate(e);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  e.fence = ipc::kFenceSlots;
  ExpectRejected(e, "fence slot 1024 is out of range");
}

TEST_F(EntryValidatorTest, RejectsUnknownOpKind) {
  SubmitEntry e = Allreduce();
  e.kind = ipc::kNumOpKinds;
  ExpectRejected(e, "kind");
}

TEST_F(EntryValidatorTest, RejectsUnknownDtype) {
  SubmitEntry e = Allreduce();
  e.dtype = ipc::kNumDTypes;
  ExpectRejected(e, "dtype");
}

TEST_F(EntryValidatorTest, RejectsUnknownReduceOp) {
  SubmitEntry e = Allreduce();
  e.reduce_op = ipc::kNumReduceOps;
  ExpectRejected(e, "reduce op");
}

TEST_F(EntryValidatorTest, RejectsUnknownReduceOpForReduceScatter) {
  SubmitEntry e = ReduceScatter(0, 2048);
  e.reduce_op = 0xffffffff;
  ExpectRejected(e, "reduce op");
}

// ---- Dtypes ----

// `e` as `dtype` of `elem` bytes, its count scaled so that its buffers keep their lengths.
SubmitEntry As(SubmitEntry e, DType dtype, uint64_t elem, ReduceOp op = ReduceOp::kSum) {
  e.dtype = static_cast<uint32_t>(dtype);
  e.reduce_op = static_cast<uint32_t>(op);
  e.count = e.count * 4 / elem;
  return e;
}

constexpr ReduceOp kEveryReduceOp[] = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMin,
                                       ReduceOp::kMax, ReduceOp::kProd};

TEST_F(EntryValidatorTest, AcceptsSmallIntegersForEveryReduceOp) {
  for (auto [dtype, elem] : {std::pair{DType::kU8, 1}, {DType::kI8, 1}, {DType::kI16, 2}}) {
    for (ReduceOp op : kEveryReduceOp) {
      for (const SubmitEntry& e : {Allreduce(), ReduceScatter(0, 2048)}) {
        auto r = Validate(As(e, dtype, elem, op));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ(r->dtype, dtype);
        EXPECT_EQ(r->count, kBytes / elem);
      }
    }
  }
}

TEST_F(EntryValidatorTest, AcceptsBoolForEveryReduceOpButAvg) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProd}) {
    auto r = Validate(As(Allreduce(), DType::kBool, 1, op));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  }
  ExpectRejected(
      As(Allreduce(), DType::kBool, 1, ReduceOp::kAvg),
      "reduce op avg is not supported for bool: the average of booleans is not a boolean");
  ExpectRejected(As(ReduceScatter(0, 2048), DType::kBool, 1, ReduceOp::kAvg),
                 "reduce op avg is not supported for bool");
}

TEST_F(EntryValidatorTest, AcceptsComplexSumAndAvgOnly) {
  for (auto [dtype, elem, name] : {std::tuple{DType::kC64, 8, "c64"}, {DType::kC128, 16, "c128"}}) {
    for (const SubmitEntry& e : {Allreduce(), ReduceScatter(0, 2048)}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
        auto r = Validate(As(e, dtype, elem, op));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
      ExpectRejected(As(e, dtype, elem, ReduceOp::kMin),
                     std::string("reduce op min is not supported for ") + name +
                         ": complex numbers have no order");
      ExpectRejected(As(e, dtype, elem, ReduceOp::kMax),
                     std::string("reduce op max is not supported for ") + name);
      ExpectRejected(As(e, dtype, elem, ReduceOp::kProd),
                     std::string("reduce op prod is not supported for ") + name);
    }
  }
}

TEST_F(EntryValidatorTest, SizesBuffersByEachDtypesElement) {
  auto ag = Validate(As(Allgather(0, 1024), DType::kC128, 16));
  ASSERT_TRUE(ag.ok()) << ag.status().ToString();
  EXPECT_EQ(ag->count, kBytes / 16);
  EXPECT_EQ(ag->recv.length, kBytes * kLocalSize);
  auto bc = Validate(As(Broadcast(0), DType::kBool, 1));
  ASSERT_TRUE(bc.ok()) << bc.status().ToString();
  EXPECT_EQ(bc->count, kBytes);
  SubmitEntry e = As(Allreduce(), DType::kC64, 8);
  e.count += 1;
  ExpectRejected(e, "send buffer is 64 bytes but the op needs 72");
  e = As(Allreduce(), DType::kI16, 2);
  e.count += 1;
  ExpectRejected(e, "send buffer is 64 bytes but the op needs 66");
}

// ---- Barrier ----

TEST_F(EntryValidatorTest, AcceptsBarrier) {
  auto r = Validate(Barrier());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->kind, OpKind::kBarrier);
  EXPECT_EQ(r->send, BufferSpan{});
  EXPECT_EQ(r->recv, BufferSpan{});
}

TEST_F(EntryValidatorTest, RejectsBarrierNamingARegion) {
  SubmitEntry e = Barrier();
  e.send.region_id = kRegion;
  ExpectRejected(e, "barrier");
}

TEST_F(EntryValidatorTest, RejectsBarrierWithCount) {
  SubmitEntry e = Barrier();
  e.count = 1;
  ExpectRejected(e, "barrier");
}

TEST_F(EntryValidatorTest, RejectsBarrierWithSendBuffer) {
  SubmitEntry e = Barrier();
  e.send.length = 8;
  ExpectRejected(e, "barrier");
}

TEST_F(EntryValidatorTest, RejectsBarrierWithRecvBuffer) {
  SubmitEntry e = Barrier();
  e.recv.length = 8;
  ExpectRejected(e, "barrier");
}

// ---- Broadcast ----

TEST_F(EntryValidatorTest, AcceptsBroadcastFromFirstAndLastRank) {
  EXPECT_TRUE(Validate(Broadcast(0)).ok());
  auto r = Validate(Broadcast(kLocalSize - 1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->root, kLocalSize - 1);
  EXPECT_EQ(r->send, r->recv);
}

TEST_F(EntryValidatorTest, RejectsNegativeBroadcastRoot) { ExpectRejected(Broadcast(-1), "root"); }

TEST_F(EntryValidatorTest, RejectsBroadcastRootAtLocalSize) {
  ExpectRejected(Broadcast(kLocalSize), "root");
}

TEST_F(EntryValidatorTest, RejectsBroadcastWithDifferentSendAndRecvOffsets) {
  SubmitEntry e = Broadcast(0);
  e.recv.offset = 1024;
  ExpectRejected(e, "broadcast");
}

TEST_F(EntryValidatorTest, RejectsBroadcastWithDifferentSendAndRecvRegions) {
  SubmitEntry e = Broadcast(0);
  e.recv.region_id = kOtherRegion;
  ExpectRejected(e, "broadcast");
}

// ---- Sizes ----

TEST_F(EntryValidatorTest, RejectsCountWhoseByteSizeOverflows) {
  SubmitEntry e = Allreduce();
  e.dtype = static_cast<uint32_t>(DType::kF64);
  e.count = (uint64_t{1} << 61) + 1;  // * 8 wraps to 8
  e.send.length = e.recv.length = 8;  // what a wrapped product would expect
  ExpectRejected(e, "count");
}

TEST_F(EntryValidatorTest, RejectsOpLargerThanMaxOpBytes) {
  SubmitEntry e =
      Entry(OpKind::kAllreduce, ipc::kMaxOpBytes / 4 + 1, Buf(0, ipc::kMaxOpBytes + 4, kHugeRegion),
            Buf(ipc::kMaxOpBytes + 4, ipc::kMaxOpBytes + 4, kHugeRegion));
  ExpectRejected(e, "count");
}

TEST_F(EntryValidatorTest, AcceptsOpOfExactlyMaxOpBytes) {
  SubmitEntry e =
      Entry(OpKind::kAllreduce, ipc::kMaxOpBytes / 4, Buf(0, ipc::kMaxOpBytes, kHugeRegion),
            Buf(ipc::kMaxOpBytes, ipc::kMaxOpBytes, kHugeRegion));
  auto r = Validate(e);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send.length, ipc::kMaxOpBytes);
}

TEST_F(EntryValidatorTest, RejectsAllreduceSendLengthNotMatchingCount) {
  SubmitEntry e = Allreduce();
  e.send.length = kBytes - 4;
  ExpectRejected(e, "send");
}

TEST_F(EntryValidatorTest, RejectsAllreduceRecvLengthNotMatchingCount) {
  SubmitEntry e = Allreduce();
  e.recv.length = kBytes + 4;
  ExpectRejected(e, "recv");
}

TEST_F(EntryValidatorTest, RejectsAllgatherRecvNotCountTimesLocalSize) {
  SubmitEntry e = Allgather(0, 1024);
  e.recv.length = kBytes;  // one rank's share instead of all of them
  ExpectRejected(e, "recv");
}

TEST_F(EntryValidatorTest, RejectsReduceScatterSendNotCountTimesLocalSize) {
  SubmitEntry e = ReduceScatter(0, 2048);
  e.send.length = kBytes;
  ExpectRejected(e, "send");
}

TEST_F(EntryValidatorTest, ComputesPerKindBufferSizes) {
  auto ag = Validate(Allgather(0, 1024));
  ASSERT_TRUE(ag.ok()) << ag.status().ToString();
  EXPECT_EQ(ag->send.length, kBytes);
  EXPECT_EQ(ag->recv.length, kBytes * kLocalSize);
  auto rs = Validate(ReduceScatter(0, 2048));
  ASSERT_TRUE(rs.ok()) << rs.status().ToString();
  EXPECT_EQ(rs->send.length, kBytes * kLocalSize);
  EXPECT_EQ(rs->recv.length, kBytes);
}

// ---- Buffer references ----

TEST_F(EntryValidatorTest, RejectsUnknownSendRegion) {
  SubmitEntry e = Allreduce();
  e.send.region_id = 99;
  ExpectRejected(e, "region 99");
}

TEST_F(EntryValidatorTest, RejectsUnknownRecvRegion) {
  SubmitEntry e = Allreduce();
  e.recv.region_id = 99;
  ExpectRejected(e, "region 99");
}

TEST_F(EntryValidatorTest, RejectsBufferPastRegionEnd) {
  SubmitEntry e = Allreduce();
  e.recv.offset = kRegionBytes - kBytes + 1;
  ExpectRejected(e, "region");
}

TEST_F(EntryValidatorTest, AcceptsBufferEndingAtRegionEnd) {
  SubmitEntry e = Allreduce();
  e.recv.offset = kRegionBytes - kBytes;
  EXPECT_TRUE(Validate(e).ok());
}

TEST_F(EntryValidatorTest, RejectsBufferStartingPastRegionEnd) {
  SubmitEntry e = Allreduce();
  e.send.offset = kRegionBytes * 2;
  ExpectRejected(e, "region");
}

TEST_F(EntryValidatorTest, RejectsBufferWhoseEndOverflowsUint64) {
  SubmitEntry e = Allreduce();
  e.send.offset = std::numeric_limits<uint64_t>::max() - kBytes + 1;  // offset + length == 2^64
  ExpectRejected(e, "region");
}

TEST_F(EntryValidatorTest, RejectsNonzeroReservedInSend) {
  SubmitEntry e = Allreduce();
  e.send.reserved = 1;
  ExpectRejected(e, "send.reserved");
}

TEST_F(EntryValidatorTest, RejectsNonzeroReservedInRecv) {
  SubmitEntry e = Allreduce();
  e.recv.reserved = 1;
  ExpectRejected(e, "recv.reserved");
}

// ---- Aliasing ----

TEST_F(EntryValidatorTest, AcceptsInPlaceAllreduce) {
  auto r = Validate(Entry(OpKind::kAllreduce, kCount, Buf(256, kBytes), Buf(256, kBytes)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send, r->recv);
}

TEST_F(EntryValidatorTest, RejectsPartiallyOverlappingAllreduceBuffers) {
  ExpectRejected(Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(4, kBytes)), "overlap");
}

TEST_F(EntryValidatorTest, AcceptsInPlaceAllgather) {
  // send is this rank's slot of recv.
  auto r = Validate(Allgather(1024 + kLocalRank * kBytes, 1024));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send, r->recv.Sub(kLocalRank * kBytes, kBytes));
}

TEST_F(EntryValidatorTest, RejectsAllgatherSendInAnotherRanksSlot) {
  ExpectRejected(Allgather(1024, 1024), "overlap");  // rank 0's slot, but we are rank 1
}

TEST_F(EntryValidatorTest, RejectsAllgatherSendStraddlingSlots) {
  ExpectRejected(Allgather(1024 + kLocalRank * kBytes + 4, 1024), "overlap");
}

TEST_F(EntryValidatorTest, AcceptsInPlaceReduceScatter) {
  // recv is this rank's block of send.
  auto r = Validate(ReduceScatter(0, kLocalRank * kBytes));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->recv, r->send.Sub(kLocalRank * kBytes, kBytes));
}

TEST_F(EntryValidatorTest, RejectsReduceScatterRecvInAnotherRanksBlock) {
  ExpectRejected(ReduceScatter(0, (kLocalRank + 1) * kBytes), "overlap");
}

TEST_F(EntryValidatorTest, RejectsReduceScatterWithSendEqualToRecv) {
  // send == recv is the allreduce in-place layout, not reduce-scatter's (unless rank 0).
  ExpectRejected(ReduceScatter(0, 0), "overlap");
}

TEST_F(EntryValidatorTest, AcceptsAdjacentDisjointBuffersInTheSameRegion) {
  auto r = Validate(Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(kBytes, kBytes)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto r2 = Validate(Entry(OpKind::kAllreduce, kCount, Buf(kBytes, kBytes), Buf(0, kBytes)));
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
}

TEST_F(EntryValidatorTest, AcceptsBuffersInDifferentRegions) {
  auto r =
      Validate(Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(0, kBytes, kOtherRegion)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send.address, reinterpret_cast<uint64_t>(buffer_.data()));
  EXPECT_EQ(r->recv.address, reinterpret_cast<uint64_t>(other_.data()));
}

TEST_F(EntryValidatorTest, AcceptsZeroCountAllreduce) {
  auto r = Validate(Entry(OpKind::kAllreduce, 0, Buf(8, 0), Buf(8, 0)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send.length, 0u);
}

// ---- Result ----

TEST_F(EntryValidatorTest, AcceptedOpHoldsEachRegionItNamesOnce) {
  auto import = std::make_shared<int>(0);
  regions_[kRegion].import = import;
  regions_[kOtherRegion].import = std::make_shared<int>(1);
  auto same = Validate(Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(1024, kBytes)));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(import.use_count(), 3);  // the table's, ours and the op's single hold
  auto two =
      Validate(Entry(OpKind::kAllreduce, kCount, Buf(0, kBytes), Buf(0, kBytes, kOtherRegion)));
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(import.use_count(), 4);
  EXPECT_EQ(regions_[kOtherRegion].import.use_count(), 2);
  same = Result<ValidatedOp>(InvalidArgument("dropped"));
  EXPECT_EQ(import.use_count(), 3);
}

TEST_F(EntryValidatorTest, ReturnsSpansAtRegionBasePlusOffset) {
  auto r = Validate(Entry(OpKind::kAllreduce, kCount, Buf(128, kBytes), Buf(3000, kBytes)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->send, BufferSpan::Host(buffer_.data() + 128, kBytes));
  EXPECT_EQ(r->recv, BufferSpan::Host(buffer_.data() + 3000, kBytes));
  EXPECT_EQ(r->send.length, kBytes);
  EXPECT_EQ(r->recv.length, kBytes);
}

TEST_F(EntryValidatorTest, CopiesEntryFields) {
  SubmitEntry e = Allreduce();
  e.dtype = static_cast<uint32_t>(DType::kBF16);
  e.reduce_op = static_cast<uint32_t>(ReduceOp::kMax);
  e.count = kBytes / 2;
  auto r = Validate(e);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->op_id, 7u);
  EXPECT_EQ(r->key, 0xabcdefu);
  EXPECT_EQ(r->kind, OpKind::kAllreduce);
  EXPECT_EQ(r->dtype, DType::kBF16);
  EXPECT_EQ(r->reduce_op, ReduceOp::kMax);
  EXPECT_EQ(r->priority, -3);
  EXPECT_EQ(r->count, kBytes / 2);
}

// A valid sparse allreduce: 4 i64 ids, dim 2 f32 values, room for 8 result rows.
SubmitEntry Sparse() {
  SubmitEntry e{};
  e.op_id = 1;
  e.kind = static_cast<uint32_t>(OpKind::kSparseAllreduce);
  e.dtype = static_cast<uint32_t>(DType::kF32);
  e.count = 2;
  e.rows = 100;
  e.id_dtype = static_cast<uint32_t>(DType::kI64);
  e.aux = Buf(0, 4 * 8);        // ids
  e.send = Buf(64, 4 * 2 * 4);  // values
  e.out_ids = Buf(128, 8 * 8);
  e.recv = Buf(256, 8 * 2 * 4);
  return e;
}

TEST_F(EntryValidatorTest, AcceptsSparseAllreduceAndDerivesNnzAndCapacity) {
  auto r = Validate(Sparse());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->nnz, 4u);
  EXPECT_EQ(r->capacity, 8u);
  EXPECT_EQ(r->rows, 100u);
}

TEST_F(EntryValidatorTest, RejectsSparseValuesThatDisagreeWithNnzAndDim) {
  SubmitEntry e = Sparse();
  e.send.length = 4 * 3 * 4;  // as if dim were 3
  ExpectRejected(e, "values buffer is 48 bytes but 4 rows x dim 2");
}

TEST_F(EntryValidatorTest, RejectsSparseIdsThatAreNotWholeIds) {
  SubmitEntry e = Sparse();
  e.aux.length = 12;
  ExpectRejected(e, "not a whole number of 8-byte ids");
}

TEST_F(EntryValidatorTest, RejectsSparseBadDtypesAlgorithmsAndShapes) {
  SubmitEntry e = Sparse();
  e.dtype = static_cast<uint32_t>(DType::kI32);
  ExpectRejected(e, "values must be f32, f16 or bf16");
  e = Sparse();
  e.id_dtype = static_cast<uint32_t>(DType::kF32);
  ExpectRejected(e, "ids must be i32 or i64, got f32");
  e = Sparse();
  e.algo = 9;
  ExpectRejected(e, "unknown algorithm");
  e = Sparse();
  e.count = 0;
  ExpectRejected(e, "dim must be");
  e = Sparse();
  e.rows = 0;
  ExpectRejected(e, "rows must be");
  e = Sparse();
  e.reduce_op = static_cast<uint32_t>(ReduceOp::kMax);
  ExpectRejected(e, "only sums rows");
}

TEST_F(EntryValidatorTest, RejectsSparseValuesAndIdsOfEveryOtherDtypeNamingIt) {
  for (auto [dtype, name] : {std::pair{DType::kU8, "u8"},
                             {DType::kI8, "i8"},
                             {DType::kI16, "i16"},
                             {DType::kBool, "bool"},
                             {DType::kC64, "c64"},
                             {DType::kC128, "c128"}}) {
    for (OpKind kind : {OpKind::kSparseAllreduce, OpKind::kSparseShard, OpKind::kSparseLookup}) {
      SubmitEntry e = Sparse();
      e.kind = static_cast<uint32_t>(kind);
      e.dtype = static_cast<uint32_t>(dtype);
      ExpectRejected(e, std::string("values must be f32, f16 or bf16, got ") + name);
      e = Sparse();
      e.kind = static_cast<uint32_t>(kind);
      e.id_dtype = static_cast<uint32_t>(dtype);
      ExpectRejected(e, std::string("ids must be i32 or i64, got ") + name);
    }
  }
  SubmitEntry e = Sparse();
  e.dtype = 77;
  ExpectRejected(e, "values must be f32, f16 or bf16, got dtype 77");
}

TEST_F(EntryValidatorTest, RejectsSparseOutputsThatDisagreeOrOverlapInputs) {
  SubmitEntry e = Sparse();
  e.out_ids.length = 7 * 8;  // 8 rows of values but 7 ids
  ExpectRejected(e, "out_ids buffer is 56 bytes");
  e = Sparse();
  e.recv = Buf(0, 8 * 2 * 4);  // on top of the ids
  e.out_ids = Buf(128, 8 * 8);
  ExpectRejected(e, "must not overlap");
}

TEST_F(EntryValidatorTest, AcceptsRowDemandOnSparseAllreduceOnly) {
  SubmitEntry e = Sparse();
  e.demand = Buf(512, 3 * 8);
  auto r = Validate(e);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->demand_n, 3u);
  e.demand = Buf(512, 3 * 8 + 4);
  ExpectRejected(e, "demand buffer of 28 bytes is not a whole number");
  e = Sparse();
  e.kind = static_cast<uint32_t>(OpKind::kSparseShard);
  e.demand = Buf(512, 8);
  ExpectRejected(e, "takes no demand ids");
  e = Sparse();
  e.demand.offset = 512;  // empty but not zero
  ExpectRejected(e, "empty demand buffer must be all zero");
  e = Sparse();
  e.fence = 1;
  ExpectRejected(e, "fence must be 0 without kSubmitFenced");
}

TEST_F(EntryValidatorTest, RejectsSparseFieldsOnDenseOps) {
  SubmitEntry e{};
  e.op_id = 1;
  e.kind = static_cast<uint32_t>(OpKind::kAllreduce);
  e.count = kCount;
  e.send = Buf(0, kBytes);
  e.recv = Buf(0, kBytes);
  e.rows = 5;
  ExpectRejected(e, "only for sparse ops");
  e.rows = 0;
  e.demand = Buf(512, 8);
  ExpectRejected(e, "only for sparse ops");
}

}  // namespace
}  // namespace outrider::agent
