#include "audit_live/cluster_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "audit/loader.h"

namespace steward::audit_live {
namespace {

using nlohmann::json;

// A served collection: its version and verbs, from discovery.
struct Served {
  std::string version;
  bool listable = false;
};

std::string Str(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

// plural -> how it is served, from one APIResourceList (first version seen wins).
void AddResources(const json& list, const std::string& version,
                  std::map<std::string, Served>* out) {
  if (!list.is_object() || !list.contains("resources") || !list["resources"].is_array()) return;
  for (const json& r : list["resources"]) {
    const std::string name = Str(r, "name");
    if (name.empty() || name.find('/') != std::string::npos || out->count(name)) continue;
    bool listable = false;
    if (r.contains("verbs") && r["verbs"].is_array())
      listable = std::find(r["verbs"].begin(), r["verbs"].end(), "list") != r["verbs"].end();
    (*out)[name] = {version, listable};
  }
}

std::string ErrorText(const kube::ApiError& e) {
  return fmt::format("{} {}{}", e.code, e.reason, e.message.empty() ? "" : ": " + e.message);
}

// Whether a failed list means "this kind cannot be read here" (not served, not allowed) rather
// than a broken read.
bool IsUnreadable(const kube::ApiError& e) {
  return e.code == 403 || e.code == 404 || e.code == 405;
}

}  // namespace

const std::vector<AuditResource>& AuditResources() {
  static const std::vector<AuditResource> kResources = {
      {"Namespace", "", "namespaces", false},
      {"ResourceQuota", "", "resourcequotas", false},
      {"LimitRange", "", "limitranges", false},
      {"Role", "rbac.authorization.k8s.io", "roles", false},
      {"ClusterRole", "rbac.authorization.k8s.io", "clusterroles", false},
      {"RoleBinding", "rbac.authorization.k8s.io", "rolebindings", false},
      {"ClusterRoleBinding", "rbac.authorization.k8s.io", "clusterrolebindings", false},
      {"NetworkPolicy", "networking.k8s.io", "networkpolicies", false},
      {"Node", "", "nodes", false},
      {"Pod", "", "pods", false},
      {"PodDisruptionBudget", "policy", "poddisruptionbudgets", false},
      {"ConfigMap", "", "configmaps", false},
      {"ResourceFlavor", "kueue.x-k8s.io", "resourceflavors", true},
      {"ClusterQueue", "kueue.x-k8s.io", "clusterqueues", true},
      {"LocalQueue", "kueue.x-k8s.io", "localqueues", true},
      {"Cohort", "kueue.x-k8s.io", "cohorts", true},
      {"WorkloadPriorityClass", "kueue.x-k8s.io", "workloadpriorityclasses", true},
      {"Queue", "scheduling.volcano.sh", "queues", true},
      {"PodGroup", "scheduling.volcano.sh", "podgroups", true},
  };
  return kResources;
}

Result<ClusterRead> ReadClusterObjects(live::KubeClient* client, audit::ObjectSet* set) {
  const std::string& server = client->config().server;
  ClusterRead read;

  // Discovery. group -> plural -> how served; a group missing here is not served at all.
  std::map<std::string, std::map<std::string, Served>> served;
  std::map<std::string, std::string> group_unreadable;  // group -> why its discovery failed.
  live::ApiResult core = client->Get("/api/v1");
  if (core.ok()) {
    AddResources(core.value(), "v1", &served[""]);
  } else if (IsUnreadable(core.error())) {
    group_unreadable[""] = fmt::format("discovery /api/v1: {}", ErrorText(core.error()));
  } else {
    return Status::Unavailable(
        fmt::format("{}: discovery /api/v1: {}", server, core.ToStatus().message()));
  }
  live::ApiResult groups = client->Get("/apis");
  if (!groups.ok())
    return Status::Unavailable(
        fmt::format("{}: discovery /apis: {}", server, groups.ToStatus().message()));
  std::set<std::string> wanted;
  for (const AuditResource& r : AuditResources())
    if (!r.group.empty()) wanted.insert(std::string(r.group));
  const json& group_list = groups.value().value("groups", json::array());
  for (const json& g : group_list.is_array() ? group_list : json::array()) {
    const std::string name = Str(g, "name");
    if (!wanted.count(name)) continue;
    // The preferred version first, then the others (Kueue serves Cohorts at v1alpha1 in
    // releases whose preferred version is v1beta1).
    std::vector<std::string> versions;
    if (g.contains("preferredVersion")) versions.push_back(Str(g["preferredVersion"], "version"));
    if (g.contains("versions") && g["versions"].is_array())
      for (const json& v : g["versions"])
        if (std::string s = Str(v, "version");
            !s.empty() && std::find(versions.begin(), versions.end(), s) == versions.end())
          versions.push_back(s);
    auto& resources = served[name];
    for (const std::string& version : versions) {
      if (version.empty()) continue;
      const std::string path = fmt::format("/apis/{}/{}", name, version);
      live::ApiResult list = client->Get(path);
      if (list.ok()) {
        AddResources(list.value(), version, &resources);
      } else if (IsUnreadable(list.error())) {
        group_unreadable[name] = fmt::format("discovery {}: {}", path, ErrorText(list.error()));
      } else {
        return Status::Unavailable(
            fmt::format("{}: discovery {}: {}", server, path, list.ToStatus().message()));
      }
    }
  }

  // One paged list per kind.
  for (const AuditResource& r : AuditResources()) {
    const std::string group(r.group);
    auto unread = [&](std::string reason) {
      set->not_read.push_back({std::string(r.kind), std::move(reason)});
    };
    const auto g = served.find(group);
    if (g == served.end()) {
      if (auto u = group_unreadable.find(group); u != group_unreadable.end()) {
        unread(u->second);
      } else if (r.optional_group) {
        if (std::find(read.not_installed.begin(), read.not_installed.end(), group) ==
            read.not_installed.end())
          read.not_installed.push_back(group);
      } else {
        unread(fmt::format("not served (API group {} absent from discovery)", group));
      }
      continue;
    }
    const auto res = g->second.find(std::string(r.plural));
    // Core discovery that could not be read: try the list anyway.
    const bool unknown = group.empty() && group_unreadable.count("");
    if (res == g->second.end() && !unknown) {
      unread(fmt::format("not served ({} absent from discovery of {})", r.plural,
                         group.empty() ? "/api/v1" : group));
      continue;
    }
    if (res != g->second.end() && !res->second.listable) {
      unread(fmt::format("not served (the server does not allow list on {})", r.plural));
      continue;
    }
    const std::string version = res != g->second.end() ? res->second.version : "v1";
    const live::ResourceRef ref{group, version, std::string(r.plural), false};
    const std::string path = ref.Path();
    live::ApiResult list = client->List(path);
    if (!list.ok()) {
      const kube::ApiError& e = list.error();
      if (!IsUnreadable(e))
        return Status::Unavailable(
            fmt::format("{}: list {}: {}", server, path, list.ToStatus().message()));
      unread(fmt::format("{} ({} on {})", e.code == 403 ? "forbidden" : "not served", ErrorText(e),
                         path));
      continue;
    }
    json doc = std::move(list).value();
    // Lists of built-in kinds carry no kind or apiVersion on their items.
    const std::string api_version = group.empty() ? version : group + "/" + version;
    if (doc.contains("items") && doc["items"].is_array()) {
      for (json& item : doc["items"]) {
        if (!item.is_object()) continue;
        if (!item.contains("kind")) item["kind"] = r.kind;
        if (!item.contains("apiVersion")) item["apiVersion"] = api_version;
        ++read.objects;
      }
    }
    doc["kind"] = "List";
    STEWARD_RETURN_IF_ERROR(audit::ParseApiList(doc, server + path, set));
    ++read.lists;
  }
  return read;
}

}  // namespace steward::audit_live
