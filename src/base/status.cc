// Status formatting.
#include "base/status.h"

#include <cerrno>
#include <cstring>

namespace nodescope {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kDataLoss:
      return "DATA_LOSS";
    case StatusCode::kInternal:
      return "INTERNAL";
    case StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status ErrnoError(const std::string& what, int err) {
  StatusCode code = StatusCode::kInternal;
  if (err == ENOENT) code = StatusCode::kNotFound;
  if (err == EACCES || err == EPERM || err == EROFS) code = StatusCode::kPermissionDenied;
  return Status(code, what + ": " + std::strerror(err));
}

}  // namespace nodescope
