// ApiServer: the Kubernetes REST API over an ObjectStore, transport-neutral (http::Request in,
// http::Reply out), so the twin's API front and tests share it. It speaks what kubectl,
// client-go and the Python client use (kube-api-facts.md §3): legacy discovery (/api, /apis,
// per group-version resource lists, /version, /healthz), get / list / watch with label and
// field selectors, paging (limit + continue over one consistent snapshot), resourceVersion
// semantics, Table output, create / update / patch (strategic merge, merge, JSON patch) /
// delete with server-side dry run, subresources (pods/eviction), and Status errors with the
// codes clients branch on.
//
//   ObjectStore store;
//   ApiServer api(&store, {.now_micros = clock});
//   api.AddResource({.name = "nodes", .kind = "Node", .namespaced = false, ...});
//   http::Reply r = api.Handle(request);
//
// Resources whose writes mean something to a backend (the twin: a cordon is a cordon) name a
// ResourceBackend; the others (Leases, ConfigMaps, Events) are kept by the store as written,
// with optimistic concurrency on metadata.resourceVersion.
//
// Thread-safety: Handle may be called from many threads at once (reads take snapshots; writes
// go through the store's serialized commits or the backend). A watch holds its thread while
// it streams. Register resources before the first Handle.
#pragma once

#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "http/message.h"
#include "kube/api_error.h"
#include "kube/object_store.h"
#include "kube/policy_v1.h"
#include "kube/table.h"

namespace steward::kube {

struct ApiResourceSpec;

// A write as the backend sees it, after the server has decoded it and checked the names. The
// new object is computed from the current one by `transform` (a patch is merged into it, an
// update's resourceVersion precondition is checked against it), so whoever applies the write
// calls it with the object current at that moment and no concurrent change is lost.
struct WriteRequest {
  enum class Verb : uint8_t { kCreate, kUpdate, kPatch, kDelete };
  using Transform =
      std::function<std::variant<nlohmann::json, ApiError>(const StoredObject* current)>;
  Verb verb = Verb::kPatch;
  const ApiResourceSpec* resource = nullptr;
  std::string namespace_name, name;
  Transform transform;           // Unset for a delete.
  DeleteOptions delete_options;  // For a delete.
  bool dry_run = false;
};

// A subresource call, e.g. POST pods/NAME/eviction.
struct SubresourceRequest {
  std::string method, subresource;
  const ApiResourceSpec* resource = nullptr;
  std::string namespace_name, name;
  ObjectPtr current;
  nlohmann::json body;
  bool dry_run = false;
};

// What the server answers: an HTTP code and a JSON body (an object or a Status).
struct ApiAnswer {
  int code = 200;
  nlohmann::json body;
};

class ResourceBackend {
 public:
  virtual ~ResourceBackend() = default;
  // Applies (or, dry run, only validates) a write and answers the object as stored. ApiError
  // for a refusal (e.g. 422 for a field the backend cannot change).
  virtual std::variant<ApiAnswer, ApiError> Write(const WriteRequest& request) = 0;
  virtual std::variant<ApiAnswer, ApiError> Subresource(const SubresourceRequest& request) {
    return ApiError::NotFound(request.subresource, "", request.name);
  }
};

using FieldGetter = std::function<std::string(const nlohmann::json&)>;

struct ApiResourceSpec {
  std::string group;                  // "" = core (served under /api/v1).
  std::vector<std::string> versions;  // Served versions, preferred first.
  std::string name;                   // Plural: "pods".
  std::string singular;               // "pod".
  std::string kind;                   // "Pod".
  bool namespaced = true;
  std::vector<std::string> verbs = {"get", "list", "watch"};
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> subresources;  // e.g. "eviction" (create only).
  // Extra field-selector fields (metadata.name and metadata.namespace are always supported).
  std::vector<std::pair<std::string, FieldGetter>> fields;
  TablePrinter printer;                // No columns: DefaultTablePrinter().
  bool custom = false;                 // A custom resource: strategic merge patch is refused (415).
  ResourceBackend* backend = nullptr;  // Null: the store keeps writes as they are.
};

struct ApiServerOptions {
  // The server's clock (microseconds since the epoch): creation times, ages in tables.
  std::function<int64_t()> now_micros;
  // Reported by /version.
  std::string git_version = "v1.32.0-steward";
  // Streams open at once (watches); beyond it, 429 with Retry-After.
  int max_watches = 48;
  // A watch without timeoutSeconds ends after this long (clients re-watch).
  std::chrono::seconds default_watch_timeout{1800};
  // BOOKMARK events (when asked for) at least this often while a watch is idle.
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(10)};
  // Paged lists: snapshots rebuilt for continue tokens are cached (by resource and version).
  size_t snapshot_cache_entries = 16;
};

class ApiServer {
 public:
  ApiServer(ObjectStore* store, ApiServerOptions options);
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Registers a resource (and its store collection); returns its store id.
  int AddResource(ApiResourceSpec spec);
  // The resource registered under (group, plural), or null.
  const ApiResourceSpec* FindResource(std::string_view group, std::string_view name) const;
  // Routes the writes of a registered resource to `backend` (REQUIRES: before Handle).
  void SetBackend(std::string_view group, std::string_view name, ResourceBackend* backend);
  int StoreId(const ApiResourceSpec* resource) const;

  http::Reply Handle(const http::Request& request);

  // Streams open now.
  int open_watches() const { return open_watches_.load(); }
  ObjectStore& store() { return *store_; }
  int64_t Now() const { return options_.now_micros(); }

 private:
  struct Route;
  std::variant<Route, ApiError> Parse(const http::Request& r) const;
  http::Reply Discovery(const http::Request& r) const;
  http::Reply List(const Route& route, const http::Request& r);
  http::Reply Watch(const Route& route, const http::Request& r);
  http::Reply Get(const Route& route, const http::Request& r);
  http::Reply Create(const Route& route, const http::Request& r);
  http::Reply Modify(const Route& route, const http::Request& r);  // PUT and PATCH.
  http::Reply Delete(const Route& route, const http::Request& r);
  http::Reply Subresource(const Route& route, const http::Request& r);
  // Runs a write through the backend or the store.
  std::variant<ApiAnswer, ApiError> Write(const Route& route, WriteRequest w);
  std::variant<ObjectStore::View, ApiError> CachedSnapshot(int store_id, int64_t version);

  ObjectStore* store_;
  const ApiServerOptions options_;
  std::vector<std::unique_ptr<ApiResourceSpec>> resources_;
  std::vector<int> store_ids_;  // By index in resources_.
  std::map<std::pair<std::string, std::string>, size_t, std::less<>> by_name_;
  std::atomic<int> open_watches_ = 0;
  std::mutex cache_mu_;
  std::list<std::pair<std::pair<int, int64_t>, ObjectStore::View>> snapshot_cache_;
};

// Reply helpers shared with backends.
http::Reply ErrorReply(const ApiError& error);
http::Reply JsonReply(int code, const nlohmann::json& body);

}  // namespace steward::kube
