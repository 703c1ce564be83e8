// The stop point of a job's hand-over across nodes, and its wire form (see job_hand_over.h).
#include "agent/engine/job_hand_over.h"

#include <algorithm>
#include <cstring>

namespace outrider::agent {

JobHandOver::JobHandOver(int nodes, int me, int leaving, uint64_t now_ns)
    : nodes_(nodes),
      me_(me),
      leaving_(leaving),
      began_ns_(now_ns),
      marks_(static_cast<size_t>(nodes)),
      welcomed_(static_cast<size_t>(nodes), false),
      left_seen_missing_(nodes - 1) {}

JobHandOver JobHandOver::Resuming(int nodes, int me, SeqMap stop) {
  JobHandOver h(nodes, me, me);
  h.resuming_ = true;
  h.stop_ = std::move(stop);
  h.welcomes_missing_ = nodes - 1;
  return h;
}

bool JobHandOver::Mark(int node, const SeqMap& next) {
  if (resuming_ || stop_ || node < 0 || node >= nodes_) return stop_.has_value();
  auto& slot = marks_[static_cast<size_t>(node)];
  if (!slot) slot = next;
  if (!std::all_of(marks_.begin(), marks_.end(), [](const auto& m) { return m.has_value(); }))
    return false;
  SeqMap stop;
  for (const auto& m : marks_) {
    for (const auto& [key, seq] : *m) stop[key] = std::max(stop[key], seq);
  }
  stop_ = std::move(stop);
  return true;
}

bool JobHandOver::PastStop(uint64_t key, uint64_t seq) const {
  if (!stop_) return false;
  auto it = stop_->find(key);
  return seq >= (it != stop_->end() ? it->second : 0);
}

bool JobHandOver::MayStart(uint64_t key, uint64_t seq) const {
  if (resuming_) return welcomed();
  return stop_known() && !PastStop(key, seq);
}

bool JobHandOver::LeftSeen(int node) {
  if (resuming_ || node < 0 || node >= nodes_ || node == me_ ||
      welcomed_[static_cast<size_t>(node)])
    return left_seen();
  welcomed_[static_cast<size_t>(node)] = true;
  --left_seen_missing_;
  return left_seen();
}

bool JobHandOver::Welcome(int node) {
  if (node < 0 || node >= nodes_ || node == me_ || welcomed_[static_cast<size_t>(node)])
    return welcomed();
  welcomed_[static_cast<size_t>(node)] = true;
  --welcomes_missing_;
  return welcomed();
}

std::string EncodeSeqMap(const JobHandOver::SeqMap& m) {
  std::string out(8 + 16 * m.size(), '\0');
  uint64_t n = m.size();
  std::memcpy(out.data(), &n, 8);
  size_t at = 8;
  for (const auto& [key, seq] : m) {
    std::memcpy(out.data() + at, &key, 8);
    std::memcpy(out.data() + at + 8, &seq, 8);
    at += 16;
  }
  return out;
}

std::optional<JobHandOver::SeqMap> DecodeSeqMap(const uint8_t* data, size_t len) {
  uint64_t n = 0;
  if (data == nullptr || len < 8) return std::nullopt;
  std::memcpy(&n, data, 8);
  if (n > (len - 8) / 16 || len != 8 + 16 * n) return std::nullopt;
  JobHandOver::SeqMap m;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t key = 0, seq = 0;
    std::memcpy(&key, data + 8 + 16 * i, 8);
    std::memcpy(&seq, data + 16 + 16 * i, 8);
    m[key] = seq;
  }
  return m;
}

}  // namespace outrider::agent
