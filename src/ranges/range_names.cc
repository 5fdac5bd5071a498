// The process-wide name table of ring-mode and streaming ranges.
#include "ranges/range_names.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "ranges/range_ring.h"

namespace nodescope::ranges_internal {
namespace {

// Probes of the table before a name is given up.
constexpr uint32_t kMaxProbes = 32;
constexpr size_t kArenaChunk = 256 * 1024;

// A name is published by its text (release); hash and size are written before it.
struct Entry {
  std::atomic<const char*> text{nullptr};
  std::atomic<uint64_t> hash{0};
  std::atomic<uint32_t> size{0};
};

Entry g_entries[kNameEntries];  // zero pages until used (1.5 MiB of address space)
std::mutex g_insert_mu;
// Under g_insert_mu.
char* g_arena_cur = nullptr;
size_t g_arena_left = 0;
size_t g_arena_total = 0;
std::atomic<uint32_t> g_count{0};
std::atomic<bool> g_arena_full{false};  // no name is added any more: no lock taken to try

// Eight bytes a step (a byte-at-a-time hash made a 64-character name cost more than copying it).
uint64_t HashName(std::string_view name) {
  constexpr uint64_t kMul = 0xff51afd7ed558ccdull;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, name.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, name.data() + i, name.size() - i);
  h = (h ^ tail) * kMul;
  return h ^ (h >> 29);
}

bool Matches(const Entry& e, const char* text, uint64_t h, std::string_view name) {
  return e.hash.load(std::memory_order_relaxed) == h &&
         e.size.load(std::memory_order_relaxed) == name.size() &&
         std::memcmp(text, name.data(), name.size()) == 0;
}

// Under g_insert_mu: a copy of `name` in the arena, or nullptr when it is full.
const char* CopyToArena(std::string_view name) {
  if (name.size() > g_arena_left) {
    const size_t size = name.size() > kArenaChunk ? name.size() : kArenaChunk;
    auto* mem = g_arena_total + size > kNameArenaBytes
                    ? nullptr
                    : static_cast<char*>(AllocatePopulated(size));
    if (mem == nullptr) {
      g_arena_full.store(true, std::memory_order_relaxed);
      return nullptr;
    }
    g_arena_total += size;
    g_arena_cur = mem;
    g_arena_left = size;
  }
  char* out = g_arena_cur;
  std::memcpy(out, name.data(), name.size());
  g_arena_cur += name.size();
  g_arena_left -= name.size();
  return out;
}

}  // namespace

bool InternRangeName(std::string_view name, std::string_view* out) {
  if (name.empty()) {
    *out = {};
    return true;
  }
  const uint64_t h = HashName(name);
  uint32_t probe = 0;
  for (; probe < kMaxProbes; ++probe) {
    const Entry& e = g_entries[(h + probe) & (kNameEntries - 1)];
    const char* text = e.text.load(std::memory_order_acquire);
    if (text == nullptr) break;  // entries fill in probe order: the name is not there
    if (Matches(e, text, h, name)) {
      *out = {text, name.size()};
      return true;
    }
  }
  // Entries are never removed: a full probe sequence or arena stays full, so no lock for those.
  if (probe == kMaxProbes || g_arena_full.load(std::memory_order_relaxed)) return false;
  // First sight: look again under the lock, then add it.
  std::lock_guard<std::mutex> lock(g_insert_mu);
  for (probe = 0; probe < kMaxProbes; ++probe) {
    Entry& e = g_entries[(h + probe) & (kNameEntries - 1)];
    const char* text = e.text.load(std::memory_order_acquire);
    if (text != nullptr) {
      if (Matches(e, text, h, name)) {
        *out = {text, name.size()};
        return true;
      }
      continue;
    }
    const char* copy = CopyToArena(name);
    if (copy == nullptr) return false;
    e.hash.store(h, std::memory_order_relaxed);
    e.size.store(static_cast<uint32_t>(name.size()), std::memory_order_relaxed);
    e.text.store(copy, std::memory_order_release);
    g_count.fetch_add(1, std::memory_order_relaxed);
    *out = {copy, name.size()};
    return true;
  }
  return false;
}

uint32_t RangeNameCount() { return g_count.load(std::memory_order_relaxed); }

}  // namespace nodescope::ranges_internal
