// Whole-or-nothing file writes: temporary file in the same folder, fsync, rename; devices and
// FIFOs written in place.
#include "base/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <utility>

namespace nodescope {
namespace {

// A temporary file of a dead writer is removed only once it has not been written for this long:
// a writer in another pid namespace (a container sharing the folder) has a pid we cannot see.
constexpr time_t kStaleTemporarySeconds = 10;

bool SameFile(const FileIdentity& a, const FileIdentity& b) {
  return a.exists == b.exists && a.dev == b.dev && a.ino == b.ino && a.size == b.size &&
         a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
}

// A symbolic link to a regular file is written through: the file it names is replaced.
std::string WrittenPath(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string resolved = real;
  std::free(real);
  return stat(resolved.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? resolved : path;
}

// rename() that fails with EEXIST instead of replacing a file that is there.
int RenameNoReplace(const std::string& from, const std::string& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  // A file system without RENAME_NOREPLACE: link() refuses an existing name as well.
  if (link(from.c_str(), to.c_str()) == 0) {
    unlink(from.c_str());
    return 0;
  }
  if (errno == EEXIST) return -1;
  if (access(to.c_str(), F_OK) == 0) {  // no hard links either: check, then rename
    errno = EEXIST;
    return -1;
  }
  return rename(from.c_str(), to.c_str());
}

// Removes PATH.tmp-<pid>-XXXXXX files of writers that are gone.
void SweepStaleTemporaries(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  const time_t now = time(nullptr);
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.size() != dash + 7) continue;
    long pid = 0;
    bool digits = true;
    for (size_t i = 0; i < dash && digits; ++i) {
      digits = rest[i] >= '0' && rest[i] <= '9' && i < 9;
      pid = pid * 10 + (rest[i] - '0');
    }
    if (!digits || pid <= 0 || pid == getpid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or unknown
    struct stat st {};
    if (fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || now - st.st_mtim.tv_sec < kStaleTemporarySeconds) {
      continue;
    }
    unlinkat(dirfd(d), name.c_str(), 0);
  }
  closedir(d);
}

}  // namespace

FileIdentity IdentifyFile(const std::string& path) {
  FileIdentity id;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return id;
  id.exists = true;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = st.st_size;
  id.mtime = st.st_mtim;
  return id;
}

StatusOr<OutputKind> ClassifyOutput(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return OutputKind::kReplace;  // to be made
  if (S_ISREG(st.st_mode)) return OutputKind::kReplace;
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return OutputKind::kDirect;
  const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISBLK(st.st_mode)  ? "a block device (nodescope never writes onto a disk)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a file";
  return InvalidArgumentError("cannot write to '" + path + "': it is " + what);
}

namespace {

// `path` with `tag` before its extension.
std::string TaggedPath(const std::string& path, const std::string& tag) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot <= slash + 1)) {
    return path + tag;
  }
  return path.substr(0, dot) + tag + path.substr(dot);
}

// "-<pid>", appended piece by piece: g++ 12 at -O3 misreads `"-" + std::to_string(pid)` (a
// one-character literal prepended to a temporary) as an overlapping memcpy (-Wrestrict, GCC bug
// 105329).
std::string PidTag(long pid) {
  std::string tag = "-";
  tag += std::to_string(pid);
  return tag;
}

}  // namespace

std::string PidNamedPath(const std::string& path, long pid) {
  return TaggedPath(path, PidTag(pid));
}

StatusOr<AtomicFile> AtomicFile::Create(const std::string& path, const FileIdentity* before) {
  StatusOr<OutputKind> kind = ClassifyOutput(path);
  if (!kind.ok()) return kind.status();
  if (*kind == OutputKind::kDirect) {
    // O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of blocking the exit forever.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
      const int err = errno;
      if (err == ENXIO) {
        return UnavailableError("cannot write to '" + path + "': no process reads that FIFO");
      }
      return ErrnoError("open " + path, err);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return AtomicFile(path, path, "", fd, FileIdentity{});
  }
  std::string target = WrittenPath(path);
  const FileIdentity identity = before != nullptr ? *before : IdentifyFile(target);
  SweepStaleTemporaries(target);
  std::string temp = target + ".tmp-" + std::to_string(getpid()) + "-XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError("cannot create " + temp + " (is the directory writable?)", err);
  }
  AtomicFile file(path, std::move(target), std::move(temp), fd, identity);
  // mkstemp makes the file 0600: kept so (less what the umask takes), since a trace names the
  // program's kernels, ranges and command.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0600 & ~mask) != 0) return ErrnoError("chmod " + file.temp_, errno);
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : requested_(std::move(other.requested_)),
      path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      before_(other.before_),
      done_(std::exchange(other.done_, true)),
      conflict_(other.conflict_) {}

AtomicFile::~AtomicFile() { Discard(); }

void AtomicFile::Discard() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Status AtomicFile::Write(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write " + (temp_.empty() ? path_ : temp_), errno);
    done += static_cast<size_t>(n);
  }
  return OkStatus();
}

Status AtomicFile::Publish() {
  const int fd = std::exchange(fd_, -1);
  if (temp_.empty()) {
    // A device or FIFO: fsync means nothing to most (EINVAL); close reports a lost write.
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) {
      const int err = errno;
      ::close(fd);
      return ErrnoError("fsync " + path_, err);
    }
    if (::close(fd) != 0) return ErrnoError("close " + path_, errno);
    return OkStatus();
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError("fsync " + temp_, err);
  }
  if (::close(fd) != 0) return ErrnoError("close " + temp_, errno);
  const FileIdentity now = IdentifyFile(path_);
  bool taken = now.exists && !SameFile(now, before_);
  if (!taken) {
    if (now.exists ? ::rename(temp_.c_str(), path_.c_str()) == 0
                   : RenameNoReplace(temp_, path_) == 0) {
      return OkStatus();
    }
    if (errno != EEXIST) return ErrnoError("rename " + temp_ + " to " + path_, errno);
  }
  // Another writer took the path while this one ran: that file stays, this one is named by pid.
  // Beside the path asked for (beside a symbolic link, not its target), as the caller knows it.
  const std::string by_pid = PidNamedPath(requested_, getpid());
  for (int i = 0; i < 100; ++i) {
    const std::string candidate =
        i == 0 ? by_pid : TaggedPath(requested_, PidTag(getpid()) + "-" + std::to_string(i));
    if (RenameNoReplace(temp_, candidate) == 0) {
      path_ = candidate;
      conflict_ = true;
      return OkStatus();
    }
    if (errno != EEXIST) return ErrnoError("rename " + temp_ + " to " + candidate, errno);
  }
  return AlreadyExistsError("cannot name " + temp_ + ": " + by_pid + " and 99 others exist");
}

Status AtomicFile::Commit() {
  Status status = Publish();
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
