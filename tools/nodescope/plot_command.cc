// `nodescope plot`: reads a trace's per-node series and writes them as an SVG or HTML picture.
// The file is written through an AtomicFile: no reader sees half of it.
#include "subcommand.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/plot/plot_svg.h"
#include "analysis/stats/node_series.h"
#include "base/atomic_file.h"
#include "base/terminal_text.h"
#include "cli_io.h"
#include "nodes_ranks.h"

namespace nodescope::cli {
namespace {

constexpr int kWritten = 0;
constexpr int kNothingToPlot = 1;
constexpr int kUnusable = kCannotReadOrWrite;

struct PlotCommandOptions {
  std::vector<std::string> traces;
  std::string trace;  // traces[0]
  std::string output;
  std::optional<uint64_t> graph;
  std::vector<uint64_t> nodes;
  bool heatmap = false;
  size_t top = 16;
  int width = 960;
  analysis::NodeSeriesOptions limits;
};

enum class Format { kNone, kSvg, kHtml };

Format FormatOf(const std::string& path) {
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return Format::kNone;
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "svg") return Format::kSvg;
  if (ext == "html" || ext == "htm") return Format::kHtml;
  return Format::kNone;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "12.5 %" of `part` in `whole`; "<0.1 %" for a sliver.
std::string Percent(double part, double whole) {
  double p = whole > 0 ? 100 * part / whole : 0;
  if (p > 0 && p < 0.1) return "<0.1 %";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %%", p);
  return buf;
}

// What the picture leaves out, in one line ("" when nothing): the picture draws the heaviest
// graphs and nodes, so that is what the user needs to know to trust it or choose others.
std::string LeftOutText(const analysis::PlotOmissions& o) {
  if (o.nodes == 0) return "";
  std::string s = "not drawn, the lightest: ";
  if (o.graphs > 0) {
    s += std::to_string(o.graphs) + " of " + std::to_string(o.graphs_total) + " graphs";
  }
  if (o.graphs > 0 && o.nodes_cut > 0) s += " and ";
  if (o.nodes_cut > 0) s += std::to_string(o.nodes_cut) + " nodes of drawn graphs";
  s += " (" + std::to_string(o.nodes) + " of " + std::to_string(o.nodes_total) + " nodes), " +
       Percent(o.gpu_us, o.gpu_us_total) +
       " of the GPU time in graphs; --top, --graph and --node "
       "choose what is drawn";
  return s;
}

int Plot(const PlotCommandOptions& opts) {
  GuardStandardStreams();
  Format format = FormatOf(opts.output);
  if (format == Format::kNone) {
    PrintError("plot", "-o " + opts.output + ": the output must end in .svg or .html");
    return kUnusable;
  }
  // Every rank of every trace (one per file, or the ranks of a merged trace): several ranks
  // draw one node across them, one line per rank.
  std::vector<std::string> paths;
  for (const std::string& t : opts.traces) paths.push_back(TracePath(t));
  StatusOr<RankTraces> ranks = LoadRankTraces(paths, opts.limits);
  if (!ranks.ok()) {
    PrintError("plot", ranks.status().message());
    return kUnusable;
  }
  // Aliased keys mix different nodes in one drawn line: said once per trace (or process).
  for (const analysis::RankInput& in : ranks->inputs) {
    const std::string aliased = AliasedWarning(*in.nodes);
    if (!aliased.empty()) PrintError("plot", "warning: " + in.source + ": " + aliased);
  }
  StatusOr<analysis::GraphNodes> nodes = InternalError("no trace");
  std::string what = opts.trace;
  if (ranks->inputs.size() > 1) {
    if (opts.nodes.size() != 1) {
      PrintError("plot",
                 "several ranks: name one node to draw across them (--node ID, as "
                 "`nodescope nodes` lists the first rank's)");
      return kUnusable;
    }
    nodes = NodeAcrossRanks(*ranks, opts.graph, opts.nodes[0]);
    if (!nodes.ok()) {
      PrintError("plot", nodes.status().message());
      return kNothingToPlot;
    }
    what = std::to_string(ranks->inputs.size()) + " ranks";
  } else if (!ranks->nodes.empty()) {
    nodes = std::move(*ranks->nodes[0]);
  } else {  // a merged trace none of whose processes has graph work: nothing to draw
    nodes = analysis::GraphNodes{};
  }
  if (nodes->mismatched_nodes > 0) {
    PrintError("plot", "warning: " + opts.trace + ": " + std::to_string(nodes->mismatched_nodes) +
                           " of " + std::to_string(nodes->nodes.size()) +
                           " node ids do not carry their graph id (node id >> 32 != graph id); "
                           "`nodescope check` lists them");
  }
  // Per file: the limits hold per file, its processes together (also those not drawn).
  for (size_t f = 0; f < ranks->files.size() && f < opts.traces.size(); ++f) {
    const std::string left_out = LeftOutWarning(ranks->files[f], opts.limits.max_nodes);
    if (!left_out.empty()) PrintError("plot", "warning: " + opts.traces[f] + ": " + left_out);
  }
  size_t sampled = 0;
  for (const analysis::NodeSeries& n : nodes->nodes) sampled += n.sampled() ? 1 : 0;
  if (sampled > 0) {
    PrintError("plot", "warning: " + opts.trace + ": more occurrences than the " +
                           std::to_string(opts.limits.max_samples) +
                           " held: " + std::to_string(sampled) +
                           " nodes are drawn over a sample of their graph's replays");
  }
  analysis::PlotOptions plot;
  plot.graph_id = opts.graph;
  plot.node_ids = opts.nodes;
  if (ranks->inputs.size() > 1) {  // the nodes are the ranks now
    plot.graph_id =
        nodes->nodes.empty() ? std::nullopt : std::optional<uint64_t>(nodes->nodes[0].graph_id);
    plot.node_ids.clear();
  }
  plot.heatmap = opts.heatmap;
  plot.max_graphs = opts.top;
  plot.width = opts.width;
  plot.source = opts.trace == "-" ? "stdin" : BaseName(opts.trace);
  if (opts.traces.size() > 1) plot.source = what;
  StatusOr<analysis::PlotDocument> picture = analysis::RenderPlot(
      *nodes, plot,
      format == Format::kHtml ? analysis::PlotFormat::kHtml : analysis::PlotFormat::kSvg);
  if (!picture.ok()) {
    PrintError("plot", opts.trace + ": " + picture.status().message());
    return kNothingToPlot;
  }
  const std::string left_out = LeftOutText(picture->left_out);
  if (!left_out.empty()) PrintError("plot", "warning: " + opts.trace + ": " + left_out);
  Status written = WriteFileAtomically(opts.output, picture->text);
  if (!written.ok()) {
    PrintError("plot", written.message());
    return kUnusable;
  }
  return WriteStdout("plot", "wrote " + TerminalText(opts.output) + "\n") ? kWritten : kUnusable;
}

// `--node #N`: the ordinal N, which a bare N below 2^32 also means (ResolveNode). Runs before the
// other checks and the conversion (CLI11 puts a transform first).
CLI::Validator NodeOrdinal() {
  return CLI::Validator(
      [](std::string& s) {
        if (s.empty() || s[0] != '#') return std::string();
        const std::string written = s;
        s.erase(0, 1);
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
          return written + ": expected a node id or #ordinal";
        }
        if (s.size() > 10 || std::stoull(s) > 0xFFFFFFFFull) {
          return written + ": an ordinal is below 2^32 (a whole node id is written without #)";
        }
        return std::string();
      },
      "");
}

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 when the picture was
// written, 1 when there is nothing to draw (no graph keys, an unknown --graph or --node), 2 when
// the trace cannot be read, the output name is not .svg/.html, or the output cannot be written.
CLI::App* AddPlotCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<PlotCommandOptions>();
  CLI::App* plot = app.add_subcommand(
      "plot",
      "Draw each graph node's duration over the replays: one line per node, or a heat map for "
      "many nodes, as a self-contained SVG or HTML file. Exit status: 0 written, 1 nothing to "
      "plot (no graph keys, unknown --graph/--node), 2 unreadable trace or unwritable output");
  plot->add_option("traces", opts->traces,
                   "Trace file (Chrome-trace JSON, or gzip-compressed JSON; - reads stdin); "
                   "several (one per rank) or a merged one: --node drawn across the ranks")
      ->required()
      ->check(NotEmpty());
  plot->add_option("-o,--output", opts->output, "Output file: FILE.svg or FILE.html")->required();
  plot->add_option("--graph", opts->graph, "Only this graph id")->check(NotNegative());
  plot->add_option("--node", opts->nodes,
                   "Only this node (repeatable): a graph node id, or its ordinal in the graph "
                   "(node id & 0xffffffff), written N or #N")
      ->allow_extra_args(false)  // `--node 2 trace.json`: the trace is not a second node
      ->check(NotNegative())
      ->transform(NodeOrdinal());
  plot->add_flag("--heatmap", opts->heatmap,
                 "Draw a heat map even for a graph of 12 nodes or fewer");
  plot->add_option("--top", opts->top,
                   "Draw the N graphs with the most GPU time as panels (default 16)")
      ->check(CLI::PositiveNumber);
  plot->add_option("--width", opts->width, "Picture width in pixels")->check(CLI::Range(480, 8000));
  plot->footer(
      "Memory stays bounded as for `nodescope nodes`: at most 262144 distinct nodes and 4194304\n"
      "occurrences are held per trace file (a merged trace's processes together). Past that, a\n"
      "graph is drawn over a uniform sample of its replays (1 in 2, 4, ...; the panel's title\n"
      "says \"drawn: a sample, 1 in N replays\"), and a warning on stderr says how many nodes.\n"
      "Graphs are drawn by weight, the most GPU time first: a panel each for the --top graphs of\n"
      "several replays, and one table of the graphs that ran once (at most 12 rows). One picture\n"
      "draws at most 1024 nodes: a graph past that keeps its heaviest (\"N of M nodes\"). What is\n"
      "left out is said on stderr and in the title (graphs, nodes, share of the GPU time);\n"
      "--graph and --node choose others. A heat map colours each cell against its node's median\n"
      "(blue faster, red slower), so that drift and jitter show in every row.");
  // Test seams, not for users: small limits, so a test needs no millions of events.
  plot->add_option("--max-nodes", opts->limits.max_nodes)->group("")->check(CLI::PositiveNumber);
  plot->add_option("--max-samples", opts->limits.max_samples)
      ->group("")
      ->check(CLI::PositiveNumber);
  plot->callback([opts, exit_code]() {
    opts->trace = opts->traces.front();
    *exit_code = Plot(*opts);
  });
  return plot;
}

}  // namespace

const SubcommandRegistration kRegistration("plot", AddPlotCommand);

}  // namespace nodescope::cli
