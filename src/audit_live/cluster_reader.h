// Reads the objects the tenancy audit understands from a live cluster, through the live client
// (live/kind_lister.h: discovery and one paged list per kind), into the same loader files go
// through (audit::ParseApiList): one code path for dumps and clusters. Every kind the server does
// not serve (absent from discovery, or 404/405 on the list) or the credentials may not list (403)
// is recorded in ObjectSet::not_read with the reason, so the report says which checks could not run
// (audit/coverage.h) instead of reading "no findings".
//
//   Result<std::unique_ptr<live::KubeClient>> c = live::KubeClient::Create(config);
//   audit::ObjectSet objects;
//   Result<audit_live::ClusterRead> r = audit_live::ReadClusterObjects(c->get(), &objects);
//   STEWARD_RETURN_IF_ERROR(audit::FinishObjects(&objects));
//
// Kueue and Volcano are optional add-ons: a group absent from discovery means they are not
// installed (none of their objects can exist); it is listed in ClusterRead::not_installed,
// not in not_read. Other errors (connection, authentication, 5xx after retries, a malformed
// object) fail the read. Cost: discovery (GET /api/v1, /apis, one per group version) plus one
// paged list per kind. Blocking; call from one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "audit/objects.h"
#include "live/kind_lister.h"
#include "live/kube_client.h"
#include "model/status.h"

namespace steward::audit_live {

// One collection the audit reads (Kueue and Volcano kinds are optional groups).
using AuditResource = live::KindToList;
// Every kind the audit loader understands, in the order of audit::AuditedKinds().
const std::vector<AuditResource>& AuditResources();

struct ClusterRead {
  int lists = 0;                           // Kinds listed.
  int objects = 0;                         // Items in those lists.
  std::vector<std::string> not_installed;  // Optional API groups absent from discovery.
};

// Appends the cluster's objects to `set` and its unreadable kinds to set->not_read.
Result<ClusterRead> ReadClusterObjects(live::KubeClient* client, audit::ObjectSet* set);

}  // namespace steward::audit_live
