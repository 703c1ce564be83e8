// Row-set encodings: list / bitmap of ids, non-zero blocks, dense ranges.
#include "agent/engine/sparse/codec.h"

#include <cstring>
#include <string>

namespace outrider::agent::sparse {
namespace {

enum class Format : uint32_t { kList = 1, kBitmap = 2, kBlocks = 3, kDense = 4 };

struct WireHeader {
  uint32_t format;
  uint32_t id_format;  // kBlocks: kList or kBitmap for the block numbers
  uint64_t count;      // rows, or blocks
};
static_assert(sizeof(WireHeader) == kWireHeaderBytes);

uint64_t IdWidth(uint64_t range) { return range <= (uint64_t{1} << 32) ? 4 : 8; }
uint64_t BitmapBytes(uint64_t bits) { return (bits + 7) / 8; }
uint64_t ListBytes(uint64_t n, uint64_t range) { return n * IdWidth(range); }
bool UseBitmap(uint64_t n, uint64_t range) { return BitmapBytes(range) < ListBytes(n, range); }
uint64_t IdBytes(uint64_t n, uint64_t range) {
  return std::min(BitmapBytes(range), ListBytes(n, range));
}

uint64_t BlockCount(IdRange range, uint64_t block_rows) {
  return (range.size() + block_rows - 1) / block_rows;
}

// Writes `ids` (offsets inside a range of `space` values, sorted) as list or bitmap.
void PutIds(const std::vector<uint64_t>& offs, uint64_t space, std::vector<uint8_t>* out) {
  size_t at = out->size();
  if (UseBitmap(offs.size(), space)) {
    out->resize(at + BitmapBytes(space), 0);
    for (uint64_t o : offs) (*out)[at + o / 8] |= static_cast<uint8_t>(1u << (o % 8));
    return;
  }
  uint64_t w = IdWidth(space);
  out->resize(at + offs.size() * w);
  for (size_t i = 0; i < offs.size(); ++i) {
    if (w == 4) {
      auto v = static_cast<uint32_t>(offs[i]);
      std::memcpy(out->data() + at + 4 * i, &v, 4);
    } else {
      std::memcpy(out->data() + at + 8 * i, &offs[i], 8);
    }
  }
}

// Reads `n` offsets written by PutIds; they must be increasing and inside the space.
Status GetIds(const uint8_t*& p, const uint8_t* end, uint64_t n, uint64_t space, bool bitmap,
              std::vector<uint64_t>* offs) {
  offs->clear();
  if (bitmap) {
    uint64_t bytes = BitmapBytes(space);
    if (static_cast<uint64_t>(end - p) < bytes)
      return ProtocolError("sparse payload: bitmap truncated");
    for (uint64_t b = 0; b < bytes; ++b) {
      for (uint8_t byte = p[b]; byte != 0; byte &= byte - 1) {
        uint64_t o = b * 8 + static_cast<uint64_t>(__builtin_ctz(byte));
        if (o >= space) return ProtocolError("sparse payload: bitmap bit past the range");
        offs->push_back(o);
      }
    }
    p += bytes;
    if (offs->size() != n)
      return ProtocolError("sparse payload: bitmap count disagrees with its header");
    return Status::Ok();
  }
  uint64_t w = IdWidth(space);
  if (n > static_cast<uint64_t>(end - p) / w)
    return ProtocolError("sparse payload: id list truncated");
  offs->resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, p + w * i, w);
    if (v >= space || (i > 0 && v <= (*offs)[i - 1]))
      return ProtocolError("sparse payload: ids out of order or range");
    (*offs)[i] = v;
  }
  p += n * w;
  return Status::Ok();
}

}  // namespace

uint64_t CountBlocks(const Rows& r, size_t begin, size_t end, uint64_t block_rows) {
  uint64_t n = 0;
  for (size_t i = begin; i < end; ++i)
    n += i == begin || r.ids[i] / block_rows != r.ids[i - 1] / block_rows;
  return n;
}

uint64_t EncodedBytes(Encoding enc, uint64_t n, IdRange range, const Table& t,
                      uint64_t block_rows) {
  switch (enc) {
    case Encoding::kSparse:
      return kWireHeaderBytes + IdBytes(n, range.size()) + n * t.row_bytes();
    case Encoding::kBlocks:
      // Every block but a range's last is full; the last one's size is bounded by block_rows.
      return kWireHeaderBytes + IdBytes(n, BlockCount(range, block_rows)) +
             n * (BitmapBytes(block_rows) + block_rows * t.row_bytes());
    case Encoding::kDense:
      return kWireHeaderBytes + BitmapBytes(range.size()) + range.size() * t.row_bytes();
  }
  return 0;
}

namespace {

// The encoding followed by `tail_bytes` zero bytes, reserved up front where the size is known.
std::vector<uint8_t> EncodeWithTail(Encoding enc, const Rows& r, size_t begin, size_t end,
                                    IdRange range, const Table& t, uint64_t block_rows,
                                    size_t tail_bytes) {
  std::vector<uint8_t> out(kWireHeaderBytes);
  WireHeader h{};
  uint64_t rb = t.row_bytes();
  std::vector<uint64_t> offs;
  if (enc == Encoding::kSparse) {
    h.format = static_cast<uint32_t>(UseBitmap(end - begin, range.size()) ? Format::kBitmap
                                                                          : Format::kList);
    h.count = end - begin;
    for (size_t i = begin; i < end; ++i) offs.push_back(r.ids[i] - range.lo);
    PutIds(offs, range.size(), &out);
    size_t at = out.size();
    out.reserve(at + h.count * rb + tail_bytes);
    out.resize(at + h.count * rb);
    if (h.count > 0)
      StoreValues(t, r.vals.data() + begin * t.dim, h.count * t.dim, out.data() + at);
  } else if (enc == Encoding::kBlocks) {
    // Blocks are aligned to the range start; the last one may be short (padded with zero rows).
    h.format = static_cast<uint32_t>(Format::kBlocks);
    uint64_t nblocks = BlockCount(range, block_rows);
    for (size_t i = begin; i < end; ++i) {
      uint64_t b = (r.ids[i] - range.lo) / block_rows;
      if (offs.empty() || offs.back() != b) offs.push_back(b);
    }
    h.count = offs.size();
    h.id_format =
        static_cast<uint32_t>(UseBitmap(offs.size(), nblocks) ? Format::kBitmap : Format::kList);
    PutIds(offs, nblocks, &out);
    size_t mask_bytes = BitmapBytes(block_rows), block_bytes = mask_bytes + block_rows * rb;
    size_t at = out.size();
    out.resize(at + offs.size() * block_bytes, 0);
    std::vector<uint8_t> zero(rb, 0);
    size_t i = begin;
    for (size_t k = 0; k < offs.size(); ++k) {
      uint8_t* blk = out.data() + at + k * block_bytes;
      for (; i < end && (r.ids[i] - range.lo) / block_rows == offs[k]; ++i) {
        uint64_t j = (r.ids[i] - range.lo) % block_rows;
        blk[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
        StoreValues(t, r.vals.data() + i * t.dim, t.dim, blk + mask_bytes + j * rb);
      }
    }
  } else {
    h.format = static_cast<uint32_t>(Format::kDense);
    h.count = end - begin;
    size_t mask_at = out.size();
    out.reserve(mask_at + BitmapBytes(range.size()) + range.size() * rb + tail_bytes);
    out.resize(mask_at + BitmapBytes(range.size()) + range.size() * rb, 0);
    uint8_t* rows_at = out.data() + mask_at + BitmapBytes(range.size());
    for (size_t i = begin; i < end; ++i) {
      uint64_t o = r.ids[i] - range.lo;
      out[mask_at + o / 8] |= static_cast<uint8_t>(1u << (o % 8));
      StoreValues(t, r.vals.data() + i * t.dim, t.dim, rows_at + o * rb);
    }
  }
  std::memcpy(out.data(), &h, sizeof(h));
  out.resize(out.size() + tail_bytes,
             0);  // in the capacity reserved above (sparse, dense), else grows once
  return out;
}

}  // namespace

std::vector<uint8_t> Encode(Encoding enc, const Rows& r, size_t begin, size_t end, IdRange range,
                            const Table& t, uint64_t block_rows) {
  return EncodeWithTail(enc, r, begin, end, range, t, block_rows, 0);
}

std::vector<uint8_t> EncodeTrailed(Encoding enc, const Rows& r, size_t begin, size_t end,
                                   IdRange range, const Table& t, uint64_t block_rows,
                                   uint64_t trailer) {
  std::vector<uint8_t> m = EncodeWithTail(enc, r, begin, end, range, t, block_rows, kTrailerBytes);
  std::memcpy(m.data() + m.size() - kTrailerBytes, &trailer, kTrailerBytes);
  return m;
}

Result<uint64_t> ReadTrailer(const uint8_t* data, size_t len, size_t min_encoding,
                             std::string_view what) {
  if (len < min_encoding + kTrailerBytes)
    return ProtocolError(std::string(what) + ": message shorter than its framing");
  uint64_t trailer = 0;
  std::memcpy(&trailer, data + len - kTrailerBytes, kTrailerBytes);
  return trailer;
}

Result<Rows> Decode(const uint8_t* data, size_t len, IdRange range, const Table& t,
                    uint64_t block_rows) {
  if (len < sizeof(WireHeader)) return ProtocolError("sparse payload shorter than its header");
  WireHeader h;
  std::memcpy(&h, data, sizeof(h));
  const uint8_t* p = data + sizeof(h);
  const uint8_t* end = data + len;
  uint64_t rb = t.row_bytes();
  Rows r;
  std::vector<uint64_t> offs;
  auto format = static_cast<Format>(h.format);
  if (format == Format::kList || format == Format::kBitmap) {
    if (h.count > range.size()) return ProtocolError("sparse payload: more rows than its range");
    OUTRIDER_RETURN_IF_ERROR(
        GetIds(p, end, h.count, range.size(), format == Format::kBitmap, &offs));
    if (static_cast<uint64_t>(end - p) != h.count * rb)
      return ProtocolError("sparse payload: value bytes disagree with the row count");
    r.ids.resize(h.count);
    for (uint64_t i = 0; i < h.count; ++i) r.ids[i] = range.lo + offs[i];
    r.vals.resize(h.count * t.dim);
    if (h.count > 0) LoadValues(t, p, r.vals.size(), r.vals.data());
    return r;
  }
  if (format == Format::kBlocks) {
    uint64_t nblocks = BlockCount(range, block_rows);
    if (h.count > nblocks) return ProtocolError("sparse payload: more blocks than its range");
    auto idf = static_cast<Format>(h.id_format);
    if (idf != Format::kList && idf != Format::kBitmap)
      return ProtocolError("sparse payload: unknown block id format");
    OUTRIDER_RETURN_IF_ERROR(GetIds(p, end, h.count, nblocks, idf == Format::kBitmap, &offs));
    uint64_t mask_bytes = BitmapBytes(block_rows), block_bytes = mask_bytes + block_rows * rb;
    if (static_cast<uint64_t>(end - p) != h.count * block_bytes)
      return ProtocolError("sparse payload: block bytes disagree with the block count");
    for (uint64_t k = 0; k < h.count; ++k) {
      const uint8_t* blk = p + k * block_bytes;
      for (uint64_t j = 0; j < block_rows; ++j) {
        if (!(blk[j / 8] & (1u << (j % 8)))) continue;
        uint64_t id = range.lo + offs[k] * block_rows + j;
        if (id >= range.hi) return ProtocolError("sparse payload: block row past the range");
        r.ids.push_back(id);
        size_t at = r.vals.size();
        r.vals.resize(at + t.dim);
        LoadValues(t, blk + mask_bytes + j * rb, t.dim, r.vals.data() + at);
      }
    }
    return r;
  }
  if (format == Format::kDense) {
    uint64_t mask_bytes = BitmapBytes(range.size());
    if (static_cast<uint64_t>(end - p) != mask_bytes + range.size() * rb)
      return ProtocolError("sparse payload: dense range has the wrong size");
    OUTRIDER_RETURN_IF_ERROR(GetIds(p, end, h.count, range.size(), true, &offs));
    r.ids.resize(offs.size());
    r.vals.resize(offs.size() * t.dim);
    for (size_t i = 0; i < offs.size(); ++i) {
      r.ids[i] = range.lo + offs[i];
      LoadValues(t, p + offs[i] * rb, t.dim, r.vals.data() + i * t.dim);
    }
    return r;
  }
  return ProtocolError("sparse payload: unknown format " + std::to_string(h.format));
}

}  // namespace outrider::agent::sparse
