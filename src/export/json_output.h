// Buffered JSON output: appends literals, numbers and escaped strings, drains to a fd or a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace nodescope {

// Appending never fails on the spot: the first error of the sink is kept, later output is dropped,
// and Flush() returns that error. This keeps the writers' hot loops free of error checks.
class JsonOutput {
 public:
  JsonOutput(const JsonOutput&) = delete;
  JsonOutput& operator=(const JsonOutput&) = delete;
  virtual ~JsonOutput() = default;

  // Bytes copied as they are (JSON punctuation, keys known to need no escaping).
  void Raw(std::string_view s) {
    if (static_cast<size_t>(end_ - pos_) < s.size()) [[unlikely]] {
      RawSlow(s);
      return;
    }
    std::memcpy(pos_, s.data(), s.size());
    pos_ += s.size();
  }
  void Char(char c) {
    if (pos_ == end_) [[unlikely]]
      Spill();
    *pos_++ = c;
  }
  void Uint(uint64_t v);
  void Int(int64_t v);
  // `raw` copied as it is (punctuation, a key that needs no escaping: ",\"pid\":"), then a value.
  void Field(std::string_view raw, uint64_t v) {
    Raw(raw);
    Uint(v);
  }
  void StringField(std::string_view raw, std::string_view v) {
    Raw(raw);
    String(v);
  }
  // Nanoseconds written as microseconds with exactly three decimals: 123456 -> "123.456".
  // Negative values are written as "0.000".
  void MicrosFromNs(int64_t ns);
  // num / den with two to six decimals (rounded, trailing zeros trimmed): "0.50", "0.007576".
  // den == 0 writes "0.00".
  void Ratio(uint64_t num, uint64_t den);
  // A quoted JSON string. UTF-8 passes through; invalid UTF-8 becomes U+FFFD (one per maximal
  // invalid subpart), so the output is always valid JSON whatever bytes come in.
  void String(std::string_view s);

  // Drains the buffer to the sink; returns the first error seen since construction.
  Status Flush();
  const Status& status() const { return status_; }

  // Escapes `s` (with quotes) into `dst`, for callers that cache escaped text.
  static void AppendEscaped(std::string_view s, std::string& dst);

 protected:
  explicit JsonOutput(size_t capacity);
  // Writes all of `bytes` to the sink or returns why not. Not called after it has failed once.
  virtual Status Drain(std::string_view bytes) = 0;

 private:
  // Makes room for at least `n` bytes (n <= capacity).
  void Ensure(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n) [[unlikely]]
      Spill();
  }
  void Spill();
  void RawSlow(std::string_view s);

  std::unique_ptr<char[]> buf_;
  char* pos_;
  char* end_;
  size_t capacity_;
  Status status_;
};

// Writes to a file descriptor it does not own. The destructor flushes (errors are then lost:
// call Flush() to see them).
class FdJsonOutput final : public JsonOutput {
 public:
  static constexpr size_t kBufferBytes = 1 << 20;
  // `name`: the file errors name (else "fd N").
  explicit FdJsonOutput(int fd, std::string name = "")
      : JsonOutput(kBufferBytes),
        fd_(fd),
        name_(name.empty() ? "fd " + std::to_string(fd) : std::move(name)) {}
  ~FdJsonOutput() override { (void)Flush(); }

 protected:
  Status Drain(std::string_view bytes) override;

 private:
  int fd_;
  std::string name_;
};

// Collects the output in memory, for tests and small documents.
class StringJsonOutput final : public JsonOutput {
 public:
  StringJsonOutput() : JsonOutput(64 << 10) {}
  // Everything written so far.
  const std::string& str() {
    (void)Flush();
    return text_;
  }

 protected:
  Status Drain(std::string_view bytes) override {
    text_.append(bytes);
    return OkStatus();
  }

 private:
  std::string text_;
};

}  // namespace nodescope
