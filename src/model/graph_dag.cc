#include "model/graph_dag.h"

#include <array>
#include <cstddef>

namespace nodescope {
namespace {

constexpr std::array<const char*, static_cast<size_t>(DagNodeType::kCount)> kNodeTypeNames = {
    "kernel",           "memcpy",         "memset",       "host",
    "child_graph",      "empty",          "event_record", "wait_event",
    "semaphore_signal", "semaphore_wait", "mem_alloc",    "mem_free",
    "batch_mem_op",     "conditional",    "other"};
constexpr std::array<const char*, static_cast<size_t>(DagEdgeType::kCount)> kEdgeTypeNames = {
    "full", "programmatic", "launch_order"};

}  // namespace

const char* DagNodeTypeName(DagNodeType type) {
  const auto i = static_cast<size_t>(type);
  return i < kNodeTypeNames.size() ? kNodeTypeNames[i] : "other";
}

std::optional<DagNodeType> ParseDagNodeType(std::string_view name) {
  for (size_t i = 0; i < kNodeTypeNames.size(); ++i) {
    if (name == kNodeTypeNames[i]) return static_cast<DagNodeType>(i);
  }
  return std::nullopt;
}

const char* DagEdgeTypeName(DagEdgeType type) {
  const auto i = static_cast<size_t>(type);
  return i < kEdgeTypeNames.size() ? kEdgeTypeNames[i] : "full";
}

std::optional<DagEdgeType> ParseDagEdgeType(std::string_view name) {
  for (size_t i = 0; i < kEdgeTypeNames.size(); ++i) {
    if (name == kEdgeTypeNames[i]) return static_cast<DagEdgeType>(i);
  }
  return std::nullopt;
}

}  // namespace nodescope
