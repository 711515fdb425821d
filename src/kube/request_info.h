// RequestInfo: what kube-apiserver's authorizer sees of a request (the attributes RBAC judges:
// verb, API group, resource, subresource, namespace, name), derived from the method, path and
// query as k8s.io/apiserver's RequestInfoFactory derives them, and the audit.k8s.io/v1 Event
// line a request log writes for it.
//
//   http::Request r = ...;                       // GET /api/v1/pods?watch=1
//   kube::RequestInfo info = kube::ParseRequestInfo(r);
//   info.verb == "watch"; info.resource == "pods"; info.namespace_name.empty();
//   std::string line = kube::AuditEventJson(info, r, reply.status).dump();
//
// The rules, as the upstream factory applies them:
//   - /api/v1/... and /apis/GROUP/VERSION/... with at least a resource are resource requests;
//     anything else (/api, /apis/GROUP, /version, /healthz) is a non-resource request whose
//     verb is the lower-cased method ("get", "post", ...), judged by nonResourceURLs rules;
//   - GET and HEAD = get, POST = create, PUT = update, PATCH = patch, DELETE = delete; a get
//     without a name is a list, or a watch with ?watch=true/1 (also the legacy /watch/ prefix);
//     a delete without a name is a deletecollection;
//   - namespaces/NS/RESOURCE/NAME/SUBRESOURCE; namespaces/NS itself is the namespace object
//     (and its status and finalize subresources).
//
// Pure: thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "http/message.h"

namespace steward::kube {

struct RequestInfo {
  bool is_resource_request = false;
  std::string path;  // The request's path, for nonResourceURLs rules.
  std::string verb;  // get list watch create update patch delete deletecollection (or method).
  std::string api_group, api_version;  // "" = the core group.
  std::string namespace_name, resource, subresource, name;
  bool dry_run = false;  // ?dryRun=All: authorized exactly as the real request.
};

RequestInfo ParseRequestInfo(const http::Request& request);

// One audit.k8s.io/v1 Event (level Metadata, stage ResponseComplete): verb, requestURI,
// userAgent, objectRef (resource requests only) and responseStatus.code; with "dryRun": true for a
// server-side dry run (not an upstream field: a dry run is authorized like the write).
nlohmann::json AuditEventJson(const RequestInfo& info, const http::Request& request,
                              int response_code);

}  // namespace steward::kube
