#include "place/node_state.h"

#include <algorithm>
#include <bit>

#include "model/status.h"

namespace steward::place {

int MigGpu(const NodeState& node, int profile) {
  int best = -1, best_used = -1, fresh = -1;
  for (int i = 0; i < node.num_gpus; ++i) {
    const uint8_t used = node.mig_used[i];
    if ((node.broken >> i) & 1) continue;
    if (used == 0) {
      if (fresh < 0 && node.gpu_free[i] == kMilliPerGpu) fresh = i;
    } else if (MigStart(used, profile) >= 0) {
      const int n = std::popcount(used);
      if (n > best_used) best = i, best_used = n;
    }
  }
  return best >= 0 ? best : fresh;
}

int PodsThatFit(const NodeState& node, const PodRequest& pod) {
  if (!Fits(node, pod)) return 0;
  int64_t n = node.max_pods - node.pods;
  if (pod.cpu_milli > 0) n = std::min(n, node.cpu_free / pod.cpu_milli);
  if (pod.memory_mib > 0) n = std::min(n, node.memory_free / pod.memory_mib);
  for (int i = 0; i < kMaxExtendedResources; ++i)
    if (pod.extended[i] > 0) n = std::min<int64_t>(n, node.extended_free[i] / pod.extended[i]);
  if (pod.num_gpu > 0) {
    int64_t gpu = 0;
    if (pod.IsMig()) {
      for (int i = 0; i < node.num_gpus; ++i)
        if (node.mig_used[i] != 0 || node.gpu_free[i] == kMilliPerGpu)
          gpu += MigInstancesThatFit(node.mig_used[i], pod.mig_profile);
    } else if (pod.IsSharing()) {
      for (int i = 0; i < node.num_gpus; ++i) gpu += node.gpu_free[i] / pod.gpu_milli;
    } else {
      gpu = node.GpusWithFree(pod.gpu_milli) / pod.num_gpu;
    }
    n = std::min(n, gpu);
  }
  return static_cast<int>(n);
}

GpuList TightestGpus(const NodeState& node, const PodRequest& pod) {
  GpuList out;
  if (pod.num_gpu == 0) return out;
  if (pod.IsMig()) {
    const int g = MigGpu(node, pod.mig_profile);
    if (g >= 0) {
      out.Add(g);
      out.mig_start = static_cast<int8_t>(MigStart(node.mig_used[g], pod.mig_profile));
    }
    return out;
  }
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
  for (int i = 0; i < kMaxExtendedResources; ++i) node.extended_free[i] -= pod.extended[i];
  node.pods += 1;
  node.shape_pods[ShapeClass(pod)] += 1;
  if (pod.IsMig()) {
    const int g = gpus.index[0];
    const uint8_t mask = MigMask(pod.mig_profile, gpus.mig_start);
    STEWARD_CHECK(gpus.count == 1 && g >= 0 && g < node.num_gpus && gpus.mig_start >= 0 &&
                  (node.mig_used[g] & mask) == 0 &&
                  (node.mig_used[g] != 0 || node.gpu_free[g] == kMilliPerGpu));
    if (node.mig_used[g] == 0) {  // The GPU enters MIG mode: no longer whole or shareable.
      node.gpu_free_total -= node.gpu_free[g];
      node.gpu_free[g] = 0;
    }
    node.mig_used[g] |= mask;
    return;
  }
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
  for (int i = 0; i < kMaxExtendedResources; ++i) node.extended_free[i] += pod.extended[i];
  node.pods -= 1;
  STEWARD_CHECK(node.shape_pods[ShapeClass(pod)] > 0);
  node.shape_pods[ShapeClass(pod)] -= 1;
  if (pod.IsMig()) {
    const int g = gpus.index[0];
    const uint8_t mask = MigMask(pod.mig_profile, gpus.mig_start);
    STEWARD_CHECK(gpus.count == 1 && g >= 0 && g < node.num_gpus &&
                  (node.mig_used[g] & mask) == mask);
    node.mig_used[g] &= static_cast<uint8_t>(~mask);
    if (node.mig_used[g] == 0) {  // Last instance gone: the GPU is whole again (or withheld).
      if ((node.broken >> g) & 1) {
        node.withheld[g] = kMilliPerGpu;
      } else {
        node.gpu_free[g] = kMilliPerGpu;
        node.gpu_free_total += kMilliPerGpu;
      }
    }
    return;
  }
  for (int i = 0; i < gpus.count; ++i) {
    int g = gpus.index[i];
    STEWARD_CHECK(g >= 0 && g < node.num_gpus &&
                  node.gpu_free[g] + node.withheld[g] + pod.gpu_milli <= kMilliPerGpu);
    if ((node.broken >> g) & 1) {  // A broken GPU's capacity stays out of service.
      node.withheld[g] = static_cast<int16_t>(node.withheld[g] + pod.gpu_milli);
      continue;
    }
    node.gpu_free[g] = static_cast<int16_t>(node.gpu_free[g] + pod.gpu_milli);
    node.gpu_free_total += pod.gpu_milli;
  }
}

void SetGpuBroken(NodeState& node, int g, bool broken) {
  const uint16_t bit = static_cast<uint16_t>(1u << g);
  if (((node.broken & bit) != 0) == broken) return;
  if (broken) {
    node.broken |= bit;
    // Whatever is free on it now is withheld (a MIG GPU has none: MigGpu skips it).
    node.withheld[g] = static_cast<int16_t>(node.withheld[g] + node.gpu_free[g]);
    node.gpu_free_total -= node.gpu_free[g];
    node.gpu_free[g] = 0;
  } else {
    node.broken &= static_cast<uint16_t>(~bit);
    node.gpu_free[g] = static_cast<int16_t>(node.gpu_free[g] + node.withheld[g]);
    node.gpu_free_total += node.withheld[g];
    node.withheld[g] = 0;
  }
}

NodeState AfterTightest(const NodeState& node, const PodRequest& pod) {
  NodeState after = node;
  if (pod.IsMig()) {
    ApplyPod(after, pod, TightestGpus(node, pod));
    return after;
  }
  after.cpu_free -= pod.cpu_milli;
  after.memory_free -= pod.memory_mib;
  for (int i = 0; i < kMaxExtendedResources; ++i) after.extended_free[i] -= pod.extended[i];
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
