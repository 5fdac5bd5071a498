// `nodescope run`: checks, launch under the vendor's injection, and the summary.
#include "subcommand.h"

#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "base/atomic_file.h"
#include "base/env.h"
#include "base/terminal_text.h"
#include "child_process.h"
#include "model/run_report.h"
#include "run_metrics.h"
#include "run_summary.h"
#include "tracer_library.h"

namespace nodescope::cli {
namespace {

// The exit status of `run`'s own failures, usage errors included (the program's statuses pass
// through, so run cannot use 2 as the other subcommands do): 125, as env(1) and timeout(1).
constexpr int kRunUsageError = 125;

// Exit statuses of nodescope itself, as timeout(1) and env(1) use them.
constexpr int kToolFailed = kRunUsageError;
constexpr int kCannotExecute = 126;
constexpr int kNotFound = 127;

// Test seam: with NODESCOPE_TEST_STUB_LAUNCHER=1 `run` uses a launcher that needs no driver and
// injects nothing, so the launch path (checks, report pipe, signals, exit statuses) is tested on
// machines without a GPU; the program then plays the library's part and writes its own report
// line. For nodescope's own tests (tools/nodescope/cli_tests.cmake); README lists it.
constexpr char kStubLauncherVariable[] = "NODESCOPE_TEST_STUB_LAUNCHER";
Status ProbeStub() { return OkStatus(); }
void AddNoEnv(const std::string&, std::vector<std::string>*) {}

struct RunOptions {
  std::string output;
  std::string backend;
  uint32_t sample = 0;        // --sample N; 0: not given (NODESCOPE_SAMPLE, if set, applies)
  uint32_t sample_burst = 0;  // --sample-burst B; 0: not given (NODESCOPE_SAMPLE_BURST)
  std::string ring;           // NODESCOPE_RING
  std::string stream;         // NODESCOPE_STREAM
  std::string capture_every;  // NODESCOPE_CAPTURE_EVERY
  std::vector<std::string> command;
  MetricsOptions metrics;
};

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  std::string path(buf);
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// --ring, --stream, --capture-every: read as their variables are (backends/ring_window.h).
Status CheckWindowFlags(const RunOptions& opts) {
  if (!opts.ring.empty()) RETURN_IF_ERROR(ParseWindowPolicy(opts.ring, "--ring").status());
  if (!opts.stream.empty()) RETURN_IF_ERROR(ParseRecordCount(opts.stream, "--stream").status());
  if (!opts.capture_every.empty()) {
    RETURN_IF_ERROR(ParseDurationNs(opts.capture_every, "--capture-every").status());
  }
  const char* ring_env = std::getenv("NODESCOPE_RING");
  const bool ring = !opts.ring.empty() || (ring_env != nullptr && *ring_env != '\0');
  if (ring && !opts.stream.empty()) {
    return InvalidArgumentError("--stream and --ring (NODESCOPE_RING) cannot be used together");
  }
  return OkStatus();
}

// "cuda, rocm, xpu": the backends this build has, as --backend takes them.
std::string BackendNames(const std::vector<Launcher>& launchers) {
  std::string names;
  for (const Launcher& l : launchers) names += (names.empty() ? "" : ", ") + l.name;
  return names.empty() ? "none" : names;
}

// Captures (`nodescope capture`, SIGUSR2, --capture-every) and streaming parts are files named
// after the trace: with -o naming a device or a FIFO there is no file to name them after.
Status CheckFilesNamedAfterOutput(const RunOptions& opts, const std::string& output) {
  if (output.empty()) return OkStatus();
  StatusOr<OutputKind> kind = ClassifyOutput(output);
  if (!kind.ok() || *kind != OutputKind::kDirect) return OkStatus();
  const char* stream_env = std::getenv("NODESCOPE_STREAM");
  const char* every_env = std::getenv("NODESCOPE_CAPTURE_EVERY");
  const bool stream = !opts.stream.empty() || (stream_env != nullptr && *stream_env != '\0');
  const bool every = !opts.capture_every.empty() || (every_env != nullptr && *every_env != '\0');
  if (!stream && !every) return OkStatus();
  return InvalidArgumentError(std::string(stream ? "--stream" : "--capture-every") +
                              " writes files named after the trace, and '" + output +
                              "' is a device or a FIFO: give -o a file path");
}

int Run(const RunOptions& opts) {
  if (opts.command.empty()) {
    std::fprintf(stderr, "nodescope run: no program given (usage: nodescope run -- PROGRAM ...)\n");
    return kToolFailed;
  }
  StatusOr<std::string> program = ResolveProgram(opts.command[0], std::getenv("PATH"));
  if (!program.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", TerminalText(program.status().message()).c_str());
    return program.status().code() == StatusCode::kNotFound ? kNotFound : kCannotExecute;
  }
  // The library reads these too, but then a bad value only stops the trace, not the program.
  StatusOr<TracerOptions> options = TracerOptionsFromEnv();
  if (!options.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", options.status().message().c_str());
    return kToolFailed;
  }
  if (Status window = CheckWindowFlags(opts); !window.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", TerminalText(window.message()).c_str());
    return kToolFailed;
  }
  std::vector<Launcher> launchers = RegisteredLaunchers();
  bool stub = false;
  Status stub_flag = ReadEnvFlag(kStubLauncherVariable, &stub);
  if (!stub_flag.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", stub_flag.message().c_str());
    return kToolFailed;
  }
  // The stub injects nothing; the library it checks and names is libnodescope.so itself.
  if (stub) {
    launchers = {Launcher{"stub", "the GPU runtime", "libnodescope.so", "nodescope_start",
                          &ProbeStub, &AddNoEnv, /*can_sample=*/true}};
  }
  if (launchers.empty()) {
    std::fprintf(stderr,
                 "nodescope run: this build has no GPU backend (no vendor SDK was found when "
                 "nodescope was built)\n");
    return kToolFailed;
  }
  const Launcher* chosen = nullptr;
  std::vector<std::string> problems;
  for (const Launcher& l : launchers) {
    if (!opts.backend.empty() && l.name != opts.backend) continue;
    Status probe = l.probe();
    if (probe.ok()) {
      chosen = &l;
      break;
    }
    problems.push_back(l.name + ": " + probe.message());
  }
  if (chosen == nullptr) {
    if (problems.empty()) {
      std::fprintf(stderr, "nodescope run: unknown backend '%s' (this build has: %s)\n",
                   TerminalText(opts.backend).c_str(), BackendNames(launchers).c_str());
    }
    for (const std::string& p : problems) std::fprintf(stderr, "nodescope run: %s\n", p.c_str());
    return kToolFailed;
  }
  StatusOr<std::string> library =
      FindTracerLibrary(*chosen, std::getenv("NODESCOPE_LIBRARY"), SelfDir());
  if (!library.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", TerminalText(library.status().message()).c_str());
    return kToolFailed;
  }
  // -o, or else the NODESCOPE_OUTPUT the program inherits: either way checked before it runs.
  const char* inherited = std::getenv(report::kOutputVariable);
  std::string output = !opts.output.empty() ? opts.output : inherited ? inherited : "";
  StatusOr<timespec> started = CheckWritable(output.empty() ? "nodescope-trace.json" : output);
  if (!started.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", TerminalText(started.status().message()).c_str());
    return kToolFailed;
  }
  if (Status named = CheckFilesNamedAfterOutput(opts, output); !named.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", TerminalText(named.message()).c_str());
    return kToolFailed;
  }
  const uint32_t sample = opts.sample != 0 ? opts.sample : options->sample_every;
  if (sample > 1 && !chosen->can_sample) {
    std::fprintf(stderr,
                 "nodescope run: the %s backend cannot sample launches (--sample or "
                 "NODESCOPE_SAMPLE %u): trace everything, or use --ring or --stream to bound "
                 "memory\n",
                 chosen->name.c_str(), sample);
    return kToolFailed;
  }

  std::vector<std::string> env;
  chosen->add_env(*library, &env);
  if (!opts.output.empty()) env.push_back(std::string(report::kOutputVariable) + "=" + opts.output);
  if (opts.sample != 0) env.push_back("NODESCOPE_SAMPLE=" + std::to_string(opts.sample));
  if (opts.sample_burst != 0) {
    env.push_back("NODESCOPE_SAMPLE_BURST=" + std::to_string(opts.sample_burst));
  }
  if (!opts.ring.empty()) env.push_back("NODESCOPE_RING=" + opts.ring);
  if (!opts.stream.empty()) env.push_back("NODESCOPE_STREAM=" + opts.stream);
  if (!opts.capture_every.empty()) env.push_back("NODESCOPE_CAPTURE_EVERY=" + opts.capture_every);
  // --metrics: bound before the program starts (a port in use: 125, the program not run).
  std::unique_ptr<RunMetrics> metrics;
  if (!opts.metrics.listen.empty()) {
    MetricsOptions mo = opts.metrics;
    const bool stream = !opts.stream.empty() || options->stream_records != 0;
    const bool ring = !opts.ring.empty() || options->ring.enabled();
    mo.mode = stream ? metrics_feed::Mode::kStream
              : ring ? metrics_feed::Mode::kRing
                     : metrics_feed::Mode::kWhole;
    metrics = std::make_unique<RunMetrics>();
    if (Status s = metrics->Start(mo, &env); !s.ok()) {
      std::fprintf(stderr, "nodescope run: %s\n", TerminalText(s.message()).c_str());
      return kToolFailed;
    }
  }
  std::vector<std::string> argv = opts.command;
  argv[0] = *program;
  StatusOr<ChildResult> result = RunChild(argv, env);
  if (!result.ok()) {
    std::fprintf(stderr, "nodescope run: %s\n", result.status().ToString().c_str());
    return kToolFailed;
  }
  if (metrics) metrics->Finish(*result, output);
  const RunOutcome outcome =
      PrintRunSummary(*result, RunContext{output, result->pid, *started, chosen->runtime}, stderr);
  if (result->signal != 0) {
    std::fprintf(stderr, "nodescope: the program was terminated by signal %d (%s)\n",
                 result->signal, strsignal(result->signal));
  }
  // A trace that could not be written is a failure even when the program succeeded.
  if (outcome.failed != 0 && result->exit_status == 0) {
    std::fprintf(stderr,
                 "nodescope run: exit status %d: the program succeeded but %zu trace%s could not "
                 "be written\n",
                 kToolFailed, outcome.failed, outcome.failed == 1 ? "" : "s");
    return kToolFailed;
  }
  return result->exit_status;
}

CLI::App* AddRunCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Trace an unmodified program: every kernel, copy and fill, with graph node keys");
  run->add_option("-o,--output", opts->output,
                  "Trace file to write (default: nodescope-<pid>.json in the current folder)")
      ->check([](const std::string& v) { return v.empty() ? "must not be empty" : ""; });
  run->add_option("--backend", opts->backend,
                  "Vendor backend to use (default: the first whose driver and device are found); "
                  "this build has: " +
                      BackendNames(RegisteredLaunchers()));
  run->add_option("--sample", opts->sample,
                  "Trace about 1 launch in N (each graph's first launch always), with device "
                  "activity collected around those launches only (NODESCOPE_SAMPLE)")
      ->check(CLI::Range(uint32_t{1}, static_cast<uint32_t>(kMaxSampleEvery)));
  run->add_option("--sample-burst", opts->sample_burst,
                  "With --sample: keep B launches of a graph in a row per pick, then one guard "
                  "(fewer launches instrumented; the kept replays come in runs of B; "
                  "default 4) (NODESCOPE_SAMPLE_BURST)")
      ->check(CLI::Range(uint32_t{1}, static_cast<uint32_t>(kMaxSampleBurst)));
  run->add_option("--ring", opts->ring,
                  "Keep only the most recent window: a size (10M records, 256MB) or a time (60s)");
  run->add_option("--stream", opts->stream,
                  "Write the trace in parts of this size (1GB, 10M records) instead of holding it");
  run->add_option("--capture-every", opts->capture_every,
                  "Also write the current window every so often (60s): <trace>.capture-<n>.json");
  run->add_option("--metrics", opts->metrics.listen,
                  "Serve per-node latency as Prometheus text at http://[ADDR:]PORT/metrics (ADDR "
                  "127.0.0.1 unless given; any local user can read a loopback port), or on a Unix "
                  "socket PATH (one with a '/', or unix:PATH), from this process while the "
                  "program runs");
  run->add_option("--metrics-series", opts->metrics.max_series,
                  "With --metrics: at most N per-node series; nodes past them, by GPU time, are "
                  "folded into node=\"other\" (default 2000)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  run->add_option("--metrics-linger", opts->metrics.linger_s,
                  "With --metrics: after the program ends, keep serving until one scrape has "
                  "read the final figures, at most this many seconds (default 30; 0: do not wait)")
      ->check(CLI::Range(0.0, 86400.0));
  run->add_option("command", opts->command, "PROGRAM [ARGS...] (put -- before it)")->required();
  run->positionals_at_end();
  run->callback([opts, exit_code]() { *exit_code = Run(*opts); });
  return run;
}

}  // namespace

const SubcommandRegistration kRegistration("run", AddRunCommand, kRunUsageError);

}  // namespace nodescope::cli
