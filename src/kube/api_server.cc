#include "kube/api_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "kube/api_server_internal.h"

namespace steward::kube {
namespace internal {

using nlohmann::json;

const char kTableContentType[] = "application/json;as=Table;v=v1;g=meta.k8s.io";

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

std::optional<bool> BoolParam(const http::Request& r, const std::string& name) {
  auto it = r.params.find(name);
  if (it == r.params.end()) return std::nullopt;
  std::string v = it->second;
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !(v == "0" || v == "false");
}

std::optional<ApiError> ValidateListOptions(const http::Request& r, bool watch) {
  const std::string match = r.Param("resourceVersionMatch");
  const bool has_rv = !r.Param("resourceVersion").empty();
  const bool has_continue = !r.Param("continue").empty();
  const std::optional<bool> send_initial = BoolParam(r, "sendInitialEvents");
  std::vector<StatusCause> causes;
  auto forbidden = [&](const char* field, std::string detail) {
    causes.push_back({"FieldValueForbidden", "Forbidden: " + detail, field});
  };
  auto not_supported = [&](std::string_view supported) {
    causes.push_back(
        {"FieldValueNotSupported",
         fmt::format("Unsupported value: \"{}\": supported values: {}", match, supported),
         "resourceVersionMatch"});
  };
  if (watch) {
    if (send_initial && match != "NotOlderThan")
      forbidden("resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    if (!match.empty()) {
      if (!send_initial)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                  "provided");
      if (match != "NotOlderThan") not_supported("\"NotOlderThan\"");
      if (has_continue)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden when continue is provided");
    }
  } else {
    if (!match.empty()) {
      if (!has_rv)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden unless resourceVersion is provided");
      if (has_continue)
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch is forbidden when continue is provided");
      if (match != "Exact" && match != "NotOlderThan")
        not_supported("\"Exact\", \"NotOlderThan\", \"\"");
      if (match == "Exact" && r.Param("resourceVersion") == "0")
        forbidden("resourceVersionMatch",
                  "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    }
    if (send_initial) forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list");
  }
  if (causes.empty()) return std::nullopt;
  return ApiError::Invalid("ListOptions", "meta.k8s.io", "", std::move(causes));
}

std::string DryRunError(const http::Request& r, bool* dry_run) {
  *dry_run = false;
  for (auto [it, end] = r.params.equal_range("dryRun"); it != end; ++it) {
    if (it->second != "All") return fmt::format("unsupported dry run value: {}", it->second);
    *dry_run = true;
  }
  return {};
}

std::optional<std::string> Filter::Field(const StoredObject& o, std::string_view f) const {
  if (f == "metadata.name") return o.name;
  if (f == "metadata.namespace") return o.namespace_name;
  for (size_t i = 0; i < resource->fields.size(); ++i)
    if (resource->fields[i].first == f && i < o.fields.size()) return o.fields[i];
  return std::nullopt;
}

bool Filter::Matches(const StoredObject& o) const {
  if (!ns.empty() && o.namespace_name != ns) return false;
  if (!labels.Matches(o.labels)) return false;
  return fields.empty() || fields.Matches([&](std::string_view f) { return Field(o, f); });
}

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

}  // namespace internal

using nlohmann::json;
using namespace internal;

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

}  // namespace steward::kube
