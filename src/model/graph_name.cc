#include "model/graph_name.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace nodescope {
namespace {

class Fnv1a {
 public:
  void Byte(uint8_t b) {
    h_ ^= b;
    h_ *= 0x100000001b3ull;
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) Byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Text(std::string_view s) {
    for (char c : s) Byte(static_cast<uint8_t>(c));
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

uint32_t OrdinalOf(uint64_t node_id) { return static_cast<uint32_t>(node_id & 0xffffffffu); }

bool IsLabelByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

bool IsTrimmed(char c) { return c == '.' || c == '_' || c == '-'; }

}  // namespace

uint64_t GraphFingerprint(const std::vector<GraphNameNode>& nodes, const GraphDag* dag) {
  std::vector<GraphNameNode> sorted;
  sorted.reserve(nodes.size());
  for (const GraphNameNode& n : nodes) {
    if (n.ordinal < kFirstIssuedOrdinal) sorted.push_back(n);
  }
  std::sort(sorted.begin(), sorted.end(), [](const GraphNameNode& a, const GraphNameNode& b) {
    return a.ordinal != b.ordinal ? a.ordinal < b.ordinal : a.name < b.name;
  });
  Fnv1a h;
  for (const GraphNameNode& n : sorted) {
    h.Byte('N');
    h.U32(n.ordinal);
    h.Text(n.name);
    h.Byte(0);
  }
  if (dag != nullptr) {
    std::vector<std::tuple<uint32_t, uint32_t, uint8_t>> edges;
    edges.reserve(dag->edges.size());
    for (const DagEdge& e : dag->edges) {
      const uint32_t from = OrdinalOf(e.from);
      const uint32_t to = OrdinalOf(e.to);
      if (from >= kFirstIssuedOrdinal || to >= kFirstIssuedOrdinal) continue;
      edges.emplace_back(from, to, static_cast<uint8_t>(e.type));
    }
    std::sort(edges.begin(), edges.end());
    for (const auto& [from, to, type] : edges) {
      h.Byte('E');
      h.U32(from);
      h.U32(to);
      h.Byte(type);
    }
  }
  return h.value();
}

std::string FingerprintHex(uint64_t fingerprint) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x",
                static_cast<unsigned>((fingerprint ^ (fingerprint >> 32)) & 0xffffffffu));
  return buf;
}

std::string CommonScope(const std::vector<std::string_view>& scopes) {
  if (scopes.empty()) return "";
  std::string_view common = scopes[0];
  for (std::string_view s : scopes) {
    if (s.empty()) return "";
    size_t n = 0;
    while (n < common.size() && n < s.size() && common[n] == s[n]) ++n;
    if (n == common.size() && (n == s.size() || s[n] == '/')) continue;  // common is a prefix
    if (n == s.size() && common[n] == '/') {
      common = common.substr(0, n);
      continue;
    }
    // Back to the last whole part both share.
    const size_t slash = common.substr(0, n).rfind('/');
    if (slash == std::string_view::npos) return "";
    common = common.substr(0, slash);
  }
  return std::string(common);
}

std::string SanitizeLabel(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '/') {
      out += '.';
    } else if (IsLabelByte(c)) {
      out += c;
    } else if (out.empty() || out.back() != '_') {
      out += '_';
    }
  }
  if (out.size() > kMaxScopeLabel) out.erase(0, out.size() - kMaxScopeLabel);
  size_t begin = 0;
  while (begin < out.size() && IsTrimmed(out[begin])) ++begin;
  size_t end = out.size();
  while (end > begin && IsTrimmed(out[end - 1])) --end;
  return out.substr(begin, end - begin);
}

std::string GraphName(const std::vector<GraphNameNode>& nodes, const GraphDag* dag,
                      std::string_view scope) {
  std::string name = SanitizeLabel(scope);
  if (name.empty()) name = "graph";
  name += '-';
  name += FingerprintHex(GraphFingerprint(nodes, dag));
  return name;
}

void UniqueGraphNames(std::vector<std::string>& names) {
  std::unordered_set<std::string> taken(names.begin(), names.end());
  std::unordered_map<std::string, size_t> seen;
  for (std::string& name : names) {
    size_t& k = seen[name];
    if (++k == 1) continue;
    std::string candidate;
    do {
      candidate = name;
      candidate += '-';
      candidate += std::to_string(k);
    } while (taken.count(candidate) > 0 && ++k);
    taken.insert(candidate);
    name = std::move(candidate);
  }
}

}  // namespace nodescope
