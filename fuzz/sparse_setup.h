// One node of a sparse collective as the sparse target's input sets it up: algorithm, nodes, table
// shape, block size (ReadSparseSetup), then the node's rows (ReadRows). Shared by the sparse
// target and the seed generator, which runs every node of the same setup to record real messages.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "agent/engine/sparse/exchange.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"

namespace outrider::fuzz {

enum class SparseAlgorithm {
  kAllgather,
  kBalanced,
  kBlock,
  kDense,
  kShardRange,
  kShardHash,
  kLookup
};
inline constexpr int kNumSparseAlgorithms = 7;

struct SparseSetup {
  bool codec = false;  // decode one payload instead of running an exchange
  SparseAlgorithm algo = SparseAlgorithm::kAllgather;
  agent::sparse::Context ctx;
};

inline SparseSetup ReadSparseSetup(FuzzInput& in) {
  constexpr ipc::DType kDTypes[] = {ipc::DType::kF32, ipc::DType::kF16, ipc::DType::kBF16};
  SparseSetup s;
  uint8_t mode = in.Read<uint8_t>();
  uint8_t topo = in.Read<uint8_t>();
  s.codec = (mode & 0x80) != 0;
  s.algo = static_cast<SparseAlgorithm>(mode % kNumSparseAlgorithms);
  agent::sparse::Context& c = s.ctx;
  c.nodes = 2 + topo % 3;
  c.me = (topo >> 2) % c.nodes;
  // One or two ranks on each node, as the input says: nodes may differ.
  std::vector<int32_t> counts;
  for (int n = 0; n < c.nodes; ++n) counts.push_back(1 + ((topo >> (4 + n)) & 1));
  c.ranks = agent::RankLayout::FromCounts(counts);
  // Dense exchanges hold whole ranges of the table: their tables stay small here.
  uint64_t max_rows = s.algo == SparseAlgorithm::kDense ? uint64_t{1} << 16 : uint64_t{1} << 40;
  c.table.rows = 1 + in.Read<uint64_t>() % max_rows;
  c.table.dim = 1 + in.Read<uint8_t>() % 16;
  c.table.dtype = kDTypes[in.Read<uint8_t>() % 3];
  c.block_rows = 1 + in.Read<uint16_t>() % 4096;
  return s;
}

// A node's contribution: ids and small integer values (exact in every dtype), coalesced. A lookup
// asks for ids only.
inline agent::sparse::Rows ReadRows(FuzzInput& in, const SparseSetup& s) {
  agent::sparse::Table t = s.ctx.table;
  if (s.algo == SparseAlgorithm::kLookup) t.dim = 0;
  agent::sparse::Rows raw;
  size_t nnz = in.Read<uint8_t>();
  for (size_t i = 0; i < nnz; ++i) {
    raw.ids.push_back(in.Read<uint64_t>() % t.rows);
    for (uint64_t k = 0; k < t.dim; ++k) raw.vals.push_back(static_cast<float>(in.Read<int8_t>()));
  }
  const agent::sparse::Rows* p = &raw;
  return agent::sparse::Sum(std::span<const agent::sparse::Rows* const>(&p, 1), t);
}

// The exchange of node c.me. A lookup's owner reads rows from `read`.
inline std::unique_ptr<agent::sparse::Exchange> MakeExchange(SparseAlgorithm algo,
                                                             const agent::sparse::Context& c,
                                                             agent::sparse::ShardReader read) {
  using namespace agent::sparse;
  switch (algo) {
    case SparseAlgorithm::kAllgather:
      return MakeAllgather(c);
    case SparseAlgorithm::kBalanced:
      return MakeBalanced(c);
    case SparseAlgorithm::kBlock:
      return MakeBlock(c);
    case SparseAlgorithm::kDense:
      return MakeDense(c);
    case SparseAlgorithm::kShardRange:
      return MakeShard(c, ipc::ShardScheme::kRange);
    case SparseAlgorithm::kShardHash:
      return MakeShard(c, ipc::ShardScheme::kHash);
    case SparseAlgorithm::kLookup:
      return MakeLookup(c, std::move(read));
  }
  OUTRIDER_CHECK(false);
  return nullptr;
}

}  // namespace outrider::fuzz
