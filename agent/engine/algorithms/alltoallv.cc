// Alltoallv across nodes.
#include "agent/engine/algorithms/alltoallv.h"

#include <cstring>

namespace outrider::agent {

uint64_t Alltoallv::Expected(size_t n) const {
  size_t L = local();
  uint64_t elem = ipc::DTypeSize(op().dtype), bytes = 0;
  for (size_t i = 0; i < L; ++i) {
    for (size_t j = 0; j < L; ++j) bytes += static_cast<uint64_t>(c_.ops[j]->recv_counts[n * L + i]) * elem;
  }
  return bytes;
}

void Alltoallv::Prepare(std::function<void()> ready) {
  size_t N = static_cast<size_t>(topo_.nodes), L = local(), me = static_cast<size_t>(topo_.me);
  uint64_t elem = ipc::DTypeSize(op().dtype);
  const auto& ops = c_.ops;
  outgoing_.resize(N);
  std::vector<CopyPair> pairs;
  for (size_t m = 0; m < N; ++m) {
    if (m != me) {
      uint64_t size = sizeof(uint64_t);
      for (size_t i = 0; i < L; ++i) {
        for (size_t j = 0; j < L; ++j) size += static_cast<uint64_t>(ops[i]->send_counts[m * L + j]) * elem;
      }
      outgoing_[m].resize(size);
      uint64_t expect = Expected(m);
      std::memcpy(outgoing_[m].data(), &expect, sizeof(expect));  // the message header, agent memory
    }
    BufferSpan out = BufferSpan::Host(outgoing_[m].data(), outgoing_[m].size());
    uint64_t at = sizeof(uint64_t);
    for (size_t i = 0; i < L; ++i) {
      for (size_t j = 0; j < L; ++j) {
        size_t gj = m * L + j;
        uint64_t len = static_cast<uint64_t>(ops[i]->send_counts[gj]) * elem;
        BufferSpan src = ops[i]->send.Sub(BlockOffset(ops[i]->send_counts, gj, elem), len);
        if (m != me) {
          pairs.push_back({out.Sub(at, len), src});
          at += len;
          continue;
        }
        size_t gi = me * L + i;
        if (ops[j]->recv_counts[gi] != ops[i]->send_counts[gj]) {
          local_error_ = Mismatch("alltoallv counts disagree: rank " + std::to_string(gi) + " sends " +
                                  std::to_string(ops[i]->send_counts[gj]) + " elements to rank " + std::to_string(gj) +
                                  ", which expects " + std::to_string(ops[j]->recv_counts[gi]));
          continue;
        }
        pairs.push_back({ops[j]->recv.Sub(BlockOffset(ops[j]->recv_counts, gi, elem), len), src});
      }
    }
  }
  Copy(std::move(pairs), std::move(ready));
}

BufferSpan Alltoallv::Contribution(int node) const {
  const auto& m = outgoing_[static_cast<size_t>(node)];
  return BufferSpan::Host(m.data(), m.size());
}

void Alltoallv::Agreed() {
  if (!local_error_.ok()) return Complete(local_error_);
  size_t N = static_cast<size_t>(topo_.nodes), L = local(), me = static_cast<size_t>(topo_.me);
  uint64_t elem = ipc::DTypeSize(op().dtype);
  // Check every pair in both directions before writing any output.
  for (size_t n = 0; n < N; ++n) {
    if (n == me) continue;
    const auto& in = c_.data[n];
    if (in.size() < sizeof(uint64_t)) return Complete(ProtocolError("peer sent an alltoallv payload without its header"));
    uint64_t want = Expected(n), they_expect = 0;
    std::memcpy(&they_expect, in.data(), sizeof(they_expect));
    uint64_t got = in.size() - sizeof(uint64_t), sent = outgoing_[n].size() - sizeof(uint64_t);
    if (got != want || they_expect != sent) {
      bool inbound = got != want;
      std::string from = topo_.DescribeNode(static_cast<int>(inbound ? n : me));
      std::string to = topo_.DescribeNode(static_cast<int>(inbound ? me : n));
      return Complete(Mismatch("alltoallv counts disagree: " + from + " sends " + std::to_string((inbound ? got : sent) / elem) +
                               " elements to " + to + ", which expects " +
                               std::to_string((inbound ? want : they_expect) / elem)));
    }
  }
  std::vector<CopyPair> pairs;
  for (size_t n = 0; n < N; ++n) {
    if (n == me) continue;
    BufferSpan in = BufferSpan::Host(c_.data[n].data(), c_.data[n].size());
    uint64_t at = sizeof(uint64_t);
    for (size_t i = 0; i < L; ++i) {
      size_t gi = n * L + i;
      for (size_t j = 0; j < L; ++j) {
        uint64_t len = static_cast<uint64_t>(c_.ops[j]->recv_counts[gi]) * elem;
        pairs.push_back({c_.ops[j]->recv.Sub(BlockOffset(c_.ops[j]->recv_counts, gi, elem), len), in.Sub(at, len)});
        at += len;
      }
    }
  }
  CompleteAfter(std::move(pairs));
}

}  // namespace outrider::agent
