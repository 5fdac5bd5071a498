// Sequence alignment of two node lists (node_align.h).
#include "analysis/stats/node_align.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace nodescope::analysis {
namespace {

// A pair's weight: names agree (required), then scope, then DAG depth.
int Weight(const AlignNode& x, const AlignNode& y) {
  if (x.name != y.name) return 0;
  int w = 4;
  if (x.scope == y.scope) w += 2;
  if (x.depth >= 0 && x.depth == y.depth) w += 1;
  return w;
}

// Equal in every respect: the common prefix and suffix pair without the table.
bool Same(const AlignNode& x, const AlignNode& y) {
  return x.name == y.name && x.scope == y.scope && x.depth == y.depth;
}

// Pairs of the middle [a0, a1) x [b0, b1) by dynamic programming (the heaviest alignment).
void AlignMiddle(const std::vector<AlignNode>& a, const std::vector<AlignNode>& b, size_t a0,
                 size_t a1, size_t b0, size_t b1, std::vector<std::pair<size_t, size_t>>* pairs) {
  const size_t n = a1 - a0, m = b1 - b0;
  enum : uint8_t { kDiag = 0, kUp = 1, kLeft = 2 };
  std::vector<uint8_t> dir((n + 1) * (m + 1), kUp);
  std::vector<int64_t> prev(m + 1, 0), cur(m + 1, 0);
  for (size_t j = 1; j <= m; ++j) dir[j] = kLeft;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = 0;
    dir[i * (m + 1)] = kUp;
    for (size_t j = 1; j <= m; ++j) {
      const int w = Weight(a[a0 + i - 1], b[b0 + j - 1]);
      int64_t best = prev[j];
      uint8_t d = kUp;
      if (cur[j - 1] > best) best = cur[j - 1], d = kLeft;
      if (w > 0 && prev[j - 1] + w >= best) best = prev[j - 1] + w, d = kDiag;
      cur[j] = best;
      dir[i * (m + 1) + j] = d;
    }
    std::swap(prev, cur);
  }
  std::vector<std::pair<size_t, size_t>> back;
  for (size_t i = n, j = m; i > 0 || j > 0;) {
    const uint8_t d = dir[i * (m + 1) + j];
    if (i > 0 && j > 0 && d == kDiag) {
      back.emplace_back(a0 + i - 1, b0 + j - 1);
      --i, --j;
    } else if (i > 0 && (j == 0 || d == kUp)) {
      --i;
    } else {
      --j;
    }
  }
  pairs->insert(pairs->end(), back.rbegin(), back.rend());
}

// Past the cell limit: position by position where the names agree.
void PairByPosition(const std::vector<AlignNode>& a, const std::vector<AlignNode>& b, size_t a0,
                    size_t a1, size_t b0, size_t b1,
                    std::vector<std::pair<size_t, size_t>>* pairs) {
  for (size_t k = 0; a0 + k < a1 && b0 + k < b1; ++k) {
    if (a[a0 + k].name == b[b0 + k].name) pairs->emplace_back(a0 + k, b0 + k);
  }
}

// The unpaired nodes between two pairs: a fusion, or removed and added nodes.
void EmitGap(size_t a0, size_t a1, size_t b0, size_t b1, std::vector<AlignStep>* steps) {
  if (b1 - b0 == 1 && a1 - a0 >= 2) {
    steps->push_back({AlignKind::kFused, a0, a1, b0});
    return;
  }
  for (size_t i = a0; i < a1; ++i) steps->push_back({AlignKind::kOnlyA, i, i + 1, 0});
  for (size_t j = b0; j < b1; ++j) steps->push_back({AlignKind::kOnlyB, 0, 0, j});
}

}  // namespace

AlignResult AlignNodes(const std::vector<AlignNode>& a, const std::vector<AlignNode>& b,
                       size_t max_cells) {
  AlignResult result;
  std::vector<std::pair<size_t, size_t>> pairs;
  size_t lo = 0;
  while (lo < a.size() && lo < b.size() && Same(a[lo], b[lo])) {
    pairs.emplace_back(lo, lo);
    ++lo;
  }
  size_t a_hi = a.size(), b_hi = b.size();
  std::vector<std::pair<size_t, size_t>> suffix;
  while (a_hi > lo && b_hi > lo && Same(a[a_hi - 1], b[b_hi - 1])) {
    suffix.emplace_back(--a_hi, --b_hi);
  }
  const size_t n = a_hi - lo, m = b_hi - lo;
  if (n > 0 && m > 0) {
    if ((n + 1) * (m + 1) <= max_cells) {
      AlignMiddle(a, b, lo, a_hi, lo, b_hi, &pairs);
    } else {
      result.approximate = true;
      PairByPosition(a, b, lo, a_hi, lo, b_hi, &pairs);
    }
  }
  pairs.insert(pairs.end(), suffix.rbegin(), suffix.rend());
  size_t ai = 0, bj = 0;
  for (const auto& [i, j] : pairs) {
    EmitGap(ai, i, bj, j, &result.steps);
    result.steps.push_back({AlignKind::kPaired, i, i + 1, j});
    ai = i + 1, bj = j + 1;
  }
  EmitGap(ai, a.size(), bj, b.size(), &result.steps);
  return result;
}

}  // namespace nodescope::analysis
