// Whether a trace's graph-node keys are aliased: per-key statistics over its GPU events (no I/O).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/trace_reader.h"
#include "base/string_table.h"

namespace nodescope::analysis {

enum class GpuEventKind : uint8_t { kNone, kKernel, kCopy, kFill };

// "kernel", "gpu_memcpy", "gpu_memset", and the "Memcpy" / "Memset" of older torch versions
// (all compared case-insensitively). Anything else is not device work.
GpuEventKind ClassifyCategory(std::string_view cat);

// A ("graph id", "graph node id") pair as written in the trace.
struct GraphKey {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  friend bool operator==(const GraphKey&, const GraphKey&) = default;
  friend auto operator<=>(const GraphKey&, const GraphKey&) = default;
};

struct NameCount {
  std::string name;
  uint64_t count = 0;
};

// A key seen on events of more than one name: names by count, most frequent first.
struct AliasedKey {
  GraphKey key;
  std::vector<NameCount> names;
};

// A key whose node id does not carry its graph id in its upper 32 bits.
struct MismatchedKey {
  GraphKey key;
  uint64_t events = 0;
  std::string name;  // the most frequent name on the key
};

// An event with "graph id" but no "graph node id", or the other way round.
struct OneKeyEvent {
  uint64_t offset = 0;  // byte offset of the event in the file
  std::string name;
  std::optional<uint64_t> graph_id;
  std::optional<uint64_t> node_id;
};

struct AliasReport {
  uint64_t events = 0;  // all elements of "traceEvents"
  uint64_t gpu_events = 0;
  uint64_t kernels = 0;
  uint64_t copies = 0;
  uint64_t fills = 0;
  uint64_t with_both_keys = 0;
  // Events with "graph id" 0 and "graph node id" 0: CUPTI's "not from a graph", copied by a writer
  // that does not leave the keys out. Counted here, not as keyed events.
  uint64_t zero_keys = 0;
  uint64_t one_key_only = 0;
  std::vector<OneKeyEvent> one_key_examples;  // the first few, in file order
  uint64_t graph_ids = 0;                     // distinct, over events with both keys
  uint64_t node_ids = 0;                      // distinct, over events with both keys
  uint64_t keys = 0;                          // distinct (graph id, node id) pairs
  // Events per distinct node id; all 0 when there are no keyed events.
  uint64_t min_per_node = 0;
  double median_per_node = 0;
  uint64_t max_per_node = 0;
  std::vector<AliasedKey> aliased;        // sorted by key
  std::vector<MismatchedKey> mismatched;  // sorted by key
  bool has_nodescope_metadata = false;
  std::vector<std::pair<std::string, uint64_t>> withheld;  // reason -> count
  std::optional<uint64_t> dropped_total;

  bool inconsistent() const { return !mismatched.empty() || one_key_only > 0; }
  bool clean() const { return aliased.empty() && !inconsistent(); }
  // "clean", "aliased", "inconsistent" or "aliased, inconsistent".
  std::string verdict() const;
};

// Feed every event of a trace to Add(), then call Finish() once.
class AliasChecker {
 public:
  static constexpr size_t kOneKeyExamples = 10;

  void Add(const TraceEvent& event);
  AliasReport Finish(const TraceMetadata& metadata) const;

 private:
  struct KeyHash {
    size_t operator()(const GraphKey& k) const {
      return std::hash<uint64_t>()(k.node_id * 0x9E3779B97F4A7C15ull ^ k.graph_id);
    }
  };
  struct KeyEntry {
    StringId name = kNoString;  // the first name seen: almost every key has only this one
    uint64_t count = 0;
    std::vector<std::pair<StringId, uint64_t>> other_names;
  };

  StringTable names_;
  std::unordered_map<GraphKey, KeyEntry, KeyHash> keys_;
  AliasReport counts_;  // the counters filled while events arrive
};

}  // namespace nodescope::analysis
