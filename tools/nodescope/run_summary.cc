// `nodescope run`'s summary: which report lines to believe, and how they are shown.
#include "run_summary.h"

#include <sys/stat.h>

#include <set>
#include <string_view>

#include "base/atomic_file.h"
#include "base/terminal_text.h"
#include "model/run_report.h"

namespace nodescope::cli {
namespace {

std::string HumanBytes(off_t size) {
  double b = static_cast<double>(size);
  const char* units[] = {"B", "KB", "MB", "GB"};
  int u = 0;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", b, units[u]);
  return buf;
}

bool NotOlder(const timespec& a, const timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

}  // namespace

RunOutcome PrintRunSummary(const ChildResult& result, const RunContext& context, FILE* out) {
  RunOutcome outcome;
  const std::string root_pid = std::to_string(context.root_pid);
  const char* output = context.output.empty() ? nullptr : context.output.c_str();
  size_t not_ours = 0;
  bool any_line = false;
  std::set<uint64_t> reported;
  std::set<uint64_t> repeated;
  for (const std::string& text : result.report_lines) {
    StatusOr<report::Line> line = report::Parse(text);
    if (!line.ok()) {
      ++not_ours;
      continue;
    }
    any_line = true;
    if (!reported.insert(line->pid).second) {
      repeated.insert(line->pid);
      continue;
    }
    bool root = line->pid == static_cast<uint64_t>(context.root_pid);
    std::string who = root ? "" : " (child process " + std::to_string(line->pid) + ")";
    if (line->rank >= 0)
      who = " (rank " + std::to_string(line->rank) + ", pid " + std::to_string(line->pid) + ")";
    if (line->kind == report::Line::Kind::kError) {
      std::fprintf(out, "nodescope: no trace%s: %s\n", who.c_str(),
                   TerminalText(line->message).c_str());
      ++outcome.failed;
      continue;
    }
    if (line->kind == report::Line::Kind::kEmpty) {
      std::fprintf(out, "nodescope: no trace%s: no GPU work recorded (%llu API calls)\n",
                   who.c_str(), static_cast<unsigned long long>(line->summary.api_calls));
      continue;
    }
    const std::string named =
        report::TracePathFor(output, root_pid.c_str(), static_cast<long>(line->pid), line->rank);
    // The writer names its trace by pid when another process wrote that path meanwhile.
    const std::string by_pid = PidNamedPath(named, static_cast<long>(line->pid));
    if (line->path != named && line->path != by_pid) {  // never printed: the writer chose it
      ++not_ours;
      continue;
    }
    const std::string& expected = line->path;
    if (expected == by_pid) {
      std::fprintf(out,
                   "nodescope: warning: another process wrote %s while this run traced; this "
                   "trace%s is named by its pid instead\n",
                   TerminalText(named).c_str(), who.c_str());
    }
    struct stat st {};
    const bool in_place = stat(expected.c_str(), &st) == 0 &&
                          (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) &&
                          expected == context.output;
    if (!in_place && (stat(expected.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
                      !NotOlder(st.st_mtim, context.started))) {
      std::fprintf(out,
                   "nodescope: warning: process %llu reported a trace at %s, but no file this "
                   "run wrote is there (missing, not a regular file, or older than the run)\n",
                   static_cast<unsigned long long>(line->pid), TerminalText(expected).c_str());
      ++outcome.failed;
      continue;
    }
    ++outcome.traces;
    const TraceSummary& s = line->summary;
    auto n = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::fprintf(out,
                 "nodescope: trace%s written to %s (%s)\n"
                 "  GPU events       %10llu  (kernels %llu, memcpys %llu, memsets %llu)\n"
                 "  graph-launched   %10llu\n"
                 "  API calls        %10llu\n"
                 "  dropped records  %10llu\n",
                 who.c_str(), TerminalText(expected).c_str(),
                 in_place ? "written in place" : HumanBytes(st.st_size).c_str(), n(s.gpu_events),
                 n(s.kernels), n(s.memcpys), n(s.memsets), n(s.graph_events), n(s.api_calls),
                 n(s.dropped));
    if (s.buffers_refused != 0) {  // not records: beside the records dropped, not in them
      std::fprintf(out,
                   "  buffers refused  %10llu  (buffer requests refused, pool full: records "
                   "lost with them are in the line above only where the vendor counts them)\n",
                   n(s.buffers_refused));
    }
    std::fprintf(out, "  flush + write    %7llu ms + %llu ms\n", n(line->flush_ms),
                 n(line->write_ms));
  }
  if (!any_line && not_ours == 0 && result.report_bytes_discarded == 0) {
    if (result.signal != 0) {
      // Ended by a signal before a report: SIGKILL, or a signal the program's own handler let
      // through after nodescope's, or one that came before the runtime was initialised.
      std::fprintf(out,
                   "nodescope: no trace written: the program was ended by signal %d before "
                   "nodescope reported a trace (none is written on SIGKILL; otherwise the "
                   "program may not have initialised %s yet)\n",
                   result.signal, context.runtime.c_str());
    } else {
      std::fprintf(out,
                   "nodescope: no trace written: the program never initialised %s (did it use "
                   "the GPU?)\n",
                   context.runtime.c_str());
    }
  }
  for (uint64_t pid : repeated) {
    std::fprintf(out,
                 "nodescope: warning: process %llu sent more than one report; only the first is "
                 "shown (the program may have written to nodescope's report pipe)\n",
                 static_cast<unsigned long long>(pid));
  }
  if (not_ours > 0) {
    std::fprintf(out,
                 "nodescope: warning: ignored %zu report line%s not written by nodescope "
                 "(malformed, or naming a file this run did not write)\n",
                 not_ours, not_ours == 1 ? "" : "s");
  }
  if (result.report_bytes_discarded > 0) {
    std::fprintf(out,
                 "nodescope: warning: %llu bytes of the report pipe were discarded (nodescope "
                 "keeps lines up to %zu bytes, %zu bytes in all)\n",
                 static_cast<unsigned long long>(result.report_bytes_discarded),
                 report::kMaxLineBytes, report::kMaxReportBytes);
  }
  return outcome;
}

}  // namespace nodescope::cli
