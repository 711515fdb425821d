// YAML -> Policy. yaml-cpp throws; every call that can throw stays inside this file and is
// turned into a Status with file, line and field.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "govern/policy_io.h"
#include "model/yaml_checked.h"

namespace steward::govern {
namespace {

std::string FlowDump(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

class Parser {
 public:
  Parser(std::string_view file, Policy* policy) : file_(file), policy_(policy) {}

  Status Document(const YAML::Node& doc) {
    if (!doc.IsDefined() || doc.IsNull()) return Status::Ok();
    if (!doc.IsMap()) return Err(doc, "", "document is not a mapping");
    std::string api = Scalar(doc, "apiVersion");
    kind_ = Scalar(doc, "kind");
    name_ = "";
    const YAML::Node meta = doc["metadata"];
    if (meta && meta.IsMap()) name_ = Scalar(meta, "name");
    std::string group = api.substr(0, api.find('/'));
    bool kueue = group == "kueue.x-k8s.io";
    bool volcano = group == "scheduling.volcano.sh";
    if (kueue || volcano || (api == "v1" && kind_ == "Namespace")) {
      if (name_.empty()) return Err(meta ? meta : doc, "metadata.name", "required");
    }
    if (kueue && kind_ == "ResourceFlavor") return Flavor(doc);
    if (kueue && kind_ == "ClusterQueue") return ClusterQueueDoc(doc);
    if (kueue && kind_ == "Cohort") return CohortDoc(doc);
    if (kueue && kind_ == "LocalQueue") return LocalQueueDoc(doc);
    if (kueue && kind_ == "WorkloadPriorityClass") return PriorityClassDoc(doc);
    if (volcano && kind_ == "Queue") return VolcanoQueue(doc);
    if (volcano && kind_ == "PodGroup") return PodGroupDoc(doc);
    if (api == "v1" && kind_ == "Namespace") return NamespaceDoc(doc);
    if (group == "config.kueue.x-k8s.io" && kind_ == "Configuration")
      return ConfigurationDoc(doc, api);
    policy_->passthrough_documents.push_back(BlockDump(doc));
    Warn(doc, fmt::format("{} {} ({}) is not modelled by Steward; kept verbatim for export",
                          kind_.empty() ? "document" : kind_, name_, api));
    return Status::Ok();
  }

 private:
  static std::string BlockDump(const YAML::Node& n) {
    YAML::Emitter e;
    e << n;
    return e.c_str();
  }
  std::string Where(const YAML::Node& n) const {
    return fmt::format("{}:{}", file_, n.Mark().line + 1);
  }
  Status Err(const YAML::Node& n, std::string_view field, std::string_view what) const {
    auto m = n.Mark();
    std::string prefix = name_.empty() ? kind_ : fmt::format("{} {}", kind_, name_);
    return MakeInputError(
        file_, m.line + 1, m.column + 1,
        prefix.empty() ? std::string(field) : fmt::format("{}: {}", prefix, field), what);
  }
  void Warn(const YAML::Node& n, std::string msg) {
    policy_->warnings.push_back(fmt::format("{}: {}", Where(n), msg));
  }
  static std::string Scalar(const YAML::Node& map, const char* key) {
    const YAML::Node v = map[key];
    return v && v.IsScalar() ? v.Scalar() : "";
  }
  // Keeps every key of `map` not in `known` as an extra field at `path` and warns.
  void KeepUnknown(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> known, ExtraFields* extra,
                   bool warn = true) {
    if (!map || !map.IsMap()) return;
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string full = path.empty() ? key : path + "." + key;
      (*extra)[full] = FlowDump(kv.second);
      if (warn)
        Warn(kv.first, fmt::format("{} {}: field {} is not interpreted by Steward; kept for export",
                                   kind_, name_, full));
    }
  }
  // metadata: name/namespace interpreted; labels/annotations kept (minus steward.io/* keys,
  // which are interpreted); the rest kept silently (it is Kubernetes bookkeeping).
  void Metadata(const YAML::Node& doc, ExtraFields* extra,
                std::map<std::string, std::string>* steward) {
    const YAML::Node meta = doc["metadata"];
    if (!meta || !meta.IsMap()) return;
    for (const char* which : {"labels", "annotations"}) {
      const YAML::Node m = meta[which];
      if (!m || !m.IsMap()) continue;
      YAML::Node rest(YAML::NodeType::Map);
      for (const auto& kv : m) {
        std::string k = kv.first.as<std::string>();
        if (k.starts_with("steward.io/")) {
          (*steward)[k] = kv.second.IsScalar() ? kv.second.Scalar() : "";
        } else {
          rest[k] = kv.second;
        }
      }
      if (rest.size() > 0) (*extra)[std::string("metadata.") + which] = FlowDump(rest);
    }
    KeepUnknown(meta, "metadata", {"name", "namespace", "labels", "annotations"}, extra, false);
  }

  Result<Amount> Quantity(const YAML::Node& n, std::string_view resource, std::string_view field) {
    if (!n.IsScalar()) return Err(n, field, "expected a quantity");
    auto q = ParseQuantity(n.Scalar(), resource);
    if (!q.ok()) return Err(n, field, q.status().message());
    return q;
  }
  Result<double> Weight(const YAML::Node& n, std::string_view field) {
    STEWARD_ASSIGN_OR_RETURN(Amount milli, Quantity(n, "cpu", field));  // milli precision.
    double w = static_cast<double>(milli) / 1000.0;
    if (w != 0 && w <= 1e-9) return Err(n, field, "non-zero weight must be > 1e-9");
    return w;
  }
  Result<int32_t> Int32(const YAML::Node& n, std::string_view field) {
    if (!n.IsScalar()) return Err(n, field, "expected an integer");
    int32_t v = 0;
    // Finite, integral and within int32 (model/yaml_checked.h), as Kubernetes reads an int32.
    Status s = model::ReadYamlNumber(n, &v);
    if (!s.ok()) return Err(n, field, s.message());
    return v;
  }
  template <typename E>
  Result<E> Enum(const YAML::Node& n, std::string_view field,
                 std::initializer_list<std::pair<std::string_view, E>> values) {
    std::string s = n.IsScalar() ? n.Scalar() : "";
    for (const auto& [name, v] : values)
      if (s == name) return v;
    std::vector<std::string_view> names;
    for (const auto& [name, v] : values) names.push_back(name);
    return Err(n, field, fmt::format("\"{}\" is not one of {}", s, fmt::join(names, ", ")));
  }
  Result<std::map<std::string, std::string>> StringMap(const YAML::Node& n,
                                                       std::string_view field) {
    std::map<std::string, std::string> out;
    if (!n) return out;
    if (!n.IsMap()) return Err(n, field, "expected a mapping");
    for (const auto& kv : n) {
      if (!kv.second.IsScalar()) return Err(kv.second, field, "expected a string value");
      out[kv.first.as<std::string>()] = kv.second.Scalar();
    }
    return out;
  }
  Result<std::vector<Toleration>> Tolerations(const YAML::Node& n, std::string_view field,
                                              ExtraFields* extra, const std::string& path) {
    std::vector<Toleration> out;
    if (!n) return out;
    if (!n.IsSequence()) return Err(n, field, "expected a list");
    for (size_t i = 0; i < n.size(); ++i) {
      const YAML::Node t = n[i];
      Toleration tol;
      tol.key = Scalar(t, "key");
      tol.value = Scalar(t, "value");
      tol.effect = Scalar(t, "effect");
      std::string op = Scalar(t, "operator");
      tol.op = op.empty() ? "Equal" : op;
      if (tol.op != "Equal" && tol.op != "Exists")
        return Err(t, fmt::format("{}[{}].operator", field, i), "must be Equal or Exists");
      KeepUnknown(t, fmt::format("{}[{}]", path, i), {"key", "value", "effect", "operator"}, extra);
      out.push_back(std::move(tol));
    }
    return out;
  }

  Status Flavor(const YAML::Node& doc) {
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
            return Err(taints[i], f + ".effect",
                       "must be NoSchedule, NoExecute or PreferNoSchedule");
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

  Status ResourceGroups(const YAML::Node& n, std::vector<ResourceGroup>* out, bool allow_bl,
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
          auto it =
              std::find(group.covered_resources.begin(), group.covered_resources.end(), rname);
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

  Result<LabelSelector> Selector(const YAML::Node& n, std::string_view field) {
    LabelSelector s;
    if (!n.IsMap()) return Err(n, field, "expected a label selector mapping");
    STEWARD_ASSIGN_OR_RETURN(s.match_labels,
                             StringMap(n["matchLabels"], std::string(field) + ".matchLabels"));
    if (const YAML::Node ex = n["matchExpressions"]) {
      if (!ex.IsSequence())
        return Err(ex, std::string(field) + ".matchExpressions", "expected a list");
      for (size_t i = 0; i < ex.size(); ++i) {
        LabelRequirement req;
        req.key = Scalar(ex[i], "key");
        req.op = Scalar(ex[i], "operator");
        std::string f = fmt::format("{}.matchExpressions[{}]", field, i);
        if (req.op != "In" && req.op != "NotIn" && req.op != "Exists" && req.op != "DoesNotExist")
          return Err(ex[i], f + ".operator", "must be In, NotIn, Exists or DoesNotExist");
        if (const YAML::Node vals = ex[i]["values"])
          for (const auto& v : vals) req.values.push_back(v.as<std::string>());
        s.match_expressions.push_back(std::move(req));
      }
    }
    return s;
  }

  Status ClusterQueueDoc(const YAML::Node& doc) {
    ClusterQueue cq;
    cq.name = name_;
    cq.source = {file_, doc.Mark().line + 1};
    std::map<std::string, std::string> steward;
    Metadata(doc, &cq.extra, &steward);
    KeepUnknown(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"}, &cq.extra);
    if (steward.count("steward.io/reclaimable"))
      cq.reclaimable = steward["steward.io/reclaimable"] != "false";
    if (steward["steward.io/quota-check-strategy"] == "IgnoreUndeclared")
      cq.ignore_undeclared = true;
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
              *out,
              Enum<FungibilityPolicy>(v, std::string("spec.flavorFungibility.") + key,
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

  Result<StopPolicy> StopPolicyEnum(const YAML::Node& n, std::string_view field) {
    return Enum<StopPolicy>(n, field,
                            {{"None", StopPolicy::kNone},
                             {"Hold", StopPolicy::kHold},
                             {"HoldAndDrain", StopPolicy::kHoldAndDrain}});
  }

  Status CohortDoc(const YAML::Node& doc) {
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
      STEWARD_RETURN_IF_ERROR(ResourceGroups(spec["resourceGroups"], &co.resource_groups,
                                             !co.parent.empty(), &co.extra));
      if (const YAML::Node fs = spec["fairSharing"]) {
        if (const YAML::Node w = fs["weight"]) {
          STEWARD_ASSIGN_OR_RETURN(co.fair_weight, Weight(w, "spec.fairSharing.weight"));
        }
        KeepUnknown(fs, "spec.fairSharing", {"weight"}, &co.extra);
      }
      KeepUnknown(spec, "spec", {"parentName", "parent", "resourceGroups", "fairSharing"},
                  &co.extra);
    }
    policy_->cohorts.push_back(std::move(co));
    return Status::Ok();
  }

  Status LocalQueueDoc(const YAML::Node& doc) {
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

  Result<model::Tier> TierValue(const YAML::Node& n, const std::string& text) {
    model::Tier t;
    if (!model::ParseTier(text, &t))
      return Err(n, "metadata.labels.steward.io/tier",
                 fmt::format("\"{}\" is not a tier (production, training, dev)", text));
    return t;
  }

  Status PriorityClassDoc(const YAML::Node& doc) {
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

  Result<std::map<std::string, Amount>> ResourceList(const YAML::Node& n,
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
  Status VolcanoQueue(const YAML::Node& doc) {
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

  // A Go duration ("5m", "300s", "1h30m", "90s").
  Result<SimDuration> Duration(const YAML::Node& n, std::string_view field) {
    if (!n.IsScalar()) return Err(n, field, "expected a duration such as 5m or 300s");
    const std::string& t = n.Scalar();
    double total = 0;
    size_t i = 0;
    while (i < t.size()) {
      size_t j = i;
      while (j < t.size() && (std::isdigit(static_cast<unsigned char>(t[j])) || t[j] == '.')) ++j;
      size_t k = j;
      while (k < t.size() && std::isalpha(static_cast<unsigned char>(t[k]))) ++k;
      const std::string num = t.substr(i, j - i), unit = t.substr(j, k - j);
      static const std::map<std::string, double> kUnits = {
          {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}};
      auto u = kUnits.find(unit);
      char* end = nullptr;
      const double value = num.empty() ? 0 : std::strtod(num.c_str(), &end);
      if (num.empty() || end != num.c_str() + num.size() || u == kUnits.end())
        return Err(n, field, fmt::format("invalid duration \"{}\" (e.g. 5m, 300s, 1h30m)", t));
      total += value * u->second;
      i = k;
    }
    if (t.empty()) return Err(n, field, "empty duration");
    return SecondsF(total);
  }

  // Kueue's Configuration: fairSharing and waitForPodsReady drive the twin; the rest is kept.
  Status ConfigurationDoc(const YAML::Node& doc, const std::string& api) {
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
          STEWARD_ASSIGN_OR_RETURN(
              int32_t v, Int32(b, "waitForPodsReady.requeuingStrategy.backoffBaseSeconds"));
          w.backoff_base = Seconds(v);
        }
        if (const YAML::Node b = rs["backoffMaxSeconds"]) {
          STEWARD_ASSIGN_OR_RETURN(
              int32_t v, Int32(b, "waitForPodsReady.requeuingStrategy.backoffMaxSeconds"));
          w.backoff_max = Seconds(v);
        }
        if (const YAML::Node b = rs["backoffLimitCount"]) {
          STEWARD_ASSIGN_OR_RETURN(
              int32_t v, Int32(b, "waitForPodsReady.requeuingStrategy.backoffLimitCount"));
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
    KeepUnknown(doc, "", {"apiVersion", "kind", "fairSharing", "waitForPodsReady"}, &c.extra,
                false);
    policy_->configuration = std::move(c);
    return Status::Ok();
  }

  Status PodGroupDoc(const YAML::Node& doc) {
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

  Status NamespaceDoc(const YAML::Node& doc) {
    NamespaceSpec ns;
    ns.name = name_;
    STEWARD_ASSIGN_OR_RETURN(ns.labels, StringMap(doc["metadata"]["labels"], "metadata.labels"));
    policy_->namespaces.push_back(std::move(ns));
    return Status::Ok();
  }

  std::string file_;
  Policy* policy_;
  std::string kind_;
  std::string name_;
};

template <typename T>
Status CheckUnique(const std::vector<T>& v, std::string_view kind, std::string (*key)(const T&)) {
  std::map<std::string, const T*> seen;
  for (const auto& x : v) {
    auto [it, fresh] = seen.emplace(key(x), &x);
    if (!fresh)
      return MakeInputError(x.source.file, x.source.line, 0, fmt::format("{} {}", kind, key(x)),
                            fmt::format("duplicate name (first defined at {}:{})",
                                        it->second->source.file, it->second->source.line));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// `kubectl get clusterqueues,localqueues -o yaml` prints a `kind: List` (an API list is
// `ClusterQueueList`): a mapping whose kind ends in List with an `items` sequence.
bool IsListWrapper(const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["kind"] || !doc["kind"].IsScalar()) return false;
  const std::string& kind = doc["kind"].Scalar();
  return kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && doc["items"];
}

}  // namespace

Status ImportYaml(std::string_view text, std::string_view file, Policy* policy) {
  STEWARD_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, model::LoadYamlDocuments(text, file));
  Parser parser(file, policy);
  size_t objects = 0;
  for (const auto& doc : docs) {
    if (!doc.IsDefined() || doc.IsNull()) continue;
    STEWARD_RETURN_IF_ERROR(model::CheckYamlDuplicateKeys(doc, file));
    try {
      if (IsListWrapper(doc)) {
        const YAML::Node items = doc["items"];
        if (items.IsNull()) continue;
        if (!items.IsSequence()) {
          return MakeInputError(file, items.Mark().line + 1, items.Mark().column + 1, "items",
                                "must be a list of objects");
        }
        for (const YAML::Node& item : items) {
          STEWARD_RETURN_IF_ERROR(parser.Document(item));
          ++objects;
        }
        continue;
      }
      STEWARD_RETURN_IF_ERROR(parser.Document(doc));
      ++objects;
    } catch (const YAML::Exception& e) {
      return MakeInputError(file, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg);
    }
  }
  if (objects == 0) {
    return MakeInputError(file, 0, 0, "",
                          "no objects (expected Kueue or Volcano YAML: ClusterQueue, Queue, ...)");
  }
  return Status::Ok();
}

Status ImportDocument(const YAML::Node& doc, std::string_view file, Policy* policy) {
  Parser parser(file, policy);
  try {
    return parser.Document(doc);
  } catch (const YAML::Exception& e) {
    return MakeInputError(file, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg);
  }
}

Status ValidatePolicy(Policy* p) {
  STEWARD_RETURN_IF_ERROR(CheckUnique<ResourceFlavor>(
      p->flavors, "ResourceFlavor", [](const ResourceFlavor& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(CheckUnique<ClusterQueue>(p->cluster_queues, "ClusterQueue",
                                                    [](const ClusterQueue& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<Cohort>(p->cohorts, "Cohort", [](const Cohort& x) { return x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<LocalQueue>(p->local_queues, "LocalQueue",
                              [](const LocalQueue& x) { return x.namespace_name + "/" + x.name; }));
  STEWARD_RETURN_IF_ERROR(
      CheckUnique<WorkloadPriorityClass>(p->priority_classes, "WorkloadPriorityClass",
                                         [](const WorkloadPriorityClass& x) { return x.name; }));
  for (const auto& cq : p->cluster_queues)
    for (const auto& g : cq.resource_groups)
      for (const auto& fq : g.flavors)
        if (!p->FindFlavor(fq.flavor))
          p->warnings.push_back(fmt::format(
              "{}:{}: ClusterQueue {}: flavor {} has no ResourceFlavor; Kueue keeps the queue "
              "inactive (FlavorNotFound)",
              cq.source.file, cq.source.line, cq.name, fq.flavor));
  for (const auto& lq : p->local_queues)
    if (!p->FindClusterQueue(lq.cluster_queue))
      p->warnings.push_back(fmt::format(
          "{}:{}: LocalQueue {}/{}: ClusterQueue {} does not exist; its workloads stay pending",
          lq.source.file, lq.source.line, lq.namespace_name, lq.name, lq.cluster_queue));
  for (const auto& co : p->cohorts) {
    std::set<std::string> seen = {co.name};
    for (const Cohort* c = p->FindCohort(co.parent); c; c = p->FindCohort(c->parent)) {
      if (!seen.insert(c->name).second || c->name == co.name) {
        p->warnings.push_back(
            fmt::format("{}:{}: Cohort {}: parentName cycle; every ClusterQueue in it is inactive",
                        co.source.file, co.source.line, co.name));
        break;
      }
    }
  }
  return Status::Ok();
}

Result<Policy> ImportPolicyFiles(const std::vector<std::string>& files) {
  Policy policy;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", f));
    std::stringstream ss;
    ss << in.rdbuf();
    STEWARD_RETURN_IF_ERROR(ImportYaml(ss.str(), f, &policy));
  }
  STEWARD_RETURN_IF_ERROR(ValidatePolicy(&policy));
  return policy;
}

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
