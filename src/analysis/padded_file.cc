// Mapping (or, for pipes, reading) a trace file with simdjson's trailing padding.
#include "analysis/padded_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace nodescope::analysis {
namespace {

// Closes a file descriptor on every return path.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { close(fd_); }

 private:
  int fd_;
};

}  // namespace

StatusOr<PaddedFile> PaddedFile::Open(const std::string& path, size_t padding) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  FdCloser closer(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(st.st_mode)) return InvalidArgumentError(path + ": is a directory");

  PaddedFile file;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (size > SIZE_MAX - padding - page) return InvalidArgumentError(path + ": file too large");
    const size_t total = (size + padding + page - 1) / page * page;
    void* reservation = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reservation == MAP_FAILED) return ErrnoError(path + ": mmap", errno);
    // Bytes of the last file page past the end of the file read as zeros; the pages after it
    // stay anonymous (zeros too). MAP_POPULATE: every page is read anyway, fewer faults.
    void* front = mmap(reservation, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0);
    if (front == MAP_FAILED) {
      int err = errno;
      munmap(reservation, total);
      return ErrnoError(path + ": mmap", err);
    }
    madvise(reservation, size, MADV_SEQUENTIAL);
    file.mapping_ = reservation;
    file.mapping_bytes_ = total;
    file.data_ = static_cast<const char*>(reservation);
    file.size_ = size;
    file.capacity_ = total;
    return file;
  }

  // A pipe, a character device, /proc files (st_size 0) or an empty file: read to the end.
  std::vector<char> buf(64 * 1024 + padding);
  size_t size = 0;
  while (true) {
    if (buf.size() - size < padding + 4096) buf.resize(buf.size() * 2);
    ssize_t n = read(fd, buf.data() + size, buf.size() - size - padding);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError(path + ": read", errno);
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  std::fill(buf.begin() + static_cast<std::ptrdiff_t>(size), buf.end(), '\0');
  file.heap_ = std::move(buf);
  file.data_ = file.heap_.data();
  file.size_ = size;
  file.capacity_ = file.heap_.size();
  return file;
}

PaddedFile::PaddedFile(PaddedFile&& other) noexcept { *this = std::move(other); }

PaddedFile& PaddedFile::operator=(PaddedFile&& other) noexcept {
  if (this == &other) return *this;
  Release();
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  mapping_ = std::exchange(other.mapping_, nullptr);
  mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
  heap_ = std::move(other.heap_);
  other.heap_.clear();
  return *this;
}

PaddedFile::~PaddedFile() { Release(); }

void PaddedFile::Release() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
  mapping_bytes_ = 0;
  heap_.clear();
  heap_.shrink_to_fit();
  data_ = nullptr;
  size_ = capacity_ = 0;
}

}  // namespace nodescope::analysis
