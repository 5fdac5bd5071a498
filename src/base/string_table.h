// Interned strings: records carry a 32-bit StringId, never a copy of the string.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nodescope {

using StringId = uint32_t;
inline constexpr StringId kNoString = 0;  // id 0 is always the empty string

// Not thread-safe: one owner (the thread that decodes vendor buffers, under its batch lock).
class StringTable {
 public:
  StringTable();

  StringId Intern(std::string_view s);
  // For vendor strings whose storage outlives the trace (CUPTI shares one kernel-name pointer
  // across all records of a kernel): a pointer lookup instead of hashing the text.
  StringId InternStablePointer(const char* s);

  std::string_view Get(StringId id) const { return strings_[id]; }
  // Makes this a copy of `other` with the same ids (a snapshot of a running trace's strings).
  void AssignFrom(const StringTable& other);
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, StringId> by_text_;
  std::unordered_map<const char*, StringId> by_pointer_;
};

}  // namespace nodescope
