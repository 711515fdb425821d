#include "kubefront/twin_backend.h"

#include <fmt/format.h>

#include "govern/quantity.h"
#include "kube/resources.h"
#include "kube/selector.h"
#include "kubefront/twin_objects.h"

namespace steward::kubefront {
namespace {

using kube::ApiAnswer;
using kube::ApiError;
using nlohmann::json;

ApiError Invalid(const kube::WriteRequest& w, const std::string& field, const std::string& why) {
  return ApiError::Invalid(w.resource->kind, w.resource->group, w.name,
                           {{"FieldValueForbidden", why, field}});
}

// The first difference between two objects outside the fields a write may change, as a JSON
// pointer; "" when there is none.
std::string FirstForbiddenChange(json before, json after,
                                 const std::vector<json::json_pointer>& writable) {
  for (json* o : {&before, &after}) {
    (*o)["metadata"].erase("resourceVersion");
    (*o)["metadata"].erase("managedFields");
    for (const json::json_pointer& p : writable)
      if (o->contains(p)) {
        json& parent = (*o)[p.parent_pointer()];
        if (parent.is_object()) parent.erase(p.back());
      }
  }
  const json diff = json::diff(before, after);
  return diff.empty() ? "" : diff[0].value("path", "");
}

std::map<std::string, std::string> StringMap(const json& object, const char* key) {
  std::map<std::string, std::string> out;
  auto m = object.find("metadata");
  if (m == object.end()) return out;
  auto it = m->find(key);
  if (it == m->end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

}  // namespace

TwinBackend::TwinBackend(server::LiveTwin* live, TwinMirror* mirror, kube::ObjectStore* store,
                         StoreIds ids)
    : live_(live), mirror_(mirror), store_(store), ids_(ids) {}

TwinBackend::Outcome TwinBackend::OnTwin(const std::function<Outcome(twin::Twin&)>& apply) {
  std::optional<Outcome> outcome;
  const Status s = live_->Control([&](twin::Twin& t) -> Status {
    outcome = apply(t);
    mirror_->Sync(t);  // The answer shows the applied object with its new version.
    return Status::Ok();
  });
  if (!s.ok() || !outcome)
    return ApiError::Timeout("the twin did not apply the change: " + s.message());
  if (auto* a = std::get_if<ApiAnswer>(&*outcome); a && a->body.is_null())
    return ApiError::Internal("the change left no object");
  return std::move(*outcome);
}

std::variant<ApiAnswer, ApiError> TwinBackend::Write(const kube::WriteRequest& w) {
  const std::string& r = w.resource->name;
  return OnTwin([&](twin::Twin& t) -> Outcome {
    if (r == "nodes") return WriteNode(t, w);
    if (r == "pods") return WritePod(t, w);
    if (r == "clusterqueues") return WriteClusterQueue(t, w);
    return ApiError::MethodNotAllowed("write", r);
  });
}

std::variant<ApiAnswer, ApiError> TwinBackend::Subresource(const kube::SubresourceRequest& s) {
  if (s.resource->name != "pods" || s.subresource != "eviction")
    return ApiError::NotFound(s.resource->name + "/" + s.subresource, "", s.name);
  return OnTwin([&](twin::Twin& t) { return Evict(t, s); });
}

TwinBackend::Outcome TwinBackend::WriteNode(twin::Twin& t, const kube::WriteRequest& w) {
  const model::NodeId n = t.cluster().FindNode(w.name);
  kube::ObjectPtr current = store_->Get(ids_.nodes, "", w.name);
  if (n == model::kNoNode || !current) return ApiError::NotFound("nodes", "", w.name);
  if (w.verb == kube::WriteRequest::Verb::kDelete)
    return ApiError::MethodNotAllowed("DELETE", "nodes (the twin's nodes are fixed)");
  auto desired_or = w.transform(current.get());
  if (auto* e = std::get_if<ApiError>(&desired_or)) return *e;
  json desired = std::move(std::get<json>(desired_or));
  const json before = current->Parse();
  const std::string forbidden =
      FirstForbiddenChange(before, desired,
                           {"/metadata/labels"_json_pointer, "/metadata/annotations"_json_pointer,
                            "/spec/unschedulable"_json_pointer, "/spec/taints"_json_pointer});
  if (!forbidden.empty())
    return Invalid(w, forbidden,
                   "the twin's nodes take changes of spec.unschedulable, spec.taints, "
                   "metadata.labels and metadata.annotations only");
  // Labels: the node's own plus the ones the twin derives (hostname, driver, ...), which a
  // write may not change.
  const model::Node& node = t.cluster().node(n);
  std::map<std::string, std::string> labels = StringMap(desired, "labels");
  for (const auto& [key, value] : DerivedNodeLabels(node)) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value)
      return Invalid(w, "metadata.labels." + key,
                     "label is managed by GPU feature discovery / the kubelet in the twin");
    labels.erase(it);
  }
  for (const auto& [key, value] : labels) {
    if (Status s = kube::CheckLabelKey(key); !s.ok())
      return Invalid(w, "metadata.labels", s.message());
    if (Status s = kube::CheckLabelValue(value); !s.ok())
      return Invalid(w, "metadata.labels." + key, s.message());
  }
  std::map<std::string, std::string> annotations = StringMap(desired, "annotations");
  annotations.erase(kRemediationAnnotation);  // The remediation loop's, re-added by the mirror.
  const json& spec = desired.contains("spec") ? desired["spec"] : json::object();
  bool unschedulable = false;
  if (auto u = spec.find("unschedulable"); u != spec.end() && !u->is_null()) {
    if (!u->is_boolean()) return Invalid(w, "spec.unschedulable", "must be a boolean");
    unschedulable = u->get<bool>();
  }
  std::vector<model::Taint> taints;
  if (auto ts = spec.find("taints"); ts != spec.end() && !ts->is_null()) {
    if (!ts->is_array()) return Invalid(w, "spec.taints", "must be a list");
    for (const json& x : *ts) {
      if (!x.is_object() || !x.contains("key") || !x["key"].is_string())
        return Invalid(w, "spec.taints", "every taint needs a key");
      model::Taint taint{x["key"].get<std::string>(), x.value("value", ""), x.value("effect", "")};
      if (IsControllerTaint(taint.key)) continue;  // The node lifecycle controller's own.
      if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" &&
          taint.effect != "NoExecute")
        return Invalid(w, "spec.taints",
                       fmt::format("taint {}: effect '{}' is not NoSchedule, PreferNoSchedule or "
                                   "NoExecute",
                                   taint.key, taint.effect));
      taints.push_back(std::move(taint));
    }
  }
  if (w.dry_run) return ApiAnswer{200, std::move(desired)};
  if (unschedulable != node.cordoned) {
    if (Status s = t.SetNodeCordoned(n, unschedulable); !s.ok()) return ApiError::FromStatus(s);
  }
  if (Status s = t.SetNodeLabels(n, std::move(labels)); !s.ok()) return ApiError::FromStatus(s);
  if (Status s = t.SetNodeTaints(n, std::move(taints)); !s.ok())
    return Invalid(w, "spec.taints", s.message());
  if (annotations != mirror_->NodeAnnotations(n)) mirror_->SetNodeAnnotations(n, annotations);
  mirror_->Sync(t);
  return ApiAnswer{200, store_->Get(ids_.nodes, "", w.name)->Parse()};
}

Status TwinBackend::StopPod(twin::Twin& t, const TwinMirror::PodKey& key, const std::string& ns,
                            const std::string& name, int64_t grace_seconds) {
  STEWARD_RETURN_IF_ERROR(t.EvictPod(key.workload, key.pod_id, Seconds(grace_seconds)));
  mirror_->MarkTerminating(key.workload, key.pod_id,
                           mirror_->clock().At(t.now() + Seconds(grace_seconds)), grace_seconds);
  kube::ObjectPtr pod = store_->Get(ids_.pods, ns, name);
  mirror_->AddEvent(mirror_->MakeEvent(
      "v1", "Pod", ns, name, pod ? kube::PathString(pod->Parse(), "metadata.uid") : "", "Normal",
      "Killing", "Stopping container main", "kubelet", t.now()));
  return Status::Ok();
}

TwinBackend::Outcome TwinBackend::WritePod(twin::Twin& t, const kube::WriteRequest& w) {
  kube::ObjectPtr current = store_->Get(ids_.pods, w.namespace_name, w.name);
  if (!current) return ApiError::NotFound("pods", "", w.name);
  if (mirror_->IsOperatorPod(w.namespace_name, w.name))
    return Invalid(w, "metadata.name",
                   "the GPU Operator's DaemonSet pods are static in the twin (its DaemonSet "
                   "would recreate them at once)");
  std::optional<TwinMirror::PodKey> key = mirror_->FindPod(w.namespace_name, w.name);
  if (!key) return ApiError::NotFound("pods", "", w.name);
  json before = current->Parse();
  if (w.verb == kube::WriteRequest::Verb::kDelete) {
    if (!w.delete_options.precondition_uid.empty() &&
        w.delete_options.precondition_uid != kube::PathString(before, "metadata.uid"))
      return ApiError::Conflict("pods", "", w.name, "the UID in the precondition does not match");
    const int64_t grace = w.delete_options.grace_period_seconds.value_or(
        before["spec"].value("terminationGracePeriodSeconds", 30));
    if (w.dry_run) {
      before["metadata"]["deletionTimestamp"] =
          kube::FormatTime(mirror_->clock().At(t.now() + Seconds(std::max<int64_t>(grace, 0))));
      return ApiAnswer{200, std::move(before)};
    }
    if (!before["metadata"].contains("deletionTimestamp")) {
      if (Status s = StopPod(t, *key, w.namespace_name, w.name, std::max<int64_t>(grace, 0));
          !s.ok())
        return ApiError::FromStatus(s);
      mirror_->Sync(t);
    }
    kube::ObjectPtr after = store_->Get(ids_.pods, w.namespace_name, w.name);
    if (!after)  // Stopped at once (grace 0): gone.
      return ApiAnswer{200,
                       {{"kind", "Status"},
                        {"apiVersion", "v1"},
                        {"status", "Success"},
                        {"details", {{"name", w.name}, {"kind", "pods"}}}}};
    return ApiAnswer{200, after->Parse()};
  }
  auto desired_or = w.transform(current.get());
  if (auto* e = std::get_if<ApiError>(&desired_or)) return *e;
  json desired = std::move(std::get<json>(desired_or));
  const std::string forbidden = FirstForbiddenChange(
      before, desired, {"/metadata/labels"_json_pointer, "/metadata/annotations"_json_pointer});
  if (!forbidden.empty())
    return Invalid(w, forbidden,
                   "the twin's pods take changes of metadata.labels and metadata.annotations only");
  std::map<std::string, std::string> labels = StringMap(desired, "labels");
  for (const auto& [k, v] : labels) {
    if (Status s = kube::CheckLabelKey(k); !s.ok())
      return Invalid(w, "metadata.labels", s.message());
    if (Status s = kube::CheckLabelValue(v); !s.ok())
      return Invalid(w, "metadata.labels." + k, s.message());
  }
  if (w.dry_run) return ApiAnswer{200, std::move(desired)};
  mirror_->SetPodMetadata(key->workload, key->pod_id, std::move(labels),
                          StringMap(desired, "annotations"));
  mirror_->Sync(t);
  return ApiAnswer{200, store_->Get(ids_.pods, w.namespace_name, w.name)->Parse()};
}

TwinBackend::Outcome TwinBackend::Evict(twin::Twin& t, const kube::SubresourceRequest& s) {
  kube::ObjectPtr current = store_->Get(ids_.pods, s.namespace_name, s.name);
  if (!current) return ApiError::NotFound("pods", "", s.name);
  const json pod = current->Parse();
  const json success = {{"kind", "Status"},
                        {"apiVersion", "v1"},
                        {"metadata", json::object()},
                        {"status", "Success"}};
  // A DaemonSet's pod comes back at once; the twin's operator pods are not stopped.
  if (mirror_->IsOperatorPod(s.namespace_name, s.name)) return ApiAnswer{201, success};
  std::optional<TwinMirror::PodKey> key = mirror_->FindPod(s.namespace_name, s.name);
  if (!key) return ApiError::NotFound("pods", "", s.name);
  kube::JsonDecoder d("Eviction");
  const kube::Eviction eviction = kube::DecodeEviction(d, s.body);
  const std::string phase = kube::PathString(pod, "status.phase");
  const bool deleting = pod["metadata"].contains("deletionTimestamp");
  // Pending, terminal or already deleting pods go without a budget check (§3.2).
  if (phase == "Running" && !deleting) {
    const std::map<std::string, std::string> labels = StringMap(pod, "labels");
    const kube::ObjectStore::View pdbs = store_->Snapshot(ids_.pdbs);
    std::vector<json> matching;
    for (const kube::ObjectPtr& b : *pdbs.items) {
      if (b->namespace_name != s.namespace_name) continue;
      json pdb = b->Parse();
      Result<kube::LabelSelector> sel = kube::LabelSelector::FromJson(pdb["spec"]["selector"]);
      // An empty selector matches nothing on the eviction path.
      if (!sel.ok() || sel->empty() || !sel->Matches(labels)) continue;
      matching.push_back(std::move(pdb));
    }
    if (matching.size() > 1)
      return ApiError::Internal(
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
          "not support.");
    if (matching.size() == 1) {
      const json& status = matching[0]["status"];
      if (status.value("disruptionsAllowed", 0) <= 0) {
        ApiError e = ApiError::TooManyRequests(
            "Cannot evict pod as it would violate the pod's disruption budget.", 0);
        e.causes.push_back(
            {"DisruptionBudget",
             fmt::format("The disruption budget {} needs {} healthy pods and has {} currently",
                         kube::PathString(matching[0], "metadata.name"),
                         status.value("desiredHealthy", 0), status.value("currentHealthy", 0)),
             ""});
        return e;
      }
    }
  }
  if (s.dry_run || deleting) return ApiAnswer{201, success};
  const int64_t grace = eviction.delete_options.grace_period_seconds.value_or(
      pod["spec"].value("terminationGracePeriodSeconds", 30));
  if (Status st = StopPod(t, *key, s.namespace_name, s.name, std::max<int64_t>(grace, 0)); !st.ok())
    return ApiError::FromStatus(st);
  return ApiAnswer{201, success};
}

TwinBackend::Outcome TwinBackend::WriteClusterQueue(twin::Twin& t, const kube::WriteRequest& w) {
  kube::ObjectPtr current = store_->Get(ids_.cluster_queues, "", w.name);
  if (!current) return ApiError::NotFound("clusterqueues", "kueue.x-k8s.io", w.name);
  if (w.verb == kube::WriteRequest::Verb::kDelete)
    return ApiError::MethodNotAllowed("DELETE", "clusterqueues");
  auto desired_or = w.transform(current.get());
  if (auto* e = std::get_if<ApiError>(&desired_or)) return *e;
  json desired = std::move(std::get<json>(desired_or));
  const json before = current->Parse();
  // Only nominalQuota and lendingLimit of GPU resources may change: compare everything else.
  struct Change {
    std::string flavor;
    std::optional<int64_t> nominal;  // Set: the new nominal quota.
    bool lending_changed = false;
    std::optional<int64_t> lending;  // The new lendingLimit (nullopt: removed).
    int64_t old_nominal = 0;
  };
  std::vector<Change> changes;
  json a = before, b = desired;
  a.erase("status");
  b.erase("status");
  const json& groups_b = b["spec"]["resourceGroups"];
  const json& groups_a = a["spec"]["resourceGroups"];
  constexpr const char* kOnly =
      "the twin takes changes of nominalQuota and lendingLimit only (same groups, flavors and "
      "resources)";
  if (!groups_b.is_array() || groups_b.size() != groups_a.size())
    return Invalid(w, "spec.resourceGroups", kOnly);
  for (size_t g = 0; g < groups_b.size(); ++g) {
    const json& fb = groups_b[g]["flavors"];
    const json& fa = groups_a[g]["flavors"];
    if (!fb.is_array() || fb.size() != fa.size())
      return Invalid(w, fmt::format("spec.resourceGroups[{}].flavors", g), kOnly);
    for (size_t f = 0; f < fb.size(); ++f) {
      const json& rb = fb[f]["resources"];
      const json& ra = fa[f]["resources"];
      if (!rb.is_array() || rb.size() != ra.size())
        return Invalid(w, fmt::format("spec.resourceGroups[{}].flavors[{}].resources", g, f),
                       kOnly);
      for (size_t r = 0; r < rb.size(); ++r) {
        const std::string resource = rb[r].value("name", "");
        auto parse = [&](const json& q) -> Result<govern::Amount> {
          const std::string text = q.is_string() ? q.get<std::string>() : q.dump();
          return govern::ParseQuantity(text, resource);
        };
        Change c{fb[f].value("name", ""), std::nullopt, false, std::nullopt, 0};
        const std::string at =
            fmt::format("spec.resourceGroups[{}].flavors[{}].resources[{}].", g, f, r);
        Result<govern::Amount> old_q = parse(ra[r].value("nominalQuota", json(nullptr)));
        Result<govern::Amount> new_q = parse(rb[r].value("nominalQuota", json(nullptr)));
        if (!new_q.ok()) return Invalid(w, at + "nominalQuota", new_q.status().message());
        if (old_q.ok()) c.old_nominal = *old_q;
        if (!old_q.ok() || *old_q != *new_q) c.nominal = *new_q;
        // lendingLimit: absent is none (everything lendable).
        const bool had = ra[r].contains("lendingLimit"), has = rb[r].contains("lendingLimit");
        if (has) {
          Result<govern::Amount> l = parse(rb[r]["lendingLimit"]);
          if (!l.ok()) return Invalid(w, at + "lendingLimit", l.status().message());
          c.lending = *l;
        }
        if (had != has) c.lending_changed = true;
        if (had && has) {
          Result<govern::Amount> l = parse(ra[r]["lendingLimit"]);
          c.lending_changed = !l.ok() || *l != *c.lending;
        }
        if (!c.nominal && !c.lending_changed) continue;
        if (resource != kube::kGpuResource)
          return Invalid(w, at + (c.nominal ? "nominalQuota" : "lendingLimit"),
                         "the twin models the quota of nvidia.com/gpu only");
        if (c.lending_changed && !t.governance_policy())
          return Invalid(w, at + "lendingLimit",
                         "a fifo-quota team queue has no cohort, so no lendingLimit");
        changes.push_back(std::move(c));
      }
    }
  }
  // Everything but the nominal quotas and lending limits must be as it was.
  for (json* o : {&a, &b})
    for (json& g : (*o)["spec"]["resourceGroups"])
      for (json& f : g["flavors"])
        for (json& r : f["resources"]) {
          r.erase("nominalQuota");
          r.erase("lendingLimit");
        }
  const std::string forbidden = FirstForbiddenChange(a, b, {});
  if (!forbidden.empty())
    return Invalid(w, forbidden,
                   "the twin takes changes of a ClusterQueue's nominalQuota and lendingLimit "
                   "(nvidia.com/gpu) only");
  if (w.dry_run) return ApiAnswer{200, std::move(desired)};
  for (const Change& c : changes) {
    auto set_nominal = [&]() -> Status {
      if (!c.nominal) return Status::Ok();
      if (t.governance_policy())
        return t.SetClusterQueueQuota(w.name, c.flavor, static_cast<int>(*c.nominal));
      const auto& teams = t.scenario().teams;
      for (size_t i = 0; i < teams.size(); ++i)
        if (teams[i].name == w.name)
          return t.SetTeamQuota(static_cast<int>(i), static_cast<int>(*c.nominal));
      return Status::NotFound("no team " + w.name);
    };
    auto set_lending = [&]() -> Status {
      if (!c.lending_changed) return Status::Ok();
      return t.SetClusterQueueLendingLimit(
          w.name, c.flavor,
          c.lending ? std::optional<int>(static_cast<int>(*c.lending)) : std::nullopt);
    };
    // In the order that keeps lendingLimit <= nominalQuota at every step.
    const bool nominal_down = c.nominal && *c.nominal < c.old_nominal;
    Status s = nominal_down ? set_lending() : set_nominal();
    if (s.ok()) s = nominal_down ? set_nominal() : set_lending();
    if (!s.ok()) return Invalid(w, "spec.resourceGroups", s.message());
  }
  mirror_->Sync(t);
  return ApiAnswer{200, store_->Get(ids_.cluster_queues, "", w.name)->Parse()};
}

}  // namespace steward::kubefront
