// Counting graph-node keys per name and per node; finding keys that name more than one thing.
#include "analysis/alias_check.h"

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
    : options_(options), names_(std::make_shared<StringTable>()) {
  counts_.max_keys = options.max_keys;
}

std::optional<StringId> AliasChecker::InternBounded(std::string_view name) {
  if (name_bytes_ + name.size() > options_.max_name_bytes) return names_->Find(name);
  const size_t before = names_->size();
  StringId id = names_->Intern(name);
  if (names_->size() != before) name_bytes_ += name.size();
  return id;
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
  const GraphKey key{*event.graph_id, *event.graph_node_id};
  uint32_t index = index_.Find(key);
  if (index == FlatIndexMap<GraphKey, KeyHash>::kAbsent) {
    std::optional<StringId> name;
    if (keys_.size() < options_.max_keys) name = InternBounded(event.name);
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
  std::optional<StringId> id = room ? InternBounded(event.name) : names_->Find(event.name);
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

AliasReport AliasChecker::Finish(const TraceMetadata& metadata) const {
  AliasReport report = counts_;
  report.has_nodescope_metadata = metadata.has_nodescope;
  report.withheld = metadata.withheld;
  report.dropped_total = metadata.dropped_total;
  report.keys = keys_.size();
  report.names = names_;

  FlatIndexMap<uint64_t> graphs;
  FlatIndexMap<uint64_t> node_index;  // node id -> per_node[i]
  std::vector<uint64_t> per_node;
  for (const KeyEntry& entry : keys_) {
    const GraphKey& key = entry.key;
    const OtherNames* others = entry.others == kNoOthers ? nullptr : &other_names_[entry.others];
    uint64_t events = entry.count;
    if (others != nullptr) {
      for (const auto& other : others->names) events += other.second;
      events += others->untracked_events;
    }
    graphs.FindOrInsert(key.graph_id, 0);
    uint32_t i = node_index.FindOrInsert(key.node_id, static_cast<uint32_t>(per_node.size()));
    if (i == per_node.size()) per_node.push_back(0);
    per_node[i] += events;

    const bool mismatched = (key.node_id >> 32) != key.graph_id;
    if (others == nullptr && !mismatched) continue;
    std::vector<NameCount> names;
    names.push_back({names_->Get(entry.name), entry.count});
    if (others != nullptr) {
      for (const auto& [id, count] : others->names) names.push_back({names_->Get(id), count});
    }
    std::sort(names.begin(), names.end(), [](const NameCount& a, const NameCount& b) {
      return a.count != b.count ? a.count > b.count : a.name < b.name;
    });
    if (mismatched) report.mismatched.push_back({key, events, names.front().name});
    if (others != nullptr) {
      report.aliased.push_back({key, std::move(names), others->untracked_events});
    }
  }
  auto by_key = [](const auto& a, const auto& b) { return a.key < b.key; };
  std::sort(report.aliased.begin(), report.aliased.end(), by_key);
  std::sort(report.mismatched.begin(), report.mismatched.end(), by_key);

  report.graph_ids = graphs.size();
  report.node_ids = per_node.size();
  if (!per_node.empty()) {
    std::vector<uint64_t>& counts = per_node;
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
