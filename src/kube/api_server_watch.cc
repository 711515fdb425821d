// ApiServer watch: a chunked stream of ADDED/MODIFIED/DELETED events from the store's history,
// with initial events, bookmarks, Table rows and the 410 ERROR event past the history window.

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "kube/api_server.h"
#include "kube/api_server_internal.h"

namespace steward::kube {

using nlohmann::json;
using namespace internal;

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

http::Reply ApiServer::Watch(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  auto filter_or = MakeFilter(res, route.ns, r);
  if (auto* e = std::get_if<ApiError>(&filter_or)) return ErrorReply(*e);
  Filter filter = std::get<Filter>(filter_or);
  const std::string rv_param = r.Param("resourceVersion");
  const bool bookmarks = IsTrue(r.Param("allowWatchBookmarks"));
  if (std::optional<ApiError> invalid = ValidateListOptions(r, /*watch=*/true))
    return ErrorReply(*invalid);
  // sendInitialEvents: true = the state as ADDED events ended by the initial-events-end
  // bookmark (which the client must accept); false = changes only, even from "" or "0";
  // absent = the legacy rule (initial state for "" and "0", none after "N").
  const std::optional<bool> send_initial_param = BoolParam(r, "sendInitialEvents");
  const bool send_initial = send_initial_param.value_or(false);
  if (send_initial && !bookmarks)
    return ErrorReply(ApiError::Invalid(
        "ListOptions", "meta.k8s.io", "",
        {{"FieldValueForbidden",
          "Forbidden: sendInitialEvents=true ends the initial state with a bookmark; set "
          "allowWatchBookmarks=true",
          "allowWatchBookmarks"}}));
  std::chrono::seconds timeout = options_.default_watch_timeout;
  if (const std::string t = r.Param("timeoutSeconds"); !t.empty()) {
    std::optional<int64_t> v = ParseInt(t);
    if (!v || *v < 0)
      return ErrorReply(ApiError::BadRequest(fmt::format("invalid timeoutSeconds: {}", t)));
    if (*v > 0) timeout = std::chrono::seconds(*v);
  }
  // Where the stream starts: with the current state as synthetic ADDED events, at the current
  // version without them, or after a given version.
  const bool any_version = rv_param.empty() || rv_param == "0";
  const bool initial = send_initial_param.value_or(any_version);
  int64_t from = 0;
  std::shared_ptr<const ObjectStore::Items> initial_items;
  std::optional<ApiError> expired;
  if (initial) {
    ObjectStore::View v = store_->Snapshot(route.store_id);
    from = v.resource_version;
    initial_items = v.items;
  } else if (any_version) {
    from = store_->resource_version();
  } else {
    std::optional<int64_t> rv = ParseInt(rv_param);
    if (!rv || *rv < 0)
      return ErrorReply(
          ApiError::BadRequest(fmt::format("invalid resource version: {}", rv_param)));
    from = *rv;
    expired = store_->CheckWatchable(from);
  }
  if (open_watches_.fetch_add(1) >= options_.max_watches) {
    open_watches_.fetch_sub(1);
    return ErrorReply(ApiError::TooManyRequests(
        fmt::format("too many watches open (limit {}); retry shortly", options_.max_watches), 1));
  }

  const bool table = WantsTable(r);
  const IncludeObject include = IncludeObjectParam(r);
  const std::string api_version = GroupVersion(res.group, route.version);
  http::Reply reply;
  reply.content_type = table ? kTableContentType : "application/json";
  const int store_id = route.store_id;
  // The slot is given back when the stream ends, or when the reply is dropped without being
  // streamed (the transport may never call it, e.g. when the client left first).
  struct Slot {
    explicit Slot(std::atomic<int>* o) : open(o) {}  // clang 14 lacks C++20 paren-init.
    std::atomic<int>* open;
    std::atomic<bool> released{false};
    void Release() {
      if (!released.exchange(true)) open->fetch_sub(1);
    }
    ~Slot() { Release(); }
  };
  auto slot = std::make_shared<Slot>(&open_watches_);
  reply.stream = [this, filter, from, initial_items, expired, table, include, api_version,
                  bookmarks, send_initial, timeout, store_id, slot,
                  &res](const http::StreamWriter& write) {
    struct EndOfStream {
      Slot* slot;
      ~EndOfStream() { slot->Release(); }
    } end_of_stream{slot.get()};
    bool columns_sent = false;
    auto object_text = [&](const StoredObject& o) {
      if (!table) return o.json;
      std::string out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
      out += ListMeta(o.resource_version, "", std::nullopt);
      if (!columns_sent) {
        out += ",\"columnDefinitions\":";
        out += ColumnDefinitions(PrinterOf(res)).dump();
        columns_sent = true;
      }
      out += ",\"rows\":[";
      AppendRow(out, res, o, Now(), include, api_version);
      out += "]}";
      return out;
    };
    auto emit = [&](std::string_view type, const std::string& object) {
      std::string line = "{\"type\":\"";
      line += type;
      line += "\",\"object\":";
      line += object;
      line += "}\n";
      return write(line);
    };
    auto bookmark = [&](int64_t rv, bool initial_end) {
      json meta = {{"resourceVersion", std::to_string(rv)}};
      if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
      json object = {{"kind", res.kind}, {"apiVersion", api_version}, {"metadata", meta}};
      return emit("BOOKMARK", object.dump());
    };
    auto gone = [&](const ApiError& e) { return emit("ERROR", ToJson(e).dump()); };
    if (expired) {
      gone(*expired);
      return;
    }
    if (initial_items) {
      for (const ObjectPtr& o : *initial_items)
        if (filter.Matches(*o) && !emit("ADDED", object_text(*o))) return;
      if (send_initial && !bookmark(from, true)) return;
    }
    const Clock::time_point end = Clock::now() + timeout;
    Clock::time_point next_bookmark = Clock::now() + options_.bookmark_interval;
    int64_t cursor = from;
    std::vector<StoreEvent> batch;
    while (true) {
      batch.clear();
      const Clock::time_point wake = bookmarks ? std::min(end, next_bookmark) : end;
      if (!store_->WaitForEvents(cursor, 512, wake, &batch)) {
        if (!store_->closed())
          gone(ApiError::Gone(fmt::format(
              "too old resource version: {} (the watch fell behind the history window)", cursor)));
        return;
      }
      for (const StoreEvent& e : batch) {
        cursor = e.resource_version;
        if (e.resource != store_id) continue;
        // A change that moves an object into or out of the selection is an ADDED or a
        // DELETED for this watcher, as the API server's watch cache reports it.
        const bool now_matches = e.type != WatchEventType::kDeleted && filter.Matches(*e.object);
        const bool matched = e.previous && filter.Matches(*e.previous);
        std::string_view type;
        if (e.type == WatchEventType::kDeleted) {
          if (!matched) continue;
          type = "DELETED";
        } else if (now_matches) {
          type = matched ? "MODIFIED" : "ADDED";
        } else if (matched) {
          type = "DELETED";
        } else {
          continue;
        }
        if (!emit(type, object_text(*e.object))) return;
        next_bookmark = Clock::now() + options_.bookmark_interval;
      }
      const Clock::time_point now = Clock::now();
      // At the deadline a last bookmark, as the API server's watch cache sends one just before
      // a watch times out: the client re-watches from a version as close to now as possible,
      // not from its last event, which an idle selection may have left past the window (410).
      if (bookmarks && (now >= next_bookmark || now >= end)) {
        if (!bookmark(cursor == 0 ? store_->resource_version() : cursor, false)) return;
        next_bookmark = now + options_.bookmark_interval;
      }
      if (now >= end) return;
    }
  };
  return reply;
}

}  // namespace steward::kube
