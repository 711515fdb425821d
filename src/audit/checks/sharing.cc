// GPU sharing layer (tenancy-facts §4.1, §4.3): time-slicing and MPS put every pod of a GPU in
// one fault domain; HAMi's gpumem is a hard ceiling but gpucores only a reactive throttle.
#include <fmt/format.h>

#include "audit/checks/checks.h"

namespace steward::audit::checks {
namespace {

bool UsesGpu(const Pod& p) {
  for (const Container& c : p.containers)
    for (const auto* m : {&c.requests, &c.limits})
      for (const auto& [r, v] : *m)
        if (v > 0 && r.starts_with(kGpu)) return true;  // nvidia.com/gpu, nvidia.com/gpu.shared.
  return false;
}

void CrossTenant(const AuditContext& c, const Check& check, std::string_view strategy,
                 std::string_view consequence, std::vector<Finding>* out) {
  // Pods by node once: O(nodes + pods), not their product.
  std::map<std::string, std::vector<const Pod*>> on_node;
  for (const Pod& p : c.objects.pods)
    if (!p.node_name.empty() && UsesGpu(p) && p.phase != "Succeeded" && p.phase != "Failed")
      on_node[p.node_name].push_back(&p);
  for (const Node& n : c.objects.nodes) {
    auto pods = on_node.find(n.meta.ref.name);
    if (pods == on_node.end() || SharingStrategy(c.objects, n) != strategy) continue;
    std::map<std::string, std::vector<const Pod*>> by_tenant;
    for (const Pod* p : pods->second) {
      const std::string& t = c.tenants.OfNamespace(p->meta.ref.namespace_name);
      if (!t.empty()) by_tenant[t].push_back(p);
    }
    if (by_tenant.size() < 2) continue;
    std::vector<ObjectRef> refs = {n.meta.ref};
    std::vector<std::string> tenants;
    for (const auto& [t, pods] : by_tenant) {
      tenants.push_back(t);
      for (const Pod* p : pods) refs.push_back(p->meta.ref);
    }
    out->push_back(check.Make(
        Join(tenants, ","), refs,
        fmt::format("node {} shares its GPUs by {} between tenants {}: {}", n.meta.ref.name,
                    strategy, Join(tenants), consequence),
        fmt::format("kubectl label node {} {}=<one tenant> --overwrite && kubectl taint nodes {} "
                    "{}=<one tenant>:NoSchedule   # one tenant per shared node; use MIG where "
                    "tenants must share a GPU",
                    n.meta.ref.name, c.tenants.label(), n.meta.ref.name, c.tenants.label())));
  }
}

bool IsHamiPod(const Pod& p) {
  if (p.scheduler_name == "hami-scheduler") return true;
  for (const auto& [k, v] : p.meta.annotations)
    if (k.starts_with("hami.io/")) return true;
  for (const Container& c : p.containers)
    if (c.Has("nvidia.com/gpumem") || c.Has("nvidia.com/gpucores") ||
        c.Has("nvidia.com/gpumem-percentage"))
      return true;
  return false;
}

}  // namespace

void TimeSliceCrossTenant(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  CrossTenant(c, check, "time-slicing",
              "time-slicing isolates nothing, every pod sees all GPU memory and one crash takes "
              "down all of them",
              out);
}

void MpsCrossTenant(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  CrossTenant(c, check, "mps",
              "MPS caps memory and compute per client but the tenants still share one device "
              "and its fault domain",
              out);
}

void FailRequestsGreaterThanOneOff(const AuditContext& c, const Check& check,
                                   std::vector<Finding>* out) {
  for (const DevicePluginConfig& d : c.objects.device_plugin_configs) {
    if (d.fail_requests_greater_than_one) continue;
    const auto& r = d.meta.ref;
    const char* block = d.strategy == "mps" ? "mps" : "timeSlicing";
    out->push_back(check.Make(
        "", {r},
        fmt::format("device plugin config {} in ConfigMap {}/{} shares GPUs by {} ({} replicas) "
                    "with failRequestsGreaterThanOne off: a pod asking 2 shared GPUs gets no more "
                    "compute than one, silently",
                    d.key, r.namespace_name, r.name, d.strategy, d.replicas),
        fmt::format("kubectl -n {} edit configmap {}   # in data.{}: sharing.{}."
                    "failRequestsGreaterThanOne: true",
                    r.namespace_name, r.name, d.key, block)));
  }
}

void HamiPodWithoutGpuMem(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  for (const Pod& p : c.objects.pods) {
    if (!IsHamiPod(p)) continue;
    std::vector<std::string> containers;
    for (const Container& ct : p.containers)
      if (ct.Get(kGpu) > 0 && !ct.Has("nvidia.com/gpumem") &&
          !ct.Has("nvidia.com/gpumem-percentage"))
        containers.push_back(ct.name);
    if (containers.empty()) continue;
    out->push_back(check.Make(
        c.tenants.OfNamespace(p.meta.ref.namespace_name), {p.meta.ref},
        fmt::format("HAMi pod {}/{} asks for nvidia.com/gpu without nvidia.com/gpumem in "
                    "container(s) {}: HAMi gives it the whole card's memory",
                    p.meta.ref.namespace_name, p.meta.ref.name, Join(containers)),
        fmt::format("set resources.limits[\"nvidia.com/gpumem\"] (MiB per GPU) on container(s) "
                    "{} of the workload that creates pod {}",
                    Join(containers), p.meta.ref.name)));
  }
}

void GpuCoresAsHardLimit(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  for (const Pod& p : c.objects.pods) {
    if (!IsHamiPod(p)) continue;
    std::vector<std::string> containers;
    for (const Container& ct : p.containers) {
      const govern::Amount cores = ct.Get("nvidia.com/gpucores");
      auto env = ct.env.find("GPU_CORE_UTILIZATION_POLICY");
      const bool forced = env != ct.env.end() && env->second == "force";
      if (cores > 0 && cores < 100 && !forced)
        containers.push_back(fmt::format("{} (gpucores {})", ct.name, cores));
    }
    if (containers.empty()) continue;
    out->push_back(check.Make(
        c.tenants.OfNamespace(p.meta.ref.namespace_name), {p.meta.ref},
        fmt::format("pod {}/{} limits SMs with nvidia.com/gpucores in {}: a reactive throttle "
                    "that can briefly exceed its share, and is not enforced while the pod is "
                    "alone on the GPU unless GPU_CORE_UTILIZATION_POLICY=force",
                    p.meta.ref.namespace_name, p.meta.ref.name, Join(containers)),
        "set env GPU_CORE_UTILIZATION_POLICY=force on the container if the cap must hold, or "
        "use a MIG instance where compute isolation is a requirement"));
  }
}

}  // namespace steward::audit::checks
