// The native-id attribution stage: capture-time ranges by the vendor's key, then the engine's key.
#include "attribution/stage.h"

#include "attribution/capture_scopes.h"
#include "attribution/native_attributor.h"

namespace nodescope {
namespace {

class NativeIdStage final : public AttributionStage {
 public:
  explicit NativeIdStage(bool graph_attribution) {
    if (graph_attribution) attributor_ = std::make_unique<NativeIdAttributor>();
  }

  void ExecCreated(uint32_t exec, uint64_t correlation) override {
    if (attributor_ != nullptr) attributor_->OnExecCreated(exec, correlation);
  }
  void ExecChanged(uint32_t exec, uint64_t correlation) override {
    if (attributor_ != nullptr) attributor_->OnExecChanged(exec, correlation);
  }
  void ExecWorkChanged(uint32_t exec, uint64_t since_ns) override {
    if (attributor_ != nullptr) attributor_->OnExecWorkChanged(exec, since_ns);
  }
  void TemplateNodeCreated(uint64_t template_node, uint64_t range_id) override {
    scopes_.OnTemplateNode(template_node, range_id);
  }
  void TemplateNodeCloned(uint64_t new_node, uint64_t original_node) override {
    scopes_.OnTemplateCloned(new_node, original_node);
  }
  void ExecNodeBound(uint64_t exec_node_key, uint64_t template_node,
                     uint64_t from_correlation) override {
    scopes_.OnExecNode(exec_node_key, template_node, from_correlation);
  }

  void Process(ChunkedVector<GpuActivity>& gpu, size_t first) override {
    if (first >= gpu.size()) return;
    scopes_.Drain();
    if (attributor_ == nullptr) {
      gpu.ForEachFrom(first, [this](GpuActivity& a) { Scope(a); });
      return;
    }
    attributor_->Drain();
    gpu.ForEachFrom(first, [this](GpuActivity& a) {
      Scope(a);
      attributor_->Attribute(a);
    });
  }

  void RenamedNodes(uint64_t graph_id,
                    std::vector<std::pair<uint64_t, uint64_t>>* out) const override {
    if (attributor_ != nullptr) attributor_->RenamedNodes(graph_id, out);
  }

  void Report(AttributionInfo* info) const override {
    info->mode = attributor_ != nullptr ? "native" : "disabled";
    if (attributor_ == nullptr) return;
    attributor_->Report(info);
  }

 private:
  // The scope is looked up by the vendor's key, before attribution may rename it.
  void Scope(GpuActivity& a) {
    if (a.graph_id != 0) a.capture_range_id = scopes_.Lookup(a.graph_node_id, a.correlation_id);
  }

  CaptureScopeTable scopes_;
  std::unique_ptr<NativeIdAttributor> attributor_;  // null when graph attribution is off
};

}  // namespace

std::unique_ptr<AttributionStage> MakeNativeIdStage(bool graph_attribution) {
  return std::make_unique<NativeIdStage>(graph_attribution);
}

}  // namespace nodescope
