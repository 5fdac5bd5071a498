// Tests of the base layer: Status, ChunkedVector, FlatIndexMap, IdIndex, StringTable.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "base/chunked_vector.h"
#include "base/flat_index_map.h"
#include "base/status.h"
#include "base/string_table.h"

namespace nodescope {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

Status Quarter(int x, int* out) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(*out, Half(h));
  return OkStatus();
}

TEST(Status, PropagatesFirstError) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = Quarter(6, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: odd: 3");
}

TEST(Status, ErrnoMapsCodes) {
  EXPECT_EQ(ErrnoError("open x", ENOENT).code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoError("open x", EACCES).code(), StatusCode::kPermissionDenied);
  EXPECT_NE(ErrnoError("open x", ENOENT).message().find("open x: "), std::string::npos);
}

TEST(ChunkedVector, KeepsOrderAcrossChunks) {
  ChunkedVector<int, 4> v;
  for (int i = 0; i < 10; ++i) v.push_back(i * 3);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[9], 27);
  const int* first = &v[0];
  for (int i = 0; i < 100; ++i) v.push_back(i);
  EXPECT_EQ(first, &v[0]) << "appending must not move elements";
  int expected_sum = 0, sum = 0;
  for (int i = 0; i < 10; ++i) expected_sum += i * 3;
  for (int i = 0; i < 100; ++i) expected_sum += i;
  v.ForEach([&](int x) { sum += x; });
  EXPECT_EQ(sum, expected_sum);
}

TEST(ChunkedVector, ReleaseKeepsAbsoluteIndices) {
  ChunkedVector<int, 4> v;
  for (int i = 0; i < 10; ++i) v.push_back(i);
  EXPECT_EQ(v.ReleaseBefore(6), 4u) << "only whole chunks below the index";
  EXPECT_EQ(v.first_index(), 4u);
  EXPECT_EQ(v.held(), 6u);
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v[4], 4);
  EXPECT_EQ(v[9], 9);
  EXPECT_EQ(v.ReleaseBefore(100), 4u) << "never the chunk appends go to";
  EXPECT_EQ(v.first_index(), 8u);
  std::vector<int> seen;
  v.ForEach([&](int x) { seen.push_back(x); });
  EXPECT_EQ(seen, (std::vector<int>{8, 9}));
  seen.clear();
  v.ForEachFrom(2, [&](int& x) { seen.push_back(x); });  // released part skipped
  EXPECT_EQ(seen, (std::vector<int>{8, 9}));
  v.push_back(10);
  EXPECT_EQ(v[10], 10);
  EXPECT_EQ(v.ReleaseAll(), 3u);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.first_index(), 11u);
  v.push_back(11);
  v.push_back(12);
  seen.clear();
  v.ForEach([&](int x) { seen.push_back(x); });
  EXPECT_EQ(seen, (std::vector<int>{11, 12})) << "appends go on after ReleaseAll mid-chunk";
  EXPECT_EQ(v[12], 12);
  ChunkedVector<int, 4> copy;
  copy.AppendFrom(v, 0);
  EXPECT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy[0], 11);
  EXPECT_EQ(copy[1], 12);
}

TEST(ChunkedVector, ReleasedChunksAreReusedSoAllocationStaysFlat) {
  ChunkedVector<int, 4> v;
  size_t after_first_cycle = 0;
  for (int cycle = 0; cycle < 10000; ++cycle) {
    for (int i = 0; i < 7; ++i) v.push_back(cycle);
    v.ReleaseBefore(v.size() > 16 ? v.size() - 16 : 0);  // a window of about 16
    if (cycle == 10) after_first_cycle = v.chunks_allocated();
    ASSERT_LE(v.held(), 16u + 4u);
  }
  EXPECT_EQ(v.size(), 70000u);
  EXPECT_GT(after_first_cycle, 0u);
  EXPECT_EQ(v.chunks_allocated(), after_first_cycle) << "chunks allocated grew with the run";
  EXPECT_EQ(v[v.size() - 1], 9999);
}

TEST(FlatIndexMap, FirstValueWinsAndSurvivesGrowth) {
  FlatIndexMap<uint64_t> m;
  EXPECT_EQ(m.Find(5), FlatIndexMap<uint64_t>::kAbsent) << "empty map";
  m.Reserve(10);
  for (uint32_t i = 0; i < 10000; ++i) EXPECT_EQ(m.FindOrInsert(uint64_t{i} * 4096, i), i);
  EXPECT_EQ(m.size(), 10000u);
  EXPECT_EQ(m.FindOrInsert(4096, 77), 1u) << "present: the stored value is kept";
  for (uint32_t i = 0; i < 10000; ++i) ASSERT_EQ(m.Find(uint64_t{i} * 4096), i);
  EXPECT_EQ(m.Find(1), FlatIndexMap<uint64_t>::kAbsent);
}

TEST(IdIndex, DenseAndSparseAgree) {
  for (uint64_t stride : {uint64_t{1}, uint64_t{1} << 40}) {
    IdIndex<uint64_t> index;
    index.Reserve(1000, 1000 * stride);
    EXPECT_TRUE(index.empty());
    for (uint32_t i = 1; i <= 1000; ++i) EXPECT_EQ(index.FindOrInsert(i * stride, i), i);
    EXPECT_EQ(index.FindOrInsert(5 * stride, 99), 5u) << "the first value is kept";
    EXPECT_EQ(index.FindOrInsert(uint64_t{1} << 62, 7), 7u) << "past the hint still works";
    for (uint32_t i = 1; i <= 1000; ++i) ASSERT_EQ(index.Find(i * stride), i);
    EXPECT_EQ(index.Find(uint64_t{1} << 62), 7u);
    EXPECT_EQ(index.Find(0), IdIndex<uint64_t>::kAbsent);
    EXPECT_FALSE(index.empty());
  }
}

TEST(StringTable, InternsOnce) {
  StringTable t;
  EXPECT_EQ(t.Intern(""), kNoString);
  StringId a = t.Intern("kernel_a");
  StringId b = t.Intern("kernel_b");
  EXPECT_NE(a, b);
  EXPECT_EQ(t.Intern(std::string("kernel_a")), a);
  EXPECT_EQ(t.Get(b), "kernel_b");
  static const char kStable[] = "kernel_a";
  EXPECT_EQ(t.InternStablePointer(kStable), a);
  EXPECT_EQ(t.InternStablePointer(nullptr), kNoString);
  EXPECT_EQ(t.size(), 3u);
}

}  // namespace
}  // namespace nodescope
