// `nodescope check`: reads each trace once, then prints the key statistics as a table or JSON.
#include "subcommand.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/stats/alias_check.h"
#include "analysis/stats/gpu_activity.h"
#include "base/terminal_text.h"
#include "cli_io.h"
#include "export/json_output.h"

namespace nodescope::cli {
namespace {

using analysis::AliasReport;
using analysis::GraphKey;

constexpr int kClean = 0;
constexpr int kNotClean = 1;
constexpr int kUnreadable = kCannotReadOrWrite;

// The text table lists this many entries per finding (--json lists them all) ...
constexpr size_t kListed = 10;
// ... with this many names per aliased key, each cut to this many bytes.
constexpr size_t kNamesListed = 4;
constexpr size_t kNameBytes = 80;

struct CheckOptions {
  bool json = false;
  std::vector<std::string> traces;
  analysis::AliasCheckOptions limits;
};

// What `nodes` and `plot` refuse, with the same words: a trace they cannot read is not clean.
StatusOr<AliasReport> CheckTrace(const std::string& path,
                                 const analysis::AliasCheckOptions& limits) {
  return analysis::CheckTraceFile(TracePath(path), limits);
}

// A name as a quoted JSON string, escaped for a terminal: nothing in it can mangle the table.
std::string Quoted(std::string_view name) {
  bool cut = name.size() > kNameBytes;
  if (cut) {
    size_t end = kNameBytes;
    while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
    name = name.substr(0, end);
  }
  std::string out;
  JsonOutput::AppendEscaped(name, out);
  if (cut) out.insert(out.size() - 1, "...");
  return TerminalText(out);
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

// The rank of a key's process in a merged trace (`nodescope merge`), or -1 when not merged or
// unknown.
int64_t RankOf(const GraphKey& key, const AliasReport& r) {
  return key.process < r.merged_ranks.size() ? r.merged_ranks[key.process] : -1;
}

// "graph 5 node 21474836480 (5<<32|0)", after "rank 1 " in a merged trace.
std::string KeyText(const GraphKey& key, const AliasReport& r) {
  std::string rank;
  if (!r.merged_ranks.empty()) {
    const int64_t n = RankOf(key, r);
    rank =
        n >= 0 ? "rank " + std::to_string(n) + " " : "process " + std::to_string(key.process) + " ";
  }
  return rank + "graph " + std::to_string(key.graph_id) + " node " + std::to_string(key.node_id) +
         " (" + std::to_string(key.node_id >> 32) + "<<32|" +
         std::to_string(key.node_id & 0xFFFFFFFFu) + ")";
}

class Table {
 public:
  explicit Table(const std::string& path) : text_(TerminalText(path) + "\n") {}

  void Row(std::string_view label, const std::string& value) {
    text_ += "  ";
    text_ += label;
    text_.append(label.size() < kLabelWidth ? kLabelWidth - label.size() : 1, ' ');
    text_ += value;
    text_ += '\n';
  }
  void Detail(const std::string& line) { text_ += "    " + line + "\n"; }
  void More(size_t total, size_t listed) {
    if (total > listed) Detail("... and " + std::to_string(total - listed) + " more");
  }
  const std::string& text() const { return text_; }

 private:
  static constexpr size_t kLabelWidth = 32;
  std::string text_;
};

std::string FormatText(const std::string& path, const AliasReport& r) {
  using std::to_string;
  Table t(path);
  t.Row("GPU events (kernel/copy/fill)", to_string(r.gpu_events) + " (" + to_string(r.kernels) +
                                             "/" + to_string(r.copies) + "/" + to_string(r.fills) +
                                             ")");
  if (!r.merged_ranks.empty()) {
    std::string ranks;
    for (size_t i = 0; i < r.merged_ranks.size(); ++i) {
      ranks += (i ? ", " : "") +
               (r.merged_ranks[i] >= 0 ? to_string(r.merged_ranks[i]) : std::string("?"));
    }
    t.Row("merged processes",
          to_string(r.merged_ranks.size()) + " (ranks " + ranks + "; keys are per process)");
  }
  t.Row("with graph keys", to_string(r.with_both_keys));
  if (r.zero_keys > 0) t.Row("with keys 0/0 (not from a graph)", to_string(r.zero_keys));
  t.Row("graph ids", to_string(r.graph_ids));
  t.Row("node ids", to_string(r.node_ids));
  t.Row("occurrences per node", r.node_ids == 0 ? "-"
                                                : "min " + to_string(r.min_per_node) + "  median " +
                                                      Number(r.median_per_node) + "  max " +
                                                      to_string(r.max_per_node));

  t.Row("aliased keys", r.aliased.empty()
                            ? "0"
                            : to_string(r.aliased.size()) + " of " + to_string(r.keys) + " keys");
  for (size_t i = 0; i < std::min(r.aliased.size(), kListed); ++i) {
    const analysis::AliasedKey& a = r.aliased[i];
    std::string names;
    for (size_t n = 0; n < std::min(a.names.size(), kNamesListed); ++n) {
      if (n > 0) names += ", ";
      names += to_string(a.names[n].count) + " x " + Quoted(a.names[n].name);
    }
    if (a.names.size() > kNamesListed) {
      names += ", and " + to_string(a.names.size() - kNamesListed) + " more names";
    }
    if (a.other_name_events > 0) {
      names += ", and " + to_string(a.other_name_events) + " x further names (not counted apart)";
    }
    t.Detail(KeyText(a.key, r) + ": " + names);
  }
  t.More(r.aliased.size(), kListed);

  t.Row("node >> 32 != graph id", to_string(r.mismatched.size()));
  for (size_t i = 0; i < std::min(r.mismatched.size(), kListed); ++i) {
    const analysis::MismatchedKey& m = r.mismatched[i];
    t.Detail(KeyText(m.key, r) + ": " + to_string(m.events) +
             (m.events == 1 ? " event, " : " events, ") + Quoted(m.name));
  }
  t.More(r.mismatched.size(), kListed);

  t.Row("one key without the other", to_string(r.one_key_only));
  for (const analysis::OneKeyEvent& e : r.one_key_examples) {
    std::string has =
        e.graph_id.has_value()
            ? "\"graph id\" " + to_string(*e.graph_id) + " but no \"graph node id\""
            : "\"graph node id\" " + to_string(e.node_id.value_or(0)) + " but no \"graph id\"";
    t.Detail("byte " + to_string(e.offset) + ": " + Quoted(e.name) + " has " + has);
  }
  t.More(r.one_key_only, r.one_key_examples.size());

  std::string withheld;
  for (const auto& [reason, count] : r.withheld) {
    if (count == 0) continue;
    if (!withheld.empty()) withheld += ", ";
    withheld += TerminalText(reason) + "=" + to_string(count);
  }
  if (!r.has_nodescope_metadata) {
    t.Row("withheld attribution", "n/a (not written by nodescope)");
    t.Row("dropped records", "n/a (not written by nodescope)");
  } else {
    t.Row("withheld attribution", withheld.empty() ? "none" : withheld);
    t.Row("dropped records", r.dropped_total.has_value() ? to_string(*r.dropped_total) : "unknown");
  }
  if (!r.complete()) {
    t.Row("keys not checked",
          to_string(r.unchecked_events) + " events on keys past the limits (" +
              to_string(r.max_keys) + " keys, " + to_string(r.max_name_bytes >> 20) +
              " MiB of names; " + to_string(r.keys) +
              " keys held): the figures above and the verdict cover the keys held only");
  }
  t.Row("verdict",
        r.with_both_keys == 0 && r.clean() ? "clean (no graph keys to check)" : r.verdict());
  return t.text();
}

void WriteKey(JsonOutput& o, const GraphKey& key, const AliasReport& r) {
  if (!r.merged_ranks.empty()) {
    o.Raw("\"process\":");
    o.Uint(key.process);
    o.Raw(",\"rank\":");
    if (RankOf(key, r) >= 0) {
      o.Int(RankOf(key, r));
    } else {
      o.Raw("null");
    }
    o.Char(',');
  }
  o.Raw("\"graph_id\":");
  o.Uint(key.graph_id);
  o.Raw(",\"graph_node_id\":");
  o.Uint(key.node_id);
}

template <typename T, typename F>
void WriteList(JsonOutput& o, const std::vector<T>& items, F&& write_item) {
  o.Char('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) o.Char(',');
    write_item(items[i]);
  }
  o.Char(']');
}

void WriteJson(JsonOutput& o, const std::string& path, const AliasReport& r) {
  o.Raw("{\"file\":");
  o.String(path);
  const std::pair<const char*, uint64_t> counts[] = {
      {"events", r.events},       {"gpu_events", r.gpu_events},
      {"kernels", r.kernels},     {"copies", r.copies},
      {"fills", r.fills},         {"with_graph_keys", r.with_both_keys},
      {"zero_keys", r.zero_keys}, {"graph_ids", r.graph_ids},
      {"node_ids", r.node_ids},   {"keys", r.keys}};
  for (const auto& [name, value] : counts) {
    o.Raw(",\"");
    o.Raw(name);
    o.Raw("\":");
    o.Uint(value);
  }
  o.Raw(",\"occurrences_per_node\":{\"min\":");
  o.Uint(r.min_per_node);
  o.Raw(",\"median\":");
  o.Raw(Number(r.median_per_node));
  o.Raw(",\"max\":");
  o.Uint(r.max_per_node);
  o.Raw("},\"aliased_keys\":");
  o.Uint(r.aliased.size());
  o.Raw(",\"aliased\":");
  WriteList(o, r.aliased, [&](const analysis::AliasedKey& a) {
    o.Char('{');
    WriteKey(o, a.key, r);
    if (a.other_name_events > 0) {
      o.Raw(",\"other_name_events\":");
      o.Uint(a.other_name_events);
    }
    o.Raw(",\"names\":");
    WriteList(o, a.names, [&](const analysis::NameCount& n) {
      o.Raw("{\"name\":");
      o.String(n.name);
      o.Raw(",\"count\":");
      o.Uint(n.count);
      o.Char('}');
    });
    o.Char('}');
  });
  o.Raw(",\"node_graph_mismatches\":");
  o.Uint(r.mismatched.size());
  o.Raw(",\"mismatched\":");
  WriteList(o, r.mismatched, [&](const analysis::MismatchedKey& m) {
    o.Char('{');
    WriteKey(o, m.key, r);
    o.Raw(",\"events\":");
    o.Uint(m.events);
    o.Raw(",\"name\":");
    o.String(m.name);
    o.Char('}');
  });
  o.Raw(",\"one_key_only\":");
  o.Uint(r.one_key_only);
  o.Raw(",\"one_key_examples\":");
  WriteList(o, r.one_key_examples, [&](const analysis::OneKeyEvent& e) {
    o.Raw("{\"byte\":");
    o.Uint(e.offset);
    o.Raw(",\"name\":");
    o.String(e.name);
    o.Raw(e.graph_id.has_value() ? ",\"graph_id\":" : ",\"graph_node_id\":");
    o.Uint(e.graph_id.has_value() ? *e.graph_id : e.node_id.value_or(0));
    o.Char('}');
  });
  o.Raw(",\"nodescope_metadata\":");
  o.Raw(r.has_nodescope_metadata ? "true" : "false");
  o.Raw(",\"withheld\":{");
  for (size_t i = 0; i < r.withheld.size(); ++i) {
    if (i > 0) o.Char(',');
    o.String(r.withheld[i].first);
    o.Char(':');
    o.Uint(r.withheld[i].second);
  }
  o.Raw("},\"dropped_records\":");
  if (r.dropped_total.has_value()) {
    o.Uint(*r.dropped_total);
  } else {
    o.Raw("null");
  }
  if (!r.complete()) {
    o.Raw(",\"unchecked_events\":");
    o.Uint(r.unchecked_events);
    o.Raw(",\"max_keys\":");
    o.Uint(r.max_keys);
    o.Raw(",\"max_name_bytes\":");
    o.Uint(r.max_name_bytes);
  }
  o.Raw(",\"clean\":");
  o.Raw(r.clean() ? "true" : "false");
  o.Raw(",\"verdict\":");
  o.String(r.verdict());
  o.Raw("}\n");
}

int Check(const CheckOptions& opts) {
  GuardStandardStreams();
  if (std::count(opts.traces.begin(), opts.traces.end(), "-") > 1) {
    PrintError("check", "- (standard input) can be read only once");
    return kUnreadable;
  }
  int rc = kClean;
  std::unique_ptr<FdJsonOutput> json;
  if (opts.json) json = std::make_unique<FdJsonOutput>(STDOUT_FILENO);
  bool first = true;
  for (const std::string& path : opts.traces) {
    StatusOr<AliasReport> report = CheckTrace(path, opts.limits);
    if (!report.ok()) {
      PrintError("check", report.status().message());
      rc = kUnreadable;
      if (json != nullptr) {
        json->Raw("{\"file\":");
        json->String(path);
        json->Raw(",\"error\":");
        json->String(report.status().message());
        json->Raw(",\"verdict\":\"unreadable\"}\n");
      }
    } else {
      if (!report->clean()) rc = std::max(rc, kNotClean);
      if (json != nullptr) {
        WriteJson(*json, path, *report);
      } else {
        std::string text = (first ? "" : "\n") + FormatText(path, *report);
        if (!WriteStdout("check", text)) return kUnreadable;
        first = false;
      }
    }
    if (json != nullptr) {
      Status flushed = json->Flush();
      if (!flushed.ok()) {
        PrintError("check", "writing the output: " + flushed.message());
        return kUnreadable;
      }
    }
  }
  return rc;
}

// Shown by `nodescope check --help`, below the options.
constexpr char kDetails[] =
    "Memory stays bounded whatever the trace's size: the check holds at most 2097152 distinct\n"
    "(graph id, graph node id) keys (a 40-byte entry and a flat index slot each) and 128 MiB of\n"
    "distinct names, beside the reader's window of at most 64 MiB. Events on keys past those\n"
    "limits are counted, not checked: the table says how many (\"keys not checked\"), the\n"
    "verdict says \"incomplete\", and the exit status is 1, since the check no longer proves\n"
    "the trace clean.";

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 when every trace is
// clean, 1 when any has aliased or inconsistent keys, 2 when any cannot be read.
CLI::App* AddCheckCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Check that the graph-node keys of kineto-schema traces (nodescope's or torch.profiler's) "
      "are never aliased. Exit status: 0 all clean, 1 aliased or inconsistent keys, or "
      "incomplete (more distinct keys than the check holds), 2 unreadable input");
  check->footer(kDetails);
  check->add_flag("--json", opts->json, "Print one JSON object per trace, one per line");
  // A test seam, not for users: a small key limit, so a test needs no millions of events.
  check->add_option("--max-keys", opts->limits.max_keys)->group("")->check(CLI::PositiveNumber);
  check
      ->add_option("traces", opts->traces,
                   "Trace files (Chrome-trace JSON, or gzip-compressed JSON; - reads stdin)")
      ->required()
      ->check(NotEmpty());
  check->callback([opts, exit_code]() { *exit_code = Check(*opts); });
  return check;
}

}  // namespace

const SubcommandRegistration kRegistration("check", AddCheckCommand);

}  // namespace nodescope::cli
