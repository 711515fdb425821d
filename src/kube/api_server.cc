#include "kube/api_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <thread>

#include "kube/json_decoder.h"
#include "kube/patch.h"
#include "kube/selector.h"
#include "model/text.h"

namespace steward::kube {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr char kTableContentType[] = "application/json;as=Table;v=v1;g=meta.k8s.io";

std::string GroupVersion(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : fmt::format("{}/{}", group, version);
}

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    const size_t j = path.find('/', i);
    const size_t end = j == std::string_view::npos ? path.size() : j;
    if (end > i) parts.push_back(path.substr(i, end - i));
    i = end;
  }
  return parts;
}

// Whether the client asked for a Table (kubectl's human output does; it lists plain JSON as a
// fallback, which every other client gets).
bool WantsTable(const http::Request& r) {
  const std::string_view accept = r.Header("Accept");
  size_t start = 0;
  while (start < accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    const std::string_view item = accept.substr(start, end - start);
    if (item.find("as=Table") != std::string_view::npos &&
        item.find("g=meta.k8s.io") != std::string_view::npos)
      return true;
    start = end + 1;
  }
  return false;
}

IncludeObject IncludeObjectParam(const http::Request& r) {
  const std::string v = r.Param("includeObject");
  if (v == "None") return IncludeObject::kNone;
  if (v == "Object") return IncludeObject::kObject;
  return IncludeObject::kMetadata;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool IsTrue(const std::string& v) { return v == "1" || v == "true" || v == "True"; }

// Continue tokens: the snapshot's version and the last key returned, base64 (opaque to
// clients, as Kubernetes' are).
std::string EncodeContinue(int64_t rv, const StoredObject& last) {
  json t = {{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", last.namespace_name + "/" + last.name}};
  return model::Base64Encode(t.dump());
}

struct ContinueToken {
  int64_t rv = 0;
  std::string ns, name;
};

std::optional<ContinueToken> DecodeContinue(const std::string& token) {
  std::optional<std::string> raw = model::Base64Decode(token);
  if (!raw) return std::nullopt;
  json t = json::parse(*raw, nullptr, false);
  if (!t.is_object() || !t.contains("rv") || !t["rv"].is_number_integer() || !t.contains("start") ||
      !t["start"].is_string())
    return std::nullopt;
  const std::string start = t["start"].get<std::string>();
  const size_t slash = start.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return ContinueToken{t["rv"].get<int64_t>(), start.substr(0, slash), start.substr(slash + 1)};
}

std::string DryRunError(const http::Request& r, bool* dry_run) {
  *dry_run = false;
  for (auto [it, end] = r.params.equal_range("dryRun"); it != end; ++it) {
    if (it->second != "All") return fmt::format("unsupported dry run value: {}", it->second);
    *dry_run = true;
  }
  return {};
}

// Selectors and the value a field selector reads from a stored object.
struct Filter {
  std::string ns;  // "" = every namespace.
  LabelSelector labels;
  FieldSelector fields;
  const ApiResourceSpec* resource = nullptr;

  std::optional<std::string> Field(const StoredObject& o, std::string_view f) const {
    if (f == "metadata.name") return o.name;
    if (f == "metadata.namespace") return o.namespace_name;
    for (size_t i = 0; i < resource->fields.size(); ++i)
      if (resource->fields[i].first == f && i < o.fields.size()) return o.fields[i];
    return std::nullopt;
  }
  bool Matches(const StoredObject& o) const {
    if (!ns.empty() && o.namespace_name != ns) return false;
    if (!labels.Matches(o.labels)) return false;
    return fields.empty() || fields.Matches([&](std::string_view f) { return Field(o, f); });
  }
};

std::variant<Filter, ApiError> MakeFilter(const ApiResourceSpec& resource, std::string ns,
                                          const http::Request& r) {
  Filter f;
  f.ns = std::move(ns);
  f.resource = &resource;
  Result<LabelSelector> labels = LabelSelector::Parse(r.Param("labelSelector"));
  if (!labels.ok()) return ApiError::BadRequest(labels.status().message());
  f.labels = std::move(labels).value();
  Result<FieldSelector> fields = FieldSelector::Parse(r.Param("fieldSelector"));
  if (!fields.ok()) return ApiError::BadRequest(fields.status().message());
  std::vector<std::string_view> supported = {"metadata.name", "metadata.namespace"};
  for (const auto& [name, getter] : resource.fields) supported.push_back(name);
  if (Status s = fields->CheckFields(supported); !s.ok()) return ApiError::BadRequest(s.message());
  f.fields = std::move(fields).value();
  return f;
}

const TablePrinter& PrinterOf(const ApiResourceSpec& r) {
  return r.printer.columns.empty() ? DefaultTablePrinter() : r.printer;
}

// One Table row of a stored object.
void AppendRow(std::string& out, const ApiResourceSpec& resource, const StoredObject& o,
               int64_t now, IncludeObject include, const std::string& api_version) {
  const TablePrinter& printer = PrinterOf(resource);
  const json& cells =
      resource.printer.columns.empty() ? DefaultTablePrinter().cells(o.Parse()) : o.cells;
  out += "{\"cells\":";
  out += RenderCells(printer, cells, now).dump(-1, ' ', false, json::error_handler_t::replace);
  switch (include) {
    case IncludeObject::kNone:
      break;
    case IncludeObject::kMetadata:
      out +=
          ",\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
          "\"metadata\":";
      out += o.metadata_json;
      out += "}";
      break;
    case IncludeObject::kObject:
      out += ",\"object\":";
      out += o.json;
      break;
  }
  (void)api_version;
  out += "}";
}

std::string ListMeta(int64_t rv, const std::string& cont, std::optional<int64_t> remaining) {
  json meta = {{"resourceVersion", std::to_string(rv)}};
  if (!cont.empty()) meta["continue"] = cont;
  if (remaining) meta["remainingItemCount"] = *remaining;
  return meta.dump();
}

}  // namespace

http::Reply JsonReply(int code, const json& body) {
  http::Reply r;
  r.status = code;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

http::Reply ErrorReply(const ApiError& e) {
  http::Reply r = JsonReply(e.code, ToJson(e));
  if (e.retry_after_seconds > 0) r.WithHeader("Retry-After", std::to_string(e.retry_after_seconds));
  return r;
}

struct ApiServer::Route {
  const ApiResourceSpec* resource = nullptr;
  int store_id = 0;
  std::string version;
  std::string ns;
  std::string name;
  std::string subresource;
};

ApiServer::ApiServer(ObjectStore* store, ApiServerOptions options)
    : store_(store), options_(std::move(options)) {}

int ApiServer::AddResource(ApiResourceSpec spec) {
  StoredResourceSpec stored;
  stored.name = spec.name;
  stored.group = spec.group;
  stored.namespaced = spec.namespaced;
  stored.fields = spec.fields;
  if (!spec.printer.columns.empty()) stored.cells = spec.printer.cells;
  const int id = store_->AddResource(std::move(stored));
  by_name_[{spec.group, spec.name}] = resources_.size();
  resources_.push_back(std::make_unique<ApiResourceSpec>(std::move(spec)));
  store_ids_.push_back(id);
  return id;
}

const ApiResourceSpec* ApiServer::FindResource(std::string_view group,
                                               std::string_view name) const {
  auto it = by_name_.find(std::make_pair(std::string(group), std::string(name)));
  return it == by_name_.end() ? nullptr : resources_[it->second].get();
}

void ApiServer::SetBackend(std::string_view group, std::string_view name,
                           ResourceBackend* backend) {
  auto it = by_name_.find(std::make_pair(std::string(group), std::string(name)));
  STEWARD_CHECK(it != by_name_.end());
  resources_[it->second]->backend = backend;
}

int ApiServer::StoreId(const ApiResourceSpec* resource) const {
  for (size_t i = 0; i < resources_.size(); ++i)
    if (resources_[i].get() == resource) return store_ids_[i];
  return -1;
}

std::variant<ApiServer::Route, ApiError> ApiServer::Parse(const http::Request& r) const {
  const std::vector<std::string_view> parts = Split(r.path);
  std::string group, version;
  size_t rest = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    version = parts[1];
    rest = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    rest = 3;
  } else {
    return ApiError::NotFound("", "", r.path);
  }
  const size_t n = parts.size() - rest;
  Route route;
  route.version = version;
  std::string_view resource_name;
  size_t i = rest;
  if (n >= 3 && parts[i] == "namespaces") {
    route.ns = parts[i + 1];
    resource_name = parts[i + 2];
    i += 3;
  } else if (n >= 1) {
    resource_name = parts[i];
    i += 1;
  }
  if (i < parts.size()) route.name = parts[i++];
  if (i < parts.size()) route.subresource = parts[i++];
  if (i < parts.size() || resource_name.empty()) return ApiError::NotFound("", "", r.path);
  route.resource = FindResource(group, resource_name);
  if (!route.resource || std::find(route.resource->versions.begin(), route.resource->versions.end(),
                                   version) == route.resource->versions.end()) {
    ApiError e = ApiError::NotFound("", "", "");
    e.message = "the server could not find the requested resource";
    e.name.clear();
    return e;
  }
  if (!route.resource->namespaced && !route.ns.empty()) {
    ApiError e = ApiError::NotFound("", "", "");
    e.message = fmt::format(
        "the server could not find the requested resource ({} is not "
        "namespaced)",
        route.resource->name);
    return e;
  }
  route.store_id = StoreId(route.resource);
  return route;
}

http::Reply ApiServer::Handle(const http::Request& r) {
  const std::vector<std::string_view> parts = Split(r.path);
  const bool api_path = !parts.empty() && (parts[0] == "api" || parts[0] == "apis");
  const bool discovery = !api_path || (parts[0] == "api" && parts.size() <= 2) ||
                         (parts[0] == "apis" && parts.size() <= 3);
  if (discovery) {
    if (r.method != "GET")
      return ErrorReply(ApiError::MethodNotAllowed(r.method, r.path)).WithHeader("Allow", "GET");
    return Discovery(r);
  }
  auto parsed = Parse(r);
  if (auto* e = std::get_if<ApiError>(&parsed)) return ErrorReply(*e);
  const Route& route = std::get<Route>(parsed);
  const std::vector<std::string>& verbs = route.resource->verbs;
  auto allows = [&](std::string_view v) {
    return std::find(verbs.begin(), verbs.end(), v) != verbs.end();
  };
  // The Allow header lists what the path takes, for a 405.
  auto refuse = [&](std::vector<std::string_view> methods) {
    std::string allow;
    for (std::string_view m : methods) allow += (allow.empty() ? "" : ", ") + std::string(m);
    return ErrorReply(ApiError::MethodNotAllowed(r.method, r.path)).WithHeader("Allow", allow);
  };
  if (!route.subresource.empty()) {
    if (std::find(route.resource->subresources.begin(), route.resource->subresources.end(),
                  route.subresource) == route.resource->subresources.end())
      return ErrorReply(ApiError::NotFound(route.resource->name + "/" + route.subresource,
                                           route.resource->group, route.name));
    if (r.method != "POST") return refuse({"POST"});
    return Subresource(route, r);
  }
  if (route.name.empty()) {
    std::vector<std::string_view> methods;
    if (allows("list") || allows("watch")) methods.push_back("GET");
    if (allows("create")) methods.push_back("POST");
    if (r.method == "GET" && IsTrue(r.Param("watch"))) {
      if (!allows("watch")) return refuse(methods);
      return Watch(route, r);
    }
    if (r.method == "GET" && allows("list")) return List(route, r);
    if (r.method == "POST" && allows("create")) return Create(route, r);
    return refuse(methods);
  }
  std::vector<std::string_view> methods;
  if (allows("get")) methods.push_back("GET");
  if (allows("update")) methods.push_back("PUT");
  if (allows("patch")) methods.push_back("PATCH");
  if (allows("delete")) methods.push_back("DELETE");
  if (r.method == "GET" && allows("get")) {
    if (IsTrue(r.Param("watch"))) return refuse(methods);
    return Get(route, r);
  }
  if ((r.method == "PUT" && allows("update")) || (r.method == "PATCH" && allows("patch")))
    return Modify(route, r);
  if (r.method == "DELETE" && allows("delete")) return Delete(route, r);
  return refuse(methods);
}

// ---- Discovery -------------------------------------------------------------------------

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

// ---- Reads -----------------------------------------------------------------------------

std::variant<ObjectStore::View, ApiError> ApiServer::CachedSnapshot(int store_id, int64_t version) {
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    for (auto it = snapshot_cache_.begin(); it != snapshot_cache_.end(); ++it) {
      if (it->first != std::make_pair(store_id, version)) continue;
      snapshot_cache_.splice(snapshot_cache_.begin(), snapshot_cache_, it);
      return snapshot_cache_.front().second;
    }
  }
  auto view = store_->SnapshotAt(store_id, version);
  if (auto* v = std::get_if<ObjectStore::View>(&view)) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    snapshot_cache_.emplace_front(std::make_pair(store_id, version), *v);
    while (snapshot_cache_.size() > options_.snapshot_cache_entries) snapshot_cache_.pop_back();
  }
  return view;
}

http::Reply ApiServer::List(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  auto filter_or = MakeFilter(res, route.ns, r);
  if (auto* e = std::get_if<ApiError>(&filter_or)) return ErrorReply(*e);
  const Filter& filter = std::get<Filter>(filter_or);
  int64_t limit = 0;
  if (const std::string l = r.Param("limit"); !l.empty()) {
    std::optional<int64_t> v = ParseInt(l);
    if (!v || *v < 0) return ErrorReply(ApiError::BadRequest(fmt::format("invalid limit: {}", l)));
    limit = *v;
  }
  const std::string rv_param = r.Param("resourceVersion");
  const std::string match = r.Param("resourceVersionMatch");
  if (!match.empty() && match != "Exact" && match != "NotOlderThan")
    return ErrorReply(ApiError::BadRequest(
        fmt::format("resourceVersionMatch: unsupported value '{}' (Exact, NotOlderThan)", match)));
  if (!match.empty() && rv_param.empty())
    return ErrorReply(ApiError::BadRequest(
        "resourceVersionMatch is forbidden unless resourceVersion is provided"));

  ObjectStore::View view;
  std::optional<ContinueToken> from;
  if (const std::string token = r.Param("continue"); !token.empty()) {
    if (!rv_param.empty())
      return ErrorReply(
          ApiError::BadRequest("specifying resource version is not allowed when using continue"));
    from = DecodeContinue(token);
    if (!from) return ErrorReply(ApiError::BadRequest("continue key is not valid"));
    auto v = CachedSnapshot(route.store_id, from->rv);
    if (auto* e = std::get_if<ApiError>(&v)) {
      ApiError gone = ApiError::Gone(
          "The provided continue parameter is too old to display a consistent list result. "
          "You can start a new list without the continue parameter.");
      return ErrorReply(e->code == 410 ? gone : *e);
    }
    view = std::get<ObjectStore::View>(v);
  } else if (rv_param.empty() || rv_param == "0") {
    view = store_->Snapshot(route.store_id);
  } else {
    std::optional<int64_t> rv = ParseInt(rv_param);
    if (!rv || *rv < 0)
      return ErrorReply(
          ApiError::BadRequest(fmt::format("invalid resource version: {}", rv_param)));
    if (match == "Exact") {
      auto v = CachedSnapshot(route.store_id, *rv);
      if (auto* e = std::get_if<ApiError>(&v)) return ErrorReply(*e);
      view = std::get<ObjectStore::View>(v);
    } else {
      // NotOlderThan: wait a little for a version the store has not reached yet.
      const Clock::time_point deadline = Clock::now() + std::chrono::seconds(3);
      while (store_->resource_version() < *rv && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (store_->resource_version() < *rv)
        return ErrorReply(ApiError::Timeout(fmt::format(
            "Too large resource version: {}, current: {}", *rv, store_->resource_version())));
      view = store_->Snapshot(route.store_id);
    }
  }

  const ObjectStore::Items& items = *view.items;
  auto it = items.begin();
  if (from) {
    it = std::upper_bound(items.begin(), items.end(), std::make_pair(from->ns, from->name),
                          [](const auto& key, const ObjectPtr& o) {
                            return std::tie(key.first, key.second) <
                                   std::tie(o->namespace_name, o->name);
                          });
  }
  std::vector<const StoredObject*> page;
  for (; it != items.end(); ++it) {
    if (!filter.Matches(**it)) continue;
    if (limit > 0 && static_cast<int64_t>(page.size()) == limit) break;
    page.push_back(it->get());
  }
  std::string cont;
  std::optional<int64_t> remaining;
  if (it != items.end() && !page.empty()) {
    cont = EncodeContinue(view.resource_version, *page.back());
    if (filter.labels.empty() && filter.fields.empty() && route.ns.empty())
      remaining = items.end() - it;
  }

  const std::string api_version = GroupVersion(res.group, route.version);
  http::Reply reply;
  std::string& out = reply.body;
  if (WantsTable(r)) {
    reply.content_type = kTableContentType;
    const int64_t now = Now();
    const IncludeObject include = IncludeObjectParam(r);
    out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
    out += ListMeta(view.resource_version, cont, remaining);
    out += ",\"columnDefinitions\":";
    out += ColumnDefinitions(PrinterOf(res)).dump();
    out += ",\"rows\":[";
    for (size_t i = 0; i < page.size(); ++i) {
      if (i) out += ',';
      AppendRow(out, res, *page[i], now, include, api_version);
    }
    out += "]}";
    return reply;
  }
  size_t bytes = 128;
  for (const StoredObject* o : page) bytes += o->json.size() + 1;
  out.reserve(bytes);
  out = fmt::format("{{\"kind\":\"{}List\",\"apiVersion\":\"{}\",\"metadata\":", res.kind,
                    api_version);
  out += ListMeta(view.resource_version, cont, remaining);
  out += ",\"items\":[";
  for (size_t i = 0; i < page.size(); ++i) {
    if (i) out += ',';
    out += page[i]->json;
  }
  out += "]}";
  return reply;
}

http::Reply ApiServer::Get(const Route& route, const http::Request& r) {
  ObjectPtr o = store_->Get(route.store_id, route.ns, route.name);
  if (!o)
    return ErrorReply(ApiError::NotFound(route.resource->name, route.resource->group, route.name));
  http::Reply reply;
  if (WantsTable(r)) {
    reply.content_type = kTableContentType;
    std::string& out = reply.body;
    out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
    out += ListMeta(o->resource_version, "", std::nullopt);
    out += ",\"columnDefinitions\":";
    out += ColumnDefinitions(PrinterOf(*route.resource)).dump();
    out += ",\"rows\":[";
    AppendRow(out, *route.resource, *o, Now(), IncludeObjectParam(r),
              GroupVersion(route.resource->group, route.version));
    out += "]}";
    return reply;
  }
  reply.body = o->json;
  return reply;
}

http::Reply ApiServer::Watch(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  auto filter_or = MakeFilter(res, route.ns, r);
  if (auto* e = std::get_if<ApiError>(&filter_or)) return ErrorReply(*e);
  Filter filter = std::get<Filter>(filter_or);
  const std::string rv_param = r.Param("resourceVersion");
  const bool bookmarks = IsTrue(r.Param("allowWatchBookmarks"));
  const bool send_initial = IsTrue(r.Param("sendInitialEvents"));
  if (send_initial && (r.Param("resourceVersionMatch") != "NotOlderThan" || !bookmarks))
    return ErrorReply(ApiError::Invalid(
        "ListOptions", "meta.k8s.io", "",
        {{"FieldValueForbidden",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan and "
          "allowWatchBookmarks",
          "sendInitialEvents"}}));
  std::chrono::seconds timeout = options_.default_watch_timeout;
  if (const std::string t = r.Param("timeoutSeconds"); !t.empty()) {
    std::optional<int64_t> v = ParseInt(t);
    if (!v || *v < 0)
      return ErrorReply(ApiError::BadRequest(fmt::format("invalid timeoutSeconds: {}", t)));
    if (*v > 0) timeout = std::chrono::seconds(*v);
  }
  // Where the stream starts: after a given version, or (unset / "0", or sendInitialEvents)
  // with the current state as synthetic ADDED events.
  bool initial = send_initial || rv_param.empty() || rv_param == "0";
  int64_t from = 0;
  std::shared_ptr<const ObjectStore::Items> initial_items;
  std::optional<ApiError> expired;
  if (initial) {
    ObjectStore::View v = store_->Snapshot(route.store_id);
    from = v.resource_version;
    initial_items = v.items;
  } else {
    std::optional<int64_t> rv = ParseInt(rv_param);
    if (!rv || *rv < 0)
      return ErrorReply(
          ApiError::BadRequest(fmt::format("invalid resource version: {}", rv_param)));
    from = *rv;
    expired = store_->CheckWatchable(from);
  }
  if (open_watches_.fetch_add(1) >= options_.max_watches) {
    open_watches_.fetch_sub(1);
    return ErrorReply(ApiError::TooManyRequests(
        fmt::format("too many watches open (limit {}); retry shortly", options_.max_watches), 1));
  }

  const bool table = WantsTable(r);
  const IncludeObject include = IncludeObjectParam(r);
  const std::string api_version = GroupVersion(res.group, route.version);
  http::Reply reply;
  reply.content_type = table ? kTableContentType : "application/json";
  const int store_id = route.store_id;
  reply.stream = [this, filter, from, initial_items, expired, table, include, api_version,
                  bookmarks, send_initial, timeout, store_id,
                  &res](const http::StreamWriter& write) {
    struct Done {
      std::atomic<int>* n;
      ~Done() { n->fetch_sub(1); }
    } done{&open_watches_};
    bool columns_sent = false;
    auto object_text = [&](const StoredObject& o) {
      if (!table) return o.json;
      std::string out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
      out += ListMeta(o.resource_version, "", std::nullopt);
      if (!columns_sent) {
        out += ",\"columnDefinitions\":";
        out += ColumnDefinitions(PrinterOf(res)).dump();
        columns_sent = true;
      }
      out += ",\"rows\":[";
      AppendRow(out, res, o, Now(), include, api_version);
      out += "]}";
      return out;
    };
    auto emit = [&](std::string_view type, const std::string& object) {
      std::string line = "{\"type\":\"";
      line += type;
      line += "\",\"object\":";
      line += object;
      line += "}\n";
      return write(line);
    };
    auto bookmark = [&](int64_t rv, bool initial_end) {
      json meta = {{"resourceVersion", std::to_string(rv)}};
      if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
      json object = {{"kind", res.kind}, {"apiVersion", api_version}, {"metadata", meta}};
      return emit("BOOKMARK", object.dump());
    };
    auto gone = [&](const ApiError& e) { return emit("ERROR", ToJson(e).dump()); };
    if (expired) {
      gone(*expired);
      return;
    }
    if (initial_items) {
      for (const ObjectPtr& o : *initial_items)
        if (filter.Matches(*o) && !emit("ADDED", object_text(*o))) return;
      if (send_initial && !bookmark(from, true)) return;
    }
    const Clock::time_point end = Clock::now() + timeout;
    Clock::time_point next_bookmark = Clock::now() + options_.bookmark_interval;
    int64_t cursor = from;
    std::vector<StoreEvent> batch;
    while (true) {
      batch.clear();
      const Clock::time_point wake = bookmarks ? std::min(end, next_bookmark) : end;
      if (!store_->WaitForEvents(cursor, 512, wake, &batch)) {
        if (!store_->closed())
          gone(ApiError::Gone(fmt::format(
              "too old resource version: {} (the watch fell behind the history window)", cursor)));
        return;
      }
      for (const StoreEvent& e : batch) {
        cursor = e.resource_version;
        if (e.resource != store_id) continue;
        // A change that moves an object into or out of the selection is an ADDED or a
        // DELETED for this watcher, as the API server's watch cache reports it.
        const bool now_matches = e.type != WatchEventType::kDeleted && filter.Matches(*e.object);
        const bool matched = e.previous && filter.Matches(*e.previous);
        std::string_view type;
        if (e.type == WatchEventType::kDeleted) {
          if (!matched) continue;
          type = "DELETED";
        } else if (now_matches) {
          type = matched ? "MODIFIED" : "ADDED";
        } else if (matched) {
          type = "DELETED";
        } else {
          continue;
        }
        if (!emit(type, object_text(*e.object))) return;
        next_bookmark = Clock::now() + options_.bookmark_interval;
      }
      const Clock::time_point now = Clock::now();
      if (bookmarks && now >= next_bookmark) {
        if (!bookmark(cursor == 0 ? store_->resource_version() : cursor, false)) return;
        next_bookmark = now + options_.bookmark_interval;
      }
      if (now >= end) return;
    }
  };
  return reply;
}

// ---- Writes ----------------------------------------------------------------------------

std::variant<ApiAnswer, ApiError> ApiServer::Write(const Route& route, WriteRequest w) {
  w.resource = route.resource;
  if (route.resource->backend) return route.resource->backend->Write(w);
  // Store-kept resources: the transform runs under the store's commit lock, so a
  // resourceVersion precondition cannot race another writer.
  if (w.dry_run) {
    ObjectPtr current = store_->Get(route.store_id, w.namespace_name, w.name);
    if (w.verb == WriteRequest::Verb::kDelete) {
      if (!current) return ApiError::NotFound(route.resource->name, route.resource->group, w.name);
      return ApiAnswer{200, current->Parse()};
    }
    auto desired = w.transform(current.get());
    if (auto* e = std::get_if<ApiError>(&desired)) return *e;
    return ApiAnswer{w.verb == WriteRequest::Verb::kCreate ? 201 : 200,
                     std::move(std::get<json>(desired))};
  }
  bool missing = false;
  auto result = store_->Update(
      route.store_id, w.namespace_name, w.name,
      [&](const StoredObject* current) -> std::variant<std::optional<json>, ApiError> {
        if (w.verb == WriteRequest::Verb::kDelete) {
          if (!current) {
            missing = true;
            return std::optional<json>();
          }
          const DeleteOptions& o = w.delete_options;
          if (!o.precondition_resource_version.empty() &&
              o.precondition_resource_version != std::to_string(current->resource_version))
            return ApiError::Conflict(route.resource->name, route.resource->group, w.name,
                                      "the ResourceVersion in the precondition does not match");
          return std::optional<json>();
        }
        auto desired = w.transform(current);
        if (auto* e = std::get_if<ApiError>(&desired)) return *e;
        return std::optional<json>(std::move(std::get<json>(desired)));
      });
  if (auto* e = std::get_if<ApiError>(&result)) return *e;
  if (w.verb == WriteRequest::Verb::kDelete) {
    if (missing) return ApiError::NotFound(route.resource->name, route.resource->group, w.name);
    return ApiAnswer{
        200,
        {{"kind", "Status"},
         {"apiVersion", "v1"},
         {"metadata", json::object()},
         {"status", "Success"},
         {"details",
          {{"name", w.name}, {"group", route.resource->group}, {"kind", route.resource->name}}}}};
  }
  const ObjectPtr& stored = std::get<ObjectPtr>(result);
  return ApiAnswer{w.verb == WriteRequest::Verb::kCreate ? 201 : 200, stored->Parse()};
}

namespace {

bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  for (char c : name)
    if (!alnum(c) && c != '-' && c != '.') return false;
  return true;
}

std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t x = (counter.fetch_add(1) + 1) * 0x9e3779b97f4a7c15ULL ^
               static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  std::string s;
  for (int i = 0; i < 5; ++i) {
    s += kAlphabet[x % 27];
    x /= 27;
  }
  return s;
}

std::string MetaString(const json& object, const char* key) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return {};
  auto it = m->find(key);
  return it != m->end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<ApiError> CheckTypeMeta(const json& body, const ApiResourceSpec& res) {
  if (!body.is_object()) return ApiError::BadRequest("the request body is not a JSON object");
  if (auto k = body.find("kind"); k != body.end() && k->is_string() && *k != res.kind)
    return ApiError::BadRequest(fmt::format("kind {} does not match the resource's kind {}",
                                            k->get<std::string>(), res.kind));
  if (auto v = body.find("apiVersion"); v != body.end() && v->is_string()) {
    bool served = false;
    for (const std::string& version : res.versions)
      served |= *v == GroupVersion(res.group, version);
    if (!served)
      return ApiError::BadRequest(
          fmt::format("apiVersion {} is not served for {}", v->get<std::string>(), res.name));
  }
  if (auto m = body.find("metadata"); m != body.end() && !m->is_object())
    return ApiError::BadRequest("metadata must be an object");
  return std::nullopt;
}

ApiError PatchError(const Status& s, const ApiResourceSpec& res, const std::string& name) {
  if (s.code() == Status::Code::kInvalidArgument) return ApiError::BadRequest(s.message());
  return ApiError::Invalid(res.kind, res.group, name, {{"FieldValueInvalid", s.message(), ""}});
}

}  // namespace

http::Reply ApiServer::Create(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  bool dry_run = false;
  if (std::string e = DryRunError(r, &dry_run); !e.empty())
    return ErrorReply(ApiError::BadRequest(e));
  json body = json::parse(r.body, nullptr, false);
  if (body.is_discarded())
    return ErrorReply(ApiError::BadRequest("the request body is not valid JSON"));
  if (auto e = CheckTypeMeta(body, res)) return ErrorReply(*e);
  json& meta = body["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string name = MetaString(body, "name");
  if (name.empty()) {
    const std::string generate = MetaString(body, "generateName");
    if (generate.empty())
      return ErrorReply(ApiError::Invalid(
          res.kind, res.group, "",
          {{"FieldValueRequired", "name or generateName is required", "metadata.name"}}));
    name = generate + RandomSuffix();
    meta["name"] = name;
  }
  if (!IsDnsSubdomain(name))
    return ErrorReply(ApiError::Invalid(
        res.kind, res.group, name,
        {{"FieldValueInvalid",
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
          "'-' or '.', and must start and end with an alphanumeric character",
          "metadata.name"}}));
  std::string ns = res.namespaced ? MetaString(body, "namespace") : std::string();
  if (res.namespaced) {
    if (route.ns.empty())
      return ErrorReply(ApiError::BadRequest(
          fmt::format("{} is namespaced: POST to /namespaces/NS/{}", res.name, res.name)));
    if (!ns.empty() && ns != route.ns)
      return ErrorReply(ApiError::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    ns = route.ns;
    meta["namespace"] = ns;
    if (const ApiResourceSpec* namespaces = FindResource("", "namespaces");
        namespaces && !store_->Get(StoreId(namespaces), "", ns))
      return ErrorReply(ApiError::NotFound("namespaces", "", ns));
  } else {
    meta.erase("namespace");
  }
  const int64_t now = Now();
  meta["uid"] = UidFor(fmt::format("{}/{}/{}/{}", res.name, ns, name, now));
  meta["creationTimestamp"] = FormatTime(now - now % 1000000);
  meta.erase("resourceVersion");
  if (res.custom && !meta.contains("generation")) meta["generation"] = 1;
  if (!body.contains("apiVersion")) body["apiVersion"] = GroupVersion(res.group, route.version);
  if (!body.contains("kind")) body["kind"] = res.kind;
  WriteRequest w;
  w.verb = WriteRequest::Verb::kCreate;
  w.namespace_name = ns;
  w.name = name;
  w.dry_run = dry_run;
  w.transform = [body = std::move(body), &res,
                 name](const StoredObject* current) -> std::variant<json, ApiError> {
    if (current) return ApiError::AlreadyExists(res.name, res.group, name);
    return body;
  };
  auto answer = Write(route, std::move(w));
  if (auto* e = std::get_if<ApiError>(&answer)) return ErrorReply(*e);
  const ApiAnswer& a = std::get<ApiAnswer>(answer);
  return JsonReply(a.code, a.body);
}

http::Reply ApiServer::Modify(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  bool dry_run = false;
  if (std::string e = DryRunError(r, &dry_run); !e.empty())
    return ErrorReply(ApiError::BadRequest(e));
  json body = json::parse(r.body, nullptr, false);
  if (body.is_discarded())
    return ErrorReply(ApiError::BadRequest("the request body is not valid JSON"));
  WriteRequest w;
  w.namespace_name = route.ns;
  w.name = route.name;
  w.dry_run = dry_run;
  const std::string name = route.name, ns = route.ns;
  auto conflict = [&res, name] {
    return ApiError::Conflict(res.name, res.group, name,
                              "the object has been modified; please apply your changes to the "
                              "latest version and try again");
  };
  if (r.method == "PUT") {
    if (auto e = CheckTypeMeta(body, res)) return ErrorReply(*e);
    if (MetaString(body, "name") != route.name)
      return ErrorReply(
          ApiError::BadRequest("the name of the object does not match the name on the URL"));
    if (res.namespaced && !MetaString(body, "namespace").empty() &&
        MetaString(body, "namespace") != route.ns)
      return ErrorReply(ApiError::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    w.verb = WriteRequest::Verb::kUpdate;
    w.transform = [body = std::move(body), &res, name, ns, conflict,
                   this](const StoredObject* current) -> std::variant<json, ApiError> {
      if (!current) return ApiError::NotFound(res.name, res.group, name);
      json updated = body;
      const std::string rv = MetaString(updated, "resourceVersion");
      if (!rv.empty() && rv != std::to_string(current->resource_version)) return conflict();
      const json before = current->Parse();
      json& meta = updated["metadata"];
      for (const char* kept : {"uid", "creationTimestamp", "generation"})
        if (before["metadata"].contains(kept)) meta[kept] = before["metadata"][kept];
      if (res.namespaced) meta["namespace"] = ns;
      (void)this;
      return updated;
    };
  } else {
    const std::string media = [&] {
      std::string t(r.Header("Content-Type").substr(0, r.Header("Content-Type").find(';')));
      while (!t.empty() && t.back() == ' ') t.pop_back();
      return t;
    }();
    enum class Kind { kStrategic, kMerge, kJson } kind;
    if (media == "application/strategic-merge-patch+json") {
      if (res.custom)
        return ErrorReply(ApiError::UnsupportedMediaType(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json (strategic merge patch "
            "is not supported for custom resources)"));
      kind = Kind::kStrategic;
    } else if (media == "application/merge-patch+json") {
      kind = Kind::kMerge;
    } else if (media == "application/json-patch+json") {
      kind = Kind::kJson;
    } else if (media == "application/apply-patch+yaml") {
      return ErrorReply(ApiError::UnsupportedMediaType(
          "server-side apply (application/apply-patch+yaml) is not served by Steward's API "
          "front; use kubectl patch (merge, json or strategic) instead"));
    } else {
      return ErrorReply(ApiError::UnsupportedMediaType(fmt::format(
          "the body of the request was in an unknown format '{}' - accepted media types "
          "include: application/json-patch+json, application/merge-patch+json{}",
          media, res.custom ? "" : ", application/strategic-merge-patch+json")));
    }
    w.verb = WriteRequest::Verb::kPatch;
    w.transform = [patch = std::move(body), kind, &res, name, ns,
                   conflict](const StoredObject* current) -> std::variant<json, ApiError> {
      if (!current) return ApiError::NotFound(res.name, res.group, name);
      const json before = current->Parse();
      Result<json> after = kind == Kind::kMerge  ? ApplyMergePatch(before, patch)
                           : kind == Kind::kJson ? ApplyJsonPatch(before, patch)
                                                 : ApplyStrategicMergePatch(
                                                       before, patch, StrategicSchemaFor(res.kind));
      if (!after.ok()) return PatchError(after.status(), res, name);
      json patched = std::move(after).value();
      if (!patched.is_object() || !patched.contains("metadata") || !patched["metadata"].is_object())
        return ApiError::Invalid(res.kind, res.group, name,
                                 {{"FieldValueRequired", "metadata is required", "metadata"}});
      const std::string rv = MetaString(patched, "resourceVersion");
      if (!rv.empty() && rv != std::to_string(current->resource_version)) return conflict();
      for (const char* field : {"name", "namespace", "uid"})
        if (MetaString(patched, field) != MetaString(before, field))
          return ApiError::Invalid(
              res.kind, res.group, name,
              {{"FieldValueInvalid", "field is immutable", std::string("metadata.") + field}});
      (void)ns;
      patched["metadata"]["resourceVersion"] = before["metadata"]["resourceVersion"];
      return patched;
    };
  }
  auto answer = Write(route, std::move(w));
  if (auto* e = std::get_if<ApiError>(&answer)) return ErrorReply(*e);
  const ApiAnswer& a = std::get<ApiAnswer>(answer);
  return JsonReply(a.code, a.body);
}

http::Reply ApiServer::Delete(const Route& route, const http::Request& r) {
  WriteRequest w;
  w.verb = WriteRequest::Verb::kDelete;
  w.namespace_name = route.ns;
  w.name = route.name;
  if (std::string e = DryRunError(r, &w.dry_run); !e.empty())
    return ErrorReply(ApiError::BadRequest(e));
  if (!r.body.empty()) {
    json body = json::parse(r.body, nullptr, false);
    if (!body.is_object())
      return ErrorReply(ApiError::BadRequest("the request body is not a DeleteOptions object"));
    JsonDecoder d("DeleteOptions");
    w.delete_options = DecodeDeleteOptions(d, body);
    if (!d.status().ok()) return ErrorReply(ApiError::BadRequest(d.status().message()));
    for (const std::string& v : w.delete_options.dry_run) {
      if (v != "All") return ErrorReply(ApiError::BadRequest("unsupported dry run value: " + v));
      w.dry_run = true;
    }
  }
  if (const std::string g = r.Param("gracePeriodSeconds"); !g.empty()) {
    std::optional<int64_t> v = ParseInt(g);
    if (!v) return ErrorReply(ApiError::BadRequest("invalid gracePeriodSeconds: " + g));
    w.delete_options.grace_period_seconds = *v;
  }
  auto answer = Write(route, std::move(w));
  if (auto* e = std::get_if<ApiError>(&answer)) return ErrorReply(*e);
  const ApiAnswer& a = std::get<ApiAnswer>(answer);
  return JsonReply(a.code, a.body);
}

http::Reply ApiServer::Subresource(const Route& route, const http::Request& r) {
  SubresourceRequest s;
  s.method = r.method;
  s.subresource = route.subresource;
  s.resource = route.resource;
  s.namespace_name = route.ns;
  s.name = route.name;
  if (std::string e = DryRunError(r, &s.dry_run); !e.empty())
    return ErrorReply(ApiError::BadRequest(e));
  s.body = json::parse(r.body, nullptr, false);
  if (!s.body.is_object())
    return ErrorReply(ApiError::BadRequest("the request body is not a JSON object"));
  if (route.subresource == "eviction") {
    JsonDecoder d("Eviction");
    Eviction e = DecodeEviction(d, s.body);
    if (!d.status().ok()) return ErrorReply(ApiError::BadRequest(d.status().message()));
    if (const std::string kind = s.body.value("kind", "Eviction"); kind != "Eviction")
      return ErrorReply(ApiError::BadRequest("expected an Eviction, got " + kind));
    if (e.metadata.name != route.name)
      return ErrorReply(ApiError::BadRequest("name in URL does not match name in Eviction object"));
    const bool body_dry_run = !e.delete_options.dry_run.empty();
    if (r.HasParam("dryRun") && body_dry_run != s.dry_run)
      return ErrorReply(ApiError::BadRequest(
          "the dryRun value of the request does not match the one of its deleteOptions"));
    for (const std::string& v : e.delete_options.dry_run)
      if (v != "All") return ErrorReply(ApiError::BadRequest("unsupported dry run value: " + v));
    s.dry_run = s.dry_run || body_dry_run;
  }
  s.current = store_->Get(route.store_id, route.ns, route.name);
  if (!s.current)
    return ErrorReply(ApiError::NotFound(route.resource->name, route.resource->group, route.name));
  if (!route.resource->backend) return ErrorReply(ApiError::MethodNotAllowed(r.method, r.path));
  auto answer = route.resource->backend->Subresource(s);
  if (auto* e = std::get_if<ApiError>(&answer)) return ErrorReply(*e);
  const ApiAnswer& a = std::get<ApiAnswer>(answer);
  return JsonReply(a.code, a.body);
}

}  // namespace steward::kube
