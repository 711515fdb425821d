#include "kube/object_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "kube/json_decoder.h"

namespace steward::kube {
namespace {

using Clock = std::chrono::steady_clock;

bool KeyLess(const ObjectPtr& o, std::pair<std::string_view, std::string_view> key) {
  // As string_views on both sides: clang 14 (the fuzz build) has no mixed-type tuple `<`.
  return std::pair<std::string_view, std::string_view>(o->namespace_name, o->name) < key;
}

// Position of (ns, name) in sorted items.
ObjectStore::Items::const_iterator Find(const ObjectStore::Items& items, std::string_view ns,
                                        std::string_view name) {
  auto it = std::lower_bound(items.begin(), items.end(), std::make_pair(ns, name), KeyLess);
  if (it != items.end() && (*it)->namespace_name == ns && (*it)->name == name) return it;
  return items.end();
}

// Applies one change to sorted items (copy-on-write done by the caller).
void Apply(ObjectStore::Items& items, const ObjectPtr& object, std::string_view ns,
           std::string_view name, bool remove) {
  auto it = std::lower_bound(items.begin(), items.end(), std::make_pair(ns, name), KeyLess);
  const bool present = it != items.end() && (*it)->namespace_name == ns && (*it)->name == name;
  if (remove) {
    if (present) items.erase(it);
  } else if (present) {
    *it = object;
  } else {
    items.insert(it, object);
  }
}

}  // namespace

std::string_view WatchEventName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
  }
  return "ADDED";
}

ObjectStore::ObjectStore(ObjectStoreOptions options) : options_(std::move(options)) {}

Clock::time_point ObjectStore::Now() const {
  return options_.clock ? options_.clock() : Clock::now();
}

int ObjectStore::AddResource(StoredResourceSpec spec) {
  resources_.push_back(std::move(spec));
  collections_.push_back(std::make_shared<const Items>());
  return static_cast<int>(resources_.size()) - 1;
}

ObjectPtr ObjectStore::Encode(int resource, const std::string& ns, const std::string& name,
                              nlohmann::json object, int64_t rv) const {
  const StoredResourceSpec& spec = resources_[resource];
  auto stored = std::make_shared<StoredObject>();
  stored->namespace_name = ns;
  stored->name = name;
  stored->resource_version = rv;
  nlohmann::json& meta = object["metadata"];
  meta["resourceVersion"] = std::to_string(rv);
  if (auto it = meta.find("labels"); it != meta.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) stored->labels.emplace(k, v.get<std::string>());
  if (auto it = meta.find("creationTimestamp"); it != meta.end() && it->is_string())
    stored->creation_micros = ParseTime(it->get<std::string>()).value_or(0);
  stored->fields.reserve(spec.fields.size());
  for (const auto& field : spec.fields) stored->fields.push_back(field.second(object));
  if (spec.cells) stored->cells = spec.cells(object);
  stored->metadata_json = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  stored->json = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return stored;
}

std::vector<ObjectPtr> ObjectStore::Commit(std::vector<Change> changes) {
  std::lock_guard<std::mutex> commit(commit_mu_);
  std::vector<ObjectPtr> results(changes.size());
  std::vector<std::shared_ptr<Items>> next(resources_.size());
  std::vector<StoreEvent> events;
  events.reserve(changes.size());
  const Clock::time_point now = Now();
  for (size_t i = 0; i < changes.size(); ++i) {
    Change& c = changes[i];
    std::shared_ptr<Items>& items = next[c.resource];
    if (!items) {
      std::lock_guard<std::mutex> read(read_mu_);
      items = std::make_shared<Items>(*collections_[c.resource]);
    }
    auto it = Find(*items, c.namespace_name, c.name);
    const ObjectPtr previous = it == items->end() ? nullptr : *it;
    StoreEvent e;
    e.resource = c.resource;
    e.previous = previous;
    e.at = now;
    if (!c.object) {
      if (!previous) continue;
      e.resource_version = next_rv_++;
      e.type = WatchEventType::kDeleted;
      // The deleted object is reported at the deletion's version.
      e.object =
          Encode(c.resource, c.namespace_name, c.name, previous->Parse(), e.resource_version);
      Apply(*items, nullptr, c.namespace_name, c.name, true);
    } else {
      e.resource_version = next_rv_++;
      e.type = previous ? WatchEventType::kModified : WatchEventType::kAdded;
      e.object =
          Encode(c.resource, c.namespace_name, c.name, std::move(*c.object), e.resource_version);
      Apply(*items, e.object, c.namespace_name, c.name, false);
      results[i] = e.object;
    }
    events.push_back(std::move(e));
  }
  if (!events.empty()) Publish(std::move(events), std::move(next));
  return results;
}

std::variant<ObjectPtr, ApiError> ObjectStore::Update(int resource,
                                                      const std::string& namespace_name,
                                                      const std::string& name,
                                                      const Mutation& mutate) {
  std::lock_guard<std::mutex> commit(commit_mu_);
  std::shared_ptr<const Items> current;
  {
    std::lock_guard<std::mutex> read(read_mu_);
    current = collections_[resource];
  }
  auto it = Find(*current, namespace_name, name);
  const ObjectPtr previous = it == current->end() ? nullptr : *it;
  auto outcome = mutate(previous.get());
  if (auto* error = std::get_if<ApiError>(&outcome)) return std::move(*error);
  std::optional<nlohmann::json>& object = std::get<std::optional<nlohmann::json>>(outcome);
  if (!object && !previous) return ObjectPtr();
  if (object && previous) {
    // A no-op write keeps the version (as the API server does for an unchanged object).
    nlohmann::json before = previous->Parse();
    (*object)["metadata"]["resourceVersion"] = before["metadata"]["resourceVersion"];
    if (before == *object) return previous;
  }
  StoreEvent e;
  e.resource = resource;
  e.previous = previous;
  e.at = Now();
  e.resource_version = next_rv_++;
  auto items = std::make_shared<Items>(*current);
  if (!object) {
    e.type = WatchEventType::kDeleted;
    e.object = Encode(resource, namespace_name, name, previous->Parse(), e.resource_version);
    Apply(*items, nullptr, namespace_name, name, true);
  } else {
    e.type = previous ? WatchEventType::kModified : WatchEventType::kAdded;
    e.object = Encode(resource, namespace_name, name, std::move(*object), e.resource_version);
    Apply(*items, e.object, namespace_name, name, false);
  }
  ObjectPtr result = object ? e.object : nullptr;
  std::vector<std::shared_ptr<Items>> next(resources_.size());
  next[resource] = std::move(items);
  std::vector<StoreEvent> events;
  events.push_back(std::move(e));
  Publish(std::move(events), std::move(next));
  return result;
}

void ObjectStore::Publish(std::vector<StoreEvent> events,
                          std::vector<std::shared_ptr<Items>> collections) {
  {
    std::lock_guard<std::mutex> read(read_mu_);
    for (size_t r = 0; r < collections.size(); ++r)
      if (collections[r]) collections_[r] = std::move(collections[r]);
    rv_ = events.back().resource_version;
    for (StoreEvent& e : events) history_.push_back(std::move(e));
    Trim();
  }
  changed_.notify_all();
}

void ObjectStore::Trim() const {
  const Clock::time_point cutoff = Now() - options_.history_window;
  while (!history_.empty() &&
         (history_.size() > options_.max_history_events || history_.front().at < cutoff)) {
    compacted_ = history_.front().resource_version;
    history_.pop_front();
  }
}

int64_t ObjectStore::resource_version() const {
  std::lock_guard<std::mutex> read(read_mu_);
  return rv_;
}

ObjectStore::View ObjectStore::Snapshot(int resource) const {
  std::lock_guard<std::mutex> read(read_mu_);
  return View{rv_, collections_[resource]};
}

std::variant<ObjectStore::View, ApiError> ObjectStore::SnapshotAt(int resource,
                                                                  int64_t version) const {
  std::shared_ptr<const Items> items;
  std::vector<StoreEvent> undo;  // Copies: the history may be trimmed once the lock is gone.
  {
    std::lock_guard<std::mutex> read(read_mu_);
    Trim();
    if (version > rv_)
      return ApiError::Timeout(
          fmt::format("Too large resource version: {}, current: {}", version, rv_));
    if (version == rv_) return View{rv_, collections_[resource]};
    if (version < compacted_)
      return ApiError::Gone(
          fmt::format("The resourceVersion for the provided list is too old (requested {}, oldest "
                      "available {}).",
                      version, compacted_ + 1));
    items = collections_[resource];
    // Events are dense by version: the one after `version` is at this index.
    const size_t first = static_cast<size_t>(version + 1 - history_.front().resource_version);
    for (size_t i = history_.size(); i-- > first;)
      if (history_[i].resource == resource) undo.push_back(history_[i]);
  }
  auto past = std::make_shared<Items>(*items);
  for (const StoreEvent& e : undo) {
    const StoredObject& o = *e.object;
    if (e.type == WatchEventType::kAdded)
      Apply(*past, nullptr, o.namespace_name, o.name, true);
    else
      Apply(*past, e.previous, o.namespace_name, o.name, false);
  }
  return View{version, std::move(past)};
}

ObjectPtr ObjectStore::Get(int resource, std::string_view ns, std::string_view name) const {
  std::shared_ptr<const Items> items;
  {
    std::lock_guard<std::mutex> read(read_mu_);
    items = collections_[resource];
  }
  auto it = Find(*items, ns, name);
  return it == items->end() ? nullptr : *it;
}

std::optional<ApiError> ObjectStore::CheckWatchable(int64_t from) const {
  std::lock_guard<std::mutex> read(read_mu_);
  Trim();
  if (from < compacted_)
    return ApiError::Gone(fmt::format("too old resource version: {} ({})", from, compacted_ + 1));
  return std::nullopt;
}

bool ObjectStore::WaitForEvents(int64_t from, size_t max, Clock::time_point deadline,
                                std::vector<StoreEvent>* out) const {
  std::unique_lock<std::mutex> lock(read_mu_);
  changed_.wait_until(lock, deadline, [&] { return closed_ || rv_ > from || from < compacted_; });
  Trim();
  if (closed_ || from < compacted_) return false;
  if (rv_ <= from) return true;
  const size_t first = static_cast<size_t>(from + 1 - history_.front().resource_version);
  for (size_t i = first; i < history_.size() && out->size() < max; ++i) out->push_back(history_[i]);
  return true;
}

void ObjectStore::Close() {
  {
    std::lock_guard<std::mutex> read(read_mu_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool ObjectStore::closed() const {
  std::lock_guard<std::mutex> read(read_mu_);
  return closed_;
}

int64_t ObjectStore::compacted() const {
  std::lock_guard<std::mutex> read(read_mu_);
  Trim();
  return compacted_;
}

size_t ObjectStore::history_size() const {
  std::lock_guard<std::mutex> read(read_mu_);
  Trim();
  return history_.size();
}

}  // namespace steward::kube
