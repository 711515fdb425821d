#include "live/kind_lister.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "live/informer.h"

namespace steward::live {
namespace {

using nlohmann::json;

// A served collection: its version and whether it may be listed, from discovery.
struct Served {
  std::string version;
  bool listable = false;
};

// plural -> how it is served, from one APIResourceList (first version seen wins).
void AddResources(const json& list, const std::string& version,
                  std::map<std::string, Served>* out) {
  if (!list.is_object() || !list.contains("resources") || !list["resources"].is_array()) return;
  for (const json& r : list["resources"]) {
    const std::string name = StringField(r, "name");
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

// Whether a failed call means "this kind cannot be read here" (not served, not allowed) rather
// than a broken read.
bool IsUnreadable(const kube::ApiError& e) {
  return e.code == 403 || e.code == 404 || e.code == 405;
}

}  // namespace

Result<KindLists> ListKinds(KubeClient* client, const std::vector<KindToList>& kinds) {
  const std::string& server = client->config().server;
  KindLists out;

  // Discovery. group -> plural -> how served; a group missing here is not served at all.
  std::map<std::string, std::map<std::string, Served>> served;
  std::map<std::string, std::string> group_unreadable;  // group -> why its discovery failed.
  std::set<std::string> wanted;
  for (const KindToList& k : kinds) wanted.insert(std::string(k.group));
  if (wanted.count("")) {
    ApiResult core = client->Get("/api/v1");
    if (core.ok()) {
      AddResources(core.value(), "v1", &served[""]);
    } else if (IsUnreadable(core.error())) {
      group_unreadable[""] = fmt::format("discovery /api/v1: {}", ErrorText(core.error()));
    } else {
      return Status::Unavailable(
          fmt::format("{}: discovery /api/v1: {}", server, core.ToStatus().message()));
    }
  }
  if (wanted.size() > wanted.count("")) {
    ApiResult groups = client->Get("/apis");
    if (!groups.ok())
      return Status::Unavailable(
          fmt::format("{}: discovery /apis: {}", server, groups.ToStatus().message()));
    const json& group_list = groups.value().value("groups", json::array());
    for (const json& g : group_list.is_array() ? group_list : json::array()) {
      const std::string name = StringField(g, "name");
      if (name.empty() || !wanted.count(name)) continue;
      // The preferred version first, then the others.
      std::vector<std::string> versions;
      if (g.contains("preferredVersion"))
        versions.push_back(StringField(g["preferredVersion"], "version"));
      if (g.contains("versions") && g["versions"].is_array())
        for (const json& v : g["versions"])
          if (std::string s = StringField(v, "version");
              !s.empty() && std::find(versions.begin(), versions.end(), s) == versions.end())
            versions.push_back(s);
      auto& resources = served[name];
      for (const std::string& version : versions) {
        if (version.empty()) continue;
        const std::string path = fmt::format("/apis/{}/{}", name, version);
        ApiResult list = client->Get(path);
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
  }

  // One paged list per kind.
  for (const KindToList& k : kinds) {
    const std::string group(k.group);
    auto unread = [&](std::string reason) {
      out.not_read.push_back({std::string(k.kind), std::move(reason)});
    };
    const auto g = served.find(group);
    if (g == served.end()) {
      if (auto u = group_unreadable.find(group); u != group_unreadable.end()) {
        unread(u->second);
      } else if (k.optional_group) {
        if (std::find(out.not_installed.begin(), out.not_installed.end(), group) ==
            out.not_installed.end())
          out.not_installed.push_back(group);
      } else {
        unread(fmt::format("not served (API group {} absent from discovery)", group));
      }
      continue;
    }
    const auto res = g->second.find(std::string(k.plural));
    // Core discovery that could not be read: try the list anyway.
    const bool unknown = group.empty() && group_unreadable.count("");
    if (res == g->second.end() && !unknown) {
      unread(fmt::format("not served ({} absent from discovery of {})", k.plural,
                         group.empty() ? "/api/v1" : group));
      continue;
    }
    if (res != g->second.end() && !res->second.listable) {
      unread(fmt::format("not served (the server does not allow list on {})", k.plural));
      continue;
    }
    const std::string version = res != g->second.end() ? res->second.version : "v1";
    const std::string path = ResourceRef{group, version, std::string(k.plural), false}.Path();
    ApiResult list = client->List(path);
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
    if (!doc.contains("items") || !doc["items"].is_array()) doc["items"] = json::array();
    for (json& item : doc["items"]) {
      if (!item.is_object()) continue;
      if (!item.contains("kind")) item["kind"] = k.kind;
      if (!item.contains("apiVersion")) item["apiVersion"] = api_version;
      ++out.objects;
    }
    doc["kind"] = "List";
    doc["apiVersion"] = "v1";
    out.lists.push_back({std::string(k.kind), path, std::move(doc)});
  }
  return out;
}

}  // namespace steward::live
