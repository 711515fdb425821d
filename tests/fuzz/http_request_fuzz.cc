// libFuzzer target: HTTP request handling of the Kubernetes API front (kube/api_server.h), the
// transport-neutral handler http::Server carries: routing, selectors, paging, JSON bodies and
// the three patch types over a store with ConfigMaps and Nodes. The input is
//   METHOD \n PATH[?QUERY] \n CONTENT-TYPE \n BODY...
// A streamed reply (a watch) is not run.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/message.h"
#include "kube/api_server.h"
#include "kube/object_store.h"

namespace {

using steward::kube::ApiResourceSpec;

struct Front {
  steward::kube::ObjectStore store;
  std::unique_ptr<steward::kube::ApiServer> api;
  Front() {
    api = std::make_unique<steward::kube::ApiServer>(
        &store, steward::kube::ApiServerOptions{
                    .now_micros = [] { return int64_t{1'800'000'000'000'000}; }});
    const std::vector<std::string> all = {"get",    "list",  "watch",  "create",
                                          "update", "patch", "delete", "deletecollection"};
    ApiResourceSpec maps;
    maps.versions = {"v1"};
    maps.name = "configmaps";
    maps.singular = "configmap";
    maps.kind = "ConfigMap";
    maps.verbs = all;
    api->AddResource(maps);
    ApiResourceSpec nodes;
    nodes.versions = {"v1"};
    nodes.name = "nodes";
    nodes.singular = "node";
    nodes.kind = "Node";
    nodes.namespaced = false;
    nodes.verbs = all;
    api->AddResource(nodes);
  }
};

// The next line of `in` (consumed), without its newline.
std::string_view Line(std::string_view& in) {
  const size_t eol = in.find('\n');
  std::string_view line = in.substr(0, eol);
  in.remove_prefix(eol == std::string_view::npos ? in.size() : eol + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Front* front = new Front();  // One store across inputs, as a server keeps one.
  std::string_view in(reinterpret_cast<const char*>(data), size);
  steward::http::Request r;
  r.method = std::string(Line(in));
  std::string_view target = Line(in);
  const size_t q = target.find('?');
  r.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) {
    std::string_view query = target.substr(q + 1);
    while (!query.empty()) {
      const size_t amp = query.find('&');
      std::string_view kv = query.substr(0, amp);
      query.remove_prefix(amp == std::string_view::npos ? query.size() : amp + 1);
      const size_t eq = kv.find('=');
      r.params.emplace(std::string(kv.substr(0, eq)),
                       eq == std::string_view::npos ? "" : std::string(kv.substr(eq + 1)));
    }
  }
  r.headers["Content-Type"] = std::string(Line(in));
  r.body = std::string(in);
  (void)front->api->Handle(r);
  return 0;
}
