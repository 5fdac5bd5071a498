// Reading "nodescopeGraphs", the exec DAGs nodescope writes before "traceEvents"
// (docs/TRACE-DAG.md, export/graph_dag_json.h) into TraceMetadata::graph_dags.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/reader/window_reader.h"

namespace nodescope::analysis {
namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

bool ByEnds(const DagEdge& a, const DagEdge& b) {
  return a.from != b.from ? a.from < b.from : a.to < b.to;
}

}  // namespace

// One [a, b, c] tuple of a DAG's "nodes", "edges" or "renamed": up to three values, read by
// `each(index, value)`; `size` is how many it must have.
template <typename Each>
bool WindowReader::ReadTuple(od::value& v, std::string_view key, size_t size, Each&& each) {
  od::array tuple;
  error_code e = v.get_array().get(tuple);
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, key, "an array");
  if (e) return Failed(e);
  size_t i = 0;
  for (auto value_or : tuple) {
    od::value value;
    if (error_code e2 = std::move(value_or).get(value)) return Failed(e2);
    if (i >= size) {
      std::string what = "\"";  // appended, not "literal" + temporary (g++ 12's -Wrestrict)
      what += key;
      what += "\": more than ";
      what += std::to_string(size);
      what += " items";
      return ErrorAt(value.raw_json_token().data(), what);
    }
    if (!each(i++, value)) return false;
  }
  if (i != size) {
    std::string what(name_);
    what += ": \"";
    what += key;
    what += "\": ";
    what += std::to_string(i);
    what += " items, expected ";
    what += std::to_string(size);
    return Fail(DataLossError(what));
  }
  return true;
}

bool WindowReader::ReadGraphDag(od::value& v, GraphDag* dag) {
  od::object object;
  if (!GetObject(v, "nodescopeGraphs", &object)) return false;
  std::optional<uint64_t> graph_id;
  for (auto field_or : object) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    od::value value = field.value();
    std::optional<uint64_t> number;
    if (key == "graph id") {
      if (!GetUint(value, "graph id", &graph_id)) return false;
    } else if (key == "process") {
      std::optional<uint64_t> slot;
      if (!GetUint(value, "process", &slot)) return false;
      if (*slot >= (uint64_t{1} << (31 - kMergePidBits))) {
        return BadNumber(value, "process", "a process slot below 512");
      }
      dag->process = static_cast<uint32_t>(*slot);
    } else if (key == "device") {
      std::optional<int64_t> device;
      if (!GetInt(value, "device", &device)) return false;
      dag->device = static_cast<int32_t>(*device);
    } else if (key == "complete") {
      bool complete = true;
      if (value.get_bool().get(complete) != simdjson::SUCCESS) {
        return WrongType(value, "complete", "true or false");
      }
      dag->complete = complete;
    } else if (key == "nodes" || key == "edges" || key == "renamed") {
      const std::string_view name =
          key == "nodes" ? "nodes" : (key == "edges" ? "edges" : "renamed");
      od::array list;
      error_code e = value.get_array().get(list);
      if (e == simdjson::INCORRECT_TYPE) return WrongType(value, name, "an array");
      if (e) return Failed(e);
      for (auto item_or : list) {
        od::value item;
        if (error_code e2 = std::move(item_or).get(item)) return Failed(e2);
        uint64_t a = 0, b = 0;
        std::string_view text;
        // nodes: [id, "type", parent]; edges: [from, to, "type"]; renamed: [issued, id].
        const size_t text_at = name == "nodes" ? 1 : (name == "edges" ? 2 : 3);
        auto read = [&](size_t i, od::value& x) {
          if (i == text_at) return GetString(x, name, &text);
          if (!GetUint(x, name, &number)) return false;
          (i == 0 ? a : b) = *number;
          return true;
        };
        if (!ReadTuple(item, name, name == "renamed" ? 2 : 3, read)) return false;
        if (name == "nodes") {
          // A type this reader does not know (a newer writer's) orders like any other node.
          dag->nodes.push_back({a, ParseDagNodeType(text).value_or(DagNodeType::kOther), b});
        } else if (name == "edges") {
          dag->edges.push_back({a, b, ParseDagEdgeType(text).value_or(DagEdgeType::kFull)});
        } else {
          dag->renamed.emplace_back(a, b);
        }
      }
    }
  }
  if (!graph_id) {
    return Fail(DataLossError(std::string(name_) +
                              ": an element of \"nodescopeGraphs\" has no \"graph id\""));
  }
  dag->graph_id = *graph_id;
  std::sort(dag->nodes.begin(), dag->nodes.end(),
            [](const DagNode& x, const DagNode& y) { return x.node_id < y.node_id; });
  std::sort(dag->edges.begin(), dag->edges.end(), ByEnds);
  auto known = [&](uint64_t id) {
    return std::binary_search(
        dag->nodes.begin(), dag->nodes.end(), DagNode{id},
        [](const DagNode& x, const DagNode& y) { return x.node_id < y.node_id; });
  };
  for (const DagEdge& edge : dag->edges) {
    if (!known(edge.from) || !known(edge.to)) {
      return Fail(DataLossError(std::string(name_) + ": graph " + std::to_string(*graph_id) +
                                ": an edge names a node not among its \"nodes\""));
    }
  }
  return true;
}

bool WindowReader::ReadGraphDags(od::value& v, TraceMetadata* meta) {
  od::array list;
  error_code e = v.get_array().get(list);
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, "nodescopeGraphs", "an array");
  if (e) return Failed(e);
  meta->graph_dags.clear();  // a window read again (a larger one) reads them again
  for (auto item_or : list) {
    od::value item;
    if (error_code e2 = std::move(item_or).get(item)) return Failed(e2);
    GraphDag dag;
    if (!ReadGraphDag(item, &dag)) return false;
    meta->graph_dags.push_back(std::move(dag));
  }
  std::sort(meta->graph_dags.begin(), meta->graph_dags.end(),
            [](const GraphDag& x, const GraphDag& y) {
              return x.process != y.process ? x.process < y.process : x.graph_id < y.graph_id;
            });
  return true;
}

}  // namespace nodescope::analysis
