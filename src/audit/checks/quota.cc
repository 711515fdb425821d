// Quota layer: can a tenant take GPUs without bound, is the quota of a pool's tenants more than
// the pool holds, is a HAMi per-GPU quota left without a GPU count.
#include <fmt/format.h>

#include "audit/checks/checks.h"

namespace steward::audit::checks {
namespace {

bool BoundsGpus(const ResourceQuotaObject& q) {
  return q.hard.count(std::string("requests.") + kGpu) > 0;
}

govern::Amount NominalGpus(const govern::ClusterQueue& cq, const std::string& flavor) {
  govern::Amount n = 0;
  for (const auto& g : cq.resource_groups)
    for (const auto& fq : g.flavors)
      if (flavor.empty() || fq.flavor == flavor)
        for (const auto& r : fq.resources)
          if (r.resource == kGpu) n += r.nominal;
  return n;
}

}  // namespace

void GpuUnbounded(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  for (const auto& [tenant, namespaces] : c.tenants.namespaces()) {
    for (const std::string& ns : namespaces) {
      bool bounded = false;
      for (const ResourceQuotaObject& q : c.objects.resource_quotas)
        bounded |= q.meta.ref.namespace_name == ns && BoundsGpus(q);
      for (const govern::LocalQueue& lq : c.objects.policy.local_queues)
        bounded |= lq.namespace_name == ns;
      bounded |= c.tenants.HowAssigned(ns) == "Volcano queue";
      if (bounded) continue;
      ObjectRef ref{"Namespace", "", ns, "", 0};
      for (const Namespace& n : c.objects.namespaces)
        if (n.meta.ref.name == ns) ref = n.meta.ref;
      out->push_back(check.Make(
          tenant, {ref},
          fmt::format("namespace {} of tenant {} has no ResourceQuota with requests.{} and no "
                      "Kueue LocalQueue: its pods can take every GPU of the cluster",
                      ns, tenant, kGpu),
          fmt::format("kubectl -n {} create quota gpu --hard=requests.{}=<N>   # or a Kueue "
                      "LocalQueue pointing at the tenant's ClusterQueue",
                      ns, kGpu)));
    }
  }
}

void PoolOvercommitted(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  const auto& o = c.objects;
  if (o.nodes.empty()) return;  // Capacity unknown: nothing to compare with.
  // Kueue: per ResourceFlavor, the nominal GPUs of every ClusterQueue vs the GPUs of the nodes
  // its nodeLabels select.
  for (const govern::ResourceFlavor& f : o.policy.flavors) {
    govern::Amount capacity = 0;
    for (const Node& n : o.nodes) {
      bool match = true;
      for (const auto& [k, v] : f.node_labels) {
        auto it = n.meta.labels.find(k);
        match &= it != n.meta.labels.end() && it->second == v;
      }
      if (match) capacity += n.gpu_capacity;
    }
    govern::Amount nominal = 0;
    std::vector<ObjectRef> refs = {{"ResourceFlavor", "", f.name, f.source.file, f.source.line}};
    std::vector<std::string> queues;
    for (const govern::ClusterQueue& cq : o.policy.cluster_queues) {
      const govern::Amount n = NominalGpus(cq, f.name);
      if (n == 0) continue;
      nominal += n;
      queues.push_back(fmt::format("{}={}", cq.name, n));
      refs.push_back({"ClusterQueue", "", cq.name, cq.source.file, cq.source.line});
    }
    if (nominal <= capacity) continue;
    out->push_back(check.Make(
        "", refs,
        fmt::format("ResourceFlavor {} reaches {} GPUs but its ClusterQueues' nominal quota sums "
                    "to {} ({}): admitted work will not fit",
                    f.name, capacity, nominal, Join(queues)),
        fmt::format("lower nominalQuota of {} for flavor {} to sum to at most {} (kubectl edit "
                    "clusterqueue ...), or add nodes with the flavor's labels",
                    kGpu, f.name, capacity)));
  }
  // ResourceQuota: per dedicated pool (and the shared pool), the requests.nvidia.com/gpu of the
  // namespaces of the tenants placed there vs the pool's GPUs.
  std::map<std::string, govern::Amount> pool_gpus;  // Tenant ("" = shared) -> GPUs.
  for (const Node& n : o.nodes) pool_gpus[c.tenants.OfNode(n.meta.ref.name)] += n.gpu_capacity;
  std::map<std::string, govern::Amount> pool_quota;
  std::map<std::string, std::vector<ObjectRef>> pool_refs;
  for (const ResourceQuotaObject& q : o.resource_quotas) {
    const std::string& tenant = c.tenants.OfNamespace(q.meta.ref.namespace_name);
    auto it = q.hard.find(std::string("requests.") + kGpu);
    if (tenant.empty() || it == q.hard.end()) continue;
    const std::string pool = pool_gpus.count(tenant) ? tenant : "";
    pool_quota[pool] += it->second;
    pool_refs[pool].push_back(q.meta.ref);
  }
  for (const auto& [pool, quota] : pool_quota) {
    const govern::Amount gpus = pool_gpus.count(pool) ? pool_gpus[pool] : 0;
    if (quota <= gpus) continue;
    const std::string what = pool.empty() ? "the shared GPU pool" : "tenant " + pool + "'s pool";
    out->push_back(check.Make(
        pool, pool_refs[pool],
        fmt::format("ResourceQuotas of {} allow requests.{} = {} but the pool has {} GPUs", what,
                    kGpu, quota, gpus),
        fmt::format("lower requests.{} so the namespaces placed on {} sum to at most {} "
                    "(kubectl -n NS edit resourcequota NAME)",
                    kGpu, what, gpus)));
  }
}

void HamiQuotaWithoutGpuBound(const AuditContext& c, const Check& check,
                              std::vector<Finding>* out) {
  for (const ResourceQuotaObject& q : c.objects.resource_quotas) {
    std::vector<std::string> hami;
    bool gpu_bound = false;
    for (const auto& [key, v] : q.hard) {
      if (key.ends_with("nvidia.com/gpumem") || key.ends_with("nvidia.com/gpucores") ||
          key.ends_with("nvidia.com/gpumem-percentage"))
        hami.push_back(key);
      if (key.ends_with(std::string("s.") + kGpu)) gpu_bound = true;  // requests. or limits.
    }
    if (hami.empty() || gpu_bound) continue;
    const std::string& ns = q.meta.ref.namespace_name;
    out->push_back(check.Make(
        c.tenants.OfNamespace(ns), {q.meta.ref},
        fmt::format("ResourceQuota {}/{} bounds {} but not the number of GPUs: HAMi's values "
                    "are per GPU, so a pod asking many GPUs at a small gpumem/gpucores each "
                    "passes the quota",
                    ns, q.meta.ref.name, Join(hami)),
        fmt::format("kubectl -n {} patch resourcequota {} --type merge -p "
                    "'{{\"spec\":{{\"hard\":{{\"requests.{}\":\"<N>\"}}}}}}'",
                    ns, q.meta.ref.name, kGpu)));
  }
}

}  // namespace steward::audit::checks
