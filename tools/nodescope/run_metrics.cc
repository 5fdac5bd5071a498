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
#include "metrics/trace_figures.h"
#include "model/run_report.h"

namespace nodescope::cli {
namespace {

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "nodescope-metrics pid=N bytes=N": false when it is not exactly that.
bool ParseHeader(const std::string& line, uint64_t* pid, uint64_t* bytes) {
  unsigned long long p = 0, b = 0;
  char tail = 0;
  const std::string format = std::string(metrics_feed::kFrameTag) + " pid=%llu bytes=%llu%c";
  if (std::sscanf(line.c_str(), format.c_str(), &p, &b, &tail) != 2) return false;
  if (line != std::string(metrics_feed::kFrameTag) + " pid=" + std::to_string(p) +
                  " bytes=" + std::to_string(b)) {
    return false;
  }
  *pid = p;
  *bytes = b;
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
  server_ = std::make_unique<metrics::HttpServer>([registry] { return registry->Render(); });
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

void RunMetrics::ReadFeed() {
  std::string header;
  std::string body;
  uint64_t pid = 0;
  uint64_t want = 0;
  bool in_body = false;
  bool broken = false;  // something not a frame came: the rest is drained, not read
  char buf[1 << 16];
  while (true) {
    pollfd p[2] = {{pipe_[0], POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(p, 2, 1000) < 0 && errno != EINTR) return;
    if (p[1].revents & POLLIN) return;
    const ssize_t n = read(pipe_[0], buf, sizeof(buf));
    if (n <= 0) continue;
    if (broken) continue;
    size_t i = 0;
    while (i < static_cast<size_t>(n)) {
      if (!in_body) {
        const char* nl = static_cast<const char*>(std::memchr(buf + i, '\n', n - i));
        const size_t take = nl ? static_cast<size_t>(nl - (buf + i)) : static_cast<size_t>(n) - i;
        header.append(buf + i, take);
        i += take;
        if (header.size() > 128) {
          broken = true;
          break;
        }
        if (!nl) break;
        ++i;  // the '\n'
        if (!ParseHeader(header, &pid, &want) || want > metrics_feed::kMaxFrameBytes) {
          broken = true;
          break;
        }
        header.clear();
        body.clear();
        in_body = true;
      } else {
        const size_t take = std::min<size_t>(want - body.size(), static_cast<size_t>(n) - i);
        body.append(buf + i, take);
        i += take;
      }
      if (in_body && body.size() == want) {
        in_body = false;
        StatusOr<metrics::ProcessFigures> figures = metrics::FiguresFromText(body, pid);
        if (figures.ok()) registry_->Update(std::move(*figures), NowUnix());
        body.clear();
        body.shrink_to_fit();
      }
    }
    if (broken) {
      std::fprintf(stderr,
                   "nodescope run: --metrics: the metrics pipe carried something else; "
                   "figures now come from the trace at the end only\n");
    }
  }
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
    StatusOr<metrics::ProcessFigures> figures =
        metrics::FiguresFromTrace(line->path, static_cast<uint64_t>(result.pid));
    if (figures.ok()) {
      registry_->Update(std::move(*figures), NowUnix());
      updated = true;
    } else {
      std::fprintf(stderr, "nodescope run: --metrics: %s\n",
                   TerminalText(figures.status().ToString()).c_str());
    }
  }
  if (updated && options_.linger_s > 0) {
    // Serve until one scrape has answered with the final figures (or the linger time is out).
    const uint64_t before = server_->scrapes();
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.linger_s);
    while (server_->scrapes() <= before && std::chrono::steady_clock::now() < until) {
      usleep(20 * 1000);
    }
  }
  server_->Stop();
}

}  // namespace nodescope::cli
