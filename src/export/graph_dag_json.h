// The exec DAGs in a trace: the top-level "nodescopeGraphs" array (docs/TRACE-DAG.md), written
// before "traceEvents" so a reader has them before the first event. kineto-schema readers
// (Perfetto, HTA, torch's tools) ignore top-level keys they do not know.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "export/json_output.h"
#include "model/graph_dag.h"

namespace nodescope {

// Writes `  "nodescopeGraphs": [ ... ],\n` with the DAGs whose graph id is in `graph_ids`
// (ascending), one per line; nothing when none is.
void WriteGraphDags(const std::vector<std::shared_ptr<const GraphDag>>& dags,
                    const std::vector<uint64_t>& graph_ids, JsonOutput& out);
// One element of the array: {"graph id":...,"renamed":[...]} ("process" when not 0).
void WriteGraphDag(const GraphDag& dag, JsonOutput& out);

}  // namespace nodescope
