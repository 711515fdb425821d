// ApiServer discovery: /, /healthz, /version, /api, /api/v1, /apis, /apis/GROUP[/VERSION].

#include <fmt/format.h>

#include <algorithm>

#include "kube/api_server.h"
#include "kube/api_server_internal.h"

namespace steward::kube {

using nlohmann::json;
using namespace internal;

http::Reply ApiServer::Discovery(const http::Request& r) const {
  const std::vector<std::string_view> parts = Split(r.path);
  if (parts.empty()) {
    json paths =
        json::array({"/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version"});
    return JsonReply(200, {{"paths", paths}});
  }
  if (parts[0] == "healthz" || parts[0] == "livez" || parts[0] == "readyz")
    return http::Reply::Text(200, "ok");
  if (parts[0] == "version" && parts.size() == 1) {
    return JsonReply(200, {{"major", "1"},
                           {"minor", "32"},
                           {"gitVersion", options_.git_version},
                           {"gitCommit", "steward"},
                           {"gitTreeState", "clean"},
                           {"buildDate", "2026-01-01T00:00:00Z"},
                           {"goVersion", "n/a (Steward, C++)"},
                           {"compiler", "gc"},
                           {"platform", "linux/amd64"}});
  }
  auto resource_list = [&](std::string_view group, std::string_view version) {
    json list = json::array();
    for (const auto& res : resources_) {
      if (res->group != group ||
          std::find(res->versions.begin(), res->versions.end(), version) == res->versions.end())
        continue;
      json entry = {{"name", res->name},
                    {"singularName", res->singular},
                    {"namespaced", res->namespaced},
                    {"kind", res->kind},
                    {"verbs", res->verbs}};
      if (!res->short_names.empty()) entry["shortNames"] = res->short_names;
      if (!res->categories.empty()) entry["categories"] = res->categories;
      list.push_back(entry);
      for (const std::string& sub : res->subresources) {
        // kubectl drain looks for pods/eviction with group policy, version v1, kind Eviction
        // (without it, drain deletes pods and bypasses budgets).
        json s = {{"name", res->name + "/" + sub},
                  {"singularName", ""},
                  {"namespaced", res->namespaced},
                  {"verbs", {"create"}}};
        if (sub == "eviction") {
          s["group"] = "policy";
          s["version"] = "v1";
          s["kind"] = "Eviction";
        } else {
          s["kind"] = res->kind;
        }
        list.push_back(s);
      }
    }
    return json{{"kind", "APIResourceList"},
                {"apiVersion", "v1"},
                {"groupVersion", GroupVersion(group, version)},
                {"resources", list}};
  };
  std::string host(r.Header("Host"));
  if (host.empty()) host = "127.0.0.1";
  if (parts[0] == "api") {
    if (parts.size() == 1)
      return JsonReply(200, {{"kind", "APIVersions"},
                             {"versions", {"v1"}},
                             {"serverAddressByClientCIDRs",
                              {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", host}}}}});
    if (parts[1] != "v1") return ErrorReply(ApiError::NotFound("", "", r.path));
    return JsonReply(200, resource_list("", "v1"));
  }
  if (parts[0] != "apis") return ErrorReply(ApiError::NotFound("", "", r.path));
  // Groups in registration order, each with its versions in preference order.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& res : resources_) {
    if (res->group.empty()) continue;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& x) { return x.first == res->group; });
    if (g == groups.end()) {
      groups.push_back({res->group, {}});
      g = groups.end() - 1;
    }
    for (const std::string& v : res->versions)
      if (std::find(g->second.begin(), g->second.end(), v) == g->second.end())
        g->second.push_back(v);
  }
  auto group_json = [&](const std::pair<std::string, std::vector<std::string>>& g) {
    json versions = json::array();
    for (const std::string& v : g.second)
      versions.push_back({{"groupVersion", GroupVersion(g.first, v)}, {"version", v}});
    return json{{"name", g.first}, {"versions", versions}, {"preferredVersion", versions.front()}};
  };
  if (parts.size() == 1) {
    json list = json::array();
    for (const auto& g : groups) list.push_back(group_json(g));
    return JsonReply(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}});
  }
  auto g = std::find_if(groups.begin(), groups.end(),
                        [&](const auto& x) { return x.first == parts[1]; });
  if (g == groups.end()) return ErrorReply(ApiError::NotFound("", "", r.path));
  if (parts.size() == 2) {
    json j = group_json(*g);
    j["kind"] = "APIGroup";
    j["apiVersion"] = "v1";
    return JsonReply(200, j);
  }
  if (std::find(g->second.begin(), g->second.end(), parts[2]) == g->second.end())
    return ErrorReply(ApiError::NotFound("", "", r.path));
  return JsonReply(200, resource_list(g->first, parts[2]));
}

}  // namespace steward::kube
