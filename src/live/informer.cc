#include "live/informer.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::live {
namespace {

using nlohmann::json;

const json& Metadata(const json& object) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

}  // namespace

std::string StringField(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string ObjectKey(const json& object) {
  const json& meta = Metadata(object);
  const std::string ns = StringField(meta, "namespace");
  const std::string name = StringField(meta, "name");
  return ns.empty() ? name : ns + "/" + name;
}

Informer::Informer(KubeClient* client, InformerOptions options, InformerHandlers handlers)
    : client_(client),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      path_(options_.resource.Path(options_.namespace_name)) {}

Informer::~Informer() { Stop(); }

void Informer::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  cancel_.Reset();
  thread_ = std::thread([this] { Run(); });
}

void Informer::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  cancel_.Cancel();
}

void Informer::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

bool Informer::Stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return synced_ || stopping_; }) && synced_;
}

bool Informer::synced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return synced_;
}

std::vector<json> Informer::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<json> out;
  out.reserve(store_.size());
  for (const auto& [key, object] : store_) out.push_back(object);
  return out;
}

std::optional<json> Informer::Get(std::string_view namespace_name, std::string_view name) const {
  const std::string key =
      namespace_name.empty() ? std::string(name) : fmt::format("{}/{}", namespace_name, name);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = store_.find(key);
  if (it == store_.end()) return std::nullopt;
  return it->second;
}

Informer::Stats Informer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

Query Informer::BaseQuery() const {
  Query q;
  if (!options_.label_selector.empty()) q.emplace_back("labelSelector", options_.label_selector);
  if (!options_.field_selector.empty()) q.emplace_back("fieldSelector", options_.field_selector);
  return q;
}

void Informer::Run() {
  bool need_list = true;
  while (!Stopping()) {
    if (need_list) {
      if (!ListOnce()) {
        Backoff();
        continue;
      }
      need_list = false;
    }
    need_list = WatchOnce();
  }
}

bool Informer::ListOnce() {
  ApiResult r = client_->List(path_, {.query = BaseQuery()}, options_.page_size);
  if (!r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.failures;
    stats_.last_error = fmt::format("list {}: {}", path_, r.ToStatus().message());
    return false;
  }
  const json& list = r.value();
  Replace(list.contains("items") ? list["items"] : json::array());
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.lists;
    stats_.resource_version = StringField(Metadata(list), "resourceVersion");
    synced_ = true;
  }
  cv_.notify_all();
  backoff_ = std::chrono::milliseconds(0);
  if (handlers_.on_synced) handlers_.on_synced();
  return true;
}

bool Informer::WatchOnce() {
  Query q = BaseQuery();
  {
    std::lock_guard<std::mutex> lock(mu_);
    q.emplace_back("resourceVersion", stats_.resource_version);
    ++stats_.watches;
  }
  q.emplace_back("allowWatchBookmarks", "true");
  q.emplace_back("timeoutSeconds", std::to_string(options_.watch_timeout.count()));
  int64_t applied = 0;
  ApiResult r = client_->Watch(
      path_, {.query = std::move(q)},
      [&](WatchEvent e) {
        const std::string rv = StringField(Metadata(e.object), "resourceVersion");
        if (e.type != "BOOKMARK") {
          Apply(e.type, e.object);
          ++applied;
        }
        std::lock_guard<std::mutex> lock(mu_);
        if (!rv.empty()) stats_.resource_version = rv;
        if (e.type != "BOOKMARK") ++stats_.events;
        return !stopping_;
      },
      &cancel_);
  if (r.ok()) {
    backoff_ = std::chrono::milliseconds(0);
    return false;  // The server ended the stream (timeoutSeconds): watch again.
  }
  const kube::ApiError& e = r.error();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    if (e.code == 410) {
      ++stats_.relists_after_gone;
      stats_.last_error = fmt::format("watch {}: {}", path_, r.ToStatus().message());
      return true;  // Re-list at once (client-go does not back off on 410).
    }
    ++stats_.failures;
    stats_.last_error = fmt::format("watch {}: {}", path_, r.ToStatus().message());
  }
  if (applied > 0) backoff_ = std::chrono::milliseconds(0);  // It was streaming: a disconnect.
  Backoff();
  return false;  // Resume from the last version seen; a 410 then forces the re-list.
}

void Informer::Backoff() {
  backoff_ = backoff_.count() == 0 ? options_.initial_backoff
                                   : std::min(backoff_ * 2, options_.max_backoff);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, backoff_, [this] { return stopping_; });
}

void Informer::Apply(const std::string& type, const json& object) {
  const std::string key = ObjectKey(object);
  const bool wanted = type != "DELETED" && (!options_.filter || options_.filter(object));
  std::optional<json> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = store_.find(key);
    if (it != store_.end()) old = it->second;
    if (wanted) {
      store_[key] = object;
    } else if (it != store_.end()) {
      store_.erase(it);
    }
  }
  if (wanted && old) {
    if (handlers_.on_update) handlers_.on_update(*old, object);
  } else if (wanted) {
    if (handlers_.on_add) handlers_.on_add(object);
  } else if (old) {
    // A DELETED event carries the last state; an object leaving the filter, its new one.
    if (handlers_.on_delete) handlers_.on_delete(type == "DELETED" ? object : *old);
  }
}

void Informer::Replace(const json& items) {
  std::map<std::string, json> fresh;
  if (items.is_array())
    for (const json& item : items)
      if (!options_.filter || options_.filter(item)) fresh[ObjectKey(item)] = item;
  std::map<std::string, json> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old.swap(store_);
    store_ = fresh;
  }
  // The differences, as client-go's DeltaFIFO Replace delivers them: deletions of what is
  // gone, adds of what is new, updates of what changed (by resourceVersion).
  for (const auto& [key, object] : old)
    if (!fresh.count(key) && handlers_.on_delete) handlers_.on_delete(object);
  for (const auto& [key, object] : fresh) {
    auto it = old.find(key);
    if (it == old.end()) {
      if (handlers_.on_add) handlers_.on_add(object);
    } else if (StringField(Metadata(it->second), "resourceVersion") !=
               StringField(Metadata(object), "resourceVersion")) {
      if (handlers_.on_update) handlers_.on_update(it->second, object);
    }
  }
}

}  // namespace steward::live
