// ApiServer reads: get and list (paging over one snapshot, resourceVersion semantics, label and
// field selectors), as JSON or as a meta.k8s.io/v1 Table.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "kube/api_server.h"
#include "kube/api_server_internal.h"
#include "model/text.h"

namespace steward::kube {

using nlohmann::json;
using namespace internal;

namespace {

using Clock = std::chrono::steady_clock;

// Continue tokens: the snapshot's version and the last key returned, base64 (opaque to
// clients, as Kubernetes' are).
std::string EncodeContinue(int64_t rv, const StoredObject& last) {
  json t = {{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", last.namespace_name + "/" + last.name}};
  return model::Base64Encode(t.dump());
}

struct ContinueToken {
  int64_t rv = 0;
  std::string ns, name;
};

std::optional<ContinueToken> DecodeContinue(const std::string& token) {
  std::optional<std::string> raw = model::Base64Decode(token);
  if (!raw) return std::nullopt;
  json t = json::parse(*raw, nullptr, false);
  if (!t.is_object() || !t.contains("rv") || !t["rv"].is_number_integer() || !t.contains("start") ||
      !t["start"].is_string())
    return std::nullopt;
  const std::string start = t["start"].get<std::string>();
  const size_t slash = start.find('/');
  if (slash == std::string::npos) return std::nullopt;
  return ContinueToken{t["rv"].get<int64_t>(), start.substr(0, slash), start.substr(slash + 1)};
}

}  // namespace

std::variant<ObjectStore::View, ApiError> ApiServer::CachedSnapshot(int store_id, int64_t version) {
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    for (auto it = snapshot_cache_.begin(); it != snapshot_cache_.end(); ++it) {
      if (it->first != std::make_pair(store_id, version)) continue;
      // A cached snapshot lives no longer than the history it was rebuilt from: past the
      // window a continue token or an exact read is Gone, cached or not.
      if (version < store_->compacted()) {
        snapshot_cache_.erase(it);
        break;
      }
      snapshot_cache_.splice(snapshot_cache_.begin(), snapshot_cache_, it);
      return snapshot_cache_.front().second;
    }
  }
  auto view = store_->SnapshotAt(store_id, version);
  if (auto* v = std::get_if<ObjectStore::View>(&view)) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    snapshot_cache_.emplace_front(std::make_pair(store_id, version), *v);
    while (snapshot_cache_.size() > options_.snapshot_cache_entries) snapshot_cache_.pop_back();
  }
  return view;
}

http::Reply ApiServer::List(const Route& route, const http::Request& r) {
  const ApiResourceSpec& res = *route.resource;
  auto filter_or = MakeFilter(res, route.ns, r);
  if (auto* e = std::get_if<ApiError>(&filter_or)) return ErrorReply(*e);
  const Filter& filter = std::get<Filter>(filter_or);
  int64_t limit = 0;
  if (const std::string l = r.Param("limit"); !l.empty()) {
    std::optional<int64_t> v = ParseInt(l);
    if (!v || *v < 0) return ErrorReply(ApiError::BadRequest(fmt::format("invalid limit: {}", l)));
    limit = *v;
  }
  if (std::optional<ApiError> invalid = ValidateListOptions(r, /*watch=*/false))
    return ErrorReply(*invalid);
  const std::string rv_param = r.Param("resourceVersion");
  const std::string match = r.Param("resourceVersionMatch");

  ObjectStore::View view;
  std::optional<ContinueToken> from;
  if (const std::string token = r.Param("continue"); !token.empty()) {
    // The token names the snapshot; "0" (any version) is ignored next to it, as the API
    // server's storage does, so a pager that keeps its first request's resourceVersion=0 works.
    if (!rv_param.empty() && rv_param != "0")
      return ErrorReply(
          ApiError::BadRequest("specifying resource version is not allowed when using continue"));
    from = DecodeContinue(token);
    if (!from) return ErrorReply(ApiError::BadRequest("continue key is not valid"));
    auto v = CachedSnapshot(route.store_id, from->rv);
    if (auto* e = std::get_if<ApiError>(&v)) {
      ApiError gone = ApiError::Gone(
          "The provided continue parameter is too old to display a consistent list result. "
          "You can start a new list without the continue parameter.");
      return ErrorReply(e->code == 410 ? gone : *e);
    }
    view = std::get<ObjectStore::View>(v);
  } else if (rv_param.empty() || rv_param == "0") {
    view = store_->Snapshot(route.store_id);
  } else {
    std::optional<int64_t> rv = ParseInt(rv_param);
    if (!rv || *rv < 0)
      return ErrorReply(
          ApiError::BadRequest(fmt::format("invalid resource version: {}", rv_param)));
    // "N" with a limit and no match is Exact (the legacy rule KEP-2523 kept), else NotOlderThan.
    if (match == "Exact" || (match.empty() && limit > 0)) {
      auto v = CachedSnapshot(route.store_id, *rv);
      if (auto* e = std::get_if<ApiError>(&v)) return ErrorReply(*e);
      view = std::get<ObjectStore::View>(v);
    } else {
      // NotOlderThan: wait a little for a version the store has not reached yet.
      const Clock::time_point deadline = Clock::now() + std::chrono::seconds(3);
      while (store_->resource_version() < *rv && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (store_->resource_version() < *rv)
        return ErrorReply(ApiError::Timeout(fmt::format(
            "Too large resource version: {}, current: {}", *rv, store_->resource_version())));
      view = store_->Snapshot(route.store_id);
    }
  }

  const ObjectStore::Items& items = *view.items;
  auto it = items.begin();
  if (from) {
    it = std::upper_bound(items.begin(), items.end(), std::make_pair(from->ns, from->name),
                          [](const auto& key, const ObjectPtr& o) {
                            return std::tie(key.first, key.second) <
                                   std::tie(o->namespace_name, o->name);
                          });
  }
  std::vector<const StoredObject*> page;
  for (; it != items.end(); ++it) {
    if (!filter.Matches(**it)) continue;
    if (limit > 0 && static_cast<int64_t>(page.size()) == limit) break;
    page.push_back(it->get());
  }
  std::string cont;
  std::optional<int64_t> remaining;
  if (it != items.end() && !page.empty()) {
    cont = EncodeContinue(view.resource_version, *page.back());
    if (filter.labels.empty() && filter.fields.empty() && route.ns.empty())
      remaining = items.end() - it;
  }

  const std::string api_version = GroupVersion(res.group, route.version);
  http::Reply reply;
  std::string& out = reply.body;
  if (WantsTable(r)) {
    reply.content_type = kTableContentType;
    const int64_t now = Now();
    const IncludeObject include = IncludeObjectParam(r);
    out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
    out += ListMeta(view.resource_version, cont, remaining);
    out += ",\"columnDefinitions\":";
    out += ColumnDefinitions(PrinterOf(res)).dump();
    out += ",\"rows\":[";
    for (size_t i = 0; i < page.size(); ++i) {
      if (i) out += ',';
      AppendRow(out, res, *page[i], now, include, api_version);
    }
    out += "]}";
    return reply;
  }
  size_t bytes = 128;
  for (const StoredObject* o : page) bytes += o->json.size() + 1;
  out.reserve(bytes);
  out = fmt::format("{{\"kind\":\"{}List\",\"apiVersion\":\"{}\",\"metadata\":", res.kind,
                    api_version);
  out += ListMeta(view.resource_version, cont, remaining);
  out += ",\"items\":[";
  for (size_t i = 0; i < page.size(); ++i) {
    if (i) out += ',';
    out += page[i]->json;
  }
  out += "]}";
  return reply;
}

http::Reply ApiServer::Get(const Route& route, const http::Request& r) {
  ObjectPtr o = store_->Get(route.store_id, route.ns, route.name);
  if (!o)
    return ErrorReply(ApiError::NotFound(route.resource->name, route.resource->group, route.name));
  http::Reply reply;
  if (WantsTable(r)) {
    reply.content_type = kTableContentType;
    std::string& out = reply.body;
    out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
    out += ListMeta(o->resource_version, "", std::nullopt);
    out += ",\"columnDefinitions\":";
    out += ColumnDefinitions(PrinterOf(*route.resource)).dump();
    out += ",\"rows\":[";
    AppendRow(out, *route.resource, *o, Now(), IncludeObjectParam(r),
              GroupVersion(route.resource->group, route.version));
    out += "]}";
    return reply;
  }
  reply.body = o->json;
  return reply;
}

}  // namespace steward::kube
