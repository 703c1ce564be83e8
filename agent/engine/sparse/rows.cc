// Row sets: reading client contributions, deterministic sums, writing results.
#include "agent/engine/sparse/rows.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <queue>
#include <string>

#include "agent/engine/dataplane/host_memory.h"
#include "agent/engine/dataplane/reduce.h"

namespace outrider::agent::sparse {

void StoreValues(const Table& t, const float* src, size_t n, uint8_t* dst) {
  switch (t.dtype) {
    case ipc::DType::kF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h = FloatToHalf(src[i]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      break;
    case ipc::DType::kBF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h = FloatToBFloat16(src[i]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
      break;
    default:
      if (n > 0) std::memcpy(dst, src, n * sizeof(float));  // an empty row set may have no storage
  }
}

void LoadValues(const Table& t, const uint8_t* src, size_t n, float* dst) {
  switch (t.dtype) {
    case ipc::DType::kF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = HalfToFloat(h);
      }
      break;
    case ipc::DType::kBF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = BFloat16ToFloat(h);
      }
      break;
    default:
      if (n > 0) std::memcpy(dst, src, n * sizeof(float));  // an empty row set may have no storage
  }
}

void RoundTo(const Table& t, Values* vals, size_t from) {
  if (t.dtype == ipc::DType::kF32) return;
  for (size_t i = from; i < vals->size(); ++i) {
    float& v = (*vals)[i];
    v = t.dtype == ipc::DType::kF16 ? HalfToFloat(FloatToHalf(v))
                                    : BFloat16ToFloat(FloatToBFloat16(v));
  }
}

Result<Rows> ReadInput(const ValidatedOp& op, const Table& t, int rank) {
  Rows r;
  r.ids.resize(op.nnz);
  if (op.id_dtype == ipc::DType::kI32) {
    for (uint64_t i = 0; i < op.nnz; ++i) {
      int32_t v;
      std::memcpy(&v, HostBytes(op.ids) + 4 * i, 4);
      r.ids[i] = static_cast<uint64_t>(static_cast<int64_t>(v));
    }
  } else if (op.nnz > 0) {
    if (op.nnz > 0) std::memcpy(r.ids.data(), HostBytes(op.ids), 8 * op.nnz);
  }
  for (uint64_t i = 0; i < op.nnz; ++i) {
    if (r.ids[i] >= t.rows) {  // negative ids wrap to huge values
      return InvalidArgument(
          std::string(ipc::OpKindName(op.kind)) + ": rank " + std::to_string(rank) + " sent id " +
          std::to_string(static_cast<int64_t>(r.ids[i])) + " at position " + std::to_string(i) +
          ", outside the table's rows [0, " + std::to_string(t.rows) + ")");
    }
  }
  r.vals.resize(op.nnz * t.dim);
  if (op.nnz > 0) LoadValues(t, HostBytes(op.send), r.vals.size(), r.vals.data());
  return r;
}

namespace {

bool StrictlyIncreasing(const Rows& r) {
  for (size_t i = 1; i < r.ids.size(); ++i) {
    if (r.ids[i] <= r.ids[i - 1]) return false;
  }
  return true;
}

// Parts already coalesced (the common case: node contributions): a k-way merge that visits equal
// ids in part order, the same order the general path uses. Appends to `out`, whose ids are all
// smaller than the parts'.
void MergeSum(std::span<const Rows* const> parts, const Table& t, Rows* out_rows) {
  Rows& out = *out_rows;
  size_t first = out.ids.size();
  using Head = std::pair<uint64_t, uint32_t>;  // (id, part): the heap pops equal ids in part order
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap;
  std::vector<size_t> pos(parts.size(), 0);
  size_t total = 0;
  for (uint32_t p = 0; p < parts.size(); ++p) {
    total += parts[p]->size();
    if (parts[p]->size() > 0) heap.push({parts[p]->ids[0], p});
  }
  if (out.ids.capacity() < first + total) {  // grows geometrically when appended to again and again
    out.ids.reserve(std::max(first + total, 2 * out.ids.capacity()));
    out.vals.reserve(out.ids.capacity() * t.dim);
  }
  while (!heap.empty()) {
    auto [id, p] = heap.top();
    heap.pop();
    const float* src = parts[p]->vals.data() + pos[p] * t.dim;
    if (out.ids.size() == first || out.ids.back() != id) {
      out.ids.push_back(id);
      out.vals.insert(out.vals.end(), src, src + t.dim);
    } else {
      float* acc = out.vals.data() + out.vals.size() - t.dim;
      for (uint64_t k = 0; k < t.dim; ++k) acc[k] += src[k];
    }
    if (++pos[p] < parts[p]->size()) heap.push({parts[p]->ids[pos[p]], p});
  }
}

bool AllStrictlyIncreasing(std::span<const Rows* const> parts) {
  return std::all_of(parts.begin(), parts.end(),
                     [](const Rows* p) { return StrictlyIncreasing(*p); });
}

// MergeSum, with what it appended rounded to the table dtype (one part: nothing was summed).
void MergeSumRounded(std::span<const Rows* const> parts, const Table& t, Rows* out) {
  size_t from = out->vals.size();
  MergeSum(parts, t, out);
  if (parts.size() > 1) RoundTo(t, &out->vals, from);
}

}  // namespace

void SumAppend(std::span<const Rows* const> parts, const Table& t, Rows* out) {
  if (AllStrictlyIncreasing(parts)) return MergeSumRounded(parts, t, out);
  Rows sum = Sum(parts, t);
  out->ids.insert(out->ids.end(), sum.ids.begin(), sum.ids.end());
  out->vals.insert(out->vals.end(), sum.vals.begin(), sum.vals.end());
}

Rows Sum(std::span<const Rows* const> parts, const Table& t) {
  if (AllStrictlyIncreasing(parts)) {
    Rows out;
    MergeSumRounded(parts, t, &out);
    return out;
  }
  // (id, part, index) sorted by id, stable: equal ids keep part order, then index order.
  struct Ref {
    uint64_t id;
    uint32_t part;
    uint32_t pad;
    uint64_t index;
  };
  size_t total = 0;
  for (const Rows* p : parts) total += p->size();
  std::vector<Ref> refs;
  refs.reserve(total);
  for (uint32_t p = 0; p < parts.size(); ++p) {
    for (uint64_t i = 0; i < parts[p]->size(); ++i) refs.push_back({parts[p]->ids[i], p, 0, i});
  }
  std::stable_sort(refs.begin(), refs.end(),
                   [](const Ref& a, const Ref& b) { return a.id < b.id; });
  Rows out;
  size_t unique = 0;
  for (size_t i = 0; i < refs.size(); ++i) unique += i == 0 || refs[i].id != refs[i - 1].id;
  out.ids.reserve(unique);
  out.vals.assign(unique * t.dim, 0.0f);
  float* acc = nullptr;
  for (size_t i = 0; i < refs.size(); ++i) {
    const Ref& r = refs[i];
    const float* src = parts[r.part]->vals.data() + r.index * t.dim;
    if (i == 0 || r.id != refs[i - 1].id) {
      out.ids.push_back(r.id);
      acc = out.vals.data() + (out.ids.size() - 1) * t.dim;
      if (t.dim > 0) std::memcpy(acc, src, t.dim * sizeof(float));  // ids-only sets have no values
      continue;
    }
    for (uint64_t k = 0; k < t.dim; ++k) acc[k] += src[k];
  }
  RoundTo(t, &out.vals);
  return out;
}

void SumParts(std::vector<std::optional<Rows>>* parts, const Table& t, Rows* out) {
  std::vector<const Rows*> ptrs;
  for (const auto& p : *parts) ptrs.push_back(&*p);
  SumAppend(ptrs, t, out);
  for (auto& p : *parts) p.reset();
}

Status WriteOutput(const Rows& r, size_t begin, size_t end, const Table& t, const ValidatedOp& op,
                   size_t out_row) {
  size_t n = end - begin;
  if (out_row + n > op.capacity) {
    size_t need = out_row + n;
    return OutputTooSmall(
        std::string(ipc::OpKindName(op.kind)) + ": the result has " + std::to_string(need) +
        " rows but the output holds " + std::to_string(op.capacity) + "; give it at least " +
        std::to_string(need) + " rows (" + std::to_string(need * t.row_bytes()) + " value bytes)");
  }
  uint64_t id_size = ipc::DTypeSize(op.id_dtype);
  uint8_t* ids = HostBytes(op.out_ids) + out_row * id_size;
  if (op.id_dtype == ipc::DType::kI32) {
    for (size_t i = 0; i < n; ++i) {
      auto v = static_cast<int32_t>(r.ids[begin + i]);
      std::memcpy(ids + 4 * i, &v, 4);
    }
  } else if (n > 0) {
    if (n > 0) std::memcpy(ids, r.ids.data() + begin, 8 * n);
  }
  if (n > 0)
    StoreValues(t, r.vals.data() + begin * t.dim, n * t.dim,
                HostBytes(op.recv) + out_row * t.row_bytes());
  return Status::Ok();
}

void SplitByDemand(Rows all, std::span<const uint64_t> demand, uint64_t dim, Rows* demanded,
                   Rows* rest) {
  *demanded = Rows{};
  *rest = Rows{};
  size_t d = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    uint64_t id = all.ids[i];
    while (d < demand.size() && demand[d] < id) ++d;
    Rows* to = d < demand.size() && demand[d] == id ? demanded : rest;
    to->ids.push_back(id);
    to->vals.insert(to->vals.end(), all.row(i, dim), all.row(i, dim) + dim);
  }
}

}  // namespace outrider::agent::sparse
