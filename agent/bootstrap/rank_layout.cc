#include "agent/bootstrap/rank_layout.h"

#include <algorithm>

namespace outrider::agent {

RankLayout RankLayout::Even(int nodes, int per_node) {
  RankLayout l;
  l.first.clear();
  for (int n = 0; n <= nodes; ++n) l.first.push_back(n * per_node);
  return l;
}

RankLayout RankLayout::FromCounts(const std::vector<int32_t>& counts) {
  RankLayout l;
  l.first = {0};
  for (int32_t c : counts) {
    if (c < 1) return RankLayout{{}};
    l.first.push_back(l.first.back() + c);
  }
  if (counts.empty()) l.first.clear();
  return l;
}

RankLayout RankLayout::Of(int world_size, int local_size, const std::vector<int32_t>& node_ranks) {
  if (!node_ranks.empty()) return FromCounts(node_ranks);
  return Even(world_size / std::max(local_size, 1), local_size);
}

int RankLayout::max_ranks_on_a_node() const {
  int most = 0;
  for (int n = 0; n < nodes(); ++n) most = std::max(most, ranks_on(n));
  return most;
}

int RankLayout::node_of(int rank) const {
  auto it = std::upper_bound(first.begin(), first.end(), rank);
  return static_cast<int>(it - first.begin()) - 1;
}

bool RankLayout::even() const {
  for (int n = 1; n < nodes(); ++n) {
    if (ranks_on(n) != ranks_on(0)) return false;
  }
  return true;
}

std::vector<int32_t> RankLayout::counts() const {
  std::vector<int32_t> c;
  for (int n = 0; n < nodes(); ++n) c.push_back(ranks_on(n));
  return c;
}

std::string RankLayout::ToString() const {
  std::string s;
  for (int n = 0; n < nodes(); ++n) s += (n == 0 ? "" : ",") + std::to_string(ranks_on(n));
  return s;
}

}  // namespace outrider::agent
