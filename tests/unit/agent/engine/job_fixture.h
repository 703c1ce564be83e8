// Fixture for single-node job tests: members are fakes that record completions, ops carry their
// own memory, and a job of n local ranks runs without an agent network.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "agent/engine/job.h"

namespace outrider::agent {

using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;

// A local client that records how its ops finished.
class FakeMember : public Member {
 public:
  struct Completion {
    uint64_t op_id;
    Status status;
    uint64_t seq;
  };

  FakeMember(int local_rank, int local_size, int world_size = 0) {
    id_.job_id = "job";
    id_.rank = id_.local_rank = local_rank;
    id_.local_world_size = local_size;
    id_.world_size = world_size > 0 ? world_size : local_size;
  }
  const ClientIdentity& identity() const override { return id_; }
  ClientIdentity& mutable_identity() { return id_; }
  void Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t,
                const OpReport*) override {
    completions.push_back({op_id, status, seq});
  }
  void Partial(uint64_t, uint64_t, uint64_t, const OpReport&) override { ++partials; }

  // The completion of `op_id`, or nullptr while it has none.
  const Completion* Of(uint64_t op_id) const {
    for (const Completion& c : completions) {
      if (c.op_id == op_id) return &c;
    }
    return nullptr;
  }

  std::vector<Completion> completions;
  int partials = 0;

 private:
  ClientIdentity id_;
};

// One op and its memory.
struct Buffers {
  std::vector<float> send, recv;
  ValidatedOp op;
};

inline Buffers Allreduce(uint64_t op_id, uint64_t key, std::vector<float> values) {
  Buffers b;
  b.send = std::move(values);
  b.recv.assign(b.send.size(), -1.0f);
  b.op.op_id = op_id;
  b.op.key = key;
  b.op.kind = OpKind::kAllreduce;
  b.op.dtype = DType::kF32;
  b.op.reduce_op = ReduceOp::kSum;
  b.op.count = b.send.size();
  b.op.send = BufferSpan::Host(b.send.data(), b.send.size() * 4);
  b.op.recv = BufferSpan::Host(b.recv.data(), b.recv.size() * 4);
  return b;
}

class JobTest : public ::testing::Test {
 protected:
  // A single-node job of `n` local ranks, every member added.
  void Make(int n) {
    job_ = std::make_unique<Job>("job", n, n, nullptr);
    for (int r = 0; r < n; ++r) {
      members_.push_back(std::make_unique<FakeMember>(r, n));
      ASSERT_TRUE(job_->AddMember(members_.back().get()).ok());
    }
  }
  FakeMember& m(int r) { return *members_[static_cast<size_t>(r)]; }
  void Submit(int r, const ValidatedOp& op) {
    job_->Submit(members_[static_cast<size_t>(r)].get(), op);
  }
  void ExpectOk(int r, uint64_t op_id, uint64_t seq) {
    const FakeMember::Completion* c = m(r).Of(op_id);
    ASSERT_NE(c, nullptr) << "rank " << r << " op " << op_id;
    EXPECT_TRUE(c->status.ok()) << c->status.ToString();
    EXPECT_EQ(c->seq, seq);
  }

  std::unique_ptr<Job> job_;
  std::vector<std::unique_ptr<FakeMember>> members_;
};

}  // namespace outrider::agent
