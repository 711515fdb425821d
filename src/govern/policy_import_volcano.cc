// Volcano objects of a policy file: a Queue mapped onto a ClusterQueue of the cohort 'volcano',
// a PodGroup kept as a workload template; and the cohort's share of the cluster's capacity.
#include <algorithm>
#include <set>

#include "govern/policy_io.h"
#include "govern/policy_parser.h"
#include "model/yaml_checked.h"

namespace steward::govern::policy_yaml {

Result<std::map<std::string, Amount>> Parser::ResourceList(const YAML::Node& n,
                                                           const std::string& field) {
  std::map<std::string, Amount> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsMap()) return Err(n, field, "expected a resource list mapping");
  for (const auto& kv : n) {
    std::string r = kv.first.as<std::string>();
    STEWARD_ASSIGN_OR_RETURN(out[r], Quantity(kv.second, r, field + "." + r));
  }
  return out;
}

// Volcano Queue -> ClusterQueue (queue-semantics.md §7): nominal = deserved,
// nominal + borrowingLimit = capability, lendingLimit = deserved - guarantee, reclaim Any
// gated by `reclaimable`, weight = fair-sharing weight, unset resources unlimited.
Status Parser::VolcanoQueue(const YAML::Node& doc) {
  ClusterQueue cq;
  cq.name = name_;
  cq.origin = "volcano";
  cq.source = {file_, doc.Mark().line + 1};
  std::map<std::string, std::string> steward;
  Metadata(doc, &cq.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &cq.extra);
  const YAML::Node spec = doc["spec"];
  std::map<std::string, Amount> cap, des, gua;
  if (spec && spec.IsMap()) {
    STEWARD_ASSIGN_OR_RETURN(cap, ResourceList(spec["capability"], "spec.capability"));
    STEWARD_ASSIGN_OR_RETURN(des, ResourceList(spec["deserved"], "spec.deserved"));
    if (const YAML::Node g = spec["guarantee"]) {
      STEWARD_ASSIGN_OR_RETURN(gua, ResourceList(g["resource"], "spec.guarantee.resource"));
      KeepUnknown(g, "spec.guarantee", {"resource"}, &cq.extra);
    }
    if (const YAML::Node w = spec["weight"]) {
      STEWARD_ASSIGN_OR_RETURN(int32_t weight, Int32(w, "spec.weight"));
      if (weight < 1 || weight > 65535) return Err(w, "spec.weight", "must be in 1..65535");
      cq.fair_weight = weight;
    }
    if (const YAML::Node r = spec["reclaimable"]) {
      if (!r.IsScalar() || (r.Scalar() != "true" && r.Scalar() != "false"))
        return Err(r, "spec.reclaimable", "must be true or false");
      cq.reclaimable = r.Scalar() == "true";
    }
    std::string parent = Scalar(spec, "parent");
    cq.cohort = parent.empty() || parent == "root" ? kVolcanoCohort : parent;
    KeepUnknown(spec, "spec",
                {"capability", "deserved", "guarantee", "weight", "reclaimable", "parent"},
                &cq.extra);
  } else {
    cq.cohort = kVolcanoCohort;
  }
  std::set<std::string> resources;
  for (const auto* m : {&cap, &des, &gua})
    for (const auto& [r, v] : *m) resources.insert(r);
  for (const auto& r : resources) {
    Amount g = gua.count(r) ? gua[r] : 0;
    Amount d = des.count(r) ? des[r] : g;
    if (g > d)
      return Err(spec["guarantee"], "spec.guarantee.resource." + r,
                 fmt::format("guarantee {} exceeds deserved {}", FormatQuantity(g, r),
                             FormatQuantity(d, r)));
    if (cap.count(r) && d > cap[r])
      return Err(spec["deserved"] ? spec["deserved"] : spec["guarantee"], "spec.deserved." + r,
                 fmt::format("deserved {} exceeds capability {}", FormatQuantity(d, r),
                             FormatQuantity(cap[r], r)));
  }
  if (!resources.empty()) {
    ResourceGroup group;
    FlavorQuotas fq;
    fq.flavor = kVolcanoFlavor;
    for (const auto& r : resources) {
      group.covered_resources.push_back(r);
      ResourceQuota q;
      q.resource = r;
      Amount g = gua.count(r) ? gua[r] : 0;
      q.nominal = des.count(r) ? des[r] : g;
      if (cap.count(r)) q.borrowing_limit = cap[r] - q.nominal;
      if (gua.count(r)) q.lending_limit = q.nominal - g;
      fq.resources.push_back(q);
    }
    group.flavors.push_back(std::move(fq));
    cq.resource_groups.push_back(std::move(group));
  }
  cq.namespace_selector = LabelSelector{};
  cq.ignore_undeclared = true;
  cq.preemption.within_cluster_queue = PreemptionPolicy::kLowerPriority;
  cq.preemption.reclaim_within_cohort = PreemptionPolicy::kAny;
  if (!policy_->FindFlavor(kVolcanoFlavor)) {
    ResourceFlavor rf;
    rf.name = kVolcanoFlavor;
    rf.source = cq.source;
    policy_->flavors.push_back(std::move(rf));
  }
  policy_->cluster_queues.push_back(std::move(cq));
  return Status::Ok();
}

Status Parser::PodGroupDoc(const YAML::Node& doc) {
  PodGroupSpec pg;
  pg.name = name_;
  pg.source = {file_, doc.Mark().line + 1};
  std::string ns = Scalar(doc["metadata"], "namespace");
  if (!ns.empty()) pg.namespace_name = ns;
  std::map<std::string, std::string> steward;
  Metadata(doc, &pg.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &pg.extra);
  const YAML::Node spec = doc["spec"];
  if (spec && spec.IsMap()) {
    if (const YAML::Node m = spec["minMember"]) {
      STEWARD_ASSIGN_OR_RETURN(pg.min_member, Int32(m, "spec.minMember"));
      if (pg.min_member < 0) return Err(m, "spec.minMember", "must be >= 0");
    }
    STEWARD_ASSIGN_OR_RETURN(pg.min_resources,
                             ResourceList(spec["minResources"], "spec.minResources"));
    if (const YAML::Node t = spec["minTaskMember"]) {
      if (!t.IsMap()) return Err(t, "spec.minTaskMember", "expected a mapping");
      for (const auto& kv : t) {
        STEWARD_ASSIGN_OR_RETURN(pg.min_task_member[kv.first.as<std::string>()],
                                 Int32(kv.second, "spec.minTaskMember"));
      }
    }
    std::string q = Scalar(spec, "queue");
    if (!q.empty()) pg.queue = q;
    pg.priority_class = Scalar(spec, "priorityClassName");
    KeepUnknown(spec, "spec",
                {"minMember", "minResources", "minTaskMember", "queue", "priorityClassName"},
                &pg.extra);
  }
  policy_->pod_groups.push_back(std::move(pg));
  return Status::Ok();
}

}  // namespace steward::govern::policy_yaml

namespace steward::govern {

void SetVolcanoClusterCapacity(Policy* policy, const std::vector<ResourceQuota>& capacity) {
  Cohort* co = nullptr;
  for (auto& c : policy->cohorts)
    if (c.name == kVolcanoCohort) co = &c;
  if (!co) {
    policy->cohorts.push_back(Cohort{});
    co = &policy->cohorts.back();
    co->name = kVolcanoCohort;
  }
  ResourceGroup group;
  FlavorQuotas fq;
  fq.flavor = kVolcanoFlavor;
  for (const auto& cap : capacity) {
    Amount pooled = 0;
    for (const auto& cq : policy->cluster_queues) {
      if (cq.cohort != kVolcanoCohort) continue;
      for (const auto& g : cq.resource_groups)
        for (const auto& f : g.flavors)
          for (const auto& q : f.resources)
            if (f.flavor == kVolcanoFlavor && q.resource == cap.resource)
              pooled += q.nominal;  // Pooled or kept local, it is cluster capacity.
    }
    group.covered_resources.push_back(cap.resource);
    ResourceQuota q;
    q.resource = cap.resource;
    q.nominal = cap.nominal == kUnlimited ? kUnlimited : std::max<Amount>(0, cap.nominal - pooled);
    fq.resources.push_back(q);
  }
  group.flavors.push_back(std::move(fq));
  co->resource_groups = {std::move(group)};
}

}  // namespace steward::govern
