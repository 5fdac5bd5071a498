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
  static Session Start() {
    Session s;
    s.handle_ = nodescope_start();
    if (s.handle_ == nullptr) s.error_ = nodescope_last_error();
    return s;
  }
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
  nodescope_summary Summary() const {
    nodescope_summary s{};
    if (handle_ != nullptr) nodescope_get_summary(handle_, &s);
    return s;
  }

 private:
  Session() = default;
  bool Check(bool ok) {
    if (!ok) error_ = handle_ == nullptr ? "session was not started" : nodescope_last_error();
    return ok;
  }
  nodescope_session* handle_ = nullptr;
  std::string error_;
};

}  // namespace nodescope
