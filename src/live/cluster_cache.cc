#include "live/cluster_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "kube/json_decoder.h"

namespace steward::live {
namespace {

using nlohmann::json;

struct CustomGroup {
  const char* group;
  std::vector<std::string> plurals;
};
// The Kueue and Volcano resources the cache follows when the server serves them.
const CustomGroup kCustomGroups[] = {
    {"kueue.x-k8s.io", {"clusterqueues", "localqueues", "workloads", "resourceflavors", "cohorts"}},
    {"scheduling.volcano.sh", {"queues", "podgroups"}},
};

bool HasVerbs(const json& resource, std::initializer_list<const char*> verbs) {
  if (!resource.contains("verbs") || !resource["verbs"].is_array()) return false;
  for (const char* v : verbs)
    if (std::find(resource["verbs"].begin(), resource["verbs"].end(), v) == resource["verbs"].end())
      return false;
  return true;
}

// The listed-and-watchable resources of `group` among `wanted`, at its preferred version;
// none when the group is not served.
Result<std::vector<ResourceRef>> Discover(KubeClient* client, const json& groups,
                                          const CustomGroup& wanted) {
  std::vector<ResourceRef> out;
  if (!groups.contains("groups") || !groups["groups"].is_array()) return out;
  for (const json& g : groups["groups"]) {
    if (StringField(g, "name") != wanted.group) continue;
    std::string version = StringField(g.value("preferredVersion", json::object()), "version");
    if (version.empty() && g.contains("versions") && g["versions"].is_array() &&
        !g["versions"].empty())
      version = StringField(g["versions"][0], "version");
    if (version.empty()) return out;
    const std::string path = fmt::format("/apis/{}/{}", wanted.group, version);
    ApiResult list = client->Get(path);
    if (!list.ok())
      return Status::IoError(fmt::format("discovery {}: {}", path, list.ToStatus().message()));
    const json& resources = list.value().value("resources", json::array());
    for (const std::string& plural : wanted.plurals) {
      for (const json& r : resources) {
        if (StringField(r, "name") != plural || !HasVerbs(r, {"list", "watch"})) continue;
        out.push_back({wanted.group, version, plural, r.value("namespaced", true)});
      }
    }
  }
  return out;
}

bool RequestsGpus(const json& pod) {
  kube::JsonDecoder d("pod");
  return kube::DecodePod(d, pod).GpuRequest() > 0;
}

template <typename Map>
auto Values(const Map& map, std::string_view ns) {
  std::vector<typename Map::mapped_type> out;
  for (const auto& [key, value] : map)
    if (ns.empty() || value.metadata.namespace_name == ns) out.push_back(value);
  return out;
}

}  // namespace

struct ClusterCache::Impl {
  KubeClient* client = nullptr;
  ClusterCacheOptions options;

  mutable std::shared_mutex mu;
  std::map<std::string, kube::Node> nodes;  // All guarded by mu.
  std::map<std::string, kube::Pod> pods;
  std::map<std::string, std::set<std::string>> pods_by_node, pods_by_namespace, pods_by_owner;
  std::map<std::string, kube::Namespace> namespaces;
  std::map<std::string, kube::PodDisruptionBudget> pdbs;
  std::map<std::string, kube::Event> events;
  std::map<std::string, kube::Lease> leases;

  std::vector<ResourceRef> custom;
  std::vector<std::unique_ptr<Informer>> informers;
  std::map<std::string, Informer*, std::less<>> by_plural;
  std::map<std::string, Informer*, std::less<>> custom_by_plural;  // Kueue and Volcano.
  std::atomic<int64_t> decode_errors{0};

  static std::string OwnerKey(std::string_view ns, std::string_view kind, std::string_view name) {
    return fmt::format("{}/{}/{}", ns, kind, name);
  }

  void Notify(const std::string& resource, const char* type, const json& object) {
    if (!options.on_change) return;
    const json meta = object.value("metadata", json::object());
    options.on_change({resource, type, StringField(meta, "namespace"), StringField(meta, "name")});
  }

  // Keeps map[key] equal to the decoded object; `index`/`unindex` maintain pod indexes.
  template <typename T>
  InformerHandlers Handlers(const std::string& resource, std::map<std::string, T> Impl::*map,
                            T (*decode)(kube::JsonDecoder&, const json&)) {
    auto put = [this, map, decode, resource](const json& object, const char* type) {
      kube::JsonDecoder d(fmt::format("{} {}", resource, ObjectKey(object)));
      T value = decode(d, object);
      if (!d.status().ok()) ++decode_errors;
      {
        std::unique_lock lock(mu);
        const std::string key = ObjectKey(object);
        if constexpr (std::is_same_v<T, kube::Pod>) {
          if (auto it = pods.find(key); it != pods.end()) Unindex(key, it->second);
          Index(key, value);
        }
        (this->*map)[key] = std::move(value);
      }
      Notify(resource, type, object);
    };
    InformerHandlers h;
    h.on_add = [put](const json& o) { put(o, "ADDED"); };
    h.on_update = [put](const json&, const json& o) { put(o, "MODIFIED"); };
    h.on_delete = [this, map, resource](const json& object) {
      {
        std::unique_lock lock(mu);
        const std::string key = ObjectKey(object);
        auto& m = this->*map;
        auto it = m.find(key);
        if (it == m.end()) return;
        if constexpr (std::is_same_v<T, kube::Pod>) Unindex(key, it->second);
        m.erase(it);
      }
      Notify(resource, "DELETED", object);
    };
    return h;
  }

  // REQUIRES: mu held exclusively.
  void Index(const std::string& key, const kube::Pod& pod) {
    if (!pod.node_name.empty()) pods_by_node[pod.node_name].insert(key);
    pods_by_namespace[pod.metadata.namespace_name].insert(key);
    for (const kube::OwnerReference& o : pod.metadata.owner_references)
      pods_by_owner[OwnerKey(pod.metadata.namespace_name, o.kind, o.name)].insert(key);
  }
  void Unindex(const std::string& key, const kube::Pod& pod) {
    auto drop = [&](std::map<std::string, std::set<std::string>>& index, const std::string& at) {
      auto it = index.find(at);
      if (it == index.end()) return;
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    };
    drop(pods_by_node, pod.node_name);
    drop(pods_by_namespace, pod.metadata.namespace_name);
    for (const kube::OwnerReference& o : pod.metadata.owner_references)
      drop(pods_by_owner, OwnerKey(pod.metadata.namespace_name, o.kind, o.name));
  }

  std::vector<kube::Pod> PodsAt(const std::map<std::string, std::set<std::string>>& index,
                                const std::string& at) const {
    std::shared_lock lock(mu);
    std::vector<kube::Pod> out;
    auto it = index.find(at);
    if (it == index.end()) return out;
    for (const std::string& key : it->second) out.push_back(pods.at(key));
    return out;
  }

  void Add(ResourceRef ref, std::string ns, std::function<bool(const json&)> filter,
           InformerHandlers handlers) {
    InformerOptions o = options.informer;
    o.resource = ref;
    o.namespace_name = std::move(ns);
    o.filter = std::move(filter);
    auto informer = std::make_unique<Informer>(client, std::move(o), std::move(handlers));
    by_plural[ref.plural] = informer.get();
    informers.push_back(std::move(informer));
  }
};

Result<std::unique_ptr<ClusterCache>> ClusterCache::Start(KubeClient* client,
                                                          ClusterCacheOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->client = client;
  impl->options = std::move(options);
  Impl& i = *impl;

  ApiResult groups = client->Get("/apis");
  if (!groups.ok())
    return Status::IoError(fmt::format("discovery /apis: {}", groups.ToStatus().message()));
  for (const CustomGroup& g : kCustomGroups) {
    STEWARD_ASSIGN_OR_RETURN(std::vector<ResourceRef> found, Discover(client, groups.value(), g));
    i.custom.insert(i.custom.end(), found.begin(), found.end());
  }

  i.Add(ResourceRef::Core("nodes", false), "", nullptr,
        i.Handlers<kube::Node>("nodes", &Impl::nodes, kube::DecodeNode));
  i.Add(ResourceRef::Core("pods", true), "",
        i.options.all_pods ? std::function<bool(const json&)>() : RequestsGpus,
        i.Handlers<kube::Pod>("pods", &Impl::pods, kube::DecodePod));
  i.Add(ResourceRef::Core("namespaces", false), "", nullptr,
        i.Handlers<kube::Namespace>("namespaces", &Impl::namespaces, kube::DecodeNamespace));
  i.Add(
      {"policy", "v1", "poddisruptionbudgets", true}, "", nullptr,
      i.Handlers<kube::PodDisruptionBudget>("poddisruptionbudgets", &Impl::pdbs, kube::DecodePdb));
  if (i.options.events)
    i.Add(ResourceRef::Core("events", true), i.options.events_namespace, nullptr,
          i.Handlers<kube::Event>("events", &Impl::events, kube::DecodeEvent));
  i.Add({"coordination.k8s.io", "v1", "leases", true}, i.options.leases_namespace, nullptr,
        i.Handlers<kube::Lease>("leases", &Impl::leases, kube::DecodeLease));
  for (const ResourceRef& ref : i.custom) {
    InformerHandlers h;
    const std::string plural = ref.plural;
    Impl* p = impl.get();
    h.on_add = [p, plural](const json& o) { p->Notify(plural, "ADDED", o); };
    h.on_update = [p, plural](const json&, const json& o) { p->Notify(plural, "MODIFIED", o); };
    h.on_delete = [p, plural](const json& o) { p->Notify(plural, "DELETED", o); };
    i.Add(ref, "", nullptr, std::move(h));
    i.custom_by_plural[plural] = i.informers.back().get();
  }
  for (auto& informer : i.informers) informer->Start();
  return std::unique_ptr<ClusterCache>(new ClusterCache(std::move(impl)));
}

ClusterCache::ClusterCache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ClusterCache::~ClusterCache() { Stop(); }

bool ClusterCache::WaitForSync(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& informer : impl_->informers) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!informer->WaitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

void ClusterCache::Stop() {
  // Cancel every watch first, then join: stopping one by one would wait for each in turn.
  for (auto& informer : impl_->informers) informer->RequestStop();
  for (auto& informer : impl_->informers) informer->Stop();
}

std::vector<ResourceRef> ClusterCache::custom_resources() const { return impl_->custom; }

bool ClusterCache::Serves(std::string_view plural) const {
  return impl_->by_plural.find(plural) != impl_->by_plural.end();
}

std::vector<kube::Node> ClusterCache::Nodes() const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->nodes, "");
}

std::optional<kube::Node> ClusterCache::GetNode(std::string_view name) const {
  std::shared_lock lock(impl_->mu);
  auto it = impl_->nodes.find(std::string(name));
  if (it == impl_->nodes.end()) return std::nullopt;
  return it->second;
}

std::vector<kube::Pod> ClusterCache::Pods() const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->pods, "");
}

std::optional<kube::Pod> ClusterCache::GetPod(std::string_view namespace_name,
                                              std::string_view name) const {
  std::shared_lock lock(impl_->mu);
  auto it = impl_->pods.find(fmt::format("{}/{}", namespace_name, name));
  if (it == impl_->pods.end()) return std::nullopt;
  return it->second;
}

std::vector<kube::Pod> ClusterCache::PodsOnNode(std::string_view node) const {
  return impl_->PodsAt(impl_->pods_by_node, std::string(node));
}

std::vector<kube::Pod> ClusterCache::PodsInNamespace(std::string_view namespace_name) const {
  return impl_->PodsAt(impl_->pods_by_namespace, std::string(namespace_name));
}

std::vector<kube::Pod> ClusterCache::PodsOwnedBy(std::string_view namespace_name,
                                                 std::string_view kind,
                                                 std::string_view name) const {
  return impl_->PodsAt(impl_->pods_by_owner, Impl::OwnerKey(namespace_name, kind, name));
}

std::vector<kube::Namespace> ClusterCache::Namespaces() const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->namespaces, "");
}

std::vector<kube::PodDisruptionBudget> ClusterCache::Pdbs(std::string_view namespace_name) const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->pdbs, namespace_name);
}

std::vector<kube::Event> ClusterCache::Events(std::string_view namespace_name) const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->events, namespace_name);
}

std::vector<kube::Lease> ClusterCache::Leases(std::string_view namespace_name) const {
  std::shared_lock lock(impl_->mu);
  return Values(impl_->leases, namespace_name);
}

std::vector<json> ClusterCache::Custom(std::string_view plural) const {
  auto it = impl_->custom_by_plural.find(plural);
  if (it == impl_->custom_by_plural.end()) return {};
  return it->second->List();
}

std::optional<json> ClusterCache::GetCustom(std::string_view plural,
                                            std::string_view namespace_name,
                                            std::string_view name) const {
  auto it = impl_->custom_by_plural.find(plural);
  if (it == impl_->custom_by_plural.end()) return std::nullopt;
  return it->second->Get(namespace_name, name);
}

std::map<std::string, Informer::Stats> ClusterCache::stats() const {
  std::map<std::string, Informer::Stats> out;
  for (const auto& [plural, informer] : impl_->by_plural) out[plural] = informer->stats();
  return out;
}

int64_t ClusterCache::decode_errors() const { return impl_->decode_errors.load(); }

}  // namespace steward::live
