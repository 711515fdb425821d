// Kueue objects of a policy file: ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
// WorkloadPriorityClass, and Kueue's Configuration (fairSharing, waitForPodsReady).
#include <algorithm>
#include <set>

#include "govern/policy_io.h"
#include "govern/policy_parser.h"
#include "model/yaml_checked.h"

namespace steward::govern::policy_yaml {

Status Parser::Flavor(const YAML::Node& doc) {
  ResourceFlavor rf;
  rf.name = name_;
  rf.source = {file_, doc.Mark().line + 1};
  std::map<std::string, std::string> steward;
  Metadata(doc, &rf.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec"}, &rf.extra);
  const YAML::Node spec = doc["spec"];
  if (spec) {
    STEWARD_ASSIGN_OR_RETURN(rf.node_labels, StringMap(spec["nodeLabels"], "spec.nodeLabels"));
    if (rf.node_labels.size() > 8)
      return Err(spec["nodeLabels"], "spec.nodeLabels", "at most 8 labels");
    if (const YAML::Node taints = spec["nodeTaints"]) {
      if (!taints.IsSequence()) return Err(taints, "spec.nodeTaints", "expected a list");
      for (size_t i = 0; i < taints.size(); ++i) {
        FlavorTaint t{Scalar(taints[i], "key"), Scalar(taints[i], "value"),
                      Scalar(taints[i], "effect")};
        std::string f = fmt::format("spec.nodeTaints[{}]", i);
        if (t.key.empty()) return Err(taints[i], f + ".key", "required");
        if (t.effect != "NoSchedule" && t.effect != "NoExecute" && t.effect != "PreferNoSchedule")
          return Err(taints[i], f + ".effect", "must be NoSchedule, NoExecute or PreferNoSchedule");
        KeepUnknown(taints[i], f, {"key", "value", "effect"}, &rf.extra);
        rf.node_taints.push_back(std::move(t));
      }
    }
    STEWARD_ASSIGN_OR_RETURN(rf.tolerations, Tolerations(spec["tolerations"], "spec.tolerations",
                                                         &rf.extra, "spec.tolerations"));
    rf.topology_name = Scalar(spec, "topologyName");
    KeepUnknown(spec, "spec", {"nodeLabels", "nodeTaints", "tolerations", "topologyName"},
                &rf.extra);
  }
  policy_->flavors.push_back(std::move(rf));
  return Status::Ok();
}

Status Parser::ResourceGroups(const YAML::Node& n, std::vector<ResourceGroup>* out, bool allow_bl,
                              ExtraFields* extra) {
  if (!n) return Status::Ok();
  if (!n.IsSequence()) return Err(n, "spec.resourceGroups", "expected a list");
  if (n.size() > 16) return Err(n, "spec.resourceGroups", "at most 16 resource groups");
  std::set<std::string> seen_res, seen_flavor;
  for (size_t g = 0; g < n.size(); ++g) {
    const YAML::Node gn = n[g];
    std::string gpath = fmt::format("spec.resourceGroups[{}]", g);
    ResourceGroup group;
    const YAML::Node cov = gn["coveredResources"];
    if (!cov || !cov.IsSequence() || cov.size() == 0)
      return Err(cov ? cov : gn, gpath + ".coveredResources", "required, a non-empty list");
    for (const auto& r : cov) {
      std::string name = r.as<std::string>();
      if (!seen_res.insert(name).second)
        return Err(r, gpath + ".coveredResources",
                   fmt::format("resource {} is already covered by another group", name));
      group.covered_resources.push_back(name);
    }
    const YAML::Node fl = gn["flavors"];
    if (!fl || !fl.IsSequence() || fl.size() == 0)
      return Err(fl ? fl : gn, gpath + ".flavors", "required, a non-empty list");
    for (size_t f = 0; f < fl.size(); ++f) {
      const YAML::Node fn = fl[f];
      std::string fpath = fmt::format("{}.flavors[{}]", gpath, f);
      FlavorQuotas fq;
      fq.flavor = Scalar(fn, "name");
      if (fq.flavor.empty()) return Err(fn, fpath + ".name", "required");
      if (!seen_flavor.insert(fq.flavor).second)
        return Err(fn, fpath + ".name",
                   fmt::format("flavor {} appears in more than one resource group", fq.flavor));
      const YAML::Node rs = fn["resources"];
      if (!rs || !rs.IsSequence())
        return Err(rs ? rs : fn, fpath + ".resources", "required, a list");
      if (rs.size() != group.covered_resources.size())
        return Err(rs, fpath + ".resources",
                   fmt::format("lists {} resources but the group covers {}", rs.size(),
                               group.covered_resources.size()));
      std::vector<ResourceQuota> quotas(group.covered_resources.size());
      std::vector<char> filled(quotas.size(), 0);
      for (size_t r = 0; r < rs.size(); ++r) {
        const YAML::Node rn = rs[r];
        std::string rpath = fmt::format("{}.resources[{}]", fpath, r);
        std::string rname = Scalar(rn, "name");
        auto it = std::find(group.covered_resources.begin(), group.covered_resources.end(), rname);
        if (it == group.covered_resources.end())
          return Err(rn, rpath + ".name",
                     fmt::format("resource \"{}\" is not in coveredResources", rname));
        size_t idx = it - group.covered_resources.begin();
        if (filled[idx]) return Err(rn, rpath + ".name", fmt::format("{} listed twice", rname));
        filled[idx] = 1;
        ResourceQuota q;
        q.resource = rname;
        const YAML::Node nq = rn["nominalQuota"];
        if (!nq) return Err(rn, rpath + ".nominalQuota", "required");
        STEWARD_ASSIGN_OR_RETURN(q.nominal, Quantity(nq, rname, rpath + ".nominalQuota"));
        if (const YAML::Node bl = rn["borrowingLimit"]; bl && !bl.IsNull()) {
          if (!allow_bl)
            return Err(bl, rpath + ".borrowingLimit",
                       kind_ == "Cohort" ? "only allowed when parentName is set"
                                         : "must be null when cohort is empty");
          STEWARD_ASSIGN_OR_RETURN(q.borrowing_limit,
                                   Quantity(bl, rname, rpath + ".borrowingLimit"));
        }
        if (const YAML::Node ll = rn["lendingLimit"]; ll && !ll.IsNull()) {
          if (kind_ == "Cohort" && !allow_bl)
            return Err(ll, rpath + ".lendingLimit", "only allowed when parentName is set");
          STEWARD_ASSIGN_OR_RETURN(q.lending_limit, Quantity(ll, rname, rpath + ".lendingLimit"));
          if (*q.lending_limit > q.nominal && kind_ == "ClusterQueue")
            return Err(ll, rpath + ".lendingLimit",
                       fmt::format("{} exceeds nominalQuota {}", ll.Scalar(), nq.Scalar()));
        }
        KeepUnknown(rn, rpath, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"}, extra);
        quotas[idx] = std::move(q);
      }
      fq.resources = std::move(quotas);
      KeepUnknown(fn, fpath, {"name", "resources"}, extra);
      group.flavors.push_back(std::move(fq));
    }
    KeepUnknown(gn, gpath, {"coveredResources", "flavors"}, extra);
    out->push_back(std::move(group));
  }
  return Status::Ok();
}

Status Parser::ClusterQueueDoc(const YAML::Node& doc) {
  ClusterQueue cq;
  cq.name = name_;
  cq.source = {file_, doc.Mark().line + 1};
  std::map<std::string, std::string> steward;
  Metadata(doc, &cq.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &cq.extra);
  if (steward.count("steward.io/reclaimable"))
    cq.reclaimable = steward["steward.io/reclaimable"] != "false";
  if (steward["steward.io/quota-check-strategy"] == "IgnoreUndeclared") cq.ignore_undeclared = true;
  if (steward.count("steward.io/origin")) cq.origin = steward["steward.io/origin"];
  for (const auto& [key, value] : steward)
    if (key.starts_with(kVolcanoSpecAnnotation))
      cq.extra["spec." + key.substr(std::string_view(kVolcanoSpecAnnotation).size())] = value;
  const YAML::Node spec = doc["spec"];
  if (!spec || !spec.IsMap()) return Err(doc, "spec", "required");
  cq.cohort = Scalar(spec, "cohort");
  if (cq.cohort.empty()) cq.cohort = Scalar(spec, "cohortName");
  STEWARD_RETURN_IF_ERROR(
      ResourceGroups(spec["resourceGroups"], &cq.resource_groups, !cq.cohort.empty(), &cq.extra));
  if (const YAML::Node q = spec["queueingStrategy"]) {
    STEWARD_ASSIGN_OR_RETURN(
        cq.queueing_strategy,
        Enum<QueueingStrategy>(q, "spec.queueingStrategy",
                               {{"BestEffortFIFO", QueueingStrategy::kBestEffortFIFO},
                                {"StrictFIFO", QueueingStrategy::kStrictFIFO}}));
  }
  if (const YAML::Node ns = spec["namespaceSelector"]; ns && !ns.IsNull()) {
    STEWARD_ASSIGN_OR_RETURN(cq.namespace_selector, Selector(ns, "spec.namespaceSelector"));
  }
  if (const YAML::Node ff = spec["flavorFungibility"]) {
    auto fung = [&](const char* key, FungibilityPolicy* out, const char* alias) -> Status {
      if (const YAML::Node v = ff[key]) {
        STEWARD_ASSIGN_OR_RETURN(
            *out, Enum<FungibilityPolicy>(v, std::string("spec.flavorFungibility.") + key,
                                          {{"MayStopSearch", FungibilityPolicy::kMayStopSearch},
                                           {alias, FungibilityPolicy::kMayStopSearch},
                                           {"TryNextFlavor", FungibilityPolicy::kTryNextFlavor}}));
      }
      return Status::Ok();
    };
    STEWARD_RETURN_IF_ERROR(fung("whenCanBorrow", &cq.when_can_borrow, "Borrow"));
    STEWARD_RETURN_IF_ERROR(fung("whenCanPreempt", &cq.when_can_preempt, "Preempt"));
    KeepUnknown(ff, "spec.flavorFungibility", {"whenCanBorrow", "whenCanPreempt"}, &cq.extra);
  }
  if (const YAML::Node p = spec["preemption"]) {
    if (const YAML::Node v = p["withinClusterQueue"]) {
      STEWARD_ASSIGN_OR_RETURN(
          cq.preemption.within_cluster_queue,
          Enum<PreemptionPolicy>(
              v, "spec.preemption.withinClusterQueue",
              {{"Never", PreemptionPolicy::kNever},
               {"LowerPriority", PreemptionPolicy::kLowerPriority},
               {"LowerOrNewerEqualPriority", PreemptionPolicy::kLowerOrNewerEqualPriority}}));
    }
    if (const YAML::Node v = p["reclaimWithinCohort"]) {
      STEWARD_ASSIGN_OR_RETURN(
          cq.preemption.reclaim_within_cohort,
          Enum<PreemptionPolicy>(v, "spec.preemption.reclaimWithinCohort",
                                 {{"Never", PreemptionPolicy::kNever},
                                  {"LowerPriority", PreemptionPolicy::kLowerPriority},
                                  {"Any", PreemptionPolicy::kAny}}));
    }
    if (const YAML::Node b = p["borrowWithinCohort"]) {
      if (const YAML::Node v = b["policy"]) {
        STEWARD_ASSIGN_OR_RETURN(
            cq.preemption.borrow_within_cohort,
            Enum<PreemptionPolicy>(v, "spec.preemption.borrowWithinCohort.policy",
                                   {{"Never", PreemptionPolicy::kNever},
                                    {"LowerPriority", PreemptionPolicy::kLowerPriority}}));
      }
      if (const YAML::Node v = b["maxPriorityThreshold"]) {
        STEWARD_ASSIGN_OR_RETURN(
            cq.preemption.max_priority_threshold,
            Int32(v, "spec.preemption.borrowWithinCohort.maxPriorityThreshold"));
      }
      KeepUnknown(b, "spec.preemption.borrowWithinCohort", {"policy", "maxPriorityThreshold"},
                  &cq.extra);
      if (cq.preemption.borrow_within_cohort != PreemptionPolicy::kNever &&
          cq.preemption.reclaim_within_cohort == PreemptionPolicy::kNever)
        return Err(b, "spec.preemption.borrowWithinCohort",
                   "requires reclaimWithinCohort other than Never");
    }
    KeepUnknown(p, "spec.preemption",
                {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"}, &cq.extra);
  }
  if (const YAML::Node fs = spec["fairSharing"]) {
    if (const YAML::Node w = fs["weight"]) {
      STEWARD_ASSIGN_OR_RETURN(cq.fair_weight, Weight(w, "spec.fairSharing.weight"));
    }
    KeepUnknown(fs, "spec.fairSharing", {"weight"}, &cq.extra);
  }
  if (const YAML::Node sp = spec["stopPolicy"]) {
    STEWARD_ASSIGN_OR_RETURN(cq.stop_policy, StopPolicyEnum(sp, "spec.stopPolicy"));
  }
  KeepUnknown(spec, "spec",
              {"cohort", "cohortName", "resourceGroups", "queueingStrategy", "namespaceSelector",
               "flavorFungibility", "preemption", "fairSharing", "stopPolicy"},
              &cq.extra);
  policy_->cluster_queues.push_back(std::move(cq));
  return Status::Ok();
}

Result<StopPolicy> Parser::StopPolicyEnum(const YAML::Node& n, std::string_view field) {
  return Enum<StopPolicy>(n, field,
                          {{"None", StopPolicy::kNone},
                           {"Hold", StopPolicy::kHold},
                           {"HoldAndDrain", StopPolicy::kHoldAndDrain}});
}

Status Parser::CohortDoc(const YAML::Node& doc) {
  Cohort co;
  co.name = name_;
  co.source = {file_, doc.Mark().line + 1};
  std::map<std::string, std::string> steward;
  Metadata(doc, &co.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &co.extra);
  const YAML::Node spec = doc["spec"];
  if (spec && spec.IsMap()) {
    co.parent = Scalar(spec, "parentName");
    if (co.parent.empty()) co.parent = Scalar(spec, "parent");  // v1alpha1.
    STEWARD_RETURN_IF_ERROR(
        ResourceGroups(spec["resourceGroups"], &co.resource_groups, !co.parent.empty(), &co.extra));
    if (const YAML::Node fs = spec["fairSharing"]) {
      if (const YAML::Node w = fs["weight"]) {
        STEWARD_ASSIGN_OR_RETURN(co.fair_weight, Weight(w, "spec.fairSharing.weight"));
      }
      KeepUnknown(fs, "spec.fairSharing", {"weight"}, &co.extra);
    }
    KeepUnknown(spec, "spec", {"parentName", "parent", "resourceGroups", "fairSharing"}, &co.extra);
  }
  policy_->cohorts.push_back(std::move(co));
  return Status::Ok();
}

Status Parser::LocalQueueDoc(const YAML::Node& doc) {
  LocalQueue lq;
  lq.name = name_;
  lq.source = {file_, doc.Mark().line + 1};
  std::string ns = Scalar(doc["metadata"], "namespace");
  if (!ns.empty()) lq.namespace_name = ns;
  std::map<std::string, std::string> steward;
  Metadata(doc, &lq.extra, &steward);
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &lq.extra);
  const YAML::Node spec = doc["spec"];
  if (!spec || !spec.IsMap()) return Err(doc, "spec", "required");
  lq.cluster_queue = Scalar(spec, "clusterQueue");
  if (lq.cluster_queue.empty()) return Err(spec, "spec.clusterQueue", "required");
  if (const YAML::Node sp = spec["stopPolicy"]) {
    STEWARD_ASSIGN_OR_RETURN(lq.stop_policy, StopPolicyEnum(sp, "spec.stopPolicy"));
  }
  KeepUnknown(spec, "spec", {"clusterQueue", "stopPolicy"}, &lq.extra);
  policy_->local_queues.push_back(std::move(lq));
  return Status::Ok();
}

Result<model::Tier> Parser::TierValue(const YAML::Node& n, const std::string& text) {
  model::Tier t;
  if (!model::ParseTier(text, &t))
    return Err(n, "metadata.labels.steward.io/tier",
               fmt::format("\"{}\" is not a tier (production, training, dev)", text));
  return t;
}

Status Parser::PriorityClassDoc(const YAML::Node& doc) {
  WorkloadPriorityClass pc;
  pc.name = name_;
  pc.source = {file_, doc.Mark().line + 1};
  std::map<std::string, std::string> steward;
  Metadata(doc, &pc.extra, &steward);
  if (steward.count("steward.io/tier")) {
    STEWARD_ASSIGN_OR_RETURN(pc.tier, TierValue(doc["metadata"], steward["steward.io/tier"]));
  }
  const YAML::Node v = doc["value"];
  if (!v) return Err(doc, "value", "required");
  STEWARD_ASSIGN_OR_RETURN(pc.value, Int32(v, "value"));
  pc.description = Scalar(doc, "description");
  if (pc.description.size() > 2048)
    return Err(doc["description"], "description", "at most 2048 characters");
  KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "value", "description"}, &pc.extra);
  policy_->priority_classes.push_back(std::move(pc));
  return Status::Ok();
}

// Kueue's Configuration: fairSharing and waitForPodsReady drive the twin; the rest is kept.
Status Parser::ConfigurationDoc(const YAML::Node& doc, const std::string& api) {
  if (policy_->configuration)
    return Err(doc, "kind", "a second Kueue Configuration (only one is allowed)");
  KueueConfiguration c;
  c.api_version = api;
  c.source = {file_, doc.Mark().line + 1};
  const bool v1beta1 = api == "config.kueue.x-k8s.io/v1beta1";
  WaitForPodsReadyConfig& w = c.wait_for_pods_ready;
  if (!v1beta1) {  // v1beta2 defaults (queue-semantics.md §1.10).
    w.enable = true;
    w.timeout = Minutes(30);
    w.block_admission = false;
  }
  auto boolean = [&](const YAML::Node& n, std::string_view field, bool* out) -> Status {
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false"))
      return Err(n, field, "must be true or false");
    *out = n.Scalar() == "true";
    return Status::Ok();
  };
  if (const YAML::Node fs = doc["fairSharing"]) {
    c.fair_sharing = !v1beta1;  // v1beta2: the block's presence enables it.
    if (const YAML::Node e = fs["enable"])
      STEWARD_RETURN_IF_ERROR(boolean(e, "fairSharing.enable", &c.fair_sharing));
    KeepUnknown(fs, "fairSharing", {"enable"}, &c.extra);
  }
  if (const YAML::Node wr = doc["waitForPodsReady"]) {
    if (!wr.IsMap()) return Err(wr, "waitForPodsReady", "expected a mapping");
    w.enable = !v1beta1;
    bool block_set = false;
    if (const YAML::Node e = wr["enable"])
      STEWARD_RETURN_IF_ERROR(boolean(e, "waitForPodsReady.enable", &w.enable));
    if (const YAML::Node t = wr["timeout"]) {
      STEWARD_ASSIGN_OR_RETURN(w.timeout, Duration(t, "waitForPodsReady.timeout"));
    } else if (!v1beta1) {
      w.timeout = Minutes(30);
    }
    if (const YAML::Node b = wr["blockAdmission"]) {
      STEWARD_RETURN_IF_ERROR(boolean(b, "waitForPodsReady.blockAdmission", &w.block_admission));
      block_set = true;
    }
    if (v1beta1 && !block_set) w.block_admission = w.enable;  // Defaults to enable.
    if (const YAML::Node rs = wr["requeuingStrategy"]) {
      if (const YAML::Node ts = rs["timestamp"]) {
        w.requeuing_timestamp = ts.IsScalar() ? ts.Scalar() : "";
        if (w.requeuing_timestamp != "Eviction" && w.requeuing_timestamp != "Creation")
          return Err(ts, "waitForPodsReady.requeuingStrategy.timestamp",
                     "must be Eviction or Creation");
      }
      if (const YAML::Node b = rs["backoffBaseSeconds"]) {
        STEWARD_ASSIGN_OR_RETURN(int32_t v,
                                 Int32(b, "waitForPodsReady.requeuingStrategy.backoffBaseSeconds"));
        w.backoff_base = Seconds(v);
      }
      if (const YAML::Node b = rs["backoffMaxSeconds"]) {
        STEWARD_ASSIGN_OR_RETURN(int32_t v,
                                 Int32(b, "waitForPodsReady.requeuingStrategy.backoffMaxSeconds"));
        w.backoff_max = Seconds(v);
      }
      if (const YAML::Node b = rs["backoffLimitCount"]) {
        STEWARD_ASSIGN_OR_RETURN(int32_t v,
                                 Int32(b, "waitForPodsReady.requeuingStrategy.backoffLimitCount"));
        w.backoff_limit_count = v;
      }
      KeepUnknown(rs, "waitForPodsReady.requeuingStrategy",
                  {"timestamp", "backoffBaseSeconds", "backoffMaxSeconds", "backoffLimitCount"},
                  &c.extra);
    }
    KeepUnknown(wr, "waitForPodsReady",
                {"enable", "timeout", "blockAdmission", "requeuingStrategy"}, &c.extra);
  }
  // The rest of Kueue's configuration (integrations, controller settings) is kept silently:
  // it is the controller's business, not the scheduler's.
  KeepUnknown(doc, "", {"apiVersion", "kind", "fairSharing", "waitForPodsReady"}, &c.extra, false);
  policy_->configuration = std::move(c);
  return Status::Ok();
}

}  // namespace steward::govern::policy_yaml
