// Maps from a plain key to a uint32_t index with one allocation per growth and none per insert,
// for the end-of-trace passes over millions of records: an open-addressing hash map, and a
// direct-indexed array for dense ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nodescope {

// A 64-bit finalizer (splitmix64): spreads nearby ids over the whole table.
inline uint64_t MixBits(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct MixHash {
  uint64_t operator()(uint64_t k) const { return MixBits(k); }
};

// Linear probing, at most 3/4 full, no erase. `Hash` returns a uint64_t for a `Key`; keys compare
// with ==. The value kAbsent marks an empty slot and cannot be stored.
template <typename Key, typename Hash = MixHash>
class FlatIndexMap {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // Makes room for `n` entries in total without growing.
  void Reserve(size_t n) {
    if (n == 0) return;
    size_t capacity = 16;
    while (capacity - capacity / 4 < n) capacity *= 2;
    if (capacity > slots_.size()) Rehash(capacity);
  }

  // The value stored for `key`, or kAbsent.
  uint32_t Find(const Key& key) const {
    if (slots_.empty()) return kAbsent;
    for (size_t i = Hash{}(key)&mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent || s.key == key) return s.value;
    }
  }

  // Stores key -> value unless `key` is present; returns the value now stored for `key`.
  uint32_t FindOrInsert(const Key& key, uint32_t value) {
    if (size_ + 1 > slots_.size() - slots_.size() / 4)
      Rehash(slots_.empty() ? 16 : slots_.size() * 2);
    for (size_t i = Hash{}(key)&mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value == kAbsent) {
        s.key = key;
        s.value = value;
        ++size_;
        return value;
      }
      if (s.key == key) return s.value;
    }
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Slot {
    Key key;
    uint32_t value;
  };

  void Rehash(size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{Key{}, kAbsent});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.value == kAbsent) continue;
      size_t i = Hash{}(s.key) & mask_;
      while (slots_[i].value != kAbsent) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;  // size a power of two, or empty
  size_t mask_ = 0;
  size_t size_ = 0;
};

// Id -> uint32_t index for ids that are usually dense (vendor correlation ids, range ids): a plain
// array when the largest id is at most a few times the number of ids, else a FlatIndexMap. Ids
// past the array's end still work (they go to the map), so Reserve's figures are only a hint.
template <typename Key>
class IdIndex {
 public:
  static constexpr uint32_t kAbsent = FlatIndexMap<Key>::kAbsent;

  void Reserve(size_t count, Key max_key) {
    if (count == 0) return;
    if (max_key <= 4 * count + 4096) {
      dense_.assign(static_cast<size_t>(max_key) + 1, kAbsent);
    } else {
      sparse_.Reserve(count);
    }
  }
  uint32_t Find(Key key) const { return key < dense_.size() ? dense_[key] : sparse_.Find(key); }
  // Stores key -> value unless `key` is present; returns the value now stored for `key`.
  uint32_t FindOrInsert(Key key, uint32_t value) {
    if (key >= dense_.size()) return sparse_.FindOrInsert(key, value);
    uint32_t& slot = dense_[key];
    if (slot == kAbsent) slot = value, ++dense_size_;
    return slot;
  }
  bool empty() const { return dense_size_ == 0 && sparse_.empty(); }

 private:
  std::vector<uint32_t> dense_;
  size_t dense_size_ = 0;
  FlatIndexMap<Key> sparse_;
};

}  // namespace nodescope
