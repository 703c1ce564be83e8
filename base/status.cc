// Status formatting and errno conversion (the one place errno becomes a Code).
#include "base/status.h"

#include <cerrno>
#include <cstring>

namespace outrider {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case Code::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case Code::kUnavailable:
      return "UNAVAILABLE";
    case Code::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case Code::kPeerLost:
      return "PEER_LOST";
    case Code::kMismatch:
      return "MISMATCH";
    case Code::kInternal:
      return "INTERNAL";
    case Code::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case Code::kPermissionDenied:
      return "PERMISSION_DENIED";
    case Code::kProtocol:
      return "PROTOCOL";
    case Code::kCancelled:
      return "CANCELLED";
    case Code::kOutputTooSmall:
      return "OUTPUT_TOO_SMALL";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code_));
  s += ": ";
  s += message_;
  return s;
}

Status Status::Annotate(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += message_;
  return Status(code_, std::move(m));
}

Status ErrnoStatus(std::string_view what, int err) {
  std::string m(what);
  m += ": ";
  m += std::strerror(err);
  Code code = Code::kInternal;
  switch (err) {
    case EINVAL:
    case EBADF:
    case ENOTSOCK:
      code = Code::kInvalidArgument;
      break;
    case ENOENT:
    case ECONNREFUSED:
    case ECONNRESET:
    case EPIPE:
    case ENOTCONN:
    case EAGAIN:
      code = Code::kUnavailable;
      break;
    case EACCES:
    case EPERM:
      code = Code::kPermissionDenied;
      break;
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case ENOSPC:
      code = Code::kResourceExhausted;
      break;
    case ETIMEDOUT:
      code = Code::kDeadlineExceeded;
      break;
    default:
      break;
  }
  return Status(code, std::move(m));
}

}  // namespace outrider
