// Reading one window of a trace (see trace_reader.cc) as a simdjson On-Demand document: its
// events handed to the visitor, and what the window's end means for the next one.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/reader/trace_event.h"
#include "base/status.h"

namespace nodescope::analysis {

// Where a window lies in the file, and how it starts.
struct Window {
  const char* bytes = nullptr;  // the window's first byte of the file, in memory
  uint64_t pos = 0;             // its offset in the file
  size_t size = 0;              // bytes of the file in the window
  bool last = false;            // reaches the end of the file
  bool resumed = false;         // starts with an event read before (after a prefix)
  // Offset of the window's last tokens (of the file's end in the last window): an error found
  // at them or after them may come from the cut, which hides what follows them.
  uint64_t tail = 0;
};

// Reads one window. Stops at the first error; says whether another window may do better.
class WindowReader {
 public:
  // Strings are unescaped into `strings`, which must hold the window plus simdjson's padding.
  WindowReader(std::string_view name, const Window& window, simdjson::ondemand::parser& parser,
               uint8_t* strings, bool raw_events = false)
      : name_(name),
        w_(window),
        parser_(parser),
        strings_(strings),
        skip_first_(window.resumed),
        pending_start_(window.pos),
        raw_events_(raw_events) {}

  // False on an error (failed(), TakeError()) or, in a window that is not the last, when
  // "traceEvents" ends.
  bool Read(simdjson::ondemand::document& doc, const TraceEventVisitor& visit, TraceMetadata* meta);

  bool failed() const { return !error_.ok(); }  // Read() found an error (else it stopped early)
  Status TakeError() { return std::move(error_); }
  // The error may come from where the window was cut (it ran into the window's end): a window
  // starting at last_start(), or a larger one, reads on. Any other error is the file's: a
  // window ends between tokens and outside strings, so what it holds reads as in the file.
  bool retry() const { return retry_; }
  // Where the value that ran into the window's end starts: an element of "traceEvents" or a
  // member of the top-level object (the window's start when none had started).
  uint64_t pending_start() const { return pending_start_; }
  // Events completed in this window, and the offset of the last one (to resume from).
  uint64_t completed() const { return completed_; }
  uint64_t last_start() const { return last_start_; }
  bool array_format() const { return array_format_; }  // a bare array of events

 private:
  uint64_t Offset(const char* at) const {
    if (at < w_.bytes) return w_.pos;  // inside the prefix
    return w_.pos + std::min<size_t>(static_cast<size_t>(at - w_.bytes), w_.size);
  }
  uint64_t End() const { return w_.pos + w_.size; }
  bool Fail(Status status, bool retry = false) {
    error_ = std::move(status);
    retry_ = retry && !w_.last;
    return false;
  }
  // An error about the value at `at`: at the window's last tokens or past them, maybe the cut's.
  bool ErrorAt(const char* at, const std::string& what) {
    return Fail(
        DataLossError(std::string(name_) + ": byte " + std::to_string(Offset(at)) + ": " + what),
        /*retry=*/Offset(at) >= w_.tail);
  }
  // An error from simdjson while walking the document: the offset is where its iterator stands.
  // Running into the end of the window, wherever simdjson notices it, means the file is cut
  // short (in the last window) or the window is (in any other).
  bool Failed(simdjson::error_code error);
  // `"key" is a string, expected an unsigned integer`.
  bool WrongType(simdjson::ondemand::value& v, std::string_view key, const char* expected);
  // `"key" is -1, expected ...` for numbers of the right type but out of range.
  bool BadNumber(simdjson::ondemand::value& v, std::string_view key, const char* expected);
  // A number that get_*() refused: a wrong type, or a number out of range.
  bool NotA(simdjson::ondemand::value& v, std::string_view key, const char* expected_number,
            const char* expected_type);

  bool GetString(simdjson::ondemand::value& v, std::string_view key, std::string_view* out);
  // The string's text with its escapes decoded, into strings_ (`key` names it in errors).
  bool Unescape(simdjson::ondemand::raw_json_string raw, std::string_view key,
                std::string_view* out);
  bool GetUint(simdjson::ondemand::value& v, std::string_view key, std::optional<uint64_t>* out);
  bool GetInt(simdjson::ondemand::value& v, std::string_view key, std::optional<int64_t>* out);
  bool GetDouble(simdjson::ondemand::value& v, std::string_view key, std::optional<double>* out);
  bool GetId(simdjson::ondemand::value& v, std::string_view key, TraceId* out);
  bool GetObject(simdjson::ondemand::value& v, std::string_view key,
                 simdjson::ondemand::object* out);

  bool ReadEvents(simdjson::ondemand::array& events, const TraceEventVisitor& visit,
                  TraceMetadata* meta);
  bool ReadEvent(simdjson::ondemand::value& v, TraceEvent* event);
  bool ReadArgs(simdjson::ondemand::value& v, TraceEvent* event);
  bool ReadNodescope(simdjson::ondemand::value& v, TraceMetadata* meta);
  bool ReadJob(simdjson::ondemand::value& v, TraceMetadata* meta);
  bool ReadMerged(simdjson::ondemand::value& v, TraceMetadata* meta);
  bool ReadSampling(simdjson::ondemand::value& v, TraceMetadata* meta);
  bool ReadDistributedInfo(simdjson::ondemand::value& v, TraceMetadata* meta);
  bool ReadGraphDags(simdjson::ondemand::value& v, TraceMetadata* meta);  // window_dags.cc
  bool ReadGraphDag(simdjson::ondemand::value& v, GraphDag* dag);
  template <typename Each>
  bool ReadTuple(simdjson::ondemand::value& v, std::string_view key, size_t size, Each&& each);
  // The event's text from `at` (its '{') to its '}', once its fields have been read.
  bool RawEvent(const char* at, TraceEvent* event);

  std::string_view name_;
  Window w_;
  simdjson::ondemand::parser& parser_;
  uint8_t* strings_;
  bool skip_first_;  // the event the window starts with (when resumed)
  simdjson::ondemand::document* doc_ = nullptr;
  Status error_;
  bool retry_ = false;
  bool array_format_ = false;
  uint64_t completed_ = 0;
  uint64_t last_start_ = 0;
  uint64_t pending_start_ = 0;
  bool raw_events_ = false;
};

}  // namespace nodescope::analysis
