// The one way nodescope writes a file others read (a trace, a picture): whole or not at all.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace nodescope {

// The policy: bytes go to a temporary file in the same folder as `path` (PATH.tmp-XXXXXX, made
// by mkstemp, given the mode a plain open() would give: 0666 less the umask), which is fsynced
// and then renamed over `path`. A reader sees the old file or the whole new one, and a crash
// after Commit() keeps the new one. On any failure, or when the object goes away uncommitted,
// the temporary file is removed and `path` is left as it was. Every error names the file.
//
//   StatusOr<AtomicFile> file = AtomicFile::Create(path);
//   ... write(file->fd(), ...) ...
//   Status s = file->Commit();
class AtomicFile {
 public:
  // Errors: the errno of mkstemp (NOT_FOUND for a missing folder, PERMISSION_DENIED for one not
  // writable), with a message naming the temporary file.
  static StatusOr<AtomicFile> Create(const std::string& path);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  // The temporary file, open for writing.
  int fd() const { return fd_; }
  const std::string& temp_path() const { return temp_; }

  // Writes all of `bytes` (EINTR and short writes retried).
  Status Write(std::string_view bytes);
  // fsync, close, rename onto the final path. Call once.
  Status Commit();

 private:
  AtomicFile(std::string path, std::string temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}
  void Discard();

  std::string path_;
  std::string temp_;
  int fd_ = -1;
  bool done_ = false;
};

// `bytes` written to `path` through an AtomicFile.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace nodescope
