#include "run_metrics.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "api/metrics_feed.h"
#include "base/terminal_text.h"
#include "metrics/figures_text.h"
#include "metrics/trace_figures.h"
#include "model/run_report.h"

namespace nodescope::cli {
namespace {

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct FrameHeader {
  uint64_t pid = 0;
  std::string kind;
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
  uint64_t bytes = 0;
};

// "nodescope-metrics pid=N kind=K from=N to=N bytes=N": false when it is not exactly that.
bool ParseHeader(const std::string& line, FrameHeader* h) {
  unsigned long long p = 0, f = 0, t = 0, b = 0;
  char kind[16] = {};
  const std::string format =
      std::string(metrics_feed::kFrameTag) + " pid=%llu kind=%15[a-z] from=%llu to=%llu bytes=%llu";
  if (std::sscanf(line.c_str(), format.c_str(), &p, kind, &f, &t, &b) != 5) return false;
  const std::string k = kind;
  if (k != "whole" && k != "interval" && k != "part" && k != "window" && k != "figures" &&
      k != "final") {
    return false;
  }
  if (line != std::string(metrics_feed::kFrameTag) + " pid=" + std::to_string(p) + " kind=" + k +
                  " from=" + std::to_string(f) + " to=" + std::to_string(t) +
                  " bytes=" + std::to_string(b)) {
    return false;
  }
  *h = {p, k, f, t, b};
  return true;
}

}  // namespace

RunMetrics::~RunMetrics() {
  if (reader_.joinable()) {
    (void)!write(wake_[1], "x", 1);
    reader_.join();
  }
  if (server_) server_->Stop();
  for (int fd : {pipe_[0], pipe_[1], child_fd_, wake_[0], wake_[1]}) {
    if (fd >= 0) close(fd);
  }
}

Status RunMetrics::Start(const MetricsOptions& options, std::vector<std::string>* env) {
  options_ = options;
  StatusOr<metrics::ListenAddress> address = metrics::ParseListenAddress(options.listen);
  RETURN_IF_ERROR(address.status());
  registry_ = std::make_unique<metrics::Registry>(options.max_series);
  metrics::Registry* registry = registry_.get();
  server_ = std::make_unique<metrics::HttpServer>(
      [registry](bool openmetrics) { return registry->Render(openmetrics); });
  if (Status listening = server_->Listen(*address); !listening.ok()) {
    return Status(listening.code(), "--metrics: cannot listen on " + listening.message());
  }
  if (pipe2(pipe_, O_CLOEXEC) != 0 || pipe2(wake_, O_CLOEXEC) != 0) {
    return ErrnoError("pipe", errno);
  }
  child_fd_ = fcntl(pipe_[1], F_DUPFD, 3);  // survives exec in the program
  if (child_fd_ < 0) return ErrnoError("fcntl", errno);
  fcntl(pipe_[0], F_SETFL, O_NONBLOCK);
  env->push_back(std::string(metrics_feed::kFdVariable) + "=" + std::to_string(child_fd_));
  server_->Start();
  reader_ = std::thread(&RunMetrics::ReadFeed, this);
  return OkStatus();
}

void RunMetrics::Consume(FeedState* in, const char* buf, size_t n) {
  if (in->broken) return;
  size_t i = 0;
  while (i < n) {
    if (!in->in_body) {
      const char* nl = static_cast<const char*>(std::memchr(buf + i, '\n', n - i));
      const size_t take = nl ? static_cast<size_t>(nl - (buf + i)) : n - i;
      in->header.append(buf + i, take);
      i += take;
      if (in->header.size() > 128) {
        in->broken = true;
        break;
      }
      if (!nl) break;
      ++i;  // the '\n'
      FrameHeader frame;
      if (!ParseHeader(in->header, &frame) || frame.bytes > metrics_feed::kMaxFrameBytes) {
        in->broken = true;
        break;
      }
      in->pid = frame.pid;
      in->kind = frame.kind;
      in->from_ns = frame.from_ns;
      in->to_ns = frame.to_ns;
      in->bytes = frame.bytes;
      in->header.clear();
      in->body.clear();
      in->in_body = true;
    } else {
      const size_t take = std::min<size_t>(in->bytes - in->body.size(), n - i);
      in->body.append(buf + i, take);
      i += take;
    }
    if (in->in_body && in->body.size() == in->bytes) {
      in->in_body = false;
      Take(in->body, in->pid, in->kind, in->from_ns, in->to_ns);
      in->body.clear();
      in->body.shrink_to_fit();
    }
  }
  if (in->broken) {
    std::fprintf(stderr,
                 "nodescope run: --metrics: the metrics pipe carried something else; "
                 "figures now come from the trace at the end only\n");
  }
}

void RunMetrics::ReadFeed() {
  FeedState in;
  char buf[1 << 16];
  while (true) {
    pollfd p[2] = {{pipe_[0], POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(p, 2, 1000) < 0 && errno != EINTR) return;
    if (p[1].revents & POLLIN) {
      // The program has ended: what it wrote last (its final figures) is read before leaving.
      ssize_t n;
      while ((n = read(pipe_[0], buf, sizeof(buf))) > 0) Consume(&in, buf, static_cast<size_t>(n));
      return;
    }
    const ssize_t n = read(pipe_[0], buf, sizeof(buf));
    if (n > 0) Consume(&in, buf, static_cast<size_t>(n));
  }
}

void RunMetrics::Take(const std::string& text, uint64_t pid, const std::string& kind,
                      uint64_t from_ns, uint64_t to_ns) {
  if (kind == "figures" || kind == "final") {  // the process's own, so far: they replace
    StatusOr<metrics::ProcessFigures> figures = metrics::DecodeFigures(text, pid);
    if (!figures.ok()) return;
    registry_->Update(std::move(*figures), NowUnix());
    if (kind == "final") final_[pid] = true;
    return;
  }
  const metrics::Interval interval =
      kind == "interval" ? metrics::Interval{from_ns, to_ns} : metrics::Interval{};
  StatusOr<metrics::ProcessFigures> figures = metrics::FiguresFromText(text, pid, interval);
  if (figures.ok()) Accumulate(std::move(*figures), kind, interval);
}

void RunMetrics::Accumulate(metrics::ProcessFigures figures, const std::string& kind,
                            const metrics::Interval& interval) {
  if (kind == "whole") {  // the whole trace so far: replaces what was served
    registry_->Update(std::move(figures), NowUnix());
    return;
  }
  Totals& t = totals_[figures.pid];
  if (kind == "window") {  // shown on top of the parts until the next window or part
    t.overlay = std::move(figures);
  } else {
    metrics::AddFigures(&t.figures, figures);
    if (kind == "part") t.overlay = {};
    if (interval.to_ns != 0 && interval.to_ns != UINT64_MAX) {
      t.fed_until_ns = std::max(t.fed_until_ns, interval.to_ns);
    }
  }
  metrics::ProcessFigures served = t.figures;
  metrics::AddFigures(&served, t.overlay);
  served.pid = figures.pid;
  registry_->Update(std::move(served), NowUnix());
}

void RunMetrics::Finish(const ChildResult& result, const std::string& output) {
  if (reader_.joinable()) {
    (void)!write(wake_[1], "x", 1);
    reader_.join();
  }
  // The trace file of the process run started, as the summary accepts it (run_report.h).
  const std::string root = std::to_string(result.pid);
  bool updated = false;
  for (const std::string& text : result.report_lines) {
    StatusOr<report::Line> line = report::Parse(text);
    if (!line.ok() || line->kind != report::Line::Kind::kTrace ||
        line->pid != static_cast<uint64_t>(result.pid)) {
      continue;
    }
    const std::string expected = report::TracePathFor(output.empty() ? nullptr : output.c_str(),
                                                      root.c_str(), result.pid, line->rank);
    if (line->path != expected) continue;
    if (final_.count(static_cast<uint64_t>(result.pid)) != 0) {  // its figures are complete
      updated = true;
      continue;
    }
    // The trace is the last frame: a ring's rest after the last interval, a streaming window's
    // last part, or the whole trace. A trace that holds every record replaces what the
    // intervals fed: a record that reached the window after its interval had been fed (CUPTI
    // hands a sampled launch's buffer over only once the launch after it ran) is counted there.
    const uint64_t pid = static_cast<uint64_t>(result.pid);
    const bool stream = options_.mode == metrics_feed::Mode::kStream;
    const bool ring = options_.mode == metrics_feed::Mode::kRing;
    auto fed = totals_.find(pid);
    const char* kind = stream ? "part" : ring && fed != totals_.end() ? "interval" : "whole";
    metrics::Interval rest;
    if (ring && fed != totals_.end()) rest = {fed->second.fed_until_ns, UINT64_MAX};
    StatusOr<metrics::ProcessFigures> figures = metrics::FiguresFromTrace(line->path, pid, rest);
    if (figures.ok()) {
      Accumulate(std::move(*figures), kind, rest);
      updated = true;
    } else {
      std::fprintf(stderr, "nodescope run: --metrics: %s\n",
                   TerminalText(figures.status().ToString()).c_str());
    }
  }
  if (updated && options_.linger_s > 0) {
    // Serve until one scrape has answered with the final figures (or the linger time is out).
    const uint64_t before = server_->renders();  // made before the final figures
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.linger_s);
    while (server_->answered_render() <= before && std::chrono::steady_clock::now() < until) {
      usleep(20 * 1000);
    }
  }
  server_->Stop();
}

}  // namespace nodescope::cli
