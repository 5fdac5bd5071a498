// Standard streams, escaped messages and argument checks shared by check, nodes and plot.
#include "cli_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/terminal_text.h"

namespace nodescope::cli {

void GuardStandardStreams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // Opened for the other direction: every read of a guarded stdin, every write to a guarded
    // stdout or stderr fails with EBADF, as on the closed descriptor.
    const int guard = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (guard >= 0 && guard != fd) {
      dup2(guard, fd);
      close(guard);
    }
  }
}

void PrintError(std::string_view command, std::string_view message) {
  const std::string text = TerminalText(message);
  std::fprintf(stderr, "nodescope %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               text.c_str());
}

bool WriteStdout(std::string_view command, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  const int error = errno;
  PrintError(command, std::string("writing the output: ") + std::strerror(error));
  return false;
}

std::string TracePath(const std::string& argument) {
  return argument == "-" ? "/dev/stdin" : argument;
}

CLI::Validator NotNegative() {
  return CLI::Validator(
      [](const std::string& s) {
        const size_t first = s.find_first_not_of(" \t");
        return first != std::string::npos && s[first] == '-' ? std::string("must not be negative")
                                                             : std::string();
      },
      "");
}

CLI::Validator NotEmpty() {
  return CLI::Validator(
      [](const std::string& s) { return s.empty() ? std::string("must not be empty") : ""; }, "");
}

}  // namespace nodescope::cli
