// Aligning the node lists of one graph in two traces (`nodescope nodes --diff`): a sequence
// alignment, so that a node added, removed or fused away does not shift every later pair.
//
// Nodes pair only where their names agree (kernel names, or a copy's or fill's name); among such
// alignments the one with the most pairs wins, ties going to pairs whose capture scope agrees too
// (three identical GEMMs of layers 0, 1, 2 pair layer by layer) and then to pairs at the same
// depth in the graph's DAG when both traces have one. What stays unpaired between two pairs is a
// gap: a gap holding one node of B and two or more consecutive nodes of A is a fusion (B's node
// stands for A's nodes); else its nodes are only in A (removed) or only in B (added).
//
// Cost: O(n + m) for the common prefix and suffix, O(n' * m') time and bytes for the rest (n', m':
// what the prefix and suffix leave); past kMaxAlignCells cells the rest pairs by position where
// names agree instead (said by AlignResult::approximate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace nodescope::analysis {

struct AlignNode {
  std::string_view name;
  std::string_view scope;
  int32_t depth = -1;  // longest path from a root in the DAG; -1 when the trace has no DAG
};

enum class AlignKind : uint8_t { kPaired, kOnlyA, kOnlyB, kFused };

// One step of the alignment, in node order: kPaired (a_begin, b), kOnlyA (a_begin), kOnlyB (b),
// kFused (A's nodes [a_begin, a_end) into b). Indices into the lists given.
struct AlignStep {
  AlignKind kind = AlignKind::kPaired;
  size_t a_begin = 0;
  size_t a_end = 0;  // kPaired/kOnlyA: a_begin + 1; kOnlyB: unused (0)
  size_t b = 0;      // kOnlyA: unused (0)
};

struct AlignResult {
  std::vector<AlignStep> steps;
  bool approximate = false;  // the middle was past kMaxCells: paired by position
};

inline constexpr size_t kMaxAlignCells = size_t{1} << 24;  // 16 MiB of directions

AlignResult AlignNodes(const std::vector<AlignNode>& a, const std::vector<AlignNode>& b,
                       size_t max_cells = kMaxAlignCells);

}  // namespace nodescope::analysis
