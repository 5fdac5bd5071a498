// The bytes of a trace a window at a time: read from a file or memory, with room for a prefix
// before them and simdjson's padding after them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace nodescope::analysis {

// Where the bytes come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes into `dst`; 0 at the end.
  virtual StatusOr<size_t> Read(char* dst, size_t n) = 0;

  // A file, a pipe or a device, read with read(2). Errors: NOT_FOUND, PERMISSION_DENIED,
  // INVALID_ARGUMENT (a directory).
  static StatusOr<std::unique_ptr<ByteSource>> OpenFile(const std::string& path);
  // `bytes` must outlive the source.
  static std::unique_ptr<ByteSource> OfMemory(std::string_view bytes);
};

// Holds the source's bytes from some offset on. Bytes before that offset are dropped as it
// moves forward, so memory follows the window, not the file.
class WindowBuffer {
 public:
  static constexpr size_t kPrefixRoom = 16;  // writable bytes before data()

  WindowBuffer(ByteSource& source, size_t padding) : source_(source), padding_(padding) {}

  // Moves the start to file offset `pos` (within what is held), then reads until
  // `bytes` bytes from there are held or the source ends.
  Status Fill(uint64_t pos, size_t bytes);

  uint64_t pos() const { return pos_; }
  char* data() { return buf_.data() + kPrefixRoom; }
  size_t size() const { return held_; }    // bytes held from pos()
  bool at_end() const { return at_end_; }  // nothing left in the source past what is held
  // Writable bytes from data(): at least size() + the padding.
  size_t capacity() const { return buf_.size() - kPrefixRoom; }

 private:
  ByteSource& source_;
  size_t padding_;
  std::vector<char> buf_;
  uint64_t pos_ = 0;
  size_t held_ = 0;
  bool at_end_ = false;
};

}  // namespace nodescope::analysis
