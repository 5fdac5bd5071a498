// Tests of the base layer: Status, ChunkedVector, StringTable.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "base/chunked_vector.h"
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
