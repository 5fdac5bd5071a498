// Reading kineto-schema traces with simdjson On-Demand, one window of the file at a time.
//
// Why windows: On-Demand indexes the whole document before it hands out the first value, four
// bytes of fresh memory per byte of input. On a trace of a few hundred MB, faulting that memory
// in cost more than the parsing, and the index caps a document at 4 GiB. So the trace is parsed
// in windows of about 1 MiB, each a document of its own:
//   the first window:  the trace's first bytes;
//   every later one:   `{"traceEvents":[` (or `[`) + the trace from the start of the last event
//                      read in full before it (read again, not visited again);
// each cut between two tokens and outside strings: after its last newline (never inside a valid
// JSON string) or `},` (between events on one line), else after its last other structural byte
// or whitespace. Whether that byte was inside a string after all, stage 1 says (an unclosed
// string): the window then ends before the quote that opened it. So simdjson sees a window's
// bytes as it would in the whole document: an event read in full in a window is the file's
// event, and an error before the window's last two tokens is the file's error, whichever window
// finds it. A window ends inside some event, whose reading fails there; the next window starts
// again from the event before it. A window in which no new event is completed (an event larger
// than the window) is tried again twice as large, up to TraceReadOptions::max_window_bytes
// (64 MiB): what does not fit in that is an error at its byte, so memory never follows the input.
// (The part of the trace after the last event is read in one window with that event.)
#include "analysis/reader/trace_reader.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>

#include "analysis/reader/gzip_source.h"
#include "analysis/reader/json_text.h"
#include "analysis/reader/trace_window.h"
#include "analysis/reader/window_reader.h"
#include "base/utf8_text.h"

namespace nodescope::analysis {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// "byte N: ..." in the trace `name`.
Status ErrorAtByte(std::string_view name, uint64_t at, const std::string& what) {
  return DataLossError(std::string(name) + ": byte " + std::to_string(at) + ": " + what);
}

// No window of at most `max_window` bytes from `at` ends after a whole event.
Status TooLarge(std::string_view name, uint64_t at, size_t max_window) {
  const std::string limit = max_window % (size_t{1} << 20) == 0
                                ? std::to_string(max_window >> 20) + " MiB"
                                : std::to_string(max_window) + " bytes";
  return ErrorAtByte(name, at,
                     "an event, or the part of the trace before the first event or after the "
                     "last, is larger than " +
                         limit + ", the most of a trace nodescope holds in memory at once");
}

// Reads windows from `source` until the end of the trace or the first error.
StatusOr<TraceMetadata> ReadWindows(std::string_view name, ByteSource& source,
                                    const TraceEventVisitor& visit, const TraceReadOptions& options,
                                    const std::function<void()>& after_window = nullptr) {
  constexpr std::string_view kObjectPrefix = "{\"traceEvents\":[";
  constexpr std::string_view kArrayPrefix = "[";
  static_assert(kObjectPrefix.size() <= WindowBuffer::kPrefixRoom);
  constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;
  constexpr size_t kMaxDocument = simdjson::SIMDJSON_MAXSIZE_BYTES - WindowBuffer::kPrefixRoom;
  const size_t max_window = std::clamp<size_t>(options.max_window_bytes, 64, kMaxDocument);
  const size_t base_window = std::clamp<size_t>(options.window_bytes, 64, max_window);

  WindowBuffer buffer(source, kPadding);
  od::parser parser;
  std::unique_ptr<uint8_t[]> strings;  // unescaped strings of the current window
  size_t strings_size = 0;
  TraceMetadata meta;    // as of the last event read in full
  uint64_t pos = 0;      // where the next window starts in the file
  bool resumed = false;  // ... with an event already visited, after a prefix
  bool array_format = false;
  size_t window = base_window;  // at most max_window
  while (true) {
    RETURN_IF_ERROR(buffer.Fill(pos, window));
    if (options.peak_window_bytes != nullptr) {
      *options.peak_window_bytes = std::max(*options.peak_window_bytes, buffer.capacity());
    }
    Window w;
    w.bytes = buffer.data();
    w.pos = pos;
    w.resumed = resumed;
    w.last = buffer.at_end() && buffer.size() <= window;
    // No progress in this window: a larger one, up to the limit. But first, a byte after the
    // cut that starts no token is the file's error (a window ends between tokens): found at once
    // in a trace of zeros or other junk, not after growing to the limit.
    auto grow = [&](uint64_t pending) -> Status {
      size_t next = w.size;
      while (next < buffer.size() && IsJsonSpace(buffer.data()[next])) ++next;
      if (next < buffer.size() && !CanStartToken(buffer.data()[next])) {
        return ErrorAtByte(name, pos + next, Describe(simdjson::TAPE_ERROR));
      }
      if (window >= max_window) return TooLarge(name, pending, max_window);
      window = std::min(window * 2, max_window);
      return OkStatus();
    };
    if (w.last) {
      w.size = buffer.size();
    } else {
      w.size = WindowCut(buffer.data(), window);
      if (w.size == 0) {  // one token so far, without whitespace: a string, a number, or junk
        if (!resumed && !CanStartValue(buffer.data()[0])) {
          return ErrorAtByte(name, pos, Describe(simdjson::TAPE_ERROR));
        }
        RETURN_IF_ERROR(grow(pos));
        continue;
      }
    }
    if (!resumed && w.size == 0) return DataLossError(std::string(name) + ": the file is empty");

    // The prefix goes before the bytes; padding after them, kept aside (the next window's).
    const std::string_view prefix = !resumed ? "" : array_format ? kArrayPrefix : kObjectPrefix;
    char* doc_begin = buffer.data() - prefix.size();
    std::memcpy(doc_begin, prefix.data(), prefix.size());
    std::array<char, kPadding> kept;
    od::document doc;
    // Stage 1 (indexing the window) says when the cut is inside a string: it found an odd number
    // of quotes. The window then ends before the quote that opened that string.
    auto iterate = [&] {
      std::memcpy(kept.data(), buffer.data() + w.size, kPadding);
      std::memset(buffer.data() + w.size, 0, kPadding);
      const size_t doc_size = prefix.size() + w.size;
      // Sized for the largest window yet, not this one: windows vary by a few bytes, and fresh
      // memory (page faults) is what makes a whole-document parse slow. The last window, often
      // the only one of a small trace, gets what it needs.
      const size_t room =
          w.last ? doc_size : std::max(doc_size, WindowBuffer::kPrefixRoom + window);
      if (parser.capacity() < doc_size && parser.allocate(room) != simdjson::SUCCESS) {
        return simdjson::MEMALLOC;
      }
      if (strings_size < doc_size + kPadding) {
        strings_size = room + kPadding;
        strings = std::make_unique_for_overwrite<uint8_t[]>(strings_size);
      }
      return parser.iterate(simdjson::padded_string_view(doc_begin, doc_size, doc_size + kPadding))
          .get(doc);
    };
    error_code e = iterate();
    if (e == simdjson::UNCLOSED_STRING && !w.last) {
      std::memcpy(buffer.data() + w.size, kept.data(), kPadding);
      w.size = OpeningQuote(buffer.data(), w.size);
      if (w.size == 0) {
        RETURN_IF_ERROR(grow(pos));
        continue;
      }
      e = iterate();
    }
    if (e == simdjson::MEMALLOC) {
      std::memcpy(buffer.data() + w.size, kept.data(), kPadding);
      return DataLossError(std::string(name) + ": " + Describe(simdjson::MEMALLOC));
    }
    w.tail = pos + (w.last ? w.size : LastTokensStart(w.bytes, w.size, 2));
    TraceMetadata window_meta = meta;
    WindowReader reader(name, w, parser, strings.get(), options.raw_events);
    const bool ok = e == simdjson::SUCCESS && reader.Read(doc, visit, &window_meta);
    std::memcpy(buffer.data() + w.size, kept.data(), kPadding);
    if (after_window) after_window();

    // Errors in the bytes themselves are the file's in any window: a cut splits no character,
    // and a control character in a string is before the cut.
    if (e == simdjson::UTF8_ERROR || e == simdjson::UNESCAPED_CHARS) {
      const size_t at = e == simdjson::UTF8_ERROR
                            ? FirstInvalidUtf8(std::string_view(w.bytes, w.size))
                            : FirstControlInString(w.bytes, w.size);
      if (at < w.size) return ErrorAtByte(name, pos + at, Describe(e));
    }
    if (e != simdjson::SUCCESS && w.last) {
      if (e == simdjson::UNCLOSED_STRING || e == simdjson::EMPTY) {
        return DataLossError(std::string(name) + ": byte " + std::to_string(pos + w.size) +
                             " (end of file): " + Describe(e));
      }
      return ErrorAtByte(name, pos, Describe(e));
    }
    if (e != simdjson::SUCCESS) {  // e.g. a window of whitespace only
      RETURN_IF_ERROR(grow(pos));
      continue;
    }
    if (ok && w.last) return window_meta;
    if (!ok && (w.last || (!reader.retry() && reader.failed()))) {
      return reader.TakeError();
    }

    // Cut inside an event, or "traceEvents" ended and what follows may be cut.
    if (!resumed) array_format = reader.array_format();
    if (reader.completed() > 0 && reader.last_start() > pos) {  // (always: the check is a guard)
      meta = std::move(window_meta);
      pos = reader.last_start();
      resumed = true;
      window = base_window;
    } else {
      RETURN_IF_ERROR(grow(reader.pending_start()));
    }
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
