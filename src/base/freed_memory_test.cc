// The allocation pattern of a ring capture (96-byte records in ChunkedVector chunks, copied,
// written, freed; three times) must not leave the copies resident.
#include "base/freed_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "base/chunked_vector.h"

namespace nodescope {
namespace {

// A record of the size of model/records.h's Record (96 bytes); base may not include model.
struct Record {
  uint64_t start_ns;
  uint64_t fields[11];
};
static_assert(sizeof(Record) == 96);

[[maybe_unused]] long ResidentMb() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// One capture's copy of a 1 M-record window (about 96 MB), made on a thread of its own as the
// capture service does, while small blocks that outlive it are allocated (the decoder, strings):
// they pin the heap above the copy, so freeing the copy cannot simply shrink the heap.
[[maybe_unused]] void CopyAndFree(const ChunkedVector<Record>& window,
                                  std::vector<std::string>* kept) {
  std::thread([&] {
    ChunkedVector<Record> copy;
    Record a{};
    for (size_t i = window.first_index(); i < window.size(); ++i) {
      a.start_ns = window[i].start_ns;
      copy.push_back(a);
      if (i % ChunkedVector<Record>::kChunkSize == 0) kept->emplace_back(200, 'x');
    }
    volatile uint64_t sum = 0;
    copy.ForEach([&](const Record& r) { sum = sum + r.start_ns; });
  }).join();
}

TEST(FreedMemory, CaptureCopiesDoNotStayResident) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "glibc's allocator only (sanitizers bring their own)";
#else
  ChunkedVector<Record> window;
  Record a{};
  for (uint64_t i = 0; i < 1'000'000; ++i) {
    a.start_ns = i;
    window.push_back(a);
  }
  const long before = ResidentMb();
  ASSERT_GT(before, 0);
  long worst = 0;
  std::vector<std::string> kept;
  kept.reserve(4096);
  for (int capture = 0; capture < 3; ++capture) {
    CopyAndFree(window, &kept);
    ReturnFreedMemoryToSystem();
    const long after = ResidentMb();
    worst = std::max(worst, after - before);
  }
  // The copy is ~96 MB: without the trim the second and third copies stay resident.
  EXPECT_LT(worst, 24) << "RSS grew by " << worst << " MB over the window alone";
#endif
}

}  // namespace
}  // namespace nodescope
