// Policy -> Kueue YAML, JSON and text. Extras (fields Steward keeps but does not interpret)
// are written back at their recorded paths so import -> export -> import is lossless.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <set>

#include "govern/governance_engine.h"
#include "govern/policy_io.h"

namespace steward::govern {
namespace {

using Json = nlohmann::ordered_json;

// Sets `value` at a dotted path with optional [i] list indices ("spec.resourceGroups[0].x").
void SetPath(YAML::Node root, const std::string& path, const YAML::Node& value) {
  YAML::Node cur = root;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    std::string seg = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    bool last = dot == std::string::npos;
    std::vector<int> idx;
    size_t br = seg.find('[');
    std::string key = seg.substr(0, br);
    while (br != std::string::npos) {
      size_t close = seg.find(']', br);
      idx.push_back(std::stoi(seg.substr(br + 1, close - br - 1)));
      br = seg.find('[', close);
    }
    // yaml-cpp: operator= on a Node overwrites the referenced node; reset() rebinds.
    YAML::Node next;
    next.reset(key.empty() ? cur : cur[key]);
    for (int i : idx) {
      YAML::Node child = next[i];
      next.reset(child);
    }
    if (last) {
      if (!idx.empty() || !key.empty()) {
        if (idx.empty())
          cur[key] = value;
        else {
          YAML::Node n;
          n.reset(key.empty() ? cur : cur[key]);
          for (size_t k = 0; k + 1 < idx.size(); ++k) {
            YAML::Node child = n[idx[k]];
            n.reset(child);
          }
          n[idx.back()] = value;
        }
      }
      return;
    }
    cur.reset(next);
    pos = dot + 1;
  }
}

void ApplyExtras(YAML::Node doc, const ExtraFields& extra) {
  for (const auto& [path, text] : extra) {
    try {
      YAML::Node v = YAML::Load(text);
      if (path == "metadata.labels" || path == "metadata.annotations") {
        for (const auto& kv : v)
          doc["metadata"][path.substr(9)][kv.first.as<std::string>()] = kv.second;
      } else {
        SetPath(doc, path, v);
      }
    } catch (const YAML::Exception&) {
      // Extras were produced by our own emitter; a failure here is a bug, not input.
    }
  }
}

YAML::Node Header(const char* kind, const std::string& name,
                  const char* api = "kueue.x-k8s.io/v1beta1") {
  YAML::Node doc;
  doc["apiVersion"] = api;
  doc["kind"] = kind;
  doc["metadata"]["name"] = name;
  return doc;
}

YAML::Node Groups(const std::vector<ResourceGroup>& groups) {
  YAML::Node out(YAML::NodeType::Sequence);
  for (const auto& g : groups) {
    YAML::Node gn;
    for (const auto& r : g.covered_resources) gn["coveredResources"].push_back(r);
    for (const auto& fq : g.flavors) {
      YAML::Node fn;
      fn["name"] = fq.flavor;
      for (const auto& q : fq.resources) {
        YAML::Node rn;
        rn["name"] = q.resource;
        rn["nominalQuota"] = FormatQuantity(q.nominal, q.resource);
        if (q.borrowing_limit)
          rn["borrowingLimit"] = FormatQuantity(*q.borrowing_limit, q.resource);
        if (q.lending_limit) rn["lendingLimit"] = FormatQuantity(*q.lending_limit, q.resource);
        fn["resources"].push_back(rn);
      }
      gn["flavors"].push_back(fn);
    }
    out.push_back(gn);
  }
  return out;
}

YAML::Node Tols(const std::vector<Toleration>& tols) {
  YAML::Node out(YAML::NodeType::Sequence);
  for (const auto& t : tols) {
    YAML::Node n;
    if (!t.key.empty()) n["key"] = t.key;
    n["operator"] = t.op;
    if (!t.value.empty()) n["value"] = t.value;
    if (!t.effect.empty()) n["effect"] = t.effect;
    out.push_back(n);
  }
  return out;
}

YAML::Node SelectorNode(const LabelSelector& s) {
  YAML::Node n(YAML::NodeType::Map);
  for (const auto& [k, v] : s.match_labels) n["matchLabels"][k] = v;
  for (const auto& r : s.match_expressions) {
    YAML::Node e;
    e["key"] = r.key;
    e["operator"] = r.op;
    for (const auto& v : r.values) e["values"].push_back(v);
    n["matchExpressions"].push_back(e);
  }
  return n;
}

// Emits a document like `e << doc`, except that label and annotation values are always quoted:
// Kubernetes wants strings there, and "false" or "3" unquoted would read as a bool or a number.
void EmitDocument(YAML::Emitter& e, const YAML::Node& doc) {
  e << YAML::BeginMap;
  for (const auto& kv : doc) {
    e << YAML::Key << kv.first << YAML::Value;
    if (kv.first.Scalar() != "metadata" || !kv.second.IsMap()) {
      e << kv.second;
      continue;
    }
    e << YAML::BeginMap;
    for (const auto& m : kv.second) {
      e << YAML::Key << m.first << YAML::Value;
      const std::string key = m.first.Scalar();
      if ((key != "labels" && key != "annotations") || !m.second.IsMap()) {
        e << m.second;
        continue;
      }
      e << YAML::BeginMap;
      for (const auto& a : m.second) {
        e << YAML::Key << a.first << YAML::Value;
        if (a.second.IsScalar())
          e << YAML::DoubleQuoted << a.second.Scalar();
        else
          e << a.second;
      }
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
}

std::string Emit(const std::vector<YAML::Node>& docs, const std::vector<std::string>& raw) {
  std::string out;
  for (const auto& d : docs) {
    YAML::Emitter e;
    EmitDocument(e, d);
    out += "---\n";
    out += e.c_str();
    out += "\n";
  }
  for (const auto& r : raw) {
    out += "---\n" + r + "\n";
  }
  return out;
}

Json QuantityJson(std::optional<Amount> a, const std::string& resource) {
  if (!a) return nullptr;
  if (IsMilliResource(resource)) return CanonicalValue(*a, resource);
  return *a;
}

Json GroupsJson(const std::vector<ResourceGroup>& groups) {
  Json out = Json::array();
  for (const auto& g : groups) {
    Json gj;
    gj["covered_resources"] = g.covered_resources;
    gj["flavors"] = Json::array();
    for (const auto& fq : g.flavors) gj["flavors"].push_back(fq.flavor);
    out.push_back(gj);
  }
  return out;
}

// max_usable of Volcano queues needs the cluster's size, which a policy file does not have: the
// Volcano cohort's idle pool is taken as unbounded, so a queue's max_usable is its capability
// (null without one). The twin pools the real cluster (SetVolcanoClusterCapacity), which gives
// min(capability, what the cluster leaves) — the same number whenever the cluster is larger.
Policy WithUnboundedVolcanoPool(const Policy& p) {
  const Cohort* pool = p.FindCohort(kVolcanoCohort);
  if (pool && !pool->resource_groups.empty()) return p;  // Capacity already set.
  std::set<std::string> resources;
  for (const auto& cq : p.cluster_queues)
    if (cq.cohort == kVolcanoCohort)
      for (const auto& g : cq.resource_groups)
        for (const auto& r : g.covered_resources) resources.insert(r);
  if (resources.empty()) return p;
  Policy out = p;
  std::vector<ResourceQuota> capacity;
  for (const auto& r : resources) capacity.push_back({r, kUnlimited, std::nullopt, std::nullopt});
  SetVolcanoClusterCapacity(&out, capacity);
  return out;
}

Json MaxUsableJson(const GovernanceEngine& e, const std::string& cq, const std::string& flavor,
                   const std::string& resource) {
  const Amount a = e.MaxUsable(cq, flavor, resource);
  return a == kUnlimited ? Json(nullptr) : QuantityJson(a, resource);
}

std::optional<Amount> MaxUsableOrNull(const GovernanceEngine& e, const std::string& cq,
                                      const std::string& flavor, const std::string& resource) {
  const Amount a = e.MaxUsable(cq, flavor, resource);
  return a == kUnlimited ? std::nullopt : std::optional<Amount>(a);
}

Json ExtraJson(const ExtraFields& extra) {
  Json j = Json::object();
  for (const auto& [k, v] : extra) j[k] = v;
  return j;
}

}  // namespace

std::string ExportKueueYaml(const Policy& p) {
  std::vector<YAML::Node> docs;
  for (const auto& rf : p.flavors) {
    YAML::Node d = Header("ResourceFlavor", rf.name);
    YAML::Node spec(YAML::NodeType::Map);
    for (const auto& [k, v] : rf.node_labels) spec["nodeLabels"][k] = v;
    for (const auto& t : rf.node_taints) {
      YAML::Node tn;
      tn["key"] = t.key;
      if (!t.value.empty()) tn["value"] = t.value;
      tn["effect"] = t.effect;
      spec["nodeTaints"].push_back(tn);
    }
    if (!rf.tolerations.empty()) spec["tolerations"] = Tols(rf.tolerations);
    if (!rf.topology_name.empty()) spec["topologyName"] = rf.topology_name;
    if (spec.size() > 0) d["spec"] = spec;
    ApplyExtras(d, rf.extra);
    docs.push_back(d);
  }
  for (const auto& co : p.cohorts) {
    YAML::Node d = Header("Cohort", co.name);
    YAML::Node spec(YAML::NodeType::Map);
    if (!co.parent.empty()) spec["parentName"] = co.parent;
    if (!co.resource_groups.empty()) spec["resourceGroups"] = Groups(co.resource_groups);
    if (co.fair_weight != 1.0)
      spec["fairSharing"]["weight"] = FormatQuantity(std::llround(co.fair_weight * 1000), "cpu");
    d["spec"] = spec;
    ApplyExtras(d, co.extra);
    docs.push_back(d);
  }
  for (const auto& cq : p.cluster_queues) {
    YAML::Node d = Header("ClusterQueue", cq.name);
    if (cq.origin != "kueue") d["metadata"]["annotations"]["steward.io/origin"] = cq.origin;
    if (!cq.reclaimable) d["metadata"]["annotations"]["steward.io/reclaimable"] = "false";
    if (cq.ignore_undeclared)
      d["metadata"]["annotations"]["steward.io/quota-check-strategy"] = "IgnoreUndeclared";
    YAML::Node spec;
    if (!cq.cohort.empty()) spec["cohort"] = cq.cohort;
    spec["queueingStrategy"] = std::string(QueueingStrategyName(cq.queueing_strategy));
    if (cq.namespace_selector) spec["namespaceSelector"] = SelectorNode(*cq.namespace_selector);
    spec["resourceGroups"] = Groups(cq.resource_groups);
    spec["flavorFungibility"]["whenCanBorrow"] =
        std::string(FungibilityPolicyName(cq.when_can_borrow));
    spec["flavorFungibility"]["whenCanPreempt"] =
        std::string(FungibilityPolicyName(cq.when_can_preempt));
    spec["preemption"]["withinClusterQueue"] =
        std::string(PreemptionPolicyName(cq.preemption.within_cluster_queue));
    spec["preemption"]["reclaimWithinCohort"] =
        std::string(PreemptionPolicyName(cq.preemption.reclaim_within_cohort));
    spec["preemption"]["borrowWithinCohort"]["policy"] =
        std::string(PreemptionPolicyName(cq.preemption.borrow_within_cohort));
    if (cq.preemption.max_priority_threshold)
      spec["preemption"]["borrowWithinCohort"]["maxPriorityThreshold"] =
          *cq.preemption.max_priority_threshold;
    if (cq.fair_weight != 1.0)
      spec["fairSharing"]["weight"] = FormatQuantity(std::llround(cq.fair_weight * 1000), "cpu");
    if (cq.stop_policy != StopPolicy::kNone)
      spec["stopPolicy"] = std::string(StopPolicyName(cq.stop_policy));
    d["spec"] = spec;
    // A Volcano Queue's spec fields Steward does not map (dequeueStrategy, priority, ...) are no
    // ClusterQueue fields: they travel as annotations steward.io/volcano.<field>, which import
    // turns back into the same extras.
    ExtraFields extra = cq.extra;
    if (cq.origin == "volcano")
      for (auto it = extra.begin(); it != extra.end();) {
        if (!it->first.starts_with("spec.")) {
          ++it;
          continue;
        }
        d["metadata"]["annotations"][std::string(kVolcanoSpecAnnotation) + it->first.substr(5)] =
            it->second;
        it = extra.erase(it);
      }
    ApplyExtras(d, extra);
    docs.push_back(d);
  }
  for (const auto& lq : p.local_queues) {
    YAML::Node d = Header("LocalQueue", lq.name);
    d["metadata"]["namespace"] = lq.namespace_name;
    d["spec"]["clusterQueue"] = lq.cluster_queue;
    if (lq.stop_policy != StopPolicy::kNone)
      d["spec"]["stopPolicy"] = std::string(StopPolicyName(lq.stop_policy));
    ApplyExtras(d, lq.extra);
    docs.push_back(d);
  }
  for (const auto& pc : p.priority_classes) {
    YAML::Node d = Header("WorkloadPriorityClass", pc.name);
    if (pc.tier)
      d["metadata"]["labels"]["steward.io/tier"] = std::string(model::TierName(*pc.tier));
    d["value"] = pc.value;
    if (!pc.description.empty()) d["description"] = pc.description;
    ApplyExtras(d, pc.extra);
    docs.push_back(d);
  }
  if (p.configuration) {
    const KueueConfiguration& c = *p.configuration;
    const WaitForPodsReadyConfig& w = c.wait_for_pods_ready;
    const bool v1beta1 = c.api_version == "config.kueue.x-k8s.io/v1beta1";
    YAML::Node d;
    d["apiVersion"] = c.api_version;
    d["kind"] = "Configuration";
    // v1beta1 says `enable`; v1beta2 enables a feature by the block's presence.
    if (v1beta1)
      d["fairSharing"]["enable"] = c.fair_sharing;
    else if (c.fair_sharing)
      d["fairSharing"] = YAML::Node(YAML::NodeType::Map);
    {
      // v1beta2 has no `enable` (the block is defaulted on); Steward's importer still reads
      // `enable: false` so a disabled v1beta2 config survives the round trip.
      YAML::Node wn;
      if (v1beta1 || !w.enable) wn["enable"] = w.enable;
      wn["timeout"] = fmt::format("{}s", w.timeout.ToSeconds());
      wn["blockAdmission"] = w.block_admission;
      wn["requeuingStrategy"]["timestamp"] = w.requeuing_timestamp;
      wn["requeuingStrategy"]["backoffBaseSeconds"] = static_cast<int>(w.backoff_base.ToSeconds());
      wn["requeuingStrategy"]["backoffMaxSeconds"] = static_cast<int>(w.backoff_max.ToSeconds());
      if (w.backoff_limit_count)
        wn["requeuingStrategy"]["backoffLimitCount"] = *w.backoff_limit_count;
      d["waitForPodsReady"] = wn;
    }
    ApplyExtras(d, c.extra);
    docs.push_back(d);
  }
  for (const auto& ns : p.namespaces) {
    YAML::Node d = Header("Namespace", ns.name, "v1");
    for (const auto& [k, v] : ns.labels) d["metadata"]["labels"][k] = v;
    docs.push_back(d);
  }
  for (const auto& pg : p.pod_groups) {
    YAML::Node d = Header("PodGroup", pg.name, "scheduling.volcano.sh/v1beta1");
    d["metadata"]["namespace"] = pg.namespace_name;
    d["spec"]["minMember"] = pg.min_member;
    for (const auto& [r, a] : pg.min_resources) d["spec"]["minResources"][r] = FormatQuantity(a, r);
    for (const auto& [t, n] : pg.min_task_member) d["spec"]["minTaskMember"][t] = n;
    d["spec"]["queue"] = pg.queue;
    if (!pg.priority_class.empty()) d["spec"]["priorityClassName"] = pg.priority_class;
    ApplyExtras(d, pg.extra);
    docs.push_back(d);
  }
  return Emit(docs, p.passthrough_documents);
}

Result<std::string> PolicyToJson(const Policy& p, int indent, bool include_warnings) {
  EngineOptions opts;
  STEWARD_ASSIGN_OR_RETURN(auto engine,
                           GovernanceEngine::Create(WithUnboundedVolcanoPool(p), opts));
  Json j;
  j["resource_flavors"] = Json::array();
  for (const auto& rf : p.flavors) {
    Json f;
    f["name"] = rf.name;
    f["node_labels"] = rf.node_labels;
    f["node_taints"] = Json::array();
    for (const auto& t : rf.node_taints)
      f["node_taints"].push_back({{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
    f["tolerations"] = Json::array();
    for (const auto& t : rf.tolerations)
      f["tolerations"].push_back(
          {{"key", t.key}, {"operator", t.op}, {"value", t.value}, {"effect", t.effect}});
    f["topology_name"] = rf.topology_name.empty() ? Json(nullptr) : Json(rf.topology_name);
    f["extra"] = ExtraJson(rf.extra);
    j["resource_flavors"].push_back(f);
  }
  j["cohorts"] = Json::array();
  for (const auto& co : p.cohorts) {
    Json c;
    c["name"] = co.name;
    c["parent"] = co.parent.empty() ? Json(nullptr) : Json(co.parent);
    c["fair_weight"] = co.fair_weight;
    c["quotas"] = Json::array();
    for (const auto& g : co.resource_groups)
      for (const auto& fq : g.flavors)
        for (const auto& q : fq.resources)
          c["quotas"].push_back({{"flavor", fq.flavor},
                                 {"resource", q.resource},
                                 {"nominal", QuantityJson(q.nominal, q.resource)},
                                 {"borrowing_limit", QuantityJson(q.borrowing_limit, q.resource)},
                                 {"lending_limit", QuantityJson(q.lending_limit, q.resource)}});
    c["extra"] = ExtraJson(co.extra);
    j["cohorts"].push_back(c);
  }
  j["cluster_queues"] = Json::array();
  for (const auto& cq : p.cluster_queues) {
    Json c;
    c["name"] = cq.name;
    c["cohort"] = cq.cohort.empty() ? Json(nullptr) : Json(cq.cohort);
    c["origin"] = cq.origin;
    c["quotas"] = Json::array();
    for (const auto& g : cq.resource_groups)
      for (const auto& fq : g.flavors)
        for (const auto& q : fq.resources)
          c["quotas"].push_back(
              {{"flavor", fq.flavor},
               {"resource", q.resource},
               {"nominal", QuantityJson(q.nominal, q.resource)},
               {"borrowing_limit", QuantityJson(q.borrowing_limit, q.resource)},
               {"lending_limit", QuantityJson(q.lending_limit, q.resource)},
               {"max_usable", MaxUsableJson(*engine, cq.name, fq.flavor, q.resource)}});
    c["resource_groups"] = GroupsJson(cq.resource_groups);
    c["queueing_strategy"] = QueueingStrategyName(cq.queueing_strategy);
    if (cq.namespace_selector) {
      Json s;
      s["match_labels"] = cq.namespace_selector->match_labels;
      s["match_expressions"] = Json::array();
      for (const auto& r : cq.namespace_selector->match_expressions)
        s["match_expressions"].push_back(
            {{"key", r.key}, {"operator", r.op}, {"values", r.values}});
      c["namespace_selector"] = s;
    } else {
      c["namespace_selector"] = nullptr;
    }
    c["preemption"] = {
        {"within_cluster_queue", PreemptionPolicyName(cq.preemption.within_cluster_queue)},
        {"reclaim_within_cohort", PreemptionPolicyName(cq.preemption.reclaim_within_cohort)},
        {"borrow_within_cohort", PreemptionPolicyName(cq.preemption.borrow_within_cohort)},
        {"max_priority_threshold", cq.preemption.max_priority_threshold
                                       ? Json(*cq.preemption.max_priority_threshold)
                                       : Json(nullptr)}};
    c["flavor_fungibility"] = {{"when_can_borrow", FungibilityPolicyName(cq.when_can_borrow)},
                               {"when_can_preempt", FungibilityPolicyName(cq.when_can_preempt)}};
    c["fair_weight"] = cq.fair_weight;
    c["stop_policy"] = StopPolicyName(cq.stop_policy);
    c["reclaimable"] = cq.reclaimable;
    c["ignore_undeclared"] = cq.ignore_undeclared;
    c["extra"] = ExtraJson(cq.extra);
    j["cluster_queues"].push_back(c);
  }
  j["local_queues"] = Json::array();
  for (const auto& lq : p.local_queues)
    j["local_queues"].push_back({{"namespace", lq.namespace_name},
                                 {"name", lq.name},
                                 {"cluster_queue", lq.cluster_queue},
                                 {"stop_policy", StopPolicyName(lq.stop_policy)},
                                 {"extra", ExtraJson(lq.extra)}});
  j["priority_classes"] = Json::array();
  for (const auto& pc : p.priority_classes) {
    model::Tier tier = pc.tier ? *pc.tier : TierForPriority(pc.value);
    j["priority_classes"].push_back({{"name", pc.name},
                                     {"value", pc.value},
                                     {"tier", model::TierName(tier)},
                                     {"tier_source", pc.tier ? "label" : "value"},
                                     {"description", pc.description},
                                     {"extra", ExtraJson(pc.extra)}});
  }
  j["pod_groups"] = Json::array();
  for (const auto& pg : p.pod_groups) {
    Json g;
    g["namespace"] = pg.namespace_name;
    g["name"] = pg.name;
    g["queue"] = pg.queue;
    g["min_member"] = pg.min_member;
    g["min_resources"] = Json::object();
    for (const auto& [r, a] : pg.min_resources) g["min_resources"][r] = QuantityJson(a, r);
    g["min_task_member"] = pg.min_task_member;
    g["priority_class"] = pg.priority_class;
    g["extra"] = ExtraJson(pg.extra);
    j["pod_groups"].push_back(g);
  }
  j["namespaces"] = Json::array();
  for (const auto& ns : p.namespaces)
    j["namespaces"].push_back({{"name", ns.name}, {"labels", ns.labels}});
  j["passthrough_documents"] = p.passthrough_documents.size();
  if (p.configuration) {
    const KueueConfiguration& c = *p.configuration;
    const WaitForPodsReadyConfig& w = c.wait_for_pods_ready;
    j["configuration"] = {
        {"api_version", c.api_version},
        {"fair_sharing", c.fair_sharing},
        {"wait_for_pods_ready",
         {{"enable", w.enable},
          {"timeout_seconds", w.timeout.ToSeconds()},
          {"block_admission", w.block_admission},
          {"requeuing_timestamp", w.requeuing_timestamp},
          {"backoff_base_seconds", w.backoff_base.ToSeconds()},
          {"backoff_max_seconds", w.backoff_max.ToSeconds()},
          {"backoff_limit_count",
           w.backoff_limit_count ? Json(*w.backoff_limit_count) : Json(nullptr)}}},
        {"extra", ExtraJson(c.extra)}};
  } else {
    j["configuration"] = nullptr;
  }
  if (include_warnings) j["warnings"] = p.warnings;
  return j.dump(indent);
}

Result<std::string> PolicyToText(const Policy& p) {
  STEWARD_ASSIGN_OR_RETURN(auto engine, GovernanceEngine::Create(WithUnboundedVolcanoPool(p), {}));
  std::string out;
  out += fmt::format(
      "{} ResourceFlavor(s), {} Cohort(s), {} ClusterQueue(s), {} LocalQueue(s), "
      "{} WorkloadPriorityClass(es), {} PodGroup(s)\n",
      p.flavors.size(), p.cohorts.size(), p.cluster_queues.size(), p.local_queues.size(),
      p.priority_classes.size(), p.pod_groups.size());
  out += fmt::format("{:<20} {:<14} {:<16} {:<16} {:>10} {:>10} {:>10} {:>10}\n", "CLUSTERQUEUE",
                     "COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "BORROW", "LEND", "MAX");
  auto q = [](std::optional<Amount> a, const std::string& r) {
    return a ? FormatQuantity(*a, r) : std::string("-");
  };
  for (const auto& cq : p.cluster_queues)
    for (const auto& g : cq.resource_groups)
      for (const auto& fq : g.flavors)
        for (const auto& rq : fq.resources)
          out += fmt::format(
              "{:<20} {:<14} {:<16} {:<16} {:>10} {:>10} {:>10} {:>10}\n", cq.name,
              cq.cohort.empty() ? "-" : cq.cohort, fq.flavor, rq.resource,
              q(rq.nominal, rq.resource), q(rq.borrowing_limit, rq.resource),
              q(rq.lending_limit, rq.resource),
              q(MaxUsableOrNull(*engine, cq.name, fq.flavor, rq.resource), rq.resource));
  for (const auto& lq : p.local_queues)
    out += fmt::format("LocalQueue {}/{} -> {}\n", lq.namespace_name, lq.name, lq.cluster_queue);
  for (const auto& pc : p.priority_classes)
    out += fmt::format("WorkloadPriorityClass {} = {} (tier {})\n", pc.name, pc.value,
                       model::TierName(pc.tier ? *pc.tier : TierForPriority(pc.value)));
  return out;
}

}  // namespace steward::govern
