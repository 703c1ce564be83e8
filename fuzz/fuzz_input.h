// How the fuzz targets read their input, and how the seed generator writes it: little-endian
// integers and length-prefixed byte strings, front to back. Past the end every read yields zeros
// (or an empty string), so every input is a valid program for its target.
// Thread-safety: plain values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace outrider::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  bool empty() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  // Copies `n` bytes into `dst`, zero-filling what the input no longer has.
  void Copy(void* dst, size_t n) {
    size_t take = std::min(n, remaining());
    if (take > 0) std::memcpy(dst, p_, take);
    if (take < n) std::memset(static_cast<uint8_t*>(dst) + take, 0, n - take);
    p_ += take;
  }

  template <typename T>
  T Read() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    Copy(&v, sizeof(v));
    return v;
  }

  // A u32 length, then that many bytes (at most `max`, at most what is left).
  std::vector<uint8_t> Bytes(size_t max) {
    size_t n = std::min<size_t>({Read<uint32_t>(), max, remaining()});
    std::vector<uint8_t> out(p_, p_ + n);
    p_ += n;
    return out;
  }

  // Everything not read yet.
  std::vector<uint8_t> Rest() {
    std::vector<uint8_t> out(p_, end_);
    p_ = end_;
    return out;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// Writes what FuzzInput reads (the seed generator's side).
class FuzzOutput {
 public:
  template <typename T>
  void Put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Raw(&v, sizeof(v));
  }
  void Raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    data_.insert(data_.end(), b, b + n);
  }
  void Bytes(const void* p, size_t n) {
    Put(static_cast<uint32_t>(n));
    Raw(p, n);
  }
  void Bytes(const std::string& s) { Bytes(s.data(), s.size()); }
  void Bytes(const std::vector<uint8_t>& b) { Bytes(b.data(), b.size()); }
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  std::vector<uint8_t> data_;
};

}  // namespace outrider::fuzz
