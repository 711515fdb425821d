#include "kube/request_info.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace steward::kube {
namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > at) out.emplace_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// apimachinery's query-to-bool conversion: absent = false, "0" or "false" (any case) = false,
// anything else (even "") = true.
bool QueryTrue(const http::Request& r, const std::string& name) {
  if (!r.HasParam(name)) return false;
  const std::string v = Lower(r.Param(name));
  return v != "0" && v != "false";
}

// The X of a field selector term metadata.name=X (or ==X), as RequiresExactMatch finds it.
std::string ExactName(const std::string& selector) {
  size_t at = 0;
  while (at <= selector.size()) {
    size_t comma = selector.find(',', at);
    if (comma == std::string::npos) comma = selector.size();
    std::string_view term(selector.data() + at, comma - at);
    for (std::string_view op : {"==", "="}) {
      const std::string prefix = std::string("metadata.name") + std::string(op);
      if (term.substr(0, prefix.size()) == prefix) return std::string(term.substr(prefix.size()));
    }
    at = comma + 1;
  }
  return {};
}

std::string PercentEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

RequestInfo ParseRequestInfo(const http::Request& r) {
  RequestInfo info;
  info.path = r.path;
  info.verb = Lower(r.method);
  info.dry_run = r.Param("dryRun") == "All";
  std::vector<std::string> parts = Segments(r.path);
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return info;
  size_t at = 1;
  if (parts[0] == "apis") {
    if (parts.size() < 4) return info;
    info.api_group = parts[at++];
  }
  info.is_resource_request = true;
  info.api_version = parts[at++];
  if (parts[at] == "watch" || parts[at] == "proxy") {
    if (parts.size() - at < 2) {  // Upstream: an error; authorize it as nothing in particular.
      info.is_resource_request = false;
      return info;
    }
    info.verb = parts[at++];
  } else if (r.method == "POST") {
    info.verb = "create";
  } else if (r.method == "GET" || r.method == "HEAD") {
    info.verb = "get";
  } else if (r.method == "PUT") {
    info.verb = "update";
  } else if (r.method == "PATCH") {
    info.verb = "patch";
  } else if (r.method == "DELETE") {
    info.verb = "delete";
  } else {
    info.verb.clear();
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  if (rest[0] == "namespaces" && rest.size() > 1) {
    info.namespace_name = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
      rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() >= 3 && info.verb != "proxy") info.subresource = rest[2];
  if (rest.size() >= 2) info.name = rest[1];
  info.resource = rest[0];
  if (info.name.empty() && info.verb == "get") {
    info.verb = QueryTrue(r, "watch") ? "watch" : "list";
    info.name = ExactName(r.Param("fieldSelector"));
  }
  if (info.name.empty() && info.verb == "delete") info.verb = "deletecollection";
  return info;
}

nlohmann::json AuditEventJson(const RequestInfo& info, const http::Request& r, int code) {
  std::string uri = PercentEncode(r.path);
  char sep = '?';
  for (const auto& [key, value] : r.params) {
    uri += sep + PercentEncode(key) + "=" + PercentEncode(value);
    sep = '&';
  }
  nlohmann::json event = {{"kind", "Event"},
                          {"apiVersion", "audit.k8s.io/v1"},
                          {"level", "Metadata"},
                          {"stage", "ResponseComplete"},
                          {"verb", info.verb},
                          {"requestURI", uri},
                          {"responseStatus", {{"code", code}}}};
  if (info.is_resource_request) {
    nlohmann::json ref = {{"resource", info.resource},
                          {"apiGroup", info.api_group},
                          {"apiVersion", info.api_version}};
    if (!info.namespace_name.empty()) ref["namespace"] = info.namespace_name;
    if (!info.name.empty()) ref["name"] = info.name;
    if (!info.subresource.empty()) ref["subresource"] = info.subresource;
    event["objectRef"] = std::move(ref);
  }
  if (const std::string_view agent = r.Header("User-Agent"); !agent.empty())
    event["userAgent"] = std::string(agent);
  if (info.dry_run) event["dryRun"] = true;
  return event;
}

}  // namespace steward::kube
