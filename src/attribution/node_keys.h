// Node keys: a "graph node id" names one node of one exec doing one thing.
//
// An exec's node `ordinal` keeps its own key, (graph id << 32) | ordinal, for the first thing it
// is seen to run (a kernel function, a copy direction and memory kinds, a fill's memory kind).
// When an update or set-params makes it run something else, that work gets a new ordinal of the
// same graph id, drawn from the top of the 32-bit ordinal space downward, memoized: going back to
// the earlier kernel gives back the earlier key, going to the same new kernel again the same new
// key. Graph ids stay below 2^21 so every key is below 2^53 (exact as a double).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace nodescope {

// Identity of a GPU activity: kernels by interned name, copies by direction and memory kinds,
// fills by memory kind. Tagged in the top two bits so kinds never compare equal.
inline uint32_t IdentityOf(const GpuActivity& a) {
  switch (a.kind) {
    case ActivityKind::kKernel:
      return a.kernel.name & 0x3fffffffu;
    case ActivityKind::kMemcpy:
      return (1u << 30) | (static_cast<uint32_t>(a.copy.direction) << 16) |
             (static_cast<uint32_t>(a.copy.src_kind) << 8) | static_cast<uint32_t>(a.copy.dst_kind);
    case ActivityKind::kMemset:
      return (2u << 30) | static_cast<uint32_t>(a.fill.memory_kind);
    case ActivityKind::kCount:
      break;
  }
  return 3u << 30;
}

// The 20 size bits of ReconstructedIdentityOf: exact below 2^19 bytes (512 KiB), else a hash of
// the size with bit 19 set, so two sizes above that may (rarely) look alike.
inline uint32_t SizeIdentity(uint64_t bytes) {
  constexpr uint64_t kExact = uint64_t{1} << 19;
  if (bytes < kExact) return static_cast<uint32_t>(bytes);
  uint64_t h = bytes * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return static_cast<uint32_t>(kExact | (h & (kExact - 1)));
}

// Identity where nothing but the work tells nodes apart (reconstructed attribution, whose records
// carry no node id): as IdentityOf, with the size of a copy or fill too, so a copy resized by an
// update is another node's work (a new node id, as for a kernel changed) and a copy of another
// size at a node's ordinal fails its check. Native ids (IdentityOf) keep a copy's key whatever
// its size.
inline uint32_t ReconstructedIdentityOf(const GpuActivity& a) {
  switch (a.kind) {
    case ActivityKind::kMemcpy:
      return (1u << 30) | ((static_cast<uint32_t>(a.copy.direction) & 0xfu) << 26) |
             ((static_cast<uint32_t>(a.copy.src_kind) & 7u) << 23) |
             ((static_cast<uint32_t>(a.copy.dst_kind) & 7u) << 20) | SizeIdentity(a.copy.bytes);
    case ActivityKind::kMemset:
      return (2u << 30) | ((static_cast<uint32_t>(a.fill.memory_kind) & 7u) << 27) |
             SizeIdentity(a.fill.bytes);
    default:
      return IdentityOf(a);
  }
}
static_assert(static_cast<uint32_t>(CopyDirection::kCount) <= 16 &&
              static_cast<uint32_t>(MemoryKind::kCount) <= 8);

// Where keys may go. The defaults are the real limits; tests shrink them to reach the edges.
struct KeySpace {
  uint32_t graph_id_limit = 1u << 21;  // graph ids at or past this get no keys (2^21 << 32 = 2^53)
  uint32_t top_ordinal = 0xffffffffu;  // new ordinals are issued from here downward
};

// Native ordinals at or past this are not stored (no real graph has 16 M nodes).
inline constexpr uint32_t kMaxNativeOrdinal = 1u << 24;

class NodeKeyTable {
 public:
  static constexpr uint32_t kUnknown = 0xffffffffu;

  explicit NodeKeyTable(uint32_t top_ordinal = 0xffffffffu) : top_ordinal_(top_ordinal) {}

  // The ordinal to write for work doing `identity` at node `ordinal` of `graph_id`: `ordinal`
  // for the first identity seen there, a new ordinal (the same each time) for any other. False
  // when none can be given: a new ordinal would meet the graph's native ones, or `ordinal` lies
  // where new ordinals are issued.
  bool Key(uint32_t graph_id, uint32_t ordinal, uint32_t identity, uint32_t* out) {
    Graph& g = GraphOf(graph_id);
    if (ordinal < g.identity.size() && g.identity[ordinal] == identity) [[likely]] {
      *out = ordinal;
      return true;
    }
    return KeySlow(g, ordinal, identity, out);
  }

  uint64_t new_ordinals_issued() const { return new_ordinals_issued_; }

  // Every new ordinal issued for `graph_id`, with the native ordinal whose node it runs at:
  // (new ordinal, native ordinal), in no particular order.
  template <typename F>
  void ForEachNewOrdinal(uint32_t graph_id, F&& f) const {
    auto it = graphs_.find(graph_id);
    if (it == graphs_.end()) return;
    for (const auto& [key, ordinal] : it->second.alternates) {
      f(ordinal, static_cast<uint32_t>(key >> 32));
    }
  }

 private:
  struct Alternate {
    uint32_t identity = kUnknown;  // the last other thing seen at a node, and its new ordinal
    uint32_t ordinal = 0;
  };
  struct Graph {
    // By native ordinal: the first thing seen there (it keeps the native key), and the last
    // other thing (apart, so the common path reads 4 bytes a node; sized on first use).
    std::vector<uint32_t> identity;
    std::vector<Alternate> last_alternate;
    // (native ordinal << 32 | identity) -> new ordinal, for every identity but the first.
    std::unordered_map<uint64_t, uint32_t> alternates;
    uint32_t next_new = 0;  // the next new ordinal to issue; every native ordinal stays <= it
    bool exhausted = false;
  };

  Graph& GraphOf(uint32_t graph_id) {
    if (cached_ != nullptr && cached_id_ == graph_id) [[likely]]
      return *cached_;
    return GraphOfSlow(graph_id);
  }
  [[gnu::noinline]] Graph& GraphOfSlow(uint32_t graph_id) {
    auto [it, inserted] = graphs_.try_emplace(graph_id);
    if (inserted) it->second.next_new = top_ordinal_;
    cached_ = &it->second;  // unordered_map nodes are stable
    cached_id_ = graph_id;
    return *cached_;
  }

  [[gnu::noinline]] bool KeySlow(Graph& g, uint32_t ordinal, uint32_t identity, uint32_t* out) {
    if (ordinal >= g.identity.size()) {
      // A native ordinal never reaches the new ones (nor they it: see below).
      if (ordinal >= kMaxNativeOrdinal || ordinal > g.next_new || g.exhausted) return false;
      g.identity.resize(static_cast<size_t>(ordinal) + 1, kUnknown);
    }
    if (g.identity[ordinal] == kUnknown) {
      g.identity[ordinal] = identity;
      *out = ordinal;
      return true;
    }
    if (ordinal >= g.last_alternate.size()) g.last_alternate.resize(g.identity.size());
    Alternate& last = g.last_alternate[ordinal];
    if (last.identity == identity) {
      *out = last.ordinal;
      return true;
    }
    const uint64_t alt_key = (uint64_t{ordinal} << 32) | identity;
    auto it = g.alternates.find(alt_key);
    if (it == g.alternates.end()) {
      // Every native ordinal stored is below identity.size(); later ones stay <= next_new.
      if (g.exhausted || g.next_new < g.identity.size()) {
        g.exhausted = true;
        return false;
      }
      it = g.alternates.emplace(alt_key, g.next_new).first;
      ++new_ordinals_issued_;
      if (g.next_new == 0) {
        g.exhausted = true;
      } else {
        --g.next_new;
      }
    }
    last = Alternate{identity, it->second};
    *out = it->second;
    return true;
  }

  const uint32_t top_ordinal_;
  std::unordered_map<uint32_t, Graph> graphs_;
  Graph* cached_ = nullptr;
  uint32_t cached_id_ = 0;
  uint64_t new_ordinals_issued_ = 0;
};

}  // namespace nodescope
