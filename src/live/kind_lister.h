// Lists a fixed set of kinds from a cluster once, the way `kubectl get KIND -A` does: discovery
// says which group versions serve each kind, then one paged list per kind (KubeClient::List).
// What a reader of a whole cluster needs beyond the client: the kinds the server does not serve
// or the credentials may not list are reported, not failed, so the caller decides what a
// missing kind means (the tenancy audit skips checks; `policy simulate` asks for files).
//
//   static const std::vector<live::KindToList> kKinds = {
//       {"Namespace", "", "namespaces", false},
//       {"ClusterQueue", "kueue.x-k8s.io", "clusterqueues", true}};
//   Result<live::KindLists> r = live::ListKinds(client, kKinds);
//   for (const live::KindList& l : r->lists) Load(l.list, client->config().server + l.path);
//
// Each list comes back as a `kind: List` whose items all carry kind and apiVersion (a server
// leaves them out on built-in kinds' items). A group whose preferred version lacks a kind is
// searched in its other versions (Kueue served Cohorts at v1alpha1 while its preferred version
// was v1beta1). An optional group absent from discovery (an add-on that is not installed, such
// as Kueue or Volcano) goes to `not_installed`; a kind that is absent, not listable, 403, 404 or
// 405 goes to `not_read` with the reason. Other errors (connection, authentication, 5xx after
// the client's retries) fail the read. Cost: discovery (GET /api/v1, /apis, one per wanted
// group version) plus one paged list per kind. Blocking; call from one thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "live/kube_client.h"
#include "model/status.h"

namespace steward::live {

// One collection to list.
struct KindToList {
  std::string_view kind;    // "ClusterQueue"
  std::string_view group;   // "" = core
  std::string_view plural;  // "clusterqueues"
  bool optional_group;      // An add-on that may simply not be installed.
};

struct KindList {
  std::string kind;
  std::string path;     // "/apis/kueue.x-k8s.io/v1beta1/clusterqueues"
  nlohmann::json list;  // {"apiVersion": "v1", "kind": "List", "metadata": ..., "items": [...]}
};

struct UnreadKind {
  std::string kind;
  std::string reason;  // "not served (...)", "forbidden (403 Forbidden: ... on /apis/...)"
};

struct KindLists {
  std::vector<KindList> lists;             // In the order asked, kinds read only.
  std::vector<UnreadKind> not_read;        // In the order asked.
  std::vector<std::string> not_installed;  // Optional groups absent from discovery.
  int objects = 0;                         // Items in all lists.
};

Result<KindLists> ListKinds(KubeClient* client, const std::vector<KindToList>& kinds);

}  // namespace steward::live
