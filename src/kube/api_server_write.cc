// ApiServer writes: create, update (PUT), patch (merge, JSON, strategic), delete and
// subresources (pods/eviction), through a ResourceBackend or kept by the store; dry run.

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "kube/api_server.h"
#include "kube/api_server_internal.h"
#include "kube/json_decoder.h"
#include "kube/patch.h"

namespace steward::kube {

using nlohmann::json;
using namespace internal;

namespace {

using Clock = std::chrono::steady_clock;

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
  // A PATCH's media type is checked before its body is read: server-side apply sends YAML,
  // which must meet the 415 that names what is served, not a 400 about JSON.
  if (r.method == "PATCH") {
    std::string media(r.Header("Content-Type").substr(0, r.Header("Content-Type").find(';')));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    if (media == "application/apply-patch+yaml")
      return ErrorReply(ApiError::UnsupportedMediaType(
          "server-side apply (application/apply-patch+yaml) is not served by Steward's API "
          "front; use kubectl patch (merge, json or strategic) instead"));
  }
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
