// Counting graph-node keys per name and per node; finding keys that name more than one thing.
#include "analysis/alias_check.h"

#include <algorithm>
#include <unordered_set>

namespace nodescope::analysis {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

GpuEventKind ClassifyCategory(std::string_view cat) {
  if (EqualsIgnoreCase(cat, "kernel")) return GpuEventKind::kKernel;
  if (EqualsIgnoreCase(cat, "gpu_memcpy") || EqualsIgnoreCase(cat, "memcpy")) {
    return GpuEventKind::kCopy;
  }
  if (EqualsIgnoreCase(cat, "gpu_memset") || EqualsIgnoreCase(cat, "memset")) {
    return GpuEventKind::kFill;
  }
  return GpuEventKind::kNone;
}

std::string AliasReport::verdict() const {
  if (clean()) return "clean";
  if (aliased.empty()) return "inconsistent";
  return inconsistent() ? "aliased, inconsistent" : "aliased";
}

void AliasChecker::Add(const TraceEvent& event) {
  ++counts_.events;
  // Complete events only: flows ("s"/"f") and metadata ("M") may share a GPU category.
  if (!event.ph.empty() && event.ph != "X") return;
  GpuEventKind kind = ClassifyCategory(event.cat);
  if (kind == GpuEventKind::kNone) return;
  ++counts_.gpu_events;
  if (kind == GpuEventKind::kKernel) ++counts_.kernels;
  if (kind == GpuEventKind::kCopy) ++counts_.copies;
  if (kind == GpuEventKind::kFill) ++counts_.fills;

  if (!event.graph_id.has_value() && !event.graph_node_id.has_value()) return;
  if (event.graph_id == 0u && event.graph_node_id == 0u) {
    ++counts_.zero_keys;
    return;
  }
  if (!event.graph_id.has_value() || !event.graph_node_id.has_value()) {
    ++counts_.one_key_only;
    if (counts_.one_key_examples.size() < kOneKeyExamples) {
      counts_.one_key_examples.push_back(
          {event.offset, std::string(event.name), event.graph_id, event.graph_node_id});
    }
    return;
  }
  ++counts_.with_both_keys;
  KeyEntry& entry = keys_[GraphKey{*event.graph_id, *event.graph_node_id}];
  if (entry.count == 0) {
    entry.name = names_.Intern(event.name);
    entry.count = 1;
    return;
  }
  // The common case compares the name without hashing it.
  if (names_.Get(entry.name) == event.name) {
    ++entry.count;
    return;
  }
  StringId id = names_.Intern(event.name);
  for (auto& [other, count] : entry.other_names) {
    if (other == id) {
      ++count;
      return;
    }
  }
  entry.other_names.emplace_back(id, 1);
}

AliasReport AliasChecker::Finish(const TraceMetadata& metadata) const {
  AliasReport report = counts_;
  report.has_nodescope_metadata = metadata.has_nodescope;
  report.withheld = metadata.withheld;
  report.dropped_total = metadata.dropped_total;
  report.keys = keys_.size();

  std::unordered_set<uint64_t> graphs;
  std::unordered_map<uint64_t, uint64_t> per_node;
  for (const auto& [key, entry] : keys_) {
    uint64_t events = entry.count;
    for (const auto& other : entry.other_names) events += other.second;
    graphs.insert(key.graph_id);
    per_node[key.node_id] += events;

    std::vector<NameCount> names;
    if (!entry.other_names.empty() || (key.node_id >> 32) != key.graph_id) {
      names.push_back({std::string(names_.Get(entry.name)), entry.count});
      for (const auto& [id, count] : entry.other_names) {
        names.push_back({std::string(names_.Get(id)), count});
      }
      std::sort(names.begin(), names.end(), [](const NameCount& a, const NameCount& b) {
        return a.count != b.count ? a.count > b.count : a.name < b.name;
      });
    }
    if ((key.node_id >> 32) != key.graph_id) {
      report.mismatched.push_back({key, events, names.front().name});
    }
    if (!entry.other_names.empty()) report.aliased.push_back({key, std::move(names)});
  }
  auto by_key = [](const auto& a, const auto& b) { return a.key < b.key; };
  std::sort(report.aliased.begin(), report.aliased.end(), by_key);
  std::sort(report.mismatched.begin(), report.mismatched.end(), by_key);

  report.graph_ids = graphs.size();
  report.node_ids = per_node.size();
  if (!per_node.empty()) {
    std::vector<uint64_t> counts;
    counts.reserve(per_node.size());
    for (const auto& [node, count] : per_node) counts.push_back(count);
    std::sort(counts.begin(), counts.end());
    size_t n = counts.size();
    report.min_per_node = counts.front();
    report.max_per_node = counts.back();
    report.median_per_node =
        n % 2 == 1
            ? static_cast<double>(counts[n / 2])
            : (static_cast<double>(counts[n / 2 - 1]) + static_cast<double>(counts[n / 2])) / 2;
  }
  return report;
}

}  // namespace nodescope::analysis
