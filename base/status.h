// Status and Result<T>: errors are values. A small code vocabulary shared by agent and shim; the
// numeric values are part of the wire protocol (completion entries carry them) and of the C API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "base/check.h"

namespace outrider {

// Values are stable: they travel in completion entries and equal the C API's OUTRIDER_ERR_* codes.
enum class Code : int32_t {
  kOk = 0,
  kInvalidArgument = 1,
  kFailedPrecondition = 2,
  kUnavailable = 3,
  kDeadlineExceeded = 4,
  kPeerLost = 5,
  kMismatch = 6,
  kInternal = 7,
  kResourceExhausted = 8,
  kPermissionDenied = 9,
  kProtocol = 10,
  kCancelled = 11,
  kOutputTooSmall = 12,  // the result does not fit the caller's buffer; nothing was written
};
inline constexpr int32_t kMaxCode = 12;

std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "PEER_LOST: local rank 1 disconnected".
  std::string ToString() const;
  // Prefixes context: "registering region: <message>".
  Status Annotate(std::string_view context) const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {Code::kFailedPrecondition, std::move(m)};
}
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }
inline Status PeerLost(std::string m) { return {Code::kPeerLost, std::move(m)}; }
inline Status Mismatch(std::string m) { return {Code::kMismatch, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
inline Status ProtocolError(std::string m) { return {Code::kProtocol, std::move(m)}; }
inline Status Cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
inline Status OutputTooSmall(std::string m) { return {Code::kOutputTooSmall, std::move(m)}; }
// Converts an errno value: "what: strerror(err)" with a code chosen from err.
Status ErrnoStatus(std::string_view what, int err);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    OUTRIDER_CHECK(!std::get<Status>(v_).ok());
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  T& value() & {
    OUTRIDER_CHECK(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    OUTRIDER_CHECK(ok());
    return std::get<T>(std::move(v_));
  }
  const T& value() const& {
    OUTRIDER_CHECK(ok());
    return std::get<T>(v_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace outrider

#define OUTRIDER_CONCAT_INNER(a, b) a##b
#define OUTRIDER_CONCAT(a, b) OUTRIDER_CONCAT_INNER(a, b)

#define OUTRIDER_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::outrider::Status _st = (expr);   \
    if (!_st.ok()) return _st;         \
  } while (0)

#define OUTRIDER_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#define OUTRIDER_ASSIGN_OR_RETURN(lhs, expr) \
  OUTRIDER_ASSIGN_OR_RETURN_IMPL(OUTRIDER_CONCAT(_res_, __LINE__), lhs, expr)
