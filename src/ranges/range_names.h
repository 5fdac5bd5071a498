// The names of ring-mode and streaming ranges (issue 14): one table for the whole process, so a
// name is stored once however many threads use it, and a thread may use any number of them.
//
//   lookup (any thread, every range): a hash and a few probes of atomic entries, no lock;
//   first sight of a name: under a mutex, its bytes copied into the table's arena and published.
//
// Memory is bounded: kEntries names, kArenaBytes of name bytes in all, mapped as needed in
// 256 KiB chunks and kept until exit. A name that does not fit (table or arena full, or its probe
// sequence taken) is not kept: InternRangeName() returns false and the caller counts the range
// as unnamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nodescope::ranges_internal {

constexpr uint32_t kNameEntries = 65536;
constexpr size_t kNameArenaBytes = 16u << 20;

// Sets *out to the table's copy of `name` (an empty name: an empty view); false if not kept.
bool InternRangeName(std::string_view name, std::string_view* out);
// Distinct names the table holds.
uint32_t RangeNameCount();

}  // namespace nodescope::ranges_internal
