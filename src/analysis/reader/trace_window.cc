// Reading a trace's bytes into a sliding, padded window.
#include "analysis/reader/trace_window.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <utility>

namespace nodescope::analysis {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override { close(fd_); }

  StatusOr<size_t> Read(char* dst, size_t n) override {
    while (true) {
      ssize_t got = read(fd_, dst, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) return ErrnoError(path_ + ": read", errno);
    }
  }

 private:
  std::string path_;
  int fd_;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : rest_(bytes) {}

  StatusOr<size_t> Read(char* dst, size_t n) override {
    n = std::min(n, rest_.size());
    if (n > 0) std::memcpy(dst, rest_.data(), n);
    rest_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view rest_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> ByteSource::OpenFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  auto source = std::make_unique<FileSource>(path, fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(st.st_mode)) return InvalidArgumentError(path + ": is a directory");
  if (S_ISREG(st.st_mode)) posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(std::move(source));
}

std::unique_ptr<ByteSource> ByteSource::OfMemory(std::string_view bytes) {
  return std::make_unique<MemorySource>(bytes);
}

Status WindowBuffer::Fill(uint64_t pos, size_t bytes) {
  // Keep the bytes from `pos` on; they move to the front.
  assert(pos >= pos_ && pos - pos_ <= held_);
  const size_t drop = static_cast<size_t>(std::min<uint64_t>(pos - pos_, held_));
  if (drop > 0) std::memmove(data(), data() + drop, held_ - drop);
  held_ -= drop;
  pos_ = pos;
  while (held_ < bytes && !at_end_) {
    // Room for `bytes` (or, when that is more than the source may have, a doubling of what is
    // held) plus the padding; the source fills what it can of it.
    size_t want = std::min(bytes - held_, std::max<size_t>(held_, size_t{1} << 14));
    if (buf_.size() < kPrefixRoom + held_ + want + padding_) {
      buf_.resize(kPrefixRoom + held_ + want + padding_);
    }
    ASSIGN_OR_RETURN(size_t got, source_.Read(data() + held_, capacity() - held_ - padding_));
    if (got == 0) at_end_ = true;
    held_ += got;
  }
  if (buf_.size() < kPrefixRoom + held_ + padding_) buf_.resize(kPrefixRoom + held_ + padding_);
  return OkStatus();
}

}  // namespace nodescope::analysis
