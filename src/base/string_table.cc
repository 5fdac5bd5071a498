// Interned strings.
#include "base/string_table.h"

namespace nodescope {

StringTable::StringTable() {
  strings_.emplace_back();
  by_text_.emplace(strings_.back(), 0);
}

StringId StringTable::Intern(std::string_view s) {
  auto it = by_text_.find(s);
  if (it != by_text_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  by_text_.emplace(strings_.back(), id);
  return id;
}

void StringTable::AssignFrom(const StringTable& other) {
  if (&other == this) return;
  by_text_.clear();
  by_pointer_.clear();
  strings_ = other.strings_;
  for (size_t i = 0; i < strings_.size(); ++i) {
    by_text_.emplace(strings_[i], static_cast<StringId>(i));  // the first id of a text wins
  }
}

StringId StringTable::InternStablePointer(const char* s) {
  if (s == nullptr) return kNoString;
  auto it = by_pointer_.find(s);
  if (it != by_pointer_.end()) return it->second;
  StringId id = Intern(s);
  by_pointer_.emplace(s, id);
  return id;
}

}  // namespace nodescope
