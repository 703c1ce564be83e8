// Alltoallv across nodes.
#include "agent/engine/algorithms/alltoallv.h"

#include <cstring>

#include "ipc/protocol.h"

namespace outrider::agent {

namespace {

// Node `me`'s counts with node m (`ops`: me's ranks).
AlltoallvCounts CountsWith(const std::vector<const ValidatedOp*>& ops, const Topology& topo,
                           int m) {
  size_t L = ops.size(), M = static_cast<size_t>(topo.ranks.ranks_on(m)),
         first = static_cast<size_t>(topo.ranks.first_rank(m));
  std::vector<int64_t> sent, expected;
  AlltoallvCounts x{};
  // Both in (sending rank, receiving rank) order: this node's ranks send to m's, m's send to them.
  for (size_t i = 0; i < L; ++i) {
    for (size_t j = 0; j < M; ++j) sent.push_back(ops[i]->send_counts[first + j]);
  }
  for (size_t j = 0; j < M; ++j) {
    for (size_t i = 0; i < L; ++i) expected.push_back(ops[i]->recv_counts[first + j]);
  }
  for (int64_t s : sent) x.sent += static_cast<uint64_t>(s);
  for (int64_t e : expected) x.expected += static_cast<uint64_t>(e);
  x.sent_hash = ipc::Fnv1a(sent.data(), sent.size() * sizeof(int64_t));
  x.expected_hash = ipc::Fnv1a(expected.data(), expected.size() * sizeof(int64_t));
  return x;
}

}  // namespace

AlltoallvAgreement::AlltoallvAgreement(const std::vector<const ValidatedOp*>& ops,
                                       const Topology& topo) {
  size_t L = ops.size(), first = static_cast<size_t>(topo.first_local_rank());
  for (int m = 0; m < topo.nodes; ++m) counts.push_back(CountsWith(ops, topo, m));
  // The finer check here names the ranks.
  for (size_t i = 0; i < L && local_detail.empty(); ++i) {
    for (size_t j = 0; j < L; ++j) {
      size_t gi = first + i, gj = first + j;
      if (ops[j]->recv_counts[gi] != ops[i]->send_counts[gj]) {
        local_detail = "rank " + std::to_string(gi) + " sends " +
                       std::to_string(ops[i]->send_counts[gj]) + " elements to rank " +
                       std::to_string(gj) + ", which expects " +
                       std::to_string(ops[j]->recv_counts[gi]);
        break;
      }
    }
  }
}

Status AlltoallvAgreement::Check(const std::vector<std::vector<uint8_t>>& payloads,
                                 const Topology& topo) const {
  size_t N = static_cast<size_t>(topo.nodes), me = static_cast<size_t>(topo.me),
         table = N * sizeof(AlltoallvCounts);
  std::vector<std::vector<AlltoallvCounts>> tables(N);
  for (size_t n = 0; n < N; ++n) {
    if (n == me) {
      tables[n] = counts;
      continue;
    }
    if (payloads[n].size() < table)
      return ProtocolError("peer sent an alltoallv payload without its counts");
    tables[n].resize(N);
    std::memcpy(tables[n].data(), payloads[n].data(), table);
  }
  for (size_t a = 0; a < N; ++a) {
    for (size_t b = 0; b < N; ++b) {
      const AlltoallvCounts& s = tables[a][b];  // a's ranks to b's, as a says
      const AlltoallvCounts& r = tables[b][a];  // the same, as b says
      if (s.sent == r.expected && s.sent_hash == r.expected_hash) continue;
      std::string from = topo.DescribeNode(static_cast<int>(a)),
                  to = topo.DescribeNode(static_cast<int>(b));
      if (a == b) {
        std::string detail = a == me && !local_detail.empty() ? " (" + local_detail + ")" : "";
        return Mismatch("alltoallv counts disagree among " + from + ": its ranks send each other " +
                        std::to_string(s.sent) + " elements, and expect " +
                        std::to_string(r.expected) +
                        (s.sent == r.expected ? ", but not in the same blocks" : "") + detail);
      }
      if (s.sent != r.expected) {
        return Mismatch("alltoallv counts disagree: " + from + " sends " + std::to_string(s.sent) +
                        " elements to " + to + ", which expects " + std::to_string(r.expected));
      }
      return Mismatch("alltoallv counts disagree: " + from + " sends " + to + " the " +
                      std::to_string(s.sent) +
                      " elements it expects, but not in the blocks its ranks expect");
    }
  }
  return Status::Ok();
}

void Alltoallv::Prepare(std::function<void()> ready) {
  size_t N = static_cast<size_t>(topo_.nodes), L = local(), me = static_cast<size_t>(topo_.me);
  uint64_t elem = ipc::DTypeSize(op().dtype);
  const auto& ops = c_.ops;
  const RankLayout& ranks = topo_.ranks;
  // Blocks among this node's ranks move only once every pair agrees.
  agreement_ = std::make_unique<AlltoallvAgreement>(ops, topo_);
  const std::vector<AlltoallvCounts>& counts = agreement_->counts;
  outgoing_.resize(N);
  std::vector<CopyPair> pairs;
  uint64_t table = N * sizeof(AlltoallvCounts);
  for (size_t m = 0; m < N; ++m) {
    if (m == me) continue;
    outgoing_[m].resize(table + counts[m].sent * elem);
    std::memcpy(outgoing_[m].data(), counts.data(), table);  // agent memory
    BufferSpan out = BufferSpan::Host(outgoing_[m].data(), outgoing_[m].size());
    uint64_t at = table;
    for (size_t i = 0; i < L; ++i) {
      for (int j = 0; j < ranks.ranks_on(static_cast<int>(m)); ++j) {
        size_t gj = static_cast<size_t>(ranks.first_rank(static_cast<int>(m)) + j);
        uint64_t len = static_cast<uint64_t>(ops[i]->send_counts[gj]) * elem;
        pairs.push_back(
            {out.Sub(at, len), ops[i]->send.Sub(BlockOffset(ops[i]->send_counts, gj, elem), len)});
        at += len;
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
  size_t N = static_cast<size_t>(topo_.nodes), L = local(), me = static_cast<size_t>(topo_.me);
  uint64_t elem = ipc::DTypeSize(op().dtype), table = N * sizeof(AlltoallvCounts);
  // Every node checks the same tables in the same order: all fail alike, before writing any output.
  if (Status st = agreement_->Check(c_.data, topo_); !st.ok()) return Complete(st);
  for (size_t n = 0; n < N; ++n) {
    if (n != me && c_.data[n].size() - table != agreement_->counts[n].expected * elem) {
      return Complete(
          ProtocolError("peer sent an alltoallv payload that does not match its counts"));
    }
  }
  std::vector<CopyPair> pairs;
  size_t first = static_cast<size_t>(topo_.first_local_rank());
  for (size_t i = 0; i < L; ++i) {  // among this node's ranks: straight from the sender's buffer
    for (size_t j = 0; j < L; ++j) {
      size_t gi = first + i, gj = first + j;
      uint64_t len = static_cast<uint64_t>(c_.ops[i]->send_counts[gj]) * elem;
      pairs.push_back({c_.ops[j]->recv.Sub(BlockOffset(c_.ops[j]->recv_counts, gi, elem), len),
                       c_.ops[i]->send.Sub(BlockOffset(c_.ops[i]->send_counts, gj, elem), len)});
    }
  }
  for (size_t n = 0; n < N; ++n) {
    if (n == me) continue;
    BufferSpan in = BufferSpan::Host(c_.data[n].data(), c_.data[n].size());
    uint64_t at = table;
    int senders = topo_.ranks.ranks_on(static_cast<int>(n));
    for (int i = 0; i < senders; ++i) {
      size_t gi = static_cast<size_t>(topo_.ranks.first_rank(static_cast<int>(n)) + i);
      for (size_t j = 0; j < L; ++j) {
        uint64_t len = static_cast<uint64_t>(c_.ops[j]->recv_counts[gi]) * elem;
        pairs.push_back({c_.ops[j]->recv.Sub(BlockOffset(c_.ops[j]->recv_counts, gi, elem), len),
                         in.Sub(at, len)});
        at += len;
      }
    }
  }
  CompleteAfter(std::move(pairs));
}

}  // namespace outrider::agent
