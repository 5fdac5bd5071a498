// `nodescope nodes`: reads one trace (or two with --diff), prints per-node cost as text/CSV/JSON.
#include "subcommand.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats/node_series.h"
#include "analysis/stats/node_stats.h"
#include "analysis/stats/trace_overview.h"
#include "base/terminal_text.h"
#include "cli_io.h"
#include "nodes_output.h"
#include "nodes_ranks.h"

namespace nodescope::cli {
namespace {

constexpr int kOk = 0;
constexpr int kNoGraphs = 1;
constexpr int kUnreadable = kCannotReadOrWrite;
constexpr size_t kDefaultWidth = 100;

struct NodesOptions {
  std::vector<std::string> traces;
  std::string trace;  // traces[0]
  std::string diff;   // empty: no comparison
  std::string graph;  // an id or a stable name
  bool graph_set = false;
  size_t top = 0;
  size_t rows = 0;
  bool rows_set = false;
  bool csv = false;
  bool json = false;
  size_t width = kDefaultWidth;
  bool width_set = false;
  analysis::NodeSeriesOptions limits;
  size_t threads = 0;  // traces read at once across ranks; 0: the machine's cores
};

// "reading TRACE: 37%" on stderr, rewritten in place, only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(const std::string& path)
      : path_(TerminalText(path)), enabled_(isatty(STDERR_FILENO)) {}
  ~Progress() { Clear(); }

  analysis::ProgressFn Fn() {
    if (!enabled_) return nullptr;
    return [this](uint64_t done, uint64_t total) {
      // Percent of the file; of a pipe (size unknown), megabytes read.
      const int shown = static_cast<int>(total == 0 ? done >> 20 : done * 100 / total);
      if (shown == last_shown_) return;
      last_shown_ = shown;
      printed_ = std::fprintf(stderr, total == 0 ? "\rreading %s: %d MB" : "\rreading %s: %d%%",
                              path_.c_str(), shown) -
                 1;
      std::fflush(stderr);
    };
  }

  void Clear() {
    if (printed_ <= 0) return;
    std::fprintf(stderr, "\r%*s\r", printed_, "");
    std::fflush(stderr);
    printed_ = 0;
  }

 private:
  std::string path_;
  bool enabled_;
  int last_shown_ = -1;
  int printed_ = 0;  // columns written on the current line
};

// Aliased keys mix different nodes' figures: said once per trace (or process of a merged trace).
void WarnIfAliased(const std::string& source, const analysis::GraphNodes& nodes) {
  const std::string aliased = AliasedWarning(nodes);
  if (!aliased.empty()) PrintError("nodes", "warning: " + source + ": " + aliased);
}

// Reads `path`; prints why not and returns nullptr (exit status in `*rc`) when it cannot be read
// or holds no graph-keyed work. A merged trace (several processes) goes to `*merged` instead.
std::unique_ptr<analysis::GraphNodes> Load(const std::string& path,
                                           const analysis::NodeSeriesOptions& limits, int* rc,
                                           std::vector<analysis::GraphNodes>* merged = nullptr) {
  StatusOr<std::vector<analysis::GraphNodes>> processes = [&] {
    Progress progress(path);
    return analysis::CollectNodeSeriesPerProcess(TracePath(path), progress.Fn(), limits);
  }();
  if (!processes.ok()) {
    PrintError("nodes", processes.status().message());
    *rc = kUnreadable;
    return nullptr;
  }
  if (merged != nullptr &&
      (processes->size() > 1 || !(*processes)[0].metadata.merged_ranks.empty())) {
    *merged = std::move(processes).value();
    return nullptr;
  }
  StatusOr<analysis::GraphNodes> nodes = std::move((*processes)[0]);
  if (nodes->nodes.empty()) {
    PrintError("nodes", "no graph-launched work with graph keys in " + path +
                            " (was it recorded by nodescope run?)");
    *rc = kNoGraphs;
    return nullptr;
  }
  if (nodes->mismatched_nodes > 0) {
    PrintError("nodes", "warning: " + path + ": " + std::to_string(nodes->mismatched_nodes) +
                            " of " + std::to_string(nodes->nodes.size()) +
                            " node ids do not carry their graph id (node id >> 32 != graph id); "
                            "`nodescope check` lists them");
  }
  WarnIfAliased(path, *nodes);
  if (nodes->untracked_events > 0) {
    PrintError("nodes", "warning: " + path + ": " + std::to_string(nodes->untracked_events) +
                            " keyed events of nodes past the first " +
                            std::to_string(nodes->nodes.size()) + " are left out (at most " +
                            std::to_string(limits.max_nodes) + " distinct nodes are held)");
  }
  size_t sampled = 0;
  for (const analysis::NodeSeries& n : nodes->nodes) sampled += n.sampled() ? 1 : 0;
  if (sampled > 0) {
    PrintError("nodes", "warning: " + path + ": more occurrences than the " +
                            std::to_string(limits.max_samples) +
                            " held: percentiles, drift and per-replay figures of " +
                            std::to_string(sampled) +
                            " nodes are estimated from a sample of their graph's replays");
  }
  return std::make_unique<analysis::GraphNodes>(std::move(nodes).value());
}

// "1 (graph-1a2b3c4d), 2 (...), ..." : the first graphs' ids and names.
std::string GraphIds(const analysis::GraphNodes& trace) {
  constexpr size_t kListed = 10;
  const std::vector<std::pair<uint64_t, std::string>> names = analysis::GraphNames(trace);
  std::string out;
  for (size_t i = 0; i < names.size() && i < kListed; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(names[i].first) + " " + names[i].second;
  }
  if (names.size() > kListed) out += ", ...";
  return out;
}

// The graph --graph names in `trace` (an id or a stable name), or nullopt.
std::optional<uint64_t> GraphOf(const NodesOptions& opts, const analysis::GraphNodes& trace) {
  return analysis::FindGraph(trace, opts.graph);
}

// Node rows per graph: --rows, or, where graphs are not ranked (--graph, --diff), --top as it
// meant before --rows existed.
size_t RowsPerGraph(const NodesOptions& opts, bool graphs_ranked) {
  return opts.rows_set || graphs_ranked ? opts.rows : opts.top;
}

size_t OutputWidth(const NodesOptions& opts) {
  if (opts.width_set) return opts.width;
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return kDefaultWidth;
}

int Write(const std::string& text) { return WriteStdout("nodes", text) ? kOk : kUnreadable; }

// Several ranks: from several traces, or the processes of one merged trace.
int NodesAcrossRanks(const NodesOptions& opts, StatusOr<RankTraces> traces) {
  if (!traces.ok()) {
    PrintError("nodes", traces.status().message());
    return kUnreadable;
  }
  // Per file, as for one trace: the limits hold per file, its processes together.
  for (size_t f = 0; f < traces->files.size() && f < opts.traces.size(); ++f) {
    const FileLimits& file = traces->files[f];
    const std::string left_out = LeftOutWarning(file, opts.limits.max_nodes);
    if (!left_out.empty()) PrintError("nodes", "warning: " + opts.traces[f] + ": " + left_out);
    if (file.sampled_nodes > 0) {
      PrintError("nodes", "warning: " + opts.traces[f] + ": more occurrences than the " +
                              std::to_string(opts.limits.max_samples) +
                              " held: percentiles, drift and per-replay figures of " +
                              std::to_string(file.sampled_nodes) +
                              " nodes are estimated from a sample of their graph's replays");
    }
  }
  size_t with_graphs = 0;
  for (const analysis::RankInput& in : traces->inputs) {
    WarnIfAliased(in.source, *in.nodes);
    if (in.nodes->nodes.empty()) {
      PrintError("nodes", "warning: no graph-launched work with graph keys in " + in.source);
    } else {
      ++with_graphs;
    }
  }
  if (with_graphs == 0) {
    PrintError("nodes", "no graph-launched work with graph keys in any trace");
    return kNoGraphs;
  }
  analysis::NodeStatsOptions filter;
  const analysis::GraphNodes& reference = *traces->inputs[0].nodes;
  std::optional<uint64_t> wanted;
  if (opts.graph_set) wanted = GraphOf(opts, reference);
  if (opts.graph_set && !wanted) {
    PrintError("nodes", "no graph " + opts.graph + " in " + traces->inputs[0].source +
                            " (the first rank's graphs: " + GraphIds(reference) + ")");
    return kNoGraphs;
  }
  filter.graph_id = wanted;
  filter.top = RowsPerGraph(opts, !opts.graph_set);
  std::vector<analysis::CrossGraph> graphs =
      RankedCrossGraphs(traces->inputs, filter, opts.graph_set ? 0 : opts.top);
  if (graphs.empty()) {
    PrintError("nodes", "no graph-launched work with graph keys in " + traces->inputs[0].source);
    return kNoGraphs;
  }
  const NodesFormat format = opts.csv    ? NodesFormat::kCsv
                             : opts.json ? NodesFormat::kJson
                                         : NodesFormat::kText;
  // One overview over every rank: lines of the same name summed (graphs by stable name).
  std::vector<analysis::TraceOverview> per_rank;
  if (!opts.graph_set) {
    for (const analysis::RankInput& in : traces->inputs) {
      per_rank.push_back(analysis::ComputeOverview(*in.nodes));  // holds the graphs' names
    }
  }
  analysis::TraceOverview overview = analysis::CombineOverviews(per_rank);
  analysis::KeepTop(overview, opts.top);
  return Write(RanksOutput(format, traces->inputs, graphs, OutputWidth(opts),
                           opts.graph_set ? nullptr : &overview));
}

int Nodes(const NodesOptions& opts) {
  GuardStandardStreams();
  const size_t stdin_reads =
      std::count(opts.traces.begin(), opts.traces.end(), "-") + (opts.diff == "-" ? 1 : 0);
  if (stdin_reads > 1) {
    PrintError("nodes", "- (standard input) can be read only once");
    return kUnreadable;
  }
  if (opts.traces.size() > 1) {
    if (!opts.diff.empty()) {
      PrintError("nodes", "--diff compares two traces: give one trace before it, not " +
                              std::to_string(opts.traces.size()));
      return kUnreadable;
    }
    std::vector<std::string> paths;
    for (const std::string& t : opts.traces) paths.push_back(TracePath(t));
    StatusOr<RankTraces> traces = LoadRankTraces(paths, opts.limits, opts.threads);
    return NodesAcrossRanks(opts, std::move(traces));
  }
  int rc = kOk;
  std::vector<analysis::GraphNodes> merged;
  std::unique_ptr<analysis::GraphNodes> a =
      Load(opts.trace, opts.limits, &rc, opts.diff.empty() ? &merged : nullptr);
  if (!merged.empty()) {
    std::vector<StatusOr<std::vector<analysis::GraphNodes>>> loaded;
    loaded.emplace_back(std::move(merged));
    return NodesAcrossRanks(opts, AssembleRankTraces({opts.trace}, std::move(loaded)));
  }
  if (a == nullptr) return rc;
  std::unique_ptr<analysis::GraphNodes> b;
  if (!opts.diff.empty()) {
    b = Load(opts.diff, opts.limits, &rc);
    if (b == nullptr) return rc;
  }
  analysis::NodeStatsOptions filter;
  filter.top = RowsPerGraph(opts, b == nullptr && !opts.graph_set);
  const size_t width = OutputWidth(opts);
  const NodesFormat format = opts.csv    ? NodesFormat::kCsv
                             : opts.json ? NodesFormat::kJson
                                         : NodesFormat::kText;

  if (b == nullptr) {
    std::optional<uint64_t> wanted;
    if (opts.graph_set) {
      wanted = GraphOf(opts, *a);
      if (!wanted) {
        PrintError("nodes", "no graph " + opts.graph + " in " + opts.trace +
                                " (graphs: " + GraphIds(*a) + ")");
        return kNoGraphs;
      }
    }
    LeftOut left_out{a->untracked_events, opts.limits.max_nodes};
    left_out.dags = !a->dags.empty();
    if (a->metadata.sampling.has_value()) {
      left_out.sampled_every = a->metadata.sampling->every;
      left_out.sampled_burst = a->metadata.sampling->burst;
      left_out.graph_launches = a->metadata.sampling->graph_launches;
      left_out.graph_launches_traced = a->metadata.sampling->graph_launches_traced;
    }
    // The overview ranks every graph; the details follow for those shown, heaviest first, or
    // for the one --graph names. Written a graph at a time: the output of many graphs is never
    // held whole, in batches of about 1 MiB.
    analysis::TraceOverview overview = analysis::ComputeOverview(*a);
    analysis::KeepTop(overview, opts.graph_set ? 0 : opts.top);
    constexpr size_t kBatchBytes = size_t{1} << 20;
    std::string pending =
        NodesBegin(format, opts.trace, left_out, opts.graph_set ? nullptr : &overview, width);
    bool first = true;
    for (analysis::GraphStats& g : overview.graphs) {
      if (wanted && g.graph_id != *wanted) continue;
      analysis::ComputeGraphRows(*a, filter.top, g, filter.critical_path ? filter.speedup : 0);
      pending += NodesGraph(format, g, first, width);
      first = false;
      g.nodes = {};
      if (pending.size() < kBatchBytes) continue;
      if (Write(pending) != kOk) return kUnreadable;
      pending.clear();
    }
    return Write(pending + NodesEnd(format));
  }
  if (opts.graph_set) {
    filter.graph_id = GraphOf(opts, *a);
    if (!filter.graph_id) filter.graph_id = GraphOf(opts, *b);
    if (!filter.graph_id) {
      PrintError("nodes", "no graph " + opts.graph + " in " + opts.trace + " (graphs: " +
                              GraphIds(*a) + ") nor in " + opts.diff + " (" + GraphIds(*b) + ")");
      return kNoGraphs;
    }
  }
  analysis::NodeStatsOptions all;
  all.critical_path = false;  // --diff does not show it
  std::vector<analysis::GraphDiff> graphs = analysis::DiffNodeStats(
      analysis::ComputeNodeStats(*a, all), analysis::ComputeNodeStats(*b, all), filter);
  if (graphs.empty()) {
    PrintError("nodes", "no graph " + opts.graph + " in " + opts.trace + " nor in " + opts.diff);
    return kNoGraphs;
  }
  // Written in batches of about 1 MiB, as above.
  std::string pending = DiffBegin(format, opts.trace, opts.diff);
  for (size_t i = 0; i < graphs.size(); ++i) {
    pending += DiffGraph(format, graphs[i], i == 0, width);
    if (pending.size() < (size_t{1} << 20)) continue;
    if (Write(pending) != kOk) return kUnreadable;
    pending.clear();
  }
  return Write(pending + NodesEnd(format));
}

constexpr char kSummary[] =
    "Every graph and the GPU work outside graphs ranked by GPU time, then per-node cost across "
    "graph replays; --diff compares two traces node by node. Exit status: 0 done, 1 no graph-keyed "
    "work (or no such --graph), 2 unreadable input";

// Shown by `nodescope nodes --help`, below the options.
constexpr char kDetails[] =
    "The output opens with an overview of the whole trace: every graph, and the kernels, copies\n"
    "and fills that ran outside graphs grouped by name (at most 4096 names; later ones are one\n"
    "\"other\" line), ranked together by GPU time: share of all GPU time in the trace, total,\n"
    "count (a graph's replays; launches outside graphs), mean, a graph's GPU time per replay\n"
    "p50/p99, graph id and name. A graph's name is stable: the capture-time range it was\n"
    "captured under, if any, and a fingerprint of its kernels by node ordinal and of its DAG\n"
    "(the same graph in another run or rank gets the same name; the same graph twice in one\n"
    "trace gets -2, -3 in graph-id order); --graph takes it as well as the id. Details follow\n"
    "for the graphs shown, heaviest first: --top N keeps the N graphs with the most GPU time and\n"
    "the N heaviest overview lines, --rows N the N costliest rows of each graph (before --rows,\n"
    "--top meant that; with --graph or --diff, where graphs are not ranked, it still does).\n"
    "--csv: the overview's lines first (column row: graph, eager, eager_other), then one row per\n"
    "node (row: node); --json: \"overview\" before \"graphs\". Across ranks the overview sums\n"
    "the lines of one name over the ranks (text and JSON).\n"
    "\n"
    "One row per (graph id, graph node id): its kernel, copy or fill name, capture-time scope,\n"
    "replays, total, mean, p50/p95/p99 (nearest rank: the sample at rank ceil(p/100 * n), no\n"
    "interpolation), max, population stddev, drift (mean of the last 10% of replays over the\n"
    "first 10%, minus 1; '-' below 10 replays) and share of the graph's GPU time. Above each\n"
    "graph: its replays (distinct correlation ids), GPU time per replay (sum of its nodes'\n"
    "durations), span per replay, idle gaps (launch bubbles: a gap is a time between a replay's\n"
    "first start and last end when none of its nodes runs; their time and number per replay),\n"
    "and the GPU time of the first replay against the median. Durations are in one unit per\n"
    "table, named under its header (us; ms or s once a node's longest run reaches 10 ms or\n"
    "10 s), and in microseconds in --csv and --json, where an undefined figure (drift, a share\n"
    "of 0 us) is an empty field or null.\n"
    "\n"
    "Where the trace records a graph's dependency DAG (\"nodescopeGraphs\"), three more columns:\n"
    "path, the share of replays whose critical path (from the latest end back through the\n"
    "predecessor that ended last, ties all followed) runs through the node; slack, the p50 of\n"
    "how much longer it could run before its replay ends later; 2x gain, the span p50 minus the\n"
    "span p50 re-scheduled with the node 2x faster, measured gaps between dependent nodes kept\n"
    "(a node launched with programmatic dependent launch starts before its predecessor ends and\n"
    "waits inside: its gain is an upper bound). A node of a conditional body shows its\n"
    "conditional node's path and slack (the body as one interval). Replays missing a node, or\n"
    "with a record the DAG does not know, are skipped and counted; a sampled graph's figures\n"
    "come from the replays held. --csv and --json carry them (critical_path_share, slack_p50_us,\n"
    "slack_min_us, whatif_span_p50_us, whatif_gain_us); a graph without a DAG says so, and a\n"
    "trace without any gets the view above.\n"
    "\n"
    "Memory stays bounded whatever the trace's size: at most 262144 distinct nodes and 4194304\n"
    "occurrence slots (start, duration, replay: 24 bytes each) are held per trace file (every\n"
    "process of a merged trace together), beside the reader's window of at most 64 MiB and at\n"
    "most 64 MiB of names. Events of nodes past the first 262144 are left out, and said so.\n"
    "Past 4194304 slots the graphs holding the most keep one\n"
    "replay in 2, 4, ... (chosen by a hash of the correlation id, so runs agree): replays, total,\n"
    "mean, max, stddev and share stay exact for every node, while the replay count, the\n"
    "per-replay lines, p50/p95/p99 and drift are estimated from the replays held; the text and\n"
    "JSON say so per graph (\"estimated (sampled)\", \"sampled\"), and a warning on stderr in\n"
    "every format.\n"
    "\n"
    "--diff B.json pairs the graphs of the two traces in three passes:\n"
    "  1. the same graph id and the same node sequence;\n"
    "  2. the same node sequence (graph ids are per process, so they differ between runs);\n"
    "  3. the same graph id (the node sequences differ).\n"
    "A node sequence is the node names in node-ordinal order (node id & 0xffffffff); two are the\n"
    "same when they have as many nodes with equal names position by position. Nodes of pairs\n"
    "from passes 1 and 2 match position by position; in pass 3 the two node lists are aligned:\n"
    "nodes pair only where their names agree (preferring the same capture scope), so a node\n"
    "added or removed does not shift the rest; one node of B taking the place of two or more\n"
    "consecutive nodes of A is shown as fused (A1 + A2 -> B, against their summed means).\n"
    "Everything else is listed as only in A or only in B. A scope column appears when the\n"
    "traces have capture-time ranges.\n"
    "\n"
    "Several traces (one per rank: nodescope run names them <stem>-rank<R>.json), or one merged\n"
    "by `nodescope merge`, are read in parallel and compared across ranks: graphs are matched\n"
    "with the first rank's as --diff matches them; per node, the min / median / max of the\n"
    "ranks' means and the slowest rank; for collectives (ncclDevKernel_*, ncclKernel_*), each\n"
    "rank's wait: per replay (matched by index), the time from its own start to the latest\n"
    "start of the same node on any rank. The straggler is the (node, rank) furthest above the\n"
    "node's median, collectives aside (their durations include the wait). --csv and --json:\n"
    "one row per (rank, node).";

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 on success, 1 when a
// trace has no graph-keyed work (or not the --graph asked for), 2 when a trace cannot be read.
CLI::App* AddNodesCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<NodesOptions>();
  CLI::App* nodes = app.add_subcommand("nodes", kSummary);
  nodes->footer(kDetails);
  nodes
      ->add_option("traces", opts->traces,
                   "Trace file (Chrome-trace JSON, or gzip-compressed JSON; - reads stdin); "
                   "several: one per rank of a job, compared node by node")
      ->required()
      ->check(NotEmpty());
  nodes
      ->add_option("--diff", opts->diff,
                   "Compare with this trace (B, the 'after'): mean per node, delta, delta %")
      ->check(NotEmpty());
  CLI::Option* graph =
      nodes
          ->add_option("--graph", opts->graph,
                       "Only this graph: its id, or its name (the overview's name column, the "
                       "same in another run or rank); no overview then")
          ->check(NotEmpty());
  nodes
      ->add_option("--top", opts->top,
                   "The N graphs with the most GPU time (their details, heaviest first) and the "
                   "N heaviest lines of the overview (0: all); with --graph or --diff, where "
                   "graphs are not ranked, at most N rows per graph, as --rows (its meaning "
                   "before --rows)")
      ->check(NotNegative());
  CLI::Option* rows =
      nodes
          ->add_option("--rows", opts->rows,
                       "At most N node rows per graph, those with the most GPU time (0: all); "
                       "across ranks, their time summed over the ranks")
          ->check(NotNegative());
  CLI::Option* csv = nodes->add_flag("--csv", opts->csv, "CSV: one row per node, full names");
  CLI::Option* json = nodes->add_flag("--json", opts->json, "One JSON object");
  csv->excludes(json);
  CLI::Option* width = nodes->add_option(
      "--width", opts->width,
      "Text width; long names are shortened to what tells kernels apart, or get a line of "
      "their own under their row (default: the terminal's, or 100; 0: never shorten)");
  width->check(NotNegative());
  // Test seams, not for users: small limits, so a test needs no millions of events.
  nodes->add_option("--max-nodes", opts->limits.max_nodes)->group("")->check(CLI::PositiveNumber);
  // For the benchmark (bench/nodes_ranks.sh): how many traces are read at once.
  nodes->add_option("--threads", opts->threads)->group("")->check(NotNegative());
  nodes->add_option("--max-samples", opts->limits.max_samples)
      ->group("")
      ->check(CLI::PositiveNumber);
  nodes->callback([opts, exit_code, graph, width, rows]() {
    opts->trace = opts->traces.front();
    opts->graph_set = graph->count() > 0;
    opts->rows_set = rows->count() > 0;
    opts->width_set = width->count() > 0;
    *exit_code = Nodes(*opts);
  });
  return nodes;
}

}  // namespace

const SubcommandRegistration kRegistration("nodes", AddNodesCommand);

}  // namespace nodescope::cli
