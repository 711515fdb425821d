#include "snapshot/pod_workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "govern/policy.h"
#include "govern/quantity.h"
#include "kube/json_decoder.h"

namespace steward::snapshot {
namespace {

using nlohmann::json;

constexpr char kQueueLabel[] = "kueue.x-k8s.io/queue-name";
constexpr char kPriorityLabel[] = "kueue.x-k8s.io/priority-class";

std::string Get(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

// Labels Kubernetes controllers, Kueue or the twin put on pods: not the workload's own.
bool GeneratedLabel(const std::string& key) {
  static const std::set<std::string> kExact = {"pod-template-hash",
                                               "controller-uid",
                                               "job-name",
                                               "statefulset.kubernetes.io/pod-name",
                                               "controller-revision-hash",
                                               "app",
                                               "steward.io/workload",
                                               "steward.io/team",
                                               "steward.io/tier",
                                               "steward.io/kind",
                                               "apps.kubernetes.io/pod-index"};
  return kExact.count(key) > 0 || key.rfind("batch.kubernetes.io/", 0) == 0 ||
         key.rfind("kueue.x-k8s.io/", 0) == 0;
}

bool TrainingOwner(const std::string& kind) {
  static const std::set<std::string> kKinds = {
      "PyTorchJob", "MPIJob", "TFJob",  "XGBoostJob", "PaddleJob",      "JAXJob",
      "TrainJob",   "JobSet", "RayJob", "RayCluster", "LeaderWorkerSet"};
  return kKinds.count(kind) > 0;
}

struct Owner {
  std::string kind, name;
};

Owner OwnerOf(const kube::Pod& pod) {
  const kube::OwnerReference* ref = pod.metadata.Controller();
  if (!ref && !pod.metadata.owner_references.empty()) ref = &pod.metadata.owner_references[0];
  if (!ref) return {};
  Owner o{ref->kind, ref->name};
  // Deployment "chat" owns ReplicaSet "chat-<pod-template-hash>".
  const std::string hash = Get(pod.metadata.labels, "pod-template-hash");
  if (o.kind == "ReplicaSet" && !hash.empty() && o.name.size() > hash.size() + 1 &&
      o.name.compare(o.name.size() - hash.size() - 1, std::string::npos, "-" + hash) == 0) {
    o.kind = "Deployment";
    o.name = o.name.substr(0, o.name.size() - hash.size() - 1);
  }
  return o;
}

model::Tier TierOf(const std::string& label, const std::string& priority_class,
                   std::optional<int64_t> priority, model::WorkloadKind kind) {
  model::Tier tier;
  if (model::ParseTier(label, &tier)) return tier;
  if (model::ParseTier(priority_class, &tier)) return tier;
  if (priority) return govern::TierForPriority(static_cast<int32_t>(*priority));
  return kind == model::WorkloadKind::kInference  ? model::Tier::kProduction
         : kind == model::WorkloadKind::kTraining ? model::Tier::kTraining
                                                  : model::Tier::kDev;
}

// Kind from a label, else the owner; a Job is training when its tier is (decided after).
model::WorkloadKind KindOf(const std::string& label, const std::string& owner_kind,
                           bool* by_label) {
  model::WorkloadKind kind;
  *by_label = model::ParseKind(label, &kind);
  if (*by_label) return kind;
  if (owner_kind == "Deployment" || owner_kind == "ReplicaSet")
    return model::WorkloadKind::kInference;
  if (owner_kind == "StatefulSet") return model::WorkloadKind::kNotebook;
  if (TrainingOwner(owner_kind)) return model::WorkloadKind::kTraining;
  return model::WorkloadKind::kBatch;
}

void Classify(SnapshotWorkload& w, const std::string& kind_label, const std::string& tier_label,
              std::optional<int64_t> priority) {
  bool by_label = false;
  w.kind = KindOf(kind_label, w.owner_kind, &by_label);
  w.tier = TierOf(tier_label, w.priority_class, priority, w.kind);
  if (!by_label && w.kind == model::WorkloadKind::kBatch && w.tier == model::Tier::kTraining)
    w.kind = model::WorkloadKind::kTraining;
}

// GPUs one pod of a Kueue podSet template asks for: nvidia.com/gpu plus MIG slices.
int64_t TemplateGpus(const json& pod_set) {
  int64_t gpus = 0;
  const json* containers = nullptr;
  if (pod_set.contains("template") && pod_set["template"].is_object() &&
      pod_set["template"].contains("spec") && pod_set["template"]["spec"].is_object() &&
      pod_set["template"]["spec"].contains("containers"))
    containers = &pod_set["template"]["spec"]["containers"];
  if (!containers || !containers->is_array()) return 0;
  for (const json& c : *containers) {
    if (!c.is_object() || !c.contains("resources") || !c["resources"].is_object()) continue;
    const json& r = c["resources"];
    const json* amounts = r.contains("requests") ? &r["requests"]
                          : r.contains("limits") ? &r["limits"]
                                                 : nullptr;
    if (!amounts || !amounts->is_object()) continue;
    for (const auto& [name, value] : amounts->items()) {
      if (name != "nvidia.com/gpu" && name.rfind("nvidia.com/mig-", 0) != 0) continue;
      const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      Result<govern::Amount> a = govern::ParseQuantity(text, name);
      if (a.ok()) gpus += *a;
    }
  }
  return gpus;
}

std::string Str(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return {};
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : std::string();
}

bool Finished(const json& workload) {
  if (!workload.contains("status") || !workload["status"].is_object()) return false;
  const json& conds = workload["status"].value("conditions", json::array());
  if (!conds.is_array()) return false;
  for (const json& c : conds)
    if (c.is_object() && c.value("type", "") == "Finished" && c.value("status", "") == "True")
      return true;
  return false;
}

}  // namespace

SnapshotWorkloads MapWorkloads(const WorkloadInput& input,
                               const std::map<std::string, std::string>& model_of_product) {
  SnapshotWorkloads out;
  std::map<std::string, std::string> team_of_namespace;
  for (const kube::Namespace& ns : input.namespaces)
    if (std::string t = Get(ns.metadata.labels, "steward.io/team"); !t.empty())
      team_of_namespace[ns.metadata.name] = t;
  auto team = [&](const std::string& ns) {
    auto it = team_of_namespace.find(ns);
    return it == team_of_namespace.end() ? ns : it->second;
  };

  // Group the GPU pods by (namespace, owner kind, owner name).
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<const kube::Pod*>> groups;
  std::vector<std::string> ownerless;
  for (const kube::Pod& p : input.pods) {
    if (p.GpuRequest() <= 0 || p.Terminal()) continue;
    if (p.metadata.deletion_timestamp) {
      ++out.skipped_pods;
      continue;
    }
    Owner o = OwnerOf(p);
    if (o.kind.empty()) {
      ownerless.push_back(p.metadata.namespace_name + "/" + p.metadata.name);
      o.name = p.metadata.name;
    }
    groups[{p.metadata.namespace_name, o.kind, o.name}].push_back(&p);
  }
  if (!ownerless.empty())
    out.notes.push_back(
        fmt::format("{} GPU pod(s) without an owner: each is a workload of its own (first: {})",
                    ownerless.size(), ownerless.front()));
  if (out.skipped_pods > 0)
    out.notes.push_back(fmt::format("{} terminating GPU pod(s) left out", out.skipped_pods));

  std::set<std::string> unknown_products;
  int uneven = 0;
  for (const auto& [key, pods] : groups) {
    const auto& [ns, owner_kind, owner_name] = key;
    const kube::Pod& first = *pods.front();
    SnapshotWorkload w;
    w.name = owner_name;
    w.namespace_name = ns;
    w.team = team(ns);
    w.owner_kind = owner_kind;
    w.pods = static_cast<int>(pods.size());
    w.running = false;
    int64_t gpus_min = INT64_MAX, gpus_max = 0;
    for (const kube::Pod* p : pods) {
      const int64_t g = p->GpuRequest();
      gpus_min = std::min(gpus_min, g);
      gpus_max = std::max(gpus_max, g);
      w.running = w.running || !p->node_name.empty();
      if (p->start_time && (!w.since || *p->start_time < *w.since)) w.since = p->start_time;
      w.pod_names.push_back(p->metadata.name);
    }
    std::sort(w.pod_names.begin(), w.pod_names.end());
    if (gpus_min != gpus_max) ++uneven;
    w.gpus_per_pod = static_cast<int>(gpus_max);
    w.priority_class = Get(first.metadata.labels, kPriorityLabel);
    if (w.priority_class.empty()) w.priority_class = first.priority_class_name;
    w.queue = Get(first.metadata.labels, kQueueLabel);
    if (std::string product = Get(first.node_selector, "nvidia.com/gpu.product");
        !product.empty()) {
      auto it = model_of_product.find(product);
      if (it != model_of_product.end())
        w.gpu_model = it->second;
      else
        unknown_products.insert(product);
    }
    Classify(w, Get(first.metadata.labels, "steward.io/kind"),
             Get(first.metadata.labels, "steward.io/tier"), first.priority);
    // Labels every pod shares, minus the generated ones.
    w.labels = first.metadata.labels;
    std::erase_if(w.labels, [](const auto& kv) { return GeneratedLabel(kv.first); });
    for (const kube::Pod* p : pods)
      std::erase_if(w.labels,
                    [&](const auto& kv) { return Get(p->metadata.labels, kv.first) != kv.second; });
    if (!w.running) w.since = first.metadata.creation_timestamp;
    out.workloads.push_back(std::move(w));
  }
  if (uneven > 0)
    out.notes.push_back(fmt::format(
        "{} workload(s) whose pods ask for different GPU counts: each pod takes the largest",
        uneven));

  // Kueue Workloads whose owner has no pods wait for admission.
  std::set<std::tuple<std::string, std::string>> owners_with_pods;
  for (const auto& [key, _] : groups) owners_with_pods.insert({std::get<0>(key), std::get<2>(key)});
  std::vector<SnapshotWorkload> waiting;
  int cpu_only_pod_sets = 0, no_gpu = 0;
  for (const json& o : input.kueue_workloads) {
    if (!o.is_object() || Finished(o)) continue;
    const std::string ns = Str(o, {"metadata", "namespace"});
    std::string owner_kind, owner_name = Str(o, {"metadata", "name"});
    if (o.contains("metadata") && o["metadata"].is_object() &&
        o["metadata"].contains("ownerReferences") && o["metadata"]["ownerReferences"].is_array() &&
        !o["metadata"]["ownerReferences"].empty()) {
      const json& ref = o["metadata"]["ownerReferences"][0];
      owner_kind = Str(ref, {"kind"});
      owner_name = Str(ref, {"name"});
    }
    if (owners_with_pods.count({ns, owner_name})) continue;
    SnapshotWorkload w;
    w.name = owner_name;
    w.namespace_name = ns;
    w.team = team(ns);
    w.owner_kind = owner_kind;
    w.running = false;
    w.queue = Str(o, {"spec", "queueName"});
    w.priority_class = Str(o, {"spec", "priorityClassName"});
    std::optional<int64_t> priority;
    if (o.contains("spec") && o["spec"].is_object() && o["spec"].contains("priority") &&
        o["spec"]["priority"].is_number_integer())
      priority = o["spec"]["priority"].get<int64_t>();
    if (std::string created = Str(o, {"metadata", "creationTimestamp"}); !created.empty())
      w.since = kube::ParseTime(created);
    const json pod_sets = o.contains("spec") && o["spec"].is_object()
                              ? o["spec"].value("podSets", json::array())
                              : json::array();
    int pods = 0;
    int64_t gpus = 0;
    std::vector<SnapshotPodSet> sets;
    bool partial = false;
    for (const json& ps : pod_sets) {
      if (!ps.is_object()) continue;
      const int64_t g = TemplateGpus(ps);
      const json count = ps.value("count", json(1));
      if (!count.is_number_integer() || count.get<int64_t>() < 1) continue;
      if (g <= 0) {
        ++cpu_only_pod_sets;  // The twin's pod sets hold GPUs: a CPU-only launcher is left out.
        continue;
      }
      SnapshotPodSet s;
      s.name = Str(ps, {"name"});
      if (s.name.empty()) s.name = "main";
      s.count = static_cast<int>(std::min<int64_t>(count.get<int64_t>(), 1 << 20));
      s.gpus_per_pod = static_cast<int>(g);
      if (ps.contains("minCount") && ps["minCount"].is_number_integer()) {
        const int64_t m = ps["minCount"].get<int64_t>();
        if (m >= 1 && m < s.count) s.min_count = static_cast<int>(m), partial = true;
      }
      pods += s.count;
      gpus = std::max(gpus, g);
      sets.push_back(std::move(s));
    }
    if (gpus <= 0 || pods <= 0) {
      ++no_gpu;
      continue;
    }
    w.pods = pods;
    w.gpus_per_pod = static_cast<int>(gpus);
    if (sets.size() > 1 || partial) w.pod_sets = std::move(sets);
    Classify(w, "", "", priority);
    waiting.push_back(std::move(w));
  }
  if (cpu_only_pod_sets > 0)
    out.notes.push_back(fmt::format(
        "{} pod set(s) of waiting Kueue Workloads ask for no GPU (a launcher, say): left out, "
        "the twin's pod sets hold GPUs",
        cpu_only_pod_sets));
  for (const std::string& p : unknown_products)
    out.notes.push_back(fmt::format(
        "a nodeSelector asks for GPU product '{}', which no node has: those workloads may run on "
        "any GPU in the scenario",
        p));
  (void)no_gpu;  // Kueue Workloads without GPUs are not GPU work: silently not ours.

  auto by_since = [](const SnapshotWorkload& a, const SnapshotWorkload& b) {
    const int64_t sa = a.since.value_or(INT64_MAX), sb = b.since.value_or(INT64_MAX);
    return std::tie(sa, a.namespace_name, a.name) < std::tie(sb, b.namespace_name, b.name);
  };
  std::stable_sort(out.workloads.begin(), out.workloads.end(), [&](const auto& a, const auto& b) {
    if (a.running != b.running) return a.running;
    return by_since(a, b);
  });
  std::sort(waiting.begin(), waiting.end(), by_since);
  for (SnapshotWorkload& w : waiting) out.workloads.push_back(std::move(w));

  std::map<std::string, std::string> teams;  // name -> namespace
  for (const SnapshotWorkload& w : out.workloads) teams.emplace(w.team, w.namespace_name);
  for (const auto& [name, ns] : teams) out.teams.push_back({name, ns});
  return out;
}

}  // namespace steward::snapshot
