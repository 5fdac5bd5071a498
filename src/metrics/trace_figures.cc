#include "metrics/trace_figures.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>

#include "analysis/reader/trace_event.h"
#include "analysis/stats/kernel_name.h"
#include "analysis/stats/node_series.h"
#include "analysis/stats/trace_overview.h"

namespace nodescope::metrics {
namespace {

struct ReplaySpan {
  double start_us = 0;
  double end_us = 0;
  int64_t device = -1;
};

// Past the reader's occurrence limit (NodeSeriesOptions::max_samples) a node holds a sample of its
// occurrences: the buckets are scaled to its exact count (largest remainders), the sum is exact.
void ScaleTo(HistogramValues* h, uint64_t count, double sum) {
  const uint64_t held = h->count();
  std::vector<std::pair<double, size_t>> remainders;
  uint64_t given = 0;
  for (size_t i = 0; i < h->buckets.size(); ++i) {
    const double exact =
        static_cast<double>(h->buckets[i]) * static_cast<double>(count) / static_cast<double>(held);
    h->buckets[i] = static_cast<uint64_t>(exact);
    given += h->buckets[i];
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::sort(remainders.begin(), remainders.end(), std::greater<>());
  for (size_t k = 0; given < count && k < remainders.size(); ++k, ++given) {
    ++h->buckets[remainders[k].second];
  }
  h->sum = sum;
}

}  // namespace

StatusOr<ProcessFigures> FiguresFromTrace(const std::string& path, uint64_t pid,
                                          Interval interval) {
  // Device of each node key, and the span of each replay (graph id, launch correlation).
  std::unordered_map<uint64_t, int64_t> device_of;
  std::map<std::pair<uint64_t, int64_t>, ReplaySpan> replays;
  auto also = [&](const analysis::TraceEvent& e) -> Status {
    if (!e.graph_id || !e.graph_node_id || !e.ts_us || !e.dur_us) return OkStatus();
    if (*e.graph_id == 0) return OkStatus();
    const int64_t device = e.pid.kind == analysis::TraceId::Kind::kNumber ? e.pid.number : -1;
    device_of.emplace(*e.graph_node_id, device);
    const int64_t corr = e.correlation.value_or(0);
    auto [it, fresh] = replays.try_emplace({*e.graph_id, corr});
    ReplaySpan& s = it->second;
    const double end = *e.ts_us + *e.dur_us;
    if (fresh) {
      s = {*e.ts_us, end, device};
    } else {
      s.start_us = std::min(s.start_us, *e.ts_us);
      s.end_us = std::max(s.end_us, end);
    }
    return OkStatus();
  };
  StatusOr<std::vector<analysis::GraphNodes>> read =
      analysis::CollectNodeSeriesPerProcess(path, nullptr, {}, also);
  RETURN_IF_ERROR(read.status());
  ProcessFigures out;
  out.pid = pid;
  if (read->empty()) return out;
  const analysis::GraphNodes& gn = (*read)[0];
  const analysis::TraceMetadata& md = gn.metadata;
  if (md.rank) out.rank = std::to_string(*md.rank);
  std::unordered_map<uint64_t, std::string> names;
  for (auto& [id, name] : analysis::GraphNames(gn)) names.emplace(id, std::move(name));
  const std::vector<double>& bounds = DurationBuckets();
  // Ends on the trace clock: "ts" counts microseconds from baseTimeNanoseconds.
  const int64_t base_ns = static_cast<int64_t>(md.base_time_ns.value_or(0));
  auto counts = [&](double end_us) {
    if (interval.all()) return true;
    const int64_t end_ns = base_ns + std::llround(end_us * 1000.0);  // "ts" holds whole ns
    return end_ns > static_cast<int64_t>(interval.from_ns) &&
           (interval.to_ns == UINT64_MAX || end_ns <= static_cast<int64_t>(interval.to_ns));
  };
  auto device_label = [](int64_t d) { return d < 0 ? std::string() : std::to_string(d); };
  for (const analysis::NodeSeries& n : gn.nodes) {
    NodeFigures f;
    f.graph = names[n.graph_id];
    f.node = static_cast<uint32_t>(n.node_id & 0xffffffffu);
    f.kernel = analysis::ShortKernelName(n.name, kKernelLabelChars);
    auto d = device_of.find(n.node_id);
    f.device = device_label(d == device_of.end() ? -1 : d->second);
    f.durations.buckets.assign(bounds.size() + 1, 0);
    for (const analysis::NodeOccurrence& o : n.occurrences) {
      if (counts(o.start_us + o.dur_us)) f.durations.Observe(o.dur_us * 1e-6, bounds);
    }
    if (interval.all() && n.sampled() && !n.occurrences.empty()) {
      ScaleTo(&f.durations, n.count(), n.durations.sum * 1e-6);
    }
    out.nodes.push_back(std::move(f));
  }
  std::map<std::pair<uint64_t, int64_t>, size_t> graph_index;  // (graph id, device) -> graphs[i]
  uint64_t replays_counted = 0;
  for (const auto& [key, span] : replays) {
    if (!counts(span.end_us)) continue;
    ++replays_counted;
    auto [it, fresh] = graph_index.try_emplace({key.first, span.device}, out.graphs.size());
    if (fresh) {
      GraphFigures g;
      g.graph = names.count(key.first) ? names[key.first] : std::to_string(key.first);
      g.device = device_label(span.device);
      g.replays.buckets.assign(bounds.size() + 1, 0);
      out.graphs.push_back(std::move(g));
    }
    out.graphs[it->second].replays.Observe((span.end_us - span.start_us) * 1e-6, bounds);
  }
  // Kept: the replays counted here; seen: every launch, when the trace was sampled (its counter
  // covers the process so far).
  out.replays_kept = replays_counted;
  out.replays_seen =
      std::max<uint64_t>(replays_counted, md.sampling ? md.sampling->graph_launches : 0);
  out.dropped = md.dropped_total.value_or(0);
  out.withheld = md.withheld;
  return out;
}

void AddFigures(ProcessFigures* total, const ProcessFigures& delta) {
  if (total->rank.empty()) total->rank = delta.rank;
  for (const NodeFigures& d : delta.nodes) {
    auto it = std::find_if(total->nodes.begin(), total->nodes.end(), [&](const NodeFigures& t) {
      return t.graph == d.graph && t.node == d.node && t.kernel == d.kernel && t.device == d.device;
    });
    if (it == total->nodes.end()) {
      total->nodes.push_back(d);
    } else {
      it->durations.Add(d.durations);
    }
  }
  for (const GraphFigures& d : delta.graphs) {
    auto it = std::find_if(total->graphs.begin(), total->graphs.end(), [&](const GraphFigures& t) {
      return t.graph == d.graph && t.device == d.device;
    });
    if (it == total->graphs.end()) {
      total->graphs.push_back(d);
    } else {
      it->replays.Add(d.replays);
    }
  }
  total->replays_kept += delta.replays_kept;
  total->replays_seen = std::max({total->replays_seen, delta.replays_seen, total->replays_kept});
  total->dropped = std::max(total->dropped, delta.dropped);
  for (const auto& [reason, n] : delta.withheld) {
    auto it = std::find_if(total->withheld.begin(), total->withheld.end(),
                           [&](const auto& w) { return w.first == reason; });
    if (it == total->withheld.end()) {
      total->withheld.emplace_back(reason, n);
    } else {
      it->second = std::max(it->second, n);
    }
  }
}

StatusOr<ProcessFigures> FiguresFromText(const std::string& text, uint64_t pid, Interval interval) {
  // The reader reads files: the text goes into an anonymous file, read through /proc/self/fd.
  const int fd = memfd_create("nodescope-metrics", MFD_CLOEXEC);
  if (fd < 0) return InternalError(std::string("memfd_create: ") + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return InternalError(std::string("write to memfd: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  StatusOr<ProcessFigures> figures =
      FiguresFromTrace("/proc/self/fd/" + std::to_string(fd), pid, interval);
  close(fd);
  return figures;
}

}  // namespace nodescope::metrics
