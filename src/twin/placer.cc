#include "twin/placer.h"

#include <fmt/format.h>

namespace steward::twin {
namespace {

// Both policies walk free-count buckets; they differ only in which end they start from, so
// they are one class with a parameter (style.md: variants are parameters, not classes).
class BucketPlacer final : public Placer {
 public:
  BucketPlacer(std::string_view name, bool fullest_first)
      : name_(name), fullest_first_(fullest_first) {}
  std::string_view Name() const override { return name_; }

  model::NodeId ChooseNode(const ClusterState& state, const PodRequest& req) const override {
    // With a topology preference, first look inside the neighbour's leaf (nodes of a leaf are
    // contiguous ids, so a lower_bound in each bucket finds them without a scan).
    if (req.near != model::kNoNode && req.topology != model::TopologyPreference::kNone) {
      const model::NodeId n = Search(state, req, state.cluster().node(req.near).leaf);
      if (n != model::kNoNode) return n;
    }
    return Search(state, req, -1);
  }

 private:
  model::NodeId Search(const ClusterState& state, const PodRequest& req, int leaf) const {
    const auto& cluster = state.cluster();
    model::NodeId leaf_start = 0;
    if (leaf >= 0) {
      // Walk back to the leaf's first node: at most one leaf's worth of steps.
      leaf_start = req.near;
      while (leaf_start > 0 && cluster.node(leaf_start - 1).leaf == leaf) --leaf_start;
    }
    const int max = state.max_gpus_per_node();
    model::NodeId best = model::kNoNode;
    for (int step = 0; step <= max - req.gpus; ++step) {
      const int k = fullest_first_ ? req.gpus + step : max - step;
      if (!fullest_first_ && k < req.gpus) break;
      for (int m = 0; m < state.num_models(); ++m) {
        if (req.gpu_model >= 0 && m != req.gpu_model) continue;
        const auto& bucket = state.Bucket(m, k);
        auto it = leaf >= 0 ? bucket.lower_bound(leaf_start) : bucket.begin();
        if (it == bucket.end()) continue;
        if (leaf >= 0 && cluster.node(*it).leaf != leaf) continue;
        if (best == model::kNoNode || *it < best) best = *it;
      }
      // binpack stops at the fullest bucket that has a node; first-fit compares every bucket.
      if (fullest_first_ && best != model::kNoNode) return best;
    }
    return best;
  }

  std::string_view name_;
  bool fullest_first_;
};

}  // namespace

Result<std::unique_ptr<Placer>> NewPlacer(std::string_view name) {
  if (name == "first-fit") return std::unique_ptr<Placer>(new BucketPlacer("first-fit", false));
  if (name == "binpack") return std::unique_ptr<Placer>(new BucketPlacer("binpack", true));
  return Status::InvalidArgument(
      fmt::format("unknown placement policy '{}' (valid: first-fit, binpack)", name));
}

}  // namespace steward::twin
