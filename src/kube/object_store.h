// ObjectStore: the versioned object store behind a Kubernetes API front, with etcd's
// semantics where clients can see them.
//
//   - One monotonic resourceVersion counter for the whole store: every change of any object
//     gets the next value, and is exactly one watch event, in order.
//   - Reads are consistent snapshots: a list sees one committed state (Snapshot), even when it
//     is paged (SnapshotAt a past version rebuilds that state from the history).
//   - A bounded history (by real time, as etcd compacts, and by count) serves watches from a
//     past resourceVersion; older than the history is Gone (410), as in Kubernetes.
//
//   ObjectStore store;
//   int pods = store.AddResource({.name = "pods", .namespaced = true, ...});
//   store.Commit({{pods, "team-a", "train-0", pod_json}});          // ADDED, rv 1
//   ObjectStore::View v = store.Snapshot(pods);                      // list at v.resource_version
//   ObjectStore::Cursor c = store.Watch(pods, v.resource_version);   // later events
//   store.WaitForEvents(c, deadline) ...
//
// Objects are stored serialized (the JSON text with metadata.resourceVersion set), plus their
// labels, the values of the fields a field selector may name, and table cells, all computed
// once per version: lists and watches copy text, never re-encode.
//
// Cost: Commit is O(changed objects x object size + objects of a changed resource) (a new
// sorted snapshot of each changed resource is published); Snapshot is O(1); SnapshotAt is
// O(objects + history since that version); Get is O(log objects).
// Thread-safety: every method may be called from any thread. Commits are serialized among
// themselves; readers never wait for a commit's encoding, only for a pointer swap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kube/api_error.h"
#include "model/status.h"

namespace steward::kube {

// How the store keeps one resource (a collection: pods, nodes, clusterqueues...).
struct StoredResourceSpec {
  std::string name;   // The plural, for messages ("pods").
  std::string group;  // "" for core.
  bool namespaced = true;
  // Fields a field selector may name besides metadata.name and metadata.namespace, and how to
  // read each from the object (e.g. "spec.nodeName").
  std::vector<std::pair<std::string, std::function<std::string(const nlohmann::json&)>>> fields;
  // Table cells of an object (see kube/table.h); unset = none.
  std::function<nlohmann::json(const nlohmann::json&)> cells;
};

struct StoredObject {
  std::string namespace_name, name;
  int64_t resource_version = 0;
  std::string json;           // The object, serialized, with metadata.resourceVersion.
  std::string metadata_json;  // Its metadata alone (for Table rows).
  std::map<std::string, std::string> labels;
  std::vector<std::string> fields;  // In StoredResourceSpec::fields order.
  nlohmann::json cells;
  int64_t creation_micros = 0;  // metadata.creationTimestamp, 0 when unset.

  nlohmann::json Parse() const { return nlohmann::json::parse(json); }
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

enum class WatchEventType : uint8_t { kAdded, kModified, kDeleted };
std::string_view WatchEventName(WatchEventType type);

struct StoreEvent {
  int64_t resource_version = 0;
  int resource = 0;
  WatchEventType type = WatchEventType::kAdded;
  ObjectPtr object;    // The new state (for kDeleted: the last state, at this version).
  ObjectPtr previous;  // The state it replaced (null for kAdded).
  std::chrono::steady_clock::time_point at;
};

struct ObjectStoreOptions {
  // Watch history kept: events younger than this (etcd's default compaction is 5 minutes)...
  std::chrono::milliseconds history_window{std::chrono::minutes(5)};
  // ... and at most this many (a memory bound; older events are compacted as if expired).
  size_t max_history_events = 200000;
  // The clock the history window is measured on; unset = std::chrono::steady_clock::now. Tests
  // inject a fake one to age the history without sleeping.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

class ObjectStore {
 public:
  explicit ObjectStore(ObjectStoreOptions options = {});
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // Registers a resource; returns its id. REQUIRES: before any other call.
  int AddResource(StoredResourceSpec spec);
  const StoredResourceSpec& resource(int id) const { return resources_[id]; }
  int num_resources() const { return static_cast<int>(resources_.size()); }

  // A put (object set) or a delete (object unset) of one object.
  struct Change {
    int resource = 0;
    std::string namespace_name, name;
    std::optional<nlohmann::json> object;
  };
  // Applies `changes` in order, each with the next resourceVersion (written into the object's
  // metadata.resourceVersion); a delete of an absent object is skipped (no version, no event).
  // Returns the stored result of each change (null for a delete or a skip), and publishes
  // everything at once. Callers put only objects that changed.
  std::vector<ObjectPtr> Commit(std::vector<Change> changes);

  // A read-modify-write of one object, atomic with respect to other commits: `mutate` sees the
  // current object (null if absent) and returns the new object, nullopt to delete it, or an
  // error (nothing changes). Returns the stored object (null after a delete) or the error. A
  // mutation that changes nothing returns the current object without a new version.
  using Mutation = std::function<std::variant<std::optional<nlohmann::json>, ApiError>(
      const StoredObject* current)>;
  std::variant<ObjectPtr, ApiError> Update(int resource, const std::string& namespace_name,
                                           const std::string& name, const Mutation& mutate);

  // The latest committed version of the whole store.
  int64_t resource_version() const;

  // A resource's objects, sorted by (namespace, name), at one version of the store.
  using Items = std::vector<ObjectPtr>;
  struct View {
    int64_t resource_version = 0;
    std::shared_ptr<const Items> items;
  };
  View Snapshot(int resource) const;
  // The resource as it was at `resource_version` (<= the current one). Gone when the history
  // no longer reaches back that far; a too-new version is a 504 (as the API server's
  // "Too large resource version").
  std::variant<View, ApiError> SnapshotAt(int resource, int64_t resource_version) const;
  ObjectPtr Get(int resource, std::string_view namespace_name, std::string_view name) const;

  // Watching: events after `from` (a resourceVersion), read in pieces.
  // Gone (410) if `from` is older than the history; otherwise every event with a larger
  // version is still there.
  std::optional<ApiError> CheckWatchable(int64_t from) const;
  // Appends to *out the events after `from` (of every resource; callers filter), at most
  // `max` of them, waiting until `deadline` if there are none. Returns false if the history
  // has moved past `from` meanwhile (the watcher was too slow: Gone) or the store closed.
  bool WaitForEvents(int64_t from, size_t max, std::chrono::steady_clock::time_point deadline,
                     std::vector<StoreEvent>* out) const;
  // Wakes every waiting watcher and makes WaitForEvents return false from now on.
  void Close();
  bool closed() const;

  // History bounds, for tests and metrics: versions <= compacted() are no longer watchable.
  int64_t compacted() const;
  size_t history_size() const;

 private:
  ObjectPtr Encode(int resource, const std::string& ns, const std::string& name,
                   nlohmann::json object, int64_t rv) const;
  // Publishes `events` (already versioned) and new collections. Called with commit_mu_ held.
  void Publish(std::vector<StoreEvent> events, std::vector<std::shared_ptr<Items>> collections);
  // Drops events older than the window. Also called by readers (read_mu_ held): etcd compacts
  // on a timer, so an idle store's old versions expire without a write.
  void Trim() const;
  std::chrono::steady_clock::time_point Now() const;

  const ObjectStoreOptions options_;
  std::vector<StoredResourceSpec> resources_;

  std::mutex commit_mu_;  // Serializes writers (versions are assigned in publish order).
  int64_t next_rv_ = 1;   // Guarded by commit_mu_.

  mutable std::mutex read_mu_;
  mutable std::condition_variable changed_;
  std::vector<std::shared_ptr<const Items>> collections_;  // Guarded by read_mu_.
  int64_t rv_ = 0;                                         // Guarded by read_mu_.
  mutable std::deque<StoreEvent> history_;                 // Guarded by read_mu_.
  mutable int64_t compacted_ = 0;                          // Guarded by read_mu_.
  bool closed_ = false;                                    // Guarded by read_mu_.
};

}  // namespace steward::kube
