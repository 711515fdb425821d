#include "place/node_state.h"

#include "model/status.h"

namespace steward::place {

GpuList TightestGpus(const NodeState& node, const PodRequest& pod) {
  GpuList out;
  if (pod.num_gpu == 0) return out;
  if (pod.IsSharing()) {
    int best = -1;
    for (int i = 0; i < node.num_gpus; ++i) {
      if (node.gpu_free[i] >= pod.gpu_milli && (best < 0 || node.gpu_free[i] < node.gpu_free[best]))
        best = i;
    }
    if (best >= 0) out.Add(best);
    return out;
  }
  for (int i = 0; i < node.num_gpus && out.count < pod.num_gpu; ++i) {
    if (node.gpu_free[i] >= pod.gpu_milli) out.Add(i);
  }
  return out;
}

void ApplyPod(NodeState& node, const PodRequest& pod, const GpuList& gpus) {
  node.cpu_free -= pod.cpu_milli;
  node.memory_free -= pod.memory_mib;
  node.pods += 1;
  node.shape_pods[ShapeClass(pod)] += 1;
  for (int i = 0; i < gpus.count; ++i) {
    int g = gpus.index[i];
    STEWARD_CHECK(g >= 0 && g < node.num_gpus && node.gpu_free[g] >= pod.gpu_milli);
    node.gpu_free[g] = static_cast<int16_t>(node.gpu_free[g] - pod.gpu_milli);
    node.gpu_free_total -= pod.gpu_milli;
  }
}

void ReleasePod(NodeState& node, const PodRequest& pod, const GpuList& gpus) {
  node.cpu_free += pod.cpu_milli;
  node.memory_free += pod.memory_mib;
  node.pods -= 1;
  STEWARD_CHECK(node.shape_pods[ShapeClass(pod)] > 0);
  node.shape_pods[ShapeClass(pod)] -= 1;
  for (int i = 0; i < gpus.count; ++i) {
    int g = gpus.index[i];
    STEWARD_CHECK(g >= 0 && g < node.num_gpus && node.gpu_free[g] + pod.gpu_milli <= kMilliPerGpu);
    node.gpu_free[g] = static_cast<int16_t>(node.gpu_free[g] + pod.gpu_milli);
    node.gpu_free_total += pod.gpu_milli;
  }
}

NodeState AfterTightest(const NodeState& node, const PodRequest& pod) {
  NodeState after = node;
  after.cpu_free -= pod.cpu_milli;
  after.memory_free -= pod.memory_mib;
  // Per requested GPU, the tightest GPU that still fits (NodeResource.Sub).
  for (int k = 0; k < pod.num_gpu; ++k) {
    int best = -1;
    for (int i = 0; i < after.num_gpus; ++i) {
      if (after.gpu_free[i] >= pod.gpu_milli &&
          (best < 0 || after.gpu_free[i] < after.gpu_free[best]))
        best = i;
    }
    if (best < 0) break;
    after.gpu_free[best] = static_cast<int16_t>(after.gpu_free[best] - pod.gpu_milli);
    after.gpu_free_total -= pod.gpu_milli;
  }
  return after;
}

}  // namespace steward::place
