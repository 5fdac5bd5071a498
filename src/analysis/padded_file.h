// A file's bytes in memory followed by zeroed padding, as simdjson needs, without copying the file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"

namespace nodescope::analysis {

// A regular file is mapped read-only: an anonymous PROT_READ reservation of size + padding
// (rounded up to pages) with the file mapped over its front, so the bytes past the end of the file
// read as zeros. Pipes and other non-regular files are read into a heap buffer instead.
// If another process truncates a mapped file while it is read, the reader gets SIGBUS: the
// price of not copying.
class PaddedFile {
 public:
  // Errors: NOT_FOUND, PERMISSION_DENIED, INVALID_ARGUMENT (a directory), INTERNAL (mmap/read).
  // An empty file is not an error here: size() is 0.
  static StatusOr<PaddedFile> Open(const std::string& path, size_t padding);

  PaddedFile(PaddedFile&& other) noexcept;
  PaddedFile& operator=(PaddedFile&& other) noexcept;
  PaddedFile(const PaddedFile&) = delete;
  PaddedFile& operator=(const PaddedFile&) = delete;
  ~PaddedFile();

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // Readable bytes from data(): at least size() + the padding asked for.
  size_t capacity() const { return capacity_; }
  bool mapped() const { return mapping_ != nullptr; }

 private:
  PaddedFile() = default;
  void Release();

  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  void* mapping_ = nullptr;  // the whole reservation, when mapped
  size_t mapping_bytes_ = 0;
  std::vector<char> heap_;  // when read, not mapped (moving it keeps data_ valid)
};

}  // namespace nodescope::analysis
