// Status / StatusOr: the one error style of nodescope (no exceptions across API or callback edges).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace nodescope {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,
  kNotFound = 2,
  kUnavailable = 3,    // no GPU, no driver, vendor SDK missing
  kAlreadyExists = 4,  // e.g. another profiler already subscribed
  kFailedPrecondition = 5,
  kDataLoss = 6,  // malformed or truncated input
  kInternal = 7,
  kPermissionDenied = 8,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "NOT_FOUND: program 'foo' not found".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFoundError(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status UnavailableError(std::string m) {
  return Status(StatusCode::kUnavailable, std::move(m));
}
inline Status AlreadyExistsError(std::string m) {
  return Status(StatusCode::kAlreadyExists, std::move(m));
}
inline Status FailedPreconditionError(std::string m) {
  return Status(StatusCode::kFailedPrecondition, std::move(m));
}
inline Status DataLossError(std::string m) { return Status(StatusCode::kDataLoss, std::move(m)); }
inline Status InternalError(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status PermissionDeniedError(std::string m) {
  return Status(StatusCode::kPermissionDenied, std::move(m));
}
// An error from errno, e.g. ErrnoError("open out.json").
Status ErrnoError(const std::string& what, int err);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "StatusOr built from an OK status without a value");
    if (status_.ok()) status_ = InternalError("StatusOr constructed from OK status");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define NODESCOPE_CONCAT_INNER(a, b) a##b
#define NODESCOPE_CONCAT(a, b) NODESCOPE_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                \
  do {                                       \
    ::nodescope::Status _ns_status = (expr); \
    if (!_ns_status.ok()) return _ns_status; \
  } while (0)

#define NODESCOPE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  NODESCOPE_ASSIGN_OR_RETURN_IMPL(NODESCOPE_CONCAT(_ns_statusor_, __LINE__), lhs, expr)

}  // namespace nodescope
