// Where a job's ranks run: numbered node by node, nodes in order, each node with its own count
// (a generation that lost a rank keeps that rank's node-mates, so nodes may differ).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace outrider::agent {

struct RankLayout {
  std::vector<int> first{0, 1};  // node n's first rank; the last entry is the world size

  // `nodes` nodes of `per_node` ranks each.
  static RankLayout Even(int nodes, int per_node);
  // From ranks per node; nullopt-like empty `first` when a count is below 1 or there is none.
  static RankLayout FromCounts(const std::vector<int32_t>& counts);
  // A client's job (ClientIdentity's fields): `node_ranks` where a generation gave them, else
  // `local_size` ranks on every node.
  static RankLayout Of(int world_size, int local_size, const std::vector<int32_t>& node_ranks);

  bool valid() const { return first.size() >= 2; }
  int nodes() const { return static_cast<int>(first.size()) - 1; }
  int world() const { return first.back(); }
  int first_rank(int node) const { return first[static_cast<size_t>(node)]; }
  int ranks_on(int node) const { return first_rank(node + 1) - first_rank(node); }
  int max_ranks_on_a_node() const;
  // The node of `rank` (0 <= rank < world()).
  int node_of(int rank) const;
  // Every node runs as many ranks.
  bool even() const;
  std::vector<int32_t> counts() const;
  // "2,2,1,2": ranks per node, in node order.
  std::string ToString() const;
  bool operator==(const RankLayout&) const = default;
};

}  // namespace outrider::agent
