// Whole-or-nothing file writes: temporary file in the same folder, fsync, rename.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

namespace nodescope {

StatusOr<AtomicFile> AtomicFile::Create(const std::string& path) {
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError("cannot create " + temp + " (is the directory writable?)", err);
  }
  AtomicFile file(path, std::move(temp), fd);
  // mkstemp makes the file 0600; give it the mode a plain open() would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return ErrnoError("chmod " + file.temp_, errno);
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      done_(std::exchange(other.done_, true)) {}

AtomicFile::~AtomicFile() { Discard(); }

void AtomicFile::Discard() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
}

Status AtomicFile::Write(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write " + temp_, errno);
    done += static_cast<size_t>(n);
  }
  return OkStatus();
}

Status AtomicFile::Commit() {
  Status status = OkStatus();
  if (::fsync(fd_) != 0) status = ErrnoError("fsync " + temp_, errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 && status.ok()) status = ErrnoError("close " + temp_, errno);
  if (status.ok() && ::rename(temp_.c_str(), path_.c_str()) != 0) {
    status = ErrnoError("rename " + temp_ + " to " + path_, errno);
  }
  if (status.ok()) {
    done_ = true;
  } else {
    Discard();
  }
  return status;
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  StatusOr<AtomicFile> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  Status status = file->Write(bytes);
  if (!status.ok()) return status;  // the destructor removes the temporary file
  return file->Commit();
}

}  // namespace nodescope
