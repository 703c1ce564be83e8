// What the sparse exchanges share (see exchange.h): id ranges agreed from the nodes' quantiles,
// the sums of ranges completed in any order, and the size of one range's message.
#include "agent/engine/sparse/exchange.h"

#include <algorithm>

#include "agent/engine/sparse/codec.h"
#include "base/check.h"

namespace outrider::agent::sparse {

void RangeResult::Complete(size_t k, std::vector<std::optional<Rows>>* parts, const Table& t,
                           Rows* result) {
  OUTRIDER_CHECK(k < waiting_.size() && !completed_[k]);
  completed_[k] = true;
  if (k != appended_) {
    SumParts(parts, t, &waiting_[k].emplace());
    return;
  }
  SumParts(parts, t, result);
  for (++appended_; appended_ < waiting_.size() && completed_[appended_]; ++appended_) {
    Rows& s = *waiting_[appended_];
    result->ids.insert(result->ids.end(), s.ids.begin(), s.ids.end());
    result->vals.insert(result->vals.end(), s.vals.begin(), s.vals.end());
    waiting_[appended_].reset();
  }
}

std::vector<uint64_t> IdQuantiles(std::span<const uint64_t> ids, size_t parts) {
  std::vector<uint64_t> q;
  for (size_t i = 1; i < parts && !ids.empty(); ++i) {
    uint64_t id = ids[i * ids.size() / parts];
    if (id > 0 && (q.empty() || id > q.back())) q.push_back(id);
  }
  return q;
}

std::vector<uint64_t> MergeQuantiles(const std::vector<std::vector<uint64_t>>& per_node) {
  std::vector<uint64_t> all;
  for (const auto& q : per_node) all.insert(all.end(), q.begin(), q.end());
  std::sort(all.begin(), all.end());
  std::vector<uint64_t> starts;
  size_t step = std::max<size_t>(1, per_node.size());
  for (size_t i = step - 1; i < all.size(); i += step) {
    if (all[i] > 0 && (starts.empty() || all[i] > starts.back())) starts.push_back(all[i]);
  }
  return starts;
}

std::vector<IdRange> RangesFrom(const std::vector<uint64_t>& starts, uint64_t rows) {
  std::vector<IdRange> r;
  uint64_t lo = 0;
  for (uint64_t s : starts) {
    if (s <= lo || s >= rows) continue;
    r.push_back({lo, s});
    lo = s;
  }
  r.push_back({lo, rows});
  return r;
}

std::vector<size_t> RangeEnds(std::span<const uint64_t> ids, const std::vector<IdRange>& ranges) {
  std::vector<size_t> ends;
  ends.reserve(ranges.size());
  auto at = ids.begin();
  for (const IdRange& r : ranges) {
    at = std::lower_bound(at, ids.end(), r.hi);
    ends.push_back(static_cast<size_t>(at - ids.begin()));
  }
  return ends;
}

void ReserveResult(const Context& c, size_t mine, Rows* result) {
  uint64_t upper = std::min<uint64_t>(c.table.rows, mine * static_cast<uint64_t>(c.nodes));
  result->ids.reserve(upper);
  result->vals.reserve(upper * c.table.dim);
}

uint64_t RangeMessageBytes(uint64_t n, IdRange range, const Table& t) {
  return EncodedBytes(Encoding::kSparse, n, range, t, 8) + kTrailerBytes;
}

}  // namespace outrider::agent::sparse
