// `nodescope merge -o job.json rank*.json`: one trace of a job's processes (trace_merge.h).
// The file is written through an AtomicFile: no reader sees half of it.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/merge/trace_merge.h"
#include "base/atomic_file.h"
#include "base/terminal_text.h"
#include "cli_io.h"
#include "subcommand.h"

namespace nodescope::cli {
namespace {

using analysis::MergedInput;
using analysis::MergeResult;
using analysis::MergeTraces;

struct MergeOptions {
  std::string output;
  std::vector<std::string> traces;
};

int Merge(const MergeOptions& opts) {
  for (const std::string& t : opts.traces) {
    if (t == "-") {  // each input is read twice: its header, then its events
      PrintError("merge", "- (standard input) cannot be merged: give the trace files");
      return kCannotReadOrWrite;
    }
  }
  StatusOr<AtomicFile> file = AtomicFile::Create(opts.output);
  if (!file.ok()) {
    PrintError("merge", file.status().message());
    return kCannotReadOrWrite;
  }
  std::vector<std::string> paths;
  for (const std::string& t : opts.traces) paths.push_back(TracePath(t));
  StatusOr<MergeResult> merged = [&] {
    FdJsonOutput out(file->fd(), file->name());
    return MergeTraces(paths, out);
  }();
  if (!merged.ok()) {
    PrintError("merge", merged.status().message());
    return kCannotReadOrWrite;
  }
  Status committed = file->Commit();
  if (!committed.ok()) {
    PrintError("merge", committed.message());
    return kCannotReadOrWrite;
  }
  if (file->conflict()) {
    std::fprintf(stderr,
                 "nodescope merge: warning: another process wrote %s meanwhile; the merged trace "
                 "is named by pid instead\n",
                 TerminalText(opts.output).c_str());
  }
  std::fprintf(stderr, "nodescope merge: %zu traces, %" PRIu64 " events -> %s\n",
               merged->inputs.size(), merged->events, TerminalText(file->path()).c_str());
  for (const MergedInput& in : merged->inputs) {
    std::string rank = in.rank >= 0 ? std::to_string(in.rank) : "-";
    std::fprintf(stderr, "  slot %-3u rank %-4s host %-12s %+.3f ms  %" PRIu64 " events  %s\n",
                 in.slot, rank.c_str(), TerminalText(in.host.empty() ? "?" : in.host).c_str(),
                 static_cast<double>(in.shift_ns) / 1e6, in.events, TerminalText(in.path).c_str());
  }
  for (const std::string& note : merged->notes) {
    std::fprintf(stderr, "nodescope merge: note: %s\n", TerminalText(note).c_str());
  }
  return 0;
}

CLI::App* AddMergeCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Merge the traces of a job's processes (one per rank) into one trace: a process per rank "
      "on one time axis, graph keys kept per rank. Exit status: 0 written, 2 an input cannot be "
      "read or the output written");
  merge->add_option("-o,--output", opts->output, "The merged trace to write")
      ->required()
      ->check(NotEmpty());
  merge
      ->add_option("traces", opts->traces,
                   "Trace files (Chrome-trace JSON, or gzip-compressed JSON; - reads stdin)")
      ->required()
      ->check(NotEmpty());
  merge->callback([opts, exit_code]() { *exit_code = Merge(*opts); });
  return merge;
}

}  // namespace

const SubcommandRegistration kRegistration("merge", AddMergeCommand);

}  // namespace nodescope::cli
