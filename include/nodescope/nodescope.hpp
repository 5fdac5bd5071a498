// nodescope's C++ API: an RAII session over the C API in nodescope.h.
#pragma once

#include <string>
#include <utility>

#include "nodescope/nodescope.h"

namespace nodescope {

// Traces the device activity of this process between Start() and Stop():
//
//   auto session = nodescope::Session::Start();
//   if (!session.ok()) { std::cerr << session.error() << "\n"; return 1; }
//   ... launch work ...
//   session.Stop();
//   session.Write("trace.json");
class Session {
 public:
  static Session Start() { return StartWithOptions(nullptr); }
  // `options` as nodescope_start_with_options() takes them: "backend=rocm;ring=64k".
  static Session Start(const std::string& options) { return StartWithOptions(options.c_str()); }
  Session(Session&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), error_(std::move(other.error_)) {}
  Session& operator=(Session&& other) noexcept {
    if (this != &other) {
      nodescope_destroy(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
      error_ = std::move(other.error_);
    }
    return *this;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { nodescope_destroy(handle_); }

  bool ok() const { return handle_ != nullptr && error_.empty(); }
  const std::string& error() const { return error_; }

  bool Stop() { return Check(handle_ != nullptr && nodescope_stop(handle_) == 0); }
  bool Write(const std::string& path) {
    return Check(handle_ != nullptr && nodescope_write(handle_, path.c_str()) == 0);
  }
  // Writes the window held now while tracing goes on (nodescope_capture()).
  bool Capture(const std::string& path) {
    return Check(handle_ != nullptr && nodescope_capture(handle_, path.c_str()) == 0);
  }
  nodescope_summary Summary() const {
    nodescope_summary s{};
    if (handle_ != nullptr) nodescope_get_summary(handle_, &s);
    return s;
  }

 private:
  Session() = default;
  static Session StartWithOptions(const char* options) {
    Session s;
    s.handle_ = nodescope_start_with_options(options);
    if (s.handle_ == nullptr) s.error_ = nodescope_last_error();
    return s;
  }
  bool Check(bool ok) {
    if (!ok) error_ = handle_ == nullptr ? "session was not started" : nodescope_last_error();
    return ok;
  }
  nodescope_session* handle_ = nullptr;
  std::string error_;
};

// A push/pop range for the enclosing scope: NODESCOPE_RANGE("layer.0/attn");
class ScopedRange {
 public:
  explicit ScopedRange(const char* name) { nodescope_range_push(name); }
  ~ScopedRange() { nodescope_range_pop(); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};

}  // namespace nodescope

// Compiled out entirely with -DNODESCOPE_DISABLE_RANGES.
#ifndef NODESCOPE_DISABLE_RANGES
#define NODESCOPE_RANGE_CONCAT_INNER(a, b) a##b
#define NODESCOPE_RANGE_CONCAT(a, b) NODESCOPE_RANGE_CONCAT_INNER(a, b)
#define NODESCOPE_RANGE(name) \
  ::nodescope::ScopedRange NODESCOPE_RANGE_CONCAT(nodescope_range_, __LINE__)(name)
#else
#define NODESCOPE_RANGE(name)
#endif
