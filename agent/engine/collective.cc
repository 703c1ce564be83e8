// Naming of instances and nodes.
#include "agent/engine/collective.h"

#include <cstdio>

#include "agent/engine/algorithm.h"

namespace outrider::agent {

Collective::Collective() = default;
Collective::~Collective() = default;

std::string Topology::DescribeNode(int node) const {
  if (node < 0 || node >= ranks.nodes()) return "node " + std::to_string(node);
  int first = ranks.first_rank(node), last = ranks.first_rank(node + 1) - 1;
  std::string ranks = first == last ? "rank " + std::to_string(first)
                                    : "ranks " + std::to_string(first) + "-" + std::to_string(last);
  return ranks + " (node " + std::to_string(node) + ")";
}

std::string InstanceName(uint64_t key, uint64_t seq) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "key 0x%016llx seq %llu", static_cast<unsigned long long>(key),
                static_cast<unsigned long long>(seq));
  return buf;
}

std::string Collective::Name() const { return InstanceName(key, seq); }

}  // namespace outrider::agent
