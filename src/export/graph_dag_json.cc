// "nodescopeGraphs" (graph_dag_json.h).
#include "export/graph_dag_json.h"

#include <algorithm>

namespace nodescope {

void WriteGraphDag(const GraphDag& dag, JsonOutput& out) {
  out.Field("{\"graph id\":", dag.graph_id);
  if (dag.process != 0) out.Field(",\"process\":", dag.process);
  out.Raw(",\"device\":");
  out.Int(dag.device);
  out.Raw(dag.complete ? ",\"complete\":true" : ",\"complete\":false");
  out.Raw(",\"nodes\":[");
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& n = dag.nodes[i];
    out.Field(i == 0 ? "[" : ",[", n.node_id);
    out.Raw(",\"");
    out.Raw(DagNodeTypeName(n.type));
    out.Field("\",", n.parent_id);
    out.Char(']');
  }
  out.Raw("],\"edges\":[");
  for (size_t i = 0; i < dag.edges.size(); ++i) {
    const DagEdge& e = dag.edges[i];
    out.Field(i == 0 ? "[" : ",[", e.from);
    out.Field(",", e.to);
    out.Raw(",\"");
    out.Raw(DagEdgeTypeName(e.type));
    out.Raw("\"]");
  }
  out.Raw("],\"renamed\":[");
  for (size_t i = 0; i < dag.renamed.size(); ++i) {
    out.Field(i == 0 ? "[" : ",[", dag.renamed[i].first);
    out.Field(",", dag.renamed[i].second);
    out.Char(']');
  }
  out.Raw("]}");
}

void WriteGraphDags(const std::vector<std::shared_ptr<const GraphDag>>& dags,
                    const std::vector<uint64_t>& graph_ids, JsonOutput& out) {
  bool first = true;
  for (const auto& dag : dags) {
    if (dag == nullptr || !std::binary_search(graph_ids.begin(), graph_ids.end(), dag->graph_id)) {
      continue;
    }
    out.Raw(first ? "  \"nodescopeGraphs\": [\n    " : ",\n    ");
    first = false;
    WriteGraphDag(*dag, out);
  }
  if (!first) out.Raw("\n  ],\n");
}

}  // namespace nodescope
