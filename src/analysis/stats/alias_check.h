// Whether a trace's graph-node keys are aliased: per-key statistics over its GPU events (no I/O).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/stats/name_pool.h"
#include "base/flat_index_map.h"

namespace nodescope::analysis {

enum class GpuEventKind : uint8_t { kNone, kKernel, kCopy, kFill };

// "kernel", "gpu_memcpy", "gpu_memset", and the "Memcpy" / "Memset" of older torch versions
// (all compared case-insensitively). Anything else is not device work.
GpuEventKind ClassifyCategory(std::string_view cat);

// A ("graph id", "graph node id") pair as written in the trace, and the process it belongs to in
// a merged trace (ProcessSlot, reader/trace_event.h; 0 in a trace of one process): the graph ids
// of two processes never meet.
struct GraphKey {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  uint32_t process = 0;
  friend bool operator==(const GraphKey&, const GraphKey&) = default;
  friend auto operator<=>(const GraphKey&, const GraphKey&) = default;
};

struct NameCount {
  std::string_view name;  // held by AliasReport::names
  uint64_t count = 0;
};

// A key seen on events of more than one name: names by count, most frequent first.
struct AliasedKey {
  GraphKey key;
  std::vector<NameCount> names;  // at most AliasCheckOptions::kNamesPerKey
  // Events of the key whose name was not among the first kNamesPerKey names seen on it.
  uint64_t other_name_events = 0;
};

// A key whose node id does not carry its graph id in its upper 32 bits.
struct MismatchedKey {
  GraphKey key;
  uint64_t events = 0;
  std::string_view name;  // the most frequent name on the key; held by AliasReport::names
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
  uint64_t graph_ids = 0;  // distinct (process, graph id), over events with both keys
  uint64_t node_ids = 0;   // distinct (process, node id), over events with both keys
  uint64_t keys = 0;       // distinct (process, graph id, node id)
  // A merged trace's ranks by process slot (TraceMetadata::merged_ranks); empty otherwise.
  std::vector<int64_t> merged_ranks;
  // Events per distinct node id; all 0 when there are no keyed events.
  uint64_t min_per_node = 0;
  double median_per_node = 0;
  uint64_t max_per_node = 0;
  std::vector<AliasedKey> aliased;        // sorted by key
  std::vector<MismatchedKey> mismatched;  // sorted by key
  bool has_nodescope_metadata = false;
  std::vector<std::pair<std::string, uint64_t>> withheld;  // reason -> count
  std::optional<uint64_t> dropped_total;
  // Events with both keys that were not checked: their key was new after max_keys keys (or
  // max_name_bytes of names) were held. The figures above then cover the checked keys only.
  uint64_t unchecked_events = 0;
  uint64_t max_keys = 0;  // the limits in force
  uint64_t max_name_bytes = 0;
  // Owns the text of every name in `aliased` and `mismatched`.
  std::shared_ptr<const NamePool> names;

  bool inconsistent() const { return !mismatched.empty() || one_key_only > 0; }
  // Every keyed event was checked: the verdict is a proof, not a sample.
  bool complete() const { return unchecked_events == 0; }
  bool clean() const { return aliased.empty() && !inconsistent() && complete(); }
  // "clean", or the findings joined by ", ": "aliased", "inconsistent", "incomplete".
  std::string verdict() const;
};

// Memory bounds of the check, independent of the trace's size.
struct AliasCheckOptions {
  // Distinct (process, graph id, graph node id) keys held: a 40-byte entry and a 24-byte index slot
  // (at most half the slots used) each, so at most about 160 MiB at the default 2^21.
  static constexpr size_t kDefaultMaxKeys = size_t{1} << 21;
  // Bytes of distinct event names held (one copy of each name, shared by its keys), counting
  // NamePool::kPerNameBytes for each name besides its text.
  static constexpr size_t kDefaultMaxNameBytes = size_t{128} << 20;
  // Distinct names counted per key; events of further names on an aliased key are counted
  // together (AliasedKey::other_name_events).
  static constexpr size_t kNamesPerKey = 8;

  size_t max_keys = kDefaultMaxKeys;
  size_t max_name_bytes = kDefaultMaxNameBytes;
};

// Feed every event of a trace to Add(), then call Finish() once.
class AliasChecker {
 public:
  static constexpr size_t kOneKeyExamples = 10;

  explicit AliasChecker(const AliasCheckOptions& options = {});

  void Add(const TraceEvent& event);
  // Releases the key index first, so the report's memory takes its place.
  AliasReport Finish(const TraceMetadata& metadata);

 private:
  struct KeyHash {
    uint64_t operator()(const GraphKey& k) const {
      return MixBits(k.node_id ^ MixBits(k.graph_id ^ (uint64_t{k.process} << 40)));
    }
  };
  // 40 bytes per key: the common key has one name and no further allocation.
  struct KeyEntry {
    GraphKey key;
    uint32_t name = 0;            // the first name seen: almost every key has only this one
    uint32_t others = kNoOthers;  // index into other_names_ once a second name is seen
    uint64_t count = 0;           // events with `name`
  };
  static constexpr uint32_t kNoOthers = UINT32_MAX;
  struct OtherNames {
    std::vector<std::pair<uint32_t, uint64_t>> names;  // at most kNamesPerKey - 1
    uint64_t untracked_events = 0;
  };

  // Interns `name` unless that would pass max_name_bytes; nullopt then.
  AliasCheckOptions options_;
  std::shared_ptr<NamePool> names_;
  FlatIndexMap<GraphKey, KeyHash> index_;  // key -> keys_[i]
  std::vector<KeyEntry> keys_;
  std::vector<OtherNames> other_names_;
  AliasReport counts_;  // the counters filled while events arrive
};

}  // namespace nodescope::analysis
