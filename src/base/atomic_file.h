// The one way nodescope writes a file others read (a trace, a picture): whole or not at all.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace nodescope {

// What a path was when a writer first looked at it (a traced run looks when it starts and
// writes when the program ends): absent, or this file as it was then.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
};
FileIdentity IdentifyFile(const std::string& path);

// How `path` will be written: kReplace for a regular file or a path that does not exist yet
// (through a temporary file and a rename), kDirect for a character device or a FIFO (opened and
// written in place: /dev/null, /dev/stdout on a terminal or a pipe, `>(gzip > t.gz)`), or an
// error for what cannot hold a trace (a folder, a block device, a socket).
enum class OutputKind { kReplace, kDirect };
StatusOr<OutputKind> ClassifyOutput(const std::string& path);

// The policy for a regular file: bytes go to a temporary file in the same folder as the file
// (PATH.tmp-<pid>-XXXXXX, made by mkstemp, mode 0600 less the umask: traces name the program's
// kernels and ranges), which is fsynced and then renamed over it. A reader sees the old file or
// the whole new one, and a crash after Commit() keeps the new one. A symbolic link is written
// through (its target is replaced, the link kept), as a shell's `>` would.
//
// Another writer: when `path` changed between `before` (IdentifyFile when the writer began; by
// default when Create ran) and Commit(), or appeared though it was absent, another writer took
// it meanwhile; Commit() then leaves that file alone and names this one by pid instead
// (STEM-<pid>.EXT), and conflict() says so. The rename never replaces a file that appeared
// (RENAME_NOREPLACE).
//
// Leftovers: temporary files of this path whose process is gone (killed while writing) are
// removed by the next Create() for the same path.
//
// On any failure, or when the object goes away uncommitted, the temporary file is removed and
// `path` is left as it was. Every error names the file.
//
//   StatusOr<AtomicFile> file = AtomicFile::Create(path);
//   ... file->Write(...) ...
//   Status s = file->Commit();   // file->path() is where the bytes are
class AtomicFile {
 public:
  // Errors: those of ClassifyOutput; the errno of mkstemp (NOT_FOUND for a missing folder,
  // PERMISSION_DENIED for one not writable) with a message naming the temporary file; for a
  // FIFO that no process reads, UNAVAILABLE (opening it would wait forever).
  static StatusOr<AtomicFile> Create(const std::string& path, const FileIdentity* before = nullptr);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  // The file being written: the temporary file, or the device or FIFO itself.
  int fd() const { return fd_; }
  const std::string& temp_path() const { return temp_; }
  // The name errors should use: the path asked for.
  const std::string& name() const { return requested_; }
  // Where the bytes are, as the caller names it: the path asked for (a symbolic link stays the
  // name), or after a conflict the pid-named path beside it.
  const std::string& path() const { return conflict_ ? path_ : requested_; }
  bool conflict() const { return conflict_; }
  bool direct() const { return temp_.empty(); }

  // Writes all of `bytes` (EINTR and short writes retried).
  Status Write(std::string_view bytes);
  // fsync, close, rename onto the final path (see the class comment). Call once.
  Status Commit();

 private:
  AtomicFile(std::string requested, std::string path, std::string temp, int fd, FileIdentity before)
      : requested_(std::move(requested)),
        path_(std::move(path)),
        temp_(std::move(temp)),
        fd_(fd),
        before_(before) {}
  Status Publish();
  void Discard();

  std::string requested_;
  std::string path_;
  std::string temp_;  // empty when writing in place
  int fd_ = -1;
  FileIdentity before_;
  bool done_ = false;
  bool conflict_ = false;
};

// `path` with the pid before its extension: out.json -> out-1234.json, out -> out-1234.
std::string PidNamedPath(const std::string& path, long pid);

// `bytes` written to `path` through an AtomicFile.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace nodescope
