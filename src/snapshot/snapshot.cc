#include "snapshot/snapshot.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>

#include "govern/policy_io.h"
#include "govern/quantity.h"
#include "kube/json_decoder.h"

namespace steward::snapshot {
namespace {

using nlohmann::json;

// Kueue and Volcano kinds a policy file holds, in export order.
struct PolicyKind {
  const char* plural;
  const char* kind;
};
constexpr PolicyKind kPolicyKinds[] = {{"resourceflavors", "ResourceFlavor"},
                                       {"cohorts", "Cohort"},
                                       {"clusterqueues", "ClusterQueue"},
                                       {"localqueues", "LocalQueue"},
                                       {"workloadpriorityclasses", "WorkloadPriorityClass"},
                                       {"queues", "Queue"},
                                       {"podgroups", "PodGroup"}};

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The object as a manifest: apiVersion, kind, name, namespace, labels, annotations and spec
// (status and server-set metadata dropped).
json Manifest(const json& o) {
  json m = {{"apiVersion", Str(o, "apiVersion")}, {"kind", Str(o, "kind")}};
  json meta = json::object();
  const json& in = o.contains("metadata") && o["metadata"].is_object() ? o["metadata"] : json();
  for (const char* key : {"name", "namespace", "labels", "annotations"})
    if (in.is_object() && in.contains(key)) meta[key] = in[key];
  m["metadata"] = meta;
  if (o.contains("spec")) m["spec"] = o["spec"];
  // WorkloadPriorityClass keeps its value at the top level.
  for (const char* key : {"value", "description"})
    if (o.contains(key)) m[key] = o[key];
  return m;
}

// nvidia.com/gpu nominalQuota of a ClusterQueue, over every flavor.
int64_t GpuQuota(const json& cq) {
  int64_t total = 0;
  const json spec = cq.value("spec", json::object());
  for (const json& group : spec.value("resourceGroups", json::array()))
    for (const json& flavor : group.value("flavors", json::array()))
      for (const json& r : flavor.value("resources", json::array())) {
        if (Str(r, "name") != "nvidia.com/gpu" || !r.contains("nominalQuota")) continue;
        const json& q = r["nominalQuota"];
        const std::string text = q.is_string() ? q.get<std::string>() : q.dump();
        if (Result<govern::Amount> a = govern::ParseQuantity(text, "nvidia.com/gpu"); a.ok())
          total += *a;
      }
  return total;
}

// Builds the Kueue policy file; fills quotas by team.
Status BuildPolicy(const ClusterObjects& objects, Snapshot* s) {
  govern::Policy policy;
  int count = 0;
  for (const PolicyKind& k : kPolicyKinds) {
    auto it = objects.custom.find(k.plural);
    if (it == objects.custom.end()) continue;
    for (const json& o : it->second) {
      if (!o.is_object()) continue;
      json m = Manifest(o);
      if (m["kind"].get<std::string>().empty()) m["kind"] = k.kind;
      const std::string name = m["metadata"].value("name", "?");
      const std::string where = fmt::format("cluster {} {}", k.kind, name);
      try {
        STEWARD_RETURN_IF_ERROR(govern::ImportDocument(YAML::Load(m.dump()), where, &policy));
      } catch (const YAML::Exception& e) {
        return Status::InvalidArgument(fmt::format("{}: {}", where, e.msg));
      }
      ++count;
    }
  }
  if (policy.cluster_queues.empty()) return Status::Ok();  // No Kueue (nor Volcano) quota.
  // The Namespaces the queues' namespaceSelectors read.
  std::set<std::string> wanted;
  for (const SnapshotTeam& t : s->workloads.teams) wanted.insert(t.namespace_name);
  for (const kube::Namespace& ns : objects.namespaces) {
    if (!wanted.count(ns.metadata.name)) continue;
    json doc = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata", {{"name", ns.metadata.name}, {"labels", ns.metadata.labels}}}};
    doc["metadata"]["labels"]["kubernetes.io/metadata.name"] = ns.metadata.name;
    try {
      STEWARD_RETURN_IF_ERROR(govern::ImportDocument(
          YAML::Load(doc.dump()), "cluster Namespace " + ns.metadata.name, &policy));
    } catch (const YAML::Exception& e) {
      return Status::InvalidArgument(
          fmt::format("cluster Namespace {}: {}", ns.metadata.name, e.msg));
    }
  }
  STEWARD_RETURN_IF_ERROR(govern::ValidatePolicy(&policy));
  s->kueue_yaml = govern::ExportKueueYaml(policy);
  s->policy_objects = count;
  if (!policy.warnings.empty())
    s->notes.push_back(fmt::format("the Kueue import noticed {} thing(s), first: {}",
                                   policy.warnings.size(), policy.warnings.front()));
  // A team's quota: the GPU quota of the ClusterQueue its LocalQueues point to.
  std::map<std::string, int64_t> cq_quota;
  if (auto it = objects.custom.find("clusterqueues"); it != objects.custom.end())
    for (const json& cq : it->second)
      cq_quota[Str(cq.value("metadata", json::object()), "name")] = GpuQuota(cq);
  std::map<std::string, std::set<std::string>> cqs_of_namespace;
  if (auto it = objects.custom.find("localqueues"); it != objects.custom.end())
    for (const json& lq : it->second)
      cqs_of_namespace[Str(lq.value("metadata", json::object()), "namespace")].insert(
          Str(lq.value("spec", json::object()), "clusterQueue"));
  for (const SnapshotTeam& t : s->workloads.teams) {
    int64_t q = 0;
    for (const std::string& cq : cqs_of_namespace[t.namespace_name]) q += cq_quota[cq];
    s->team_quota_gpus[t.name] = static_cast<int>(std::min<int64_t>(q, 1 << 30));
  }
  int unqueued = 0;
  for (const SnapshotWorkload& w : s->workloads.workloads) unqueued += w.queue.empty();
  if (unqueued > 0)
    s->notes.push_back(fmt::format(
        "{} workload(s) name no kueue.x-k8s.io/queue-name: Kueue does not manage them in the "
        "cluster, but in the scenario they queue for their team's LocalQueue",
        unqueued));
  return Status::Ok();
}

std::string Q(const std::string& s) { return json(s).dump(); }  // A YAML double-quoted scalar.

std::string FlowMap(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m)
    out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", Q(k), Q(v));
  return out + "}";
}

std::string Csv(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

int TotalGpus(const NodePools& p) {
  int total = 0;
  for (const twin::PoolSpec& pool : p.pools) total += pool.nodes * pool.gpus_per_node;
  return total;
}

}  // namespace

Result<Snapshot> BuildSnapshot(const ClusterObjects& objects, const SnapshotOptions& options) {
  Snapshot s;
  s.options = options;
  s.source = objects.source;
  s.read_at = objects.read_at;
  s.pools = GroupNodePools(objects.nodes, options.pools);
  if (s.pools.pools.empty())
    return Status::FailedPrecondition(
        fmt::format("{}: no node with GPUs ({} node(s) read): nothing to simulate", objects.source,
                    objects.nodes.size()));
  WorkloadInput in;
  in.pods = objects.pods;
  in.namespaces = objects.namespaces;
  if (auto it = objects.custom.find("workloads"); it != objects.custom.end())
    in.kueue_workloads = it->second;
  s.workloads = MapWorkloads(in, s.pools.model_of_product);
  s.notes = s.pools.notes;
  s.notes.insert(s.notes.end(), s.workloads.notes.begin(), s.workloads.notes.end());
  STEWARD_RETURN_IF_ERROR(BuildPolicy(objects, &s));
  if (s.kueue_yaml.empty())
    for (const SnapshotTeam& t : s.workloads.teams) s.team_quota_gpus[t.name] = TotalGpus(s.pools);
  int cordoned = 0;
  for (const kube::Node& n : objects.nodes) cordoned += n.unschedulable;
  if (cordoned > 0)
    s.notes.push_back(fmt::format(
        "{} node(s) cordoned in the cluster start schedulable in the scenario", cordoned));
  s.notes.push_back(
      "running workloads start again at 0 s (each pays policies.startup_seconds) and run for "
      "duration_hours from the snapshot: the cluster does not say when a pod will end");
  return s;
}

std::string ScenarioYaml(const Snapshot& s) {
  const SnapshotOptions& o = s.options;
  std::string y;
  y += fmt::format("# Snapshot of {} at {}, written by `steward twin snapshot`.\n", s.source,
                   kube::FormatTime(s.read_at));
  y += "# Run it: steward twin run scenario.yaml; try a policy: steward twin compare "
       "scenario.yaml\n";
  y += "#   --vs-policy EDITED.yaml (docs/scenario.md, \"Snapshots\").\n";
  for (const std::string& n : s.notes) y += "# note: " + n + "\n";
  y += fmt::format("name: {}\nseed: {}\nhorizon_days: {}\nsample_minutes: {}\n\n", Q(o.name),
                   o.seed, o.horizon_days, o.horizon_days <= 2 ? 15 : 60);
  y += "cluster:\n  gpu_models:\n";
  for (const twin::GpuModelSpec& m : s.pools.gpu_models)
    y += fmt::format("    - {{name: {}, product_label: {}, memory_mib: {}, mig_capable: {}}}\n",
                     Q(m.name), Q(m.product_label), m.memory_mib, m.mig_capable);
  y += "  pools:\n";
  for (const twin::PoolSpec& p : s.pools.pools) {
    y += fmt::format(
        "    - name: {}\n      nodes: {}\n      gpus_per_node: {}\n      gpu_model: {}\n",
        Q(p.name), p.nodes, p.gpus_per_node, Q(p.gpu_model));
    y += fmt::format("      cpu_milli: {}\n      memory_mib: {}\n      driver_version: {}\n",
                     p.cpu_milli, p.memory_mib, Q(p.driver_version));
    y += fmt::format("      toolkit_version: {}\n      device_plugin_version: {}\n",
                     Q(p.toolkit_version), Q(p.device_plugin_version));
    if (!p.labels.empty()) y += "      labels: " + FlowMap(p.labels) + "\n";
    if (!p.taints.empty()) {
      y += "      taints:\n";
      for (const model::Taint& t : p.taints)
        y += fmt::format("        - {{key: {}, value: {}, effect: {}}}\n", Q(t.key), Q(t.value),
                         Q(t.effect));
    }
  }
  y += "\nteams:\n";
  if (s.workloads.teams.empty()) y += "  []\n";
  for (const SnapshotTeam& t : s.workloads.teams) {
    auto q = s.team_quota_gpus.find(t.name);
    y += fmt::format("  - {{name: {}, namespace: {}, quota_gpus: {}}}\n", Q(t.name),
                     Q(t.namespace_name), q == s.team_quota_gpus.end() ? 0 : q->second);
  }
  y += "\npolicies:\n";
  if (!s.kueue_yaml.empty()) {
    y += fmt::format("  admission: kueue\n  governance: [{}]\n", Q(kPolicyFile));
  } else {
    y += "  admission: fifo-quota  # the cluster runs no Kueue: nothing limits a team\n";
  }
  y += "\ntraces:\n";
  y += fmt::format("  - {{format: steward, path: {}}}\n", Q(kWorkloadsFile));
  return y;
}

std::string WorkloadsCsv(const Snapshot& s) {
  const double duration_s =
      (s.options.duration_hours > 0 ? s.options.duration_hours : s.options.horizon_days * 24) *
      3600;
  std::string out =
      "submit_seconds,name,team,kind,pods,gpus_per_pod,duration_seconds,gpu_model,tier,"
      "priority_class,queue,min_replicas,max_replicas,labels,used_gpu_fraction,busy,sm_active,"
      "active_hours,idle_busy,pod_sets\n";
  for (const SnapshotWorkload& w : s.workloads.workloads) {
    std::map<std::string, std::string> labels = w.labels;
    if (w.since && s.read_at >= *w.since)
      labels["steward.io/snapshot-age-seconds"] = std::to_string((s.read_at - *w.since) / 1000000);
    std::string label_text;
    for (const auto& [k, v] : labels) label_text += (label_text.empty() ? "" : ";") + k + "=" + v;
    const bool service = w.kind == model::WorkloadKind::kInference;
    // The usage profile from DCGM history; empty fields take the trace defaults.
    std::string usage = ",,,,";
    if (w.usage) {
      const model::UsageProfile& u = *w.usage;
      usage = fmt::format(
          "{:.4g},{:.4g},{:.4g},{},{}", u.used_gpu_fraction, u.busy, u.sm_active,
          u.active_duration.is_infinite() ? std::string()
                                          : fmt::format("{:.4g}", u.active_duration.ToHours()),
          u.active_duration.is_infinite() ? std::string() : fmt::format("{:.4g}", u.idle_busy));
    }
    // Several pod sets (or a minCount): the long form, name:count:gpus[:min_count] each, with
    // pods and gpus_per_pod left empty as the trace format wants.
    std::string pod_sets;
    for (const SnapshotPodSet& ps : w.pod_sets)
      pod_sets +=
          fmt::format("{}{}:{}:{}{}", pod_sets.empty() ? "" : ";", ps.name, ps.count,
                      ps.gpus_per_pod, ps.min_count > 0 ? fmt::format(":{}", ps.min_count) : "");
    const bool long_form = !pod_sets.empty() && !service;  // A service is one pod set.
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", w.running ? 0 : 1, Csv(w.name),
        Csv(w.team), model::KindName(w.kind), long_form ? "" : std::to_string(w.pods),
        long_form ? "" : std::to_string(w.gpus_per_pod), duration_s, Csv(w.gpu_model),
        model::TierName(w.tier), Csv(w.priority_class), Csv(w.queue),
        service ? std::to_string(w.pods) : "", service ? std::to_string(w.pods) : "",
        Csv(label_text), usage, Csv(pod_sets));
  }
  return out;
}

Status WriteSnapshot(const Snapshot& s, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::InvalidArgument(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  auto write = [&](const char* file, const std::string& text) -> Status {
    const std::filesystem::path path = dir / file;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Status::InvalidArgument("cannot write " + path.string());
    return Status::Ok();
  };
  STEWARD_RETURN_IF_ERROR(write(kWorkloadsFile, WorkloadsCsv(s)));
  if (!s.kueue_yaml.empty()) {
    STEWARD_RETURN_IF_ERROR(write(kPolicyFile, s.kueue_yaml));
  } else {
    std::filesystem::remove(dir / kPolicyFile, ec);  // A stale one from an earlier snapshot.
  }
  return write(kScenarioFile, ScenarioYaml(s));
}

}  // namespace steward::snapshot
