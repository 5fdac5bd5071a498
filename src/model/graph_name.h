// A graph's stable name: the same for the same graph in another run, rank or restart (where its
// graph id differs), short enough for a table, a command line (`nodescope nodes --graph NAME`)
// and a Prometheus label value. Computed from plain inputs, so the analysis (from a trace) and
// a live tracing session (from the runtime) name a graph alike.
//
// The name is "<scope>-<fingerprint>", or "graph-<fingerprint>" when the graph has no
// capture-time scope:
//   - fingerprint: 8 lowercase hex digits, GraphFingerprint() folded to 32 bits;
//   - scope: the capture-time range path the graph was captured under (CommonScope() of its
//     nodes' scopes), as SanitizeLabel() writes it.
// Within one trace, names are made unique by UniqueGraphNames(): the same graph instantiated
// twice gets "-2", "-3", ... in graph-id order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph_dag.h"

namespace nodescope {

// One node as the name sees it: its ordinal (node id & 0xffffffff) and what it runs (the kernel
// name, or the copy or fill's name as the trace writes it).
struct GraphNameNode {
  uint32_t ordinal = 0;
  std::string_view name;
};

// Ordinals at or above this were issued for work that ran at a node after an in-place change
// (attribution/node_keys.h issues them from the top of the ordinal space down): they are left
// out of the fingerprint, so a graph keeps its name whether or not it was updated.
inline constexpr uint32_t kFirstIssuedOrdinal = 1u << 24;

// 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over this byte stream:
//   for each node by ordinal ascending (ties: by name), below kFirstIssuedOrdinal:
//     'N', the ordinal as 4 bytes little-endian, the name's bytes, a 0 byte;
//   when `dag` is given, for each of its edges by (from ordinal, to ordinal, type), both ends
//   below kFirstIssuedOrdinal:
//     'E', from ordinal (4 bytes LE), to ordinal (4 bytes LE), the DagEdgeType as one byte.
// The order of `nodes` does not matter. Stable across builds and machines (not std::hash).
uint64_t GraphFingerprint(const std::vector<GraphNameNode>& nodes, const GraphDag* dag = nullptr);

// The fingerprint as the name writes it: (h ^ (h >> 32)) & 0xffffffff in 8 lowercase hex digits.
std::string FingerprintHex(uint64_t fingerprint);

// The longest common leading path of `scopes` ("a/b/c" and "a/b/d" -> "a/b"), whole parts only;
// empty when any scope is empty or they share no first part.
std::string CommonScope(const std::vector<std::string_view>& scopes);

// `text` as a label: ASCII letters, digits, '_', '.', '-' kept; '/' becomes '.'; any other run
// of bytes one '_'; no leading or trailing '.', '_' or '-'; at most kMaxScopeLabel bytes (the
// end kept: the innermost range tells most).
inline constexpr size_t kMaxScopeLabel = 40;
std::string SanitizeLabel(std::string_view text);

// "<SanitizeLabel(scope)>-<hex>", or "graph-<hex>" when that is empty.
std::string GraphName(const std::vector<GraphNameNode>& nodes, const GraphDag* dag,
                      std::string_view scope);

// Makes `names` (given in graph-id order) unique: the k-th occurrence of a name (k >= 2) becomes
// "<name>-<k>" (k raised further if that is taken too).
void UniqueGraphNames(std::vector<std::string>& names);

}  // namespace nodescope
