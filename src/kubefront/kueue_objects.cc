#include "kubefront/kueue_objects.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "govern/policy.h"
#include "govern/policy_io.h"
#include "kube/json_decoder.h"
#include "kube/meta.h"
#include "kube/yaml_json.h"
#include "kubefront/twin_objects.h"

namespace steward::kubefront {
namespace {

using nlohmann::json;

json Quantity(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return std::to_string(static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

json Meta(const std::string& kind, const std::string& ns, const std::string& name,
          int64_t created) {
  json m = {{"name", name},
            {"uid", kube::UidFor(kind + "/" + ns + "/" + name)},
            {"creationTimestamp", kube::FormatTime(created)},
            {"generation", 1}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

const twin::ClusterQueueReport* FindQueue(const twin::SchedulerReport& s, const std::string& n) {
  for (const twin::ClusterQueueReport& q : s.cluster_queues)
    if (q.name == n) return &q;
  return nullptr;
}

json CqStatus(const twin::ClusterQueueReport* q, int pending, int admitted) {
  json usage = json::array();
  if (q) {
    std::map<std::string, json> by_flavor;
    for (const twin::QuotaUsage& u : q->quotas) {
      json& f = by_flavor[u.flavor];
      if (f.is_null()) f = {{"name", u.flavor}, {"resources", json::array()}};
      f["resources"].push_back(
          {{"name", u.resource}, {"total", Quantity(u.usage)}, {"borrowed", Quantity(u.borrowed)}});
    }
    for (auto& [name, f] : by_flavor) usage.push_back(std::move(f));
  }
  json status = {{"pendingWorkloads", pending},
                 {"reservingWorkloads", admitted},
                 {"admittedWorkloads", admitted},
                 {"flavorsReservation", usage},
                 {"flavorsUsage", usage},
                 {"conditions",
                  {{{"type", "Active"},
                    {"status", "True"},
                    {"reason", "Ready"},
                    {"message", "Can admit new workloads"}}}}};
  if (q && q->weighted_share > 0)
    status["fairSharing"] = {{"weightedShare", static_cast<int64_t>(std::ceil(q->weighted_share))}};
  return status;
}

// The live quota numbers of the scheduler over the policy's spec (a quota patched through the
// API or the dashboard shows up here).
void ApplyLiveQuotas(json& spec, const twin::ClusterQueueReport& q) {
  if (!spec.contains("resourceGroups")) return;
  for (json& group : spec["resourceGroups"]) {
    if (!group.contains("flavors")) continue;
    for (json& flavor : group["flavors"]) {
      for (json& resource : flavor["resources"]) {
        for (const twin::QuotaUsage& u : q.quotas) {
          if (u.flavor != flavor.value("name", "") || u.resource != resource.value("name", ""))
            continue;
          resource["nominalQuota"] = Quantity(u.nominal);
          if (u.borrowing_limit) resource["borrowingLimit"] = Quantity(*u.borrowing_limit);
          if (u.lending_limit) resource["lendingLimit"] = Quantity(*u.lending_limit);
        }
      }
    }
  }
}

}  // namespace

std::string WorkloadName(const model::Workload& w) {
  const OwnerRef owner = PodOwner(w);
  std::string kind = owner.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return fmt::format("{}-{}-{}", kind, w.name,
                     kube::UidFor(w.namespace_name + "/" + w.name).substr(0, 5));
}

std::string LocalQueueOf(const twin::Twin& twin, const model::Workload& w) {
  if (!w.queue.empty()) return w.queue;
  if (!twin.governance_policy()) return twin.scenario().teams[w.team].name;
  return {};
}

KueueObjects BuildKueueObjects(const twin::Twin& twin, const twin::SchedulerReport& scheduler,
                               const QueueCounts& counts, int64_t created) {
  KueueObjects k;
  auto object = [&](const char* kind, const std::string& ns, const std::string& name) {
    return json{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
                {"kind", kind},
                {"metadata", Meta(kind, ns, name, created)}};
  };
  auto counts_of = [&](const std::string& ns, const std::string& lq) {
    auto it = counts.by_local_queue.find(ns + "/" + lq);
    return it == counts.by_local_queue.end() ? std::make_pair(0, 0) : it->second;
  };
  const govern::Policy* policy = twin.governance_policy();
  if (!policy) {
    // fifo-quota: a StrictFIFO queue per team, one flavor, no cohort.
    json flavor = object("ResourceFlavor", "", kFifoFlavor);
    flavor["spec"] = json::object();
    k.resource_flavors.push_back(std::move(flavor));
    const std::vector<twin::TeamSpec>& teams = twin.scenario().teams;
    for (size_t t = 0; t < teams.size(); ++t) {
      const twin::TeamSpec& team = teams[t];
      const auto [pending, admitted] = counts_of(team.namespace_name, team.name);
      json cq = object("ClusterQueue", "", team.name);
      cq["spec"] = {{"namespaceSelector",
                     {{"matchLabels", {{"kubernetes.io/metadata.name", team.namespace_name}}}}},
                    {"queueingStrategy", "StrictFIFO"},
                    {"resourceGroups",
                     {{{"coveredResources", {"nvidia.com/gpu"}},
                       {"flavors",
                        {{{"name", kFifoFlavor},
                          {"resources",
                           {{{"name", "nvidia.com/gpu"},
                             {"nominalQuota", std::to_string(team.quota_gpus)}}}}}}}}}}};
      twin::ClusterQueueReport q;
      q.name = team.name;
      twin::QuotaUsage u;
      u.flavor = kFifoFlavor;
      u.resource = "nvidia.com/gpu";
      u.nominal = team.quota_gpus;
      u.usage = twin.team_used_gpus(static_cast<int>(t));
      u.borrowed = std::max(0.0, u.usage - u.nominal);
      q.quotas.push_back(u);
      cq["status"] = CqStatus(&q, pending, admitted);
      k.cluster_queues.push_back(std::move(cq));
      json lq = object("LocalQueue", team.namespace_name, team.name);
      lq["spec"] = {{"clusterQueue", team.name}};
      lq["status"] = {{"pendingWorkloads", pending},
                      {"reservingWorkloads", admitted},
                      {"admittedWorkloads", admitted}};
      k.local_queues.push_back(std::move(lq));
    }
    return k;
  }
  // The policy's own objects, as its Kueue export writes them (one piece of code for the
  // Kueue shape), with live quotas and status added.
  YAML::Node docs;
  std::vector<YAML::Node> all;
  try {
    all = YAML::LoadAll(govern::ExportKueueYaml(*policy));
  } catch (const YAML::Exception&) {
    return k;
  }
  for (const YAML::Node& doc : all) {
    Result<json> j = kube::YamlToJson(doc, "policy export");
    if (!j.ok() || !j->is_object()) continue;
    json o = std::move(j).value();
    const std::string kind = o.value("kind", "");
    const std::string api = o.value("apiVersion", "");
    if (kind == "Configuration" && api.rfind("config.kueue.x-k8s.io/", 0) == 0) {
      json cm = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", Meta("ConfigMap", govern::kKueueConfigMapNamespace,
                                   govern::kKueueConfigMapName, created)},
                 {"data", {{govern::kKueueConfigMapKey, YAML::Dump(doc) + "\n"}}}};
      k.config_maps.push_back(std::move(cm));
      continue;
    }
    if (api.rfind("kueue.x-k8s.io/", 0) != 0) continue;
    const std::string name = o["metadata"].value("name", "");
    const std::string ns = o["metadata"].value("namespace", "");
    json meta = Meta(kind, ns, name, created);
    for (const char* keep : {"labels", "annotations"})
      if (o["metadata"].contains(keep)) meta[keep] = o["metadata"][keep];
    o["metadata"] = meta;
    o["apiVersion"] = "kueue.x-k8s.io/v1beta1";
    if (kind == "ResourceFlavor") {
      k.resource_flavors.push_back(std::move(o));
    } else if (kind == "Cohort") {
      k.cohorts.push_back(std::move(o));
    } else if (kind == "ClusterQueue") {
      const twin::ClusterQueueReport* q = FindQueue(scheduler, name);
      if (q) ApplyLiveQuotas(o["spec"], *q);
      int admitted = q ? q->reserving_workloads : 0;
      int pending = q ? q->pending_active + q->pending_inadmissible : 0;
      o["status"] = CqStatus(q, pending, admitted);
      const bool volcano =
          policy->FindClusterQueue(name) && policy->FindClusterQueue(name)->origin == "volcano";
      if (volcano) {
        json vq = {
            {"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", Meta("Queue", "", name, created)},
            {"spec", {{"weight", 1}, {"reclaimable", policy->FindClusterQueue(name)->reclaimable}}},
            {"status", {{"state", "Open"}, {"running", admitted}, {"pending", pending}}}};
        if (q) {
          json deserved = json::object(), capability = json::object();
          for (const twin::QuotaUsage& u : q->quotas) {
            deserved[u.resource] = Quantity(u.nominal);
            if (u.borrowing_limit)
              capability[u.resource] = Quantity(u.nominal + *u.borrowing_limit);
          }
          vq["spec"]["deserved"] = deserved;
          if (!capability.empty()) vq["spec"]["capability"] = capability;
        }
        k.volcano_queues.push_back(std::move(vq));
      }
      k.cluster_queues.push_back(std::move(o));
    } else if (kind == "LocalQueue") {
      const auto [pending, admitted] = counts_of(ns, name);
      o["status"] = {{"pendingWorkloads", pending},
                     {"reservingWorkloads", admitted},
                     {"admittedWorkloads", admitted}};
      k.local_queues.push_back(std::move(o));
    } else if (kind == "WorkloadPriorityClass") {
      k.priority_classes.push_back(std::move(o));
    }
  }
  return k;
}

namespace {

// A pending workload's QuotaReserved message: Steward's reason in words, its numbers, and the
// machine-readable reason the report counts by.
std::string PendingMessage(const twin::WorkloadRun& run) {
  std::string_view words = run.reason;
  if (run.reason == "waiting_in_queue")
    words = "waiting behind an earlier workload of its queue (StrictFIFO tries the head only)";
  else if (run.reason == "quota_exhausted")
    words = "insufficient unused quota";
  else if (run.reason == "no_fit_fragmentation")
    words = "enough GPUs are free in total but no node set fits it (fragmentation)";
  else if (run.reason == "insufficient_capacity")
    words = "not enough schedulable free GPUs";
  else if (run.reason == "unhealthy_capacity")
    words = "it would fit if the cordoned, broken or unadvertised GPUs were back";
  return fmt::format("{}{}{} (Steward pending reason: {})", words,
                     run.reason_detail.empty() ? "" : ": ", run.reason_detail, run.reason);
}

}  // namespace

nlohmann::json WorkloadObject(const twin::Twin& twin, const twin::WorkloadRun& run,
                              const WorkloadTimes& times) {
  const model::Workload& w = run.spec;
  const std::string name = WorkloadName(w);
  json meta = Meta("Workload", w.namespace_name, name, times.created);
  const OwnerRef owner = PodOwner(w);
  // A service's Workload belongs to its Deployment (the ReplicaSet is an implementation
  // detail), the rest to the pods' owner.
  const std::string owner_kind =
      w.kind == model::WorkloadKind::kInference ? "Deployment" : owner.kind;
  const std::string owner_name = w.kind == model::WorkloadKind::kInference ? w.name : owner.name;
  meta["ownerReferences"] = {
      {{"apiVersion", owner.api_version},
       {"kind", owner_kind},
       {"name", owner_name},
       {"uid", kube::UidFor(owner_kind + "/" + w.namespace_name + "/" + owner_name)},
       {"controller", true},
       {"blockOwnerDeletion", true}}};
  meta["labels"] = {{"kueue.x-k8s.io/job-uid",
                     kube::UidFor(owner_kind + "/" + w.namespace_name + "/" + owner_name)}};
  json pod_sets = json::array();
  for (size_t i = 0; i < w.pod_sets.size(); ++i) {
    const model::PodSet& ps = w.pod_sets[i];
    json requests = json::object();
    if (!ps.mig_profile.empty())
      requests["nvidia.com/mig-" + ps.mig_profile] = "1";
    else
      requests["nvidia.com/gpu"] = std::to_string(ps.gpus_per_pod);
    // CPU and memory only where the generator gives them: those count against quota in the
    // twin's admission, so a simulation of these objects decides as the twin did (the pods'
    // host-share requests, shown where the scenario says nothing, are not quota).
    if (ps.cpu_milli > 0) requests["cpu"] = fmt::format("{}m", ps.cpu_milli);
    if (ps.memory_mib > 0) requests["memory"] = fmt::format("{}Mi", ps.memory_mib);
    for (const auto& [name, amount] : ps.extended_resources)
      requests[name] = std::to_string(amount);
    // Partially admitted: the spec keeps the count asked for, the admission says how many.
    const int asked = i < run.requested_counts.size() ? run.requested_counts[i] : ps.count;
    const int count = w.kind == model::WorkloadKind::kInference
                          ? std::max(run.desired_replicas, ps.count)
                          : asked;
    pod_sets.push_back({{"name", ps.name.empty() ? "main" : ps.name},
                        {"count", count},
                        {"template",
                         {{"spec",
                           {{"containers",
                             {{{"name", ps.name.empty() ? "main" : ps.name},
                               {"resources", {{"requests", requests}}}}}}}}}}});
    if (ps.min_count > 0) pod_sets.back()["minCount"] = ps.min_count;
  }
  json spec = {{"queueName", LocalQueueOf(twin, w)}, {"podSets", pod_sets}, {"active", true}};
  if (!w.priority_class.empty()) {
    spec["priorityClassName"] = w.priority_class;
    spec["priorityClassSource"] = "kueue.x-k8s.io/workloadpriorityclass";
  }
  // The pods' priority (kube objects use the same resolution).
  spec["priority"] = 0;
  if (const govern::Policy* p = twin.governance_policy(); p && !w.priority_class.empty())
    if (const auto* c = p->FindPriorityClass(w.priority_class)) spec["priority"] = c->value;

  json status = json::object();
  json conditions = json::array();
  const bool admitted = run.state != twin::RunState::kPending;
  auto condition = [&](const char* type, bool value, const std::string& reason,
                       const std::string& message, int64_t since) {
    conditions.push_back({{"type", type},
                          {"status", value ? "True" : "False"},
                          {"reason", reason},
                          {"message", message},
                          {"observedGeneration", 1},
                          {"lastTransitionTime", kube::FormatTime(since)}});
  };
  twin::Admitter::Admission admission = twin.AdmissionOf(w.id);
  if (admitted) {
    std::string cq = admission.cluster_queue;
    if (cq.empty() && !twin.governance_policy()) cq = twin.scenario().teams[w.team].name;
    json assignments = json::array();
    for (const model::PodSet& ps : w.pod_sets) {
      json flavors = json::object(), usage = json::object();
      const std::string resource =
          ps.mig_profile.empty() ? "nvidia.com/gpu" : "nvidia.com/mig-" + ps.mig_profile;
      std::string flavor = kFifoFlavor;
      for (const auto& [r, f] : admission.flavors)
        if (r == resource || admission.flavors.size() == 1) flavor = f;
      flavors[resource] = flavor;
      // The admitted count: under partial admission fewer than the spec asks for.
      const int count =
          w.kind == model::WorkloadKind::kInference ? static_cast<int>(run.pods.size()) : ps.count;
      usage[resource] = std::to_string(static_cast<int64_t>(count) *
                                       (ps.mig_profile.empty() ? ps.gpus_per_pod : 1));
      assignments.push_back({{"name", ps.name.empty() ? "main" : ps.name},
                             {"flavors", flavors},
                             {"resourceUsage", usage},
                             {"count", count}});
    }
    status["admission"] = {{"clusterQueue", cq}, {"podSetAssignments", assignments}};
    const int64_t at = times.admitted ? times.admitted : times.created;
    condition("QuotaReserved", true, "QuotaReserved",
              fmt::format("Quota reserved in ClusterQueue {}", cq), at);
    condition("Admitted", true, "Admitted", "The workload is admitted", at);
    const bool ready = run.state == twin::RunState::kRunning;
    condition("PodsReady", ready, ready ? "PodsReady" : "WaitForPodsReady",
              ready ? "All pods reached readiness and the workload is running"
                    : "Not all pods are ready or succeeded",
              at);
  } else {
    condition("QuotaReserved", false, "Pending", PendingMessage(run),
              times.pending ? times.pending : times.created);
    if (times.preempted)
      condition("Evicted", true, "Preempted",
                times.preempted_by.empty()
                    ? "Preempted to accommodate a higher priority Workload"
                    : fmt::format("Preempted to accommodate a workload ({}) due to "
                                  "prioritization in the ClusterQueue or cohort",
                                  times.preempted_by),
                times.preempted);
  }
  status["conditions"] = conditions;
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Workload"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

nlohmann::json PodGroupObject(const twin::Twin& twin, const twin::WorkloadRun& run,
                              int64_t created) {
  const model::Workload& w = run.spec;
  int running = 0;
  for (const twin::PodAllocation& a : run.pods) running += a.running;
  std::string phase = "Pending";
  if (run.state == twin::RunState::kRunning)
    phase = "Running";
  else if (run.state == twin::RunState::kStarting)
    phase = "Inqueue";
  std::string queue = "default";
  if (const govern::Policy* p = twin.governance_policy())
    for (const govern::PodGroupSpec& pg : p->pod_groups)
      if (pg.name == w.pod_group) queue = pg.queue;
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", Meta("PodGroup", w.namespace_name, w.name, created)},
          {"spec",
           {{"minMember", w.TotalPods()},
            {"queue", queue},
            {"minResources", {{"nvidia.com/gpu", std::to_string(w.TotalGpus())}}}}},
          {"status", {{"phase", phase}, {"running", running}}}};
}

}  // namespace steward::kubefront
