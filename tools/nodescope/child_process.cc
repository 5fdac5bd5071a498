// Starting, watching and reaping the traced program.
#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nodescope::cli {
namespace {

std::atomic<pid_t> g_child{0};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void Forward(int sig, siginfo_t* info, void*) {
  pid_t child = g_child.load();
  // SI_KERNEL: a terminal signal that the whole foreground group, child included, already got.
  if (child > 0 && (info == nullptr || info->si_code != SI_KERNEL)) kill(child, sig);
}

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

void ReadLines(int fd, std::string* pending, std::vector<std::string>* lines) {
  char buf[4096];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending->append(buf, static_cast<size_t>(n));
  }
  size_t start = 0, nl;
  while ((nl = pending->find('\n', start)) != std::string::npos) {
    lines->push_back(pending->substr(start, nl - start));
    start = nl + 1;
  }
  pending->erase(0, start);
}

}  // namespace

StatusOr<std::string> ResolveProgram(const std::string& program, const char* path_env) {
  if (program.empty()) return InvalidArgumentError("no program given");
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
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos
                                                                     : colon - start);
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

Status CheckWritable(const std::string& path) {
  std::string probe = path + ".nodescope-probe";
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return OkStatus();  // a stale probe file: the folder is writable
    return ErrnoError("cannot write the trace to '" + path + "'", errno);
  }
  close(fd);
  unlink(probe.c_str());
  return OkStatus();
}

StatusOr<ChildResult> RunChild(const std::vector<std::string>& argv,
                               const std::vector<std::string>& extra_env) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  // The write end must survive exec in the child (and its own children).
  int child_fd = fcntl(report[1], F_DUPFD, 3);
  if (child_fd < 0) return ErrnoError("fcntl", errno);

  std::vector<std::string> env_strings = extra_env;
  env_strings.push_back("NODESCOPE_REPORT_FD=" + std::to_string(child_fd));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  struct sigaction sa {};
  sa.sa_sigaction = &Forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction old[4];
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &sa, &old[i]);

  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old[i], nullptr);
    return ErrnoError("fork", err);
  }
  if (pid == 0) {
    for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old[i], nullptr);
    for (const std::string& kv : env_strings) putenv(const_cast<char*>(kv.c_str()));
    char root[48];
    std::snprintf(root, sizeof(root), "%d", static_cast<int>(getpid()));
    setenv("NODESCOPE_ROOT_PID", root, 1);
    execv(args[0], args.data());
    const char* msg = "nodescope: exec failed\n";
    (void)!write(2, msg, std::strlen(msg));
    _exit(127);
  }
  g_child.store(pid);
  close(report[1]);
  close(child_fd);
  fcntl(report[0], F_SETFL, O_NONBLOCK);

  ChildResult result;
  result.pid = pid;
  std::string pending;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      int err = errno;
      close(report[0]);
      return ErrnoError("waitpid", err);
    }
    pollfd p{report[0], POLLIN, 0};
    poll(&p, 1, 50);
    ReadLines(report[0], &pending, &result.report_lines);
  }
  g_child.store(0);
  // A descendant that outlives the program may still hold the pipe: wait briefly, not forever.
  for (int i = 0; i < 10; ++i) {
    pollfd p{report[0], POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) break;
    ReadLines(report[0], &pending, &result.report_lines);
    if (p.revents & POLLHUP) break;
  }
  close(report[0]);
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old[i], nullptr);

  if (WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_status = 128 + result.signal;
  }
  return result;
}

}  // namespace nodescope::cli
