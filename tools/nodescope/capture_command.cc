// `nodescope capture PID`: asks a process traced by `nodescope run` to write its current window
// to a new file (<trace>.capture-<n>.json) and go on; prints the path written.
#include "subcommand.h"

#include <cstdio>
#include <memory>

#include "api/capture_socket.h"
#include "base/terminal_text.h"

namespace nodescope::cli {
namespace {

constexpr int kCaptured = 0;
constexpr int kNotCaptured = 1;

struct CaptureOptions {
  long pid = 0;
  int timeout_s = 120;
};

int Capture(const CaptureOptions& opts) {
  StatusOr<std::string> path = RequestCapture(opts.pid, opts.timeout_s * 1000);
  if (!path.ok()) {
    std::fprintf(stderr, "nodescope capture: %s\n", TerminalText(path.status().message()).c_str());
    return kNotCaptured;
  }
  std::printf("%s\n", TerminalText(*path).c_str());  // the process chose it: shown escaped
  return kCaptured;
}

CLI::App* AddCaptureCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<CaptureOptions>();
  CLI::App* cmd = app.add_subcommand(
      "capture", "Write the current window of a traced process to a new file; the process goes on");
  cmd->add_option("pid", opts->pid, "Process traced by `nodescope run`")->required();
  cmd->add_option("--timeout", opts->timeout_s, "Seconds to wait for the file (default 120)")
      ->check(CLI::Range(1, 3600));
  cmd->callback([opts, exit_code]() { *exit_code = Capture(*opts); });
  return cmd;
}

}  // namespace

const SubcommandRegistration kRegistration("capture", AddCaptureCommand);

}  // namespace nodescope::cli
