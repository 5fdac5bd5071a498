// Reading kineto-schema traces with simdjson On-Demand, one window of the file at a time.
//
// Why windows: On-Demand indexes the whole document before it hands out the first value, four
// bytes of fresh memory per byte of input. On a trace of a few hundred MB, faulting that memory
// in cost more than the parsing, and the index caps a document at 4 GiB. So the trace is parsed
// in windows of about 1 MiB, each a document of its own:
//   the first window:  the trace's first bytes, cut after the last newline in them;
//   every later one:   `{"traceEvents":[` (or `[`) + the trace from the start of the last event
//                      read in full before it (read again, not visited again), cut the same way.
// A newline is never inside a valid JSON string, so a window starts and ends outside strings and
// simdjson sees its bytes as it would in the whole document: an event read in full in a window
// is the file's event. A window ends inside some event, whose reading fails; the next window
// starts again from the event before it. A window in which no new event is completed (an event
// larger than the window, or bad JSON) is tried again twice as large, up to the end of the file:
// the last window is the whole rest of the file, and its errors are the file's. Errors about a
// value that was read (wrong type, bad number, bad string) are the file's in any window: a value
// seen in a window is complete, since the cut is at a newline.
#include "analysis/trace_reader.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "analysis/gzip_source.h"
#include "analysis/json_text.h"
#include "analysis/trace_window.h"
#include "analysis/window_reader.h"

namespace nodescope::analysis {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// Reads windows from `source` until the end of the trace or the first error.
StatusOr<TraceMetadata> ReadWindows(std::string_view name, ByteSource& source,
                                    const TraceEventVisitor& visit,
                                    const TraceReadOptions& options,
                                    const std::function<void()>& after_window = nullptr) {
  constexpr std::string_view kObjectPrefix = "{\"traceEvents\":[";
  constexpr std::string_view kArrayPrefix = "[";
  static_assert(kObjectPrefix.size() <= WindowBuffer::kPrefixRoom);
  constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;
  constexpr size_t kMaxDocument = simdjson::SIMDJSON_MAXSIZE_BYTES - WindowBuffer::kPrefixRoom;
  const size_t base_window = std::clamp<size_t>(options.window_bytes, 64, kMaxDocument);

  WindowBuffer buffer(source, kPadding);
  od::parser parser;
  std::unique_ptr<uint8_t[]> strings;  // unescaped strings of the current window
  size_t strings_size = 0;
  TraceMetadata meta;    // as of the last event read in full
  uint64_t pos = 0;      // where the next window starts in the file
  bool resumed = false;  // ... with an event already visited, after a prefix
  bool array_format = false;
  size_t window = base_window;  // at most kMaxDocument + 1: then it must reach the end
  auto grow = [&window] { window = std::min(window * 2, kMaxDocument + 1); };
  bool to_end = false;  // the next window reaches the end of the file
  while (true) {
    const size_t want = to_end ? kMaxDocument + 1 : window;
    RETURN_IF_ERROR(buffer.Fill(pos, want));
    Window w;
    w.bytes = buffer.data();
    w.pos = pos;
    w.resumed = resumed;
    w.last = buffer.at_end() && buffer.size() <= std::min(want, kMaxDocument);
    if (w.last) {
      w.size = buffer.size();
    } else if (want > kMaxDocument) {
      return DataLossError(std::string(name) + ": byte " + std::to_string(pos) + ": " +
                           Describe(simdjson::CAPACITY));
    } else {
      const void* newline = memrchr(buffer.data(), '\n', window);
      if (newline == nullptr) {  // all one line so far: the window grows to hold more of it
        grow();
        continue;
      }
      w.size = static_cast<size_t>(static_cast<const char*>(newline) - buffer.data()) + 1;
    }
    if (!resumed && w.size == 0) return DataLossError(std::string(name) + ": the file is empty");

    // The prefix goes before the bytes; padding after them, kept aside (the next window's).
    const std::string_view prefix = !resumed ? "" : array_format ? kArrayPrefix : kObjectPrefix;
    char* doc_begin = buffer.data() - prefix.size();
    const size_t doc_size = prefix.size() + w.size;
    std::memcpy(doc_begin, prefix.data(), prefix.size());
    std::array<char, kPadding> kept;
    std::memcpy(kept.data(), buffer.data() + w.size, kPadding);
    std::memset(buffer.data() + w.size, 0, kPadding);
    // Sized for the largest window yet, not this one: windows vary by a few bytes, and fresh
    // memory (page faults) is what makes a whole-document parse slow. The last window, often
    // the only one of a small trace, gets what it needs.
    const size_t room = w.last ? doc_size : std::max(doc_size, WindowBuffer::kPrefixRoom + window);
    if (parser.capacity() < doc_size && parser.allocate(room) != simdjson::SUCCESS) {
      return DataLossError(std::string(name) + ": " + Describe(simdjson::MEMALLOC));
    }
    if (strings_size < doc_size + kPadding) {
      strings_size = room + kPadding;
      strings = std::make_unique_for_overwrite<uint8_t[]>(strings_size);
    }

    TraceMetadata window_meta = meta;
    WindowReader reader(name, w, parser, strings.get());
    od::document doc;
    const error_code e =
        parser.iterate(simdjson::padded_string_view(doc_begin, doc_size, doc_size + kPadding))
            .get(doc);
    const bool ok = e == simdjson::SUCCESS && reader.Read(doc, visit, &window_meta);
    std::memcpy(buffer.data() + w.size, kept.data(), kPadding);
    if (after_window) after_window();

    // Errors in the bytes themselves are the file's in any window: a cut at a newline splits no
    // character, and a control character in a string is before the cut.
    if (e == simdjson::UTF8_ERROR || e == simdjson::UNESCAPED_CHARS) {
      const size_t at =
          e == simdjson::UTF8_ERROR
              ? FirstInvalidUtf8(reinterpret_cast<const unsigned char*>(w.bytes), w.size)
              : FirstControlInString(w.bytes, w.size);
      if (at < w.size) {
        return DataLossError(std::string(name) + ": byte " + std::to_string(pos + at) + ": " +
                             Describe(e));
      }
    }
    if (e != simdjson::SUCCESS && w.last) {
      if (e == simdjson::UNCLOSED_STRING) {
        return DataLossError(std::string(name) + ": byte " + std::to_string(pos + w.size) +
                             " (end of file): " + Describe(e));
      }
      return DataLossError(std::string(name) + ": " + Describe(e));
    }
    if (e != simdjson::SUCCESS) {  // e.g. cut in a string holding a raw newline (not valid JSON)
      grow();
      continue;
    }
    if (ok) return window_meta;
    if (w.last || (!reader.retry() && !reader.saw_array_end())) return reader.TakeError();

    // Cut inside an event, or "traceEvents" ended and what follows may be cut.
    if (!resumed) array_format = reader.array_format();
    if (reader.completed() > 0 && reader.last_start() > pos) {  // (always: the check is a guard)
      meta = std::move(window_meta);
      pos = reader.last_start();
      resumed = true;
      window = base_window;
    } else if (!reader.saw_array_end()) {
      grow();
    }
    to_end = reader.saw_array_end();
  }
}

// Counts the bytes read from the file, for progress.
class CountingSource final : public ByteSource {
 public:
  explicit CountingSource(std::unique_ptr<ByteSource> file) : file_(std::move(file)) {}
  StatusOr<size_t> Read(char* dst, size_t n) override {
    ASSIGN_OR_RETURN(size_t got, file_->Read(dst, n));
    bytes_ += got;
    return got;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  std::unique_ptr<ByteSource> file_;
  uint64_t bytes_ = 0;
};

// Byte offsets in a compressed trace's messages count its inflated bytes: the name says so.
std::string InflatedName(std::string_view name) { return std::string(name) + " (inflated)"; }

}  // namespace

StatusOr<TraceMetadata> ReadTraceFile(const std::string& path, const TraceEventVisitor& visit,
                                      const TraceReadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> file, ByteSource::OpenFile(path));
  uint64_t file_bytes = 0;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    file_bytes = static_cast<uint64_t>(st.st_size);
  }
  auto counted = std::make_unique<CountingSource>(std::move(file));
  const CountingSource* count = counted.get();
  bool inflated = false;
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source,
                   DecompressIfGzipped(std::move(counted), path, &inflated));
  std::function<void()> after_window;
  if (options.progress) {
    after_window = [&] { options.progress(count->bytes(), file_bytes); };
  }
  return ReadWindows(inflated ? InflatedName(path) : path, *source, visit, options, after_window);
}

StatusOr<TraceMetadata> ReadTraceText(std::string_view name, std::string_view json,
                                      const TraceEventVisitor& visit,
                                      const TraceReadOptions& options) {
  bool inflated = false;
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source,
                   DecompressIfGzipped(ByteSource::OfMemory(json), std::string(name), &inflated));
  return ReadWindows(inflated ? InflatedName(name) : std::string(name), *source, visit, options);
}

}  // namespace nodescope::analysis
