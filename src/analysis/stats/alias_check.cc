// Counting graph-node keys per name and per node; finding keys that name more than one thing.
#include "analysis/stats/alias_check.h"

#include <algorithm>

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
  std::string out;
  auto add = [&out](const char* finding) {
    out += (out.empty() ? "" : ", ") + std::string(finding);
  };
  if (!aliased.empty()) add("aliased");
  if (inconsistent()) add("inconsistent");
  if (!complete()) add("incomplete");
  return out;
}

AliasChecker::AliasChecker(const AliasCheckOptions& options)
    : options_(options), names_(std::make_shared<NamePool>(options.max_name_bytes)) {
  counts_.max_keys = options.max_keys;
  counts_.max_name_bytes = options.max_name_bytes;
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
  const GraphKey key{*event.graph_id, *event.graph_node_id, ProcessSlot(event.pid)};
  uint32_t index = index_.Find(key);
  if (index == FlatIndexMap<GraphKey, KeyHash>::kAbsent) {
    std::optional<uint32_t> name;
    if (keys_.size() < options_.max_keys) name = names_->Intern(event.name);
    if (!name.has_value()) {
      ++counts_.unchecked_events;
      return;
    }
    index_.FindOrInsert(key, static_cast<uint32_t>(keys_.size()));
    keys_.push_back(KeyEntry{key, *name, kNoOthers, 1});
    return;
  }
  KeyEntry& entry = keys_[index];
  // The common case compares the name without hashing it.
  if (names_->Get(entry.name) == event.name) {
    ++entry.count;
    return;
  }
  if (entry.others == kNoOthers) {
    entry.others = static_cast<uint32_t>(other_names_.size());
    other_names_.emplace_back();
  }
  OtherNames& others = other_names_[entry.others];
  // A full list only counts the names it has: looking a name up then stores nothing.
  const bool room = others.names.size() + 1 < AliasCheckOptions::kNamesPerKey;
  std::optional<uint32_t> id = room ? names_->Intern(event.name) : names_->Find(event.name);
  if (id.has_value()) {
    for (auto& [other, count] : others.names) {
      if (other == *id) {
        ++count;
        return;
      }
    }
    if (others.names.size() + 1 < AliasCheckOptions::kNamesPerKey) {
      others.names.emplace_back(*id, 1);
      return;
    }
  }
  ++others.untracked_events;
}

AliasReport AliasChecker::Finish(const TraceMetadata& metadata) {
  AliasReport report = counts_;
  report.has_nodescope_metadata = metadata.has_nodescope;
  report.withheld = metadata.withheld;
  report.dropped_total = metadata.dropped_total;
  report.merged_ranks = metadata.merged_ranks;
  report.keys = keys_.size();
  report.names = names_;
  index_ = {};  // not needed any more: its memory goes to what follows

  // Distinct graph ids, and events per distinct node id, by sorting (no hash map per id).
  std::vector<std::pair<uint32_t, uint64_t>> ids;  // (process, graph id)
  ids.reserve(keys_.size());
  for (const KeyEntry& entry : keys_) ids.emplace_back(entry.key.process, entry.key.graph_id);
  std::sort(ids.begin(), ids.end());
  report.graph_ids = static_cast<uint64_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
  ids = {};
  // ((process, node id), events)
  std::vector<std::pair<std::pair<uint32_t, uint64_t>, uint64_t>> per_key;
  per_key.reserve(keys_.size());
  size_t mismatched = 0;
  for (const KeyEntry& entry : keys_) {
    const OtherNames* others = entry.others == kNoOthers ? nullptr : &other_names_[entry.others];
    uint64_t events = entry.count;
    if (others != nullptr) {
      for (const auto& other : others->names) events += other.second;
      events += others->untracked_events;
    }
    per_key.emplace_back(std::pair{entry.key.process, entry.key.node_id}, events);
    if ((entry.key.node_id >> 32) != entry.key.graph_id) ++mismatched;
  }
  report.mismatched.reserve(mismatched);
  report.aliased.reserve(other_names_.size());
  for (size_t k = 0; k < keys_.size(); ++k) {
    const KeyEntry& entry = keys_[k];
    const GraphKey& key = entry.key;
    const OtherNames* others = entry.others == kNoOthers ? nullptr : &other_names_[entry.others];
    const bool is_mismatched = (key.node_id >> 32) != key.graph_id;
    if (others == nullptr && !is_mismatched) continue;
    std::vector<NameCount> names;
    names.push_back({names_->Get(entry.name), entry.count});
    if (others != nullptr) {
      for (const auto& [id, count] : others->names) names.push_back({names_->Get(id), count});
    }
    std::sort(names.begin(), names.end(), [](const NameCount& a, const NameCount& b) {
      return a.count != b.count ? a.count > b.count : a.name < b.name;
    });
    if (is_mismatched) report.mismatched.push_back({key, per_key[k].second, names.front().name});
    if (others != nullptr) {
      report.aliased.push_back({key, std::move(names), others->untracked_events});
    }
  }
  auto by_key = [](const auto& a, const auto& b) { return a.key < b.key; };
  std::sort(report.aliased.begin(), report.aliased.end(), by_key);
  std::sort(report.mismatched.begin(), report.mismatched.end(), by_key);

  // Events per distinct node id: the keys' counts summed over equal node ids.
  std::sort(per_key.begin(), per_key.end());
  std::vector<uint64_t> counts;
  for (size_t i = 0; i < per_key.size();) {
    uint64_t sum = 0;
    size_t j = i;
    for (; j < per_key.size() && per_key[j].first == per_key[i].first; ++j)
      sum += per_key[j].second;
    counts.push_back(sum);
    i = j;
  }
  per_key = {};
  report.node_ids = counts.size();
  if (!counts.empty()) {
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
