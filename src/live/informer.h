// Informer: one resource kept in memory from the API server, as client-go's reflector and
// informer keep it: list (paged, limit/continue) at a resourceVersion, then watch from that
// version with bookmarks; a watch that ends is resumed from the last version seen; a 410 Gone
// (an answer or an ERROR event: the history moved past us) clears nothing but re-lists, and the
// difference between the old store and the new list is delivered as adds, updates and deletes,
// so handlers never miss a change. Failures back off exponentially (bounded) and retry forever.
//
//   Informer nodes(client, {.resource = ResourceRef::Core("nodes", false)},
//                  {.on_update = [](const json& old, const json& now) { ... }});
//   nodes.Start();
//   if (!nodes.WaitForSync(std::chrono::seconds(30))) ...;     // the first list is in
//   for (const json& n : nodes.List()) ...
//   nodes.Stop();
//
// Handlers run on the informer's own thread, one at a time, in the order of the changes, after
// the store reflects the change (so List() inside a handler sees it); they must not block for
// long and must not call Stop(). A filter makes objects it rejects absent (an object that stops
// matching is delivered as a delete).
//
// Cost: one thread and one watch connection per informer; memory is one JSON copy per object.
// Thread-safety: Start/Stop from one thread; List, Get, synced and stats from any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "live/kube_client.h"

namespace steward::live {

// "namespace/name", or "name" for a cluster-scoped object: the informer cache's key (client-go's
// MetaNamespaceKeyFunc). "" parts for a malformed object, never an exception.
std::string ObjectKey(const nlohmann::json& object);
// object[key] when it is a string, else "" (also when `object` is not an object).
std::string StringField(const nlohmann::json& object, const char* key);

struct InformerOptions {
  ResourceRef resource{};
  std::string namespace_name{};  // "" = all namespaces (or cluster-scoped).
  std::string label_selector{}, field_selector{};
  int64_t page_size = 500;  // kubectl's and client-go's chunk size.
  // timeoutSeconds of each watch: the server ends it then and the informer re-watches, so a
  // half-dead connection is noticed (client-go picks 5 to 10 minutes).
  std::chrono::seconds watch_timeout{300};
  // Backoff after a failed list or watch (client-go's reflector: 800 ms doubling to 30 s);
  // reset by a list or watch that succeeds.
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  // Objects for which this returns false are treated as absent; unset = keep all.
  std::function<bool(const nlohmann::json&)> filter{};
};

struct InformerHandlers {
  std::function<void(const nlohmann::json& object)> on_add{};
  std::function<void(const nlohmann::json& old_object, const nlohmann::json& object)> on_update{};
  std::function<void(const nlohmann::json& last_state)> on_delete{};
  // After every successful (re-)list has been applied.
  std::function<void()> on_synced{};
};

class Informer {
 public:
  // `client` must outlive the informer.
  Informer(KubeClient* client, InformerOptions options, InformerHandlers handlers = {});
  ~Informer();  // Stops.
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void Start();
  // Ends the watch and joins the thread. Idempotent.
  void Stop();
  // Ends the watch without waiting (Stop joins); lets a caller stop many informers at once.
  void RequestStop();
  // True once the first list has been applied; waits up to `timeout` for it.
  bool WaitForSync(std::chrono::milliseconds timeout);
  bool synced() const;

  // Copies of the stored objects, sorted by namespace/name.
  std::vector<nlohmann::json> List() const;
  std::optional<nlohmann::json> Get(std::string_view namespace_name, std::string_view name) const;
  const InformerOptions& options() const { return options_; }

  struct Stats {
    int64_t lists = 0;               // Successful lists (the first one included).
    int64_t relists_after_gone = 0;  // Lists forced by a 410.
    int64_t watches = 0;             // Watch streams opened.
    int64_t events = 0;              // Watch events applied (bookmarks excluded).
    int64_t failures = 0;            // Failed lists or watches (each followed by a backoff).
    std::string resource_version;    // The last version seen.
    std::string last_error;          // The last failure's message.
  };
  Stats stats() const;

 private:
  void Run();
  bool ListOnce();  // False on failure (backoff follows).
  // Returns true when a re-list is needed (410), false to re-watch.
  bool WatchOnce();
  void Apply(const std::string& type, const nlohmann::json& object);
  void Replace(const nlohmann::json& items);
  void Backoff();
  bool Stopping() const;
  Query BaseQuery() const;

  KubeClient* const client_;
  const InformerOptions options_;
  const InformerHandlers handlers_;
  const std::string path_;
  std::thread thread_;
  WatchCancel cancel_;

  mutable std::mutex mu_;
  std::condition_variable cv_;                   // Wakes backoff sleeps and sync waiters.
  bool stopping_ = false;                        // Guarded by mu_.
  bool synced_ = false;                          // Guarded by mu_.
  std::map<std::string, nlohmann::json> store_;  // By namespace/name. Guarded by mu_.
  Stats stats_;                                  // Guarded by mu_.
  std::chrono::milliseconds backoff_{0};         // Informer thread only.
};

}  // namespace steward::live
