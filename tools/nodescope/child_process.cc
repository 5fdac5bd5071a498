// Starting, watching and reaping the traced program.
#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "base/atomic_file.h"

namespace nodescope::cli {
namespace {

std::atomic<pid_t> g_child{0};

void Forward(int sig, siginfo_t* info, void*) {
  pid_t child = g_child.load();
  // SI_KERNEL: a terminal signal that the whole foreground group, child included, already got.
  if (child > 0 && (info == nullptr || info->si_code != SI_KERNEL)) kill(child, sig);
}

// Every catchable signal whose default action ends a process is passed on to the program, so
// that none ends nodescope and leaves the program running. Not the ones a fault raises in
// nodescope itself (SEGV, BUS, FPE, ILL, ABRT, TRAP, SYS): they end nodescope, and then, like
// SIGKILL, the program's PR_SET_PDEATHSIG.
std::vector<int> ForwardedSignals() {
  std::vector<int> s = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1,   SIGUSR2, SIGALRM, SIGVTALRM,
                        SIGPROF, SIGPOLL, SIGXCPU, SIGXFSZ, SIGSTKFLT, SIGPWR,  SIGPIPE};
  for (int rt = SIGRTMIN; rt <= SIGRTMAX; ++rt) s.push_back(rt);
  return s;
}

// The signal the program gets when nodescope ends (any way, SIGKILL included): SIGKILL, since
// nothing is left to pass the program's status on, and a program that handles SIGTERM could
// otherwise run on.
constexpr int kParentDeathSignal = SIGKILL;

// Installs Forward() for `signals` (not for one the caller ignores: an ignored SIGHUP under
// nohup stays ignored, in the program too) and restores what was there.
class SignalForwarding {
 public:
  explicit SignalForwarding(const std::vector<int>& signals) {
    struct sigaction sa {};
    sa.sa_sigaction = &Forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig : signals) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
      sigaction(sig, &sa, nullptr);
      saved_.emplace_back(sig, old);
    }
  }
  ~SignalForwarding() { Restore(); }
  // Async-signal-safe: also used in the child between fork and exec.
  void Restore() {
    for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
  }

 private:
  std::vector<std::pair<int, struct sigaction>> saved_;
};

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Splits what the report pipe carries into lines, keeping at most `limits` of it.
class ReportReader {
 public:
  ReportReader(const ReportLimits& limits, ChildResult* result)
      : limits_(limits), result_(result) {}

  // Reads what the pipe holds now, at most kMaxPerCall bytes, so the caller returns to waitpid
  // even while a writer floods the pipe.
  void ReadAvailable(int fd) {
    constexpr size_t kMaxPerCall = size_t{1} << 20;
    char buf[65536];
    size_t total = 0;
    while (total < kMaxPerCall) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      Take(buf, static_cast<size_t>(n));
      total += static_cast<size_t>(n);
    }
  }

  // A last line without its newline is not a whole report line.
  void Finish() {
    Discard(pending_.size());
    pending_.clear();
  }

 private:
  void Take(const char* data, size_t n) {
    while (n > 0) {
      const char* nl = static_cast<const char*>(std::memchr(data, '\n', n));
      size_t len = nl != nullptr ? static_cast<size_t>(nl - data) : n;
      if (skipping_) {
        Discard(len);
      } else if (pending_.size() + len > limits_.max_line_bytes) {
        Discard(pending_.size() + len);
        pending_.clear();
        skipping_ = true;
      } else {
        pending_.append(data, len);
      }
      if (nl == nullptr) return;
      if (skipping_) {
        Discard(1);
        skipping_ = false;
      } else {
        EndLine();
      }
      data += len + 1;
      n -= len + 1;
    }
  }

  void EndLine() {
    if (kept_ + pending_.size() + 1 > limits_.max_total_bytes) {
      Discard(pending_.size() + 1);
    } else {
      kept_ += pending_.size() + 1;
      result_->report_lines.push_back(pending_);
    }
    pending_.clear();
  }

  void Discard(size_t n) { result_->report_bytes_discarded += n; }

  ReportLimits limits_;
  ChildResult* result_;
  std::string pending_;    // the line being read (at most max_line_bytes)
  bool skipping_ = false;  // inside a line already too long: dropped up to its newline
  size_t kept_ = 0;        // bytes of kept lines, newlines included
};

}  // namespace

StatusOr<std::string> ResolveProgram(const std::string& program, const char* path_env) {
  if (program.empty()) return NotFoundError("program '' not found");  // as env '' says
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), F_OK) != 0) {
      return NotFoundError("program '" + program + "' not found");
    }
    if (!IsExecutableFile(program)) {
      return PermissionDeniedError("program '" + program + "' is not an executable file");
    }
    return program;
  }
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_not_executable = false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    std::string dir =
        path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
    if (access(candidate.c_str(), F_OK) == 0) found_not_executable = true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (found_not_executable) {
    return PermissionDeniedError("program '" + program + "' is not executable");
  }
  return NotFoundError("program '" + program + "' not found in PATH");
}

StatusOr<timespec> CheckWritable(const std::string& path) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  StatusOr<OutputKind> kind = ClassifyOutput(path);
  if (!kind.ok()) {
    const std::string& why = kind.status().message();  // "cannot write to 'PATH': it is ..."
    return Status(kind.status().code(),
                  "cannot write the trace to '" + path + why.substr(why.rfind("': it is")));
  }
  if (*kind == OutputKind::kDirect) {
    // A device or a FIFO, written in place: not opened now (a FIFO's reader would see its end).
    if (access(path.c_str(), W_OK) != 0) {
      return ErrnoError("cannot write the trace to '" + path + "'", errno);
    }
    return now;
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    // In a sticky folder (/tmp) another user's file cannot be replaced: the rename at the end
    // would fail after the whole run.
    char* real = realpath(path.c_str(), nullptr);
    std::string resolved = real != nullptr ? real : path;
    std::free(real);
    const size_t slash = resolved.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : resolved.substr(0, slash + 1);
    struct stat dir_st {};
    if (stat(dir.c_str(), &dir_st) == 0 && (dir_st.st_mode & S_ISVTX) != 0 && geteuid() != 0 &&
        st.st_uid != geteuid() && dir_st.st_uid != geteuid()) {
      return PermissionDeniedError(
          "cannot write the trace to '" + path + "': the file belongs to another user (uid " +
          std::to_string(st.st_uid) + ") and its folder is sticky, so it cannot be replaced");
    }
  }
  std::string probe = path + ".nodescope-probe-" + std::to_string(getpid());
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) return now;  // a stale probe of an earlier run with our pid: writable
    return ErrnoError("cannot write the trace to '" + path + "'", err);
  }
  fstat(fd, &st);
  close(fd);
  unlink(probe.c_str());
  return st.st_mtim;
}

StatusOr<ChildResult> RunChild(const std::vector<std::string>& argv,
                               const std::vector<std::string>& extra_env,
                               const ReportLimits& limits) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  // The write end must survive exec in the child (and its own children).
  int child_fd = fcntl(report[1], F_DUPFD, 3);
  if (child_fd < 0) return ErrnoError("fcntl", errno);

  std::vector<std::string> env_strings = extra_env;
  env_strings.push_back(std::string(report::kFdVariable) + "=" + std::to_string(child_fd));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Forwarded signals stay blocked until g_child is set: one sent meanwhile is passed on, not lost.
  std::vector<int> forwarded = ForwardedSignals();
  sigset_t block, saved_mask;
  sigemptyset(&block);
  for (int sig : forwarded) sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, &saved_mask);
  auto forwarding = std::make_unique<SignalForwarding>(forwarded);
  pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    forwarding.reset();
    sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
    return ErrnoError("fork", err);
  }
  if (pid == 0) {
    forwarding->Restore();
    sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
    // No orphan, however nodescope ends. PDEATHSIG follows the thread that forked: this one,
    // which stays in RunChild until the program has ended.
    if (prctl(PR_SET_PDEATHSIG, kParentDeathSignal) != 0 || getppid() != parent) _exit(125);
    for (const std::string& kv : env_strings) putenv(const_cast<char*>(kv.c_str()));
    char root[48];
    std::snprintf(root, sizeof(root), "%d", static_cast<int>(getpid()));
    setenv(report::kRootPidVariable, root, 1);
    execv(args[0], args.data());
    const char* msg = "nodescope: exec failed\n";
    (void)!write(2, msg, std::strlen(msg));
    _exit(127);
  }
  g_child.store(pid);
  sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
  close(report[1]);
  close(child_fd);
  fcntl(report[0], F_SETFL, O_NONBLOCK);

  ChildResult result;
  result.pid = pid;
  ReportReader reader(limits, &result);
  int status = 0;
  while (true) {
    // Seen ended but not yet reaped (WNOWAIT): its pid cannot be reused while Forward() may
    // still send to it.
    siginfo_t info{};
    int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) break;
    if (r < 0 && errno != EINTR) {
      int err = errno;
      g_child.store(0);
      close(report[0]);
      return ErrnoError("waitid", err);
    }
    pollfd p{report[0], POLLIN, 0};
    poll(&p, 1, 50);
    reader.ReadAvailable(report[0]);
  }
  g_child.store(0);
  forwarding.reset();
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // A descendant that outlives the program may still hold the pipe: wait briefly, not forever.
  for (int i = 0; i < 10; ++i) {
    pollfd p{report[0], POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) break;
    reader.ReadAvailable(report[0]);
    if (p.revents & POLLHUP) break;
  }
  reader.Finish();
  close(report[0]);

  if (WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_status = 128 + result.signal;
  }
  return result;
}

}  // namespace nodescope::cli
