#include "snapshot/node_pools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "govern/quantity.h"
#include "health/stack_health.h"

namespace steward::snapshot {
namespace {

constexpr char kProductLabel[] = "nvidia.com/gpu.product";
constexpr char kUnknownModel[] = "unknown-gpu";
constexpr int kMaxGpusPerNode = 16;  // The scenario's limit on gpus_per_node.

// Labels the twin puts on every node itself (twin/scenario.cc BuildCluster, kubefront's
// DerivedNodeLabels), so a pool must not carry them.
bool DerivedLabel(const std::string& key) {
  static const std::set<std::string> kExact = {"kubernetes.io/hostname",
                                               "kubernetes.io/os",
                                               "kubernetes.io/arch",
                                               "steward.io/pool",
                                               "steward.io/rack",
                                               "steward.io/placement-pool",
                                               "topology.kubernetes.io/zone",
                                               "steward.io/container-toolkit-version",
                                               "steward.io/device-plugin-version"};
  return kExact.count(key) > 0 || key.rfind("nvidia.com/gpu.", 0) == 0 ||
         key.rfind("nvidia.com/cuda.", 0) == 0 || key.rfind("nvidia.com/mig.", 0) == 0;
}

std::string Label(const kube::Node& n, const std::string& key) {
  auto it = n.metadata.labels.find(key);
  return it == n.metadata.labels.end() ? std::string() : it->second;
}

std::string DriverVersion(const kube::Node& n) {
  if (std::string full = Label(n, "nvidia.com/cuda.driver-version.full"); !full.empty())
    return full;
  const std::string major = Label(n, "nvidia.com/cuda.driver.major");
  if (major.empty()) return {};
  return fmt::format("{}.{}.{}", major, Label(n, "nvidia.com/cuda.driver.minor"),
                     Label(n, "nvidia.com/cuda.driver.rev"));
}

// A pool or model name the scenario accepts: lower-case letters, digits and '-'.
std::string Sanitize(const std::string& text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "pool" : out;
}

int64_t Capacity(const kube::Node& n, const char* resource, int64_t fallback) {
  auto it = n.capacity.find(resource);
  if (it == n.capacity.end()) return fallback;
  Result<govern::Amount> a = govern::ParseQuantity(it->second, resource);
  return a.ok() ? *a : fallback;
}

template <typename T>
T MostCommon(const std::map<T, int>& counts) {
  T best{};
  int best_count = -1;
  for (const auto& [value, count] : counts)  // Ordered map: ties go to the smallest value.
    if (count > best_count) best = value, best_count = count;
  return best;
}

std::string List(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
  return out;
}

struct NodeFacts {
  const kube::Node* node;
  std::string product;  // "" = no product label.
  int gpus;
  std::string pool_value;  // The pool label's value, "" = none.
};

}  // namespace

std::string ShortModelName(const std::string& product) {
  std::string p = product;
  for (const char* prefix : {"NVIDIA-", "NVIDIA ", "Tesla-", "Tesla "})
    if (p.rfind(prefix, 0) == 0) p = p.substr(std::string(prefix).size());
  const size_t end = p.find_first_of("- ");
  p = p.substr(0, end);
  return p.empty() ? product : p;
}

NodePools GroupNodePools(const std::vector<kube::Node>& nodes, const NodePoolOptions& options) {
  const std::vector<std::string> pool_labels =
      options.pool_labels.empty() ? health::StackHealthOptions{}.pool_labels : options.pool_labels;
  NodePools out;
  std::vector<const kube::Node*> sorted;
  for (const kube::Node& n : nodes) sorted.push_back(&n);
  std::sort(sorted.begin(), sorted.end(),
            [](auto* a, auto* b) { return a->metadata.name < b->metadata.name; });

  std::vector<NodeFacts> facts;
  std::vector<std::string> no_gpus, too_many, no_product;
  for (const kube::Node* n : sorted) {
    int64_t gpus = n->GpuCapacity();
    if (gpus <= 0) {
      // A node whose device plugin is down still says how many GPUs GFD saw.
      const std::string count = Label(*n, "nvidia.com/gpu.count");
      gpus = count.empty() ? 0 : std::atoll(count.c_str());
    }
    if (gpus <= 0) {
      no_gpus.push_back(n->metadata.name);
      continue;
    }
    if (gpus > kMaxGpusPerNode) {
      too_many.push_back(n->metadata.name);
      continue;
    }
    NodeFacts f{n, Label(*n, kProductLabel), static_cast<int>(gpus), {}};
    if (f.product.empty()) no_product.push_back(n->metadata.name);
    for (const std::string& key : pool_labels)
      if (std::string v = Label(*n, key); !v.empty()) {
        f.pool_value = v;
        break;
      }
    facts.push_back(f);
  }
  out.skipped_nodes = static_cast<int>(no_gpus.size() + too_many.size());
  if (!no_gpus.empty())
    out.notes.push_back(
        fmt::format("{} node(s) without GPUs left out: {}", no_gpus.size(), List(no_gpus)));
  if (!too_many.empty())
    out.notes.push_back(
        fmt::format("{} node(s) with more than {} GPUs left out (the scenario's "
                    "limit per node): {}",
                    too_many.size(), kMaxGpusPerNode, List(too_many)));
  if (!no_product.empty())
    out.notes.push_back(fmt::format(
        "{} GPU node(s) without the {} label (is GPU feature discovery running?) get the model "
        "'{}': {}",
        no_product.size(), kProductLabel, kUnknownModel, List(no_product)));

  // GPU models: one per product; short names unless two products would share one.
  std::map<std::string, std::vector<const kube::Node*>> by_product;
  for (const NodeFacts& f : facts) by_product[f.product].push_back(f.node);
  std::map<std::string, int> short_uses;
  for (const auto& [product, _] : by_product)
    if (!product.empty()) short_uses[ShortModelName(product)]++;
  for (const auto& [product, members] : by_product) {
    twin::GpuModelSpec m;
    if (product.empty()) {
      m.name = kUnknownModel;
    } else {
      const std::string s = ShortModelName(product);
      m.name = short_uses[s] > 1 ? product : s;
      m.product_label = product;
    }
    std::map<int64_t, int> memory;
    int mig = 0;
    for (const kube::Node* n : members) {
      if (std::string mem = Label(*n, "nvidia.com/gpu.memory"); !mem.empty())
        memory[std::atoll(mem.c_str())]++;
      mig += Label(*n, "nvidia.com/mig.capable") == "true";
    }
    if (!memory.empty() && MostCommon(memory) > 0)
      m.memory_mib = static_cast<int>(MostCommon(memory));
    m.mig_capable = mig * 2 > static_cast<int>(members.size());
    if (!product.empty()) out.model_of_product[product] = m.name;
    out.gpu_models.push_back(m);
  }
  auto model_name = [&](const std::string& product) {
    return product.empty() ? std::string(kUnknownModel) : out.model_of_product[product];
  };

  // Pools: (pool label value, product, GPU count); a label value covering several hardware
  // shapes is split, each part named by its shape.
  using Key = std::tuple<std::string, std::string, int>;
  std::map<Key, std::vector<const kube::Node*>> groups;
  std::map<std::string, std::set<std::pair<std::string, int>>> shapes_of_value;
  for (const NodeFacts& f : facts) {
    groups[{f.pool_value, f.product, f.gpus}].push_back(f.node);
    if (!f.pool_value.empty()) shapes_of_value[f.pool_value].insert({f.product, f.gpus});
  }
  std::set<std::string> names;
  for (const auto& [key, members] : groups) {
    const auto& [value, product, gpus] = key;
    const std::string shape = fmt::format("{}-x{}", model_name(product), gpus);
    std::string name = value.empty()                        ? Sanitize(shape)
                       : shapes_of_value[value].size() == 1 ? Sanitize(value)
                                                            : Sanitize(value + "-" + shape);
    for (int i = 2; names.count(name); ++i) name = fmt::format("{}-{}", Sanitize(shape), i);
    names.insert(name);
    twin::PoolSpec pool;
    pool.name = name;
    pool.nodes = static_cast<int>(members.size());
    pool.gpus_per_node = gpus;
    pool.gpu_model = model_name(product);
    std::map<std::string, int> drivers, toolkits, plugins;
    int64_t cpu = -1, memory = -1;
    for (const kube::Node* n : members) {
      out.pool_of_node[n->metadata.name] = name;
      if (std::string d = DriverVersion(*n); !d.empty()) drivers[d]++;
      if (std::string t = Label(*n, "steward.io/container-toolkit-version"); !t.empty())
        toolkits[t]++;
      if (std::string p = Label(*n, "steward.io/device-plugin-version"); !p.empty()) plugins[p]++;
      const int64_t c = Capacity(*n, "cpu", -1);
      const int64_t m = Capacity(*n, "memory", -1);
      if (c > 0) cpu = cpu < 0 ? c : std::min(cpu, c);
      if (m > 0) memory = memory < 0 ? m : std::min(memory, m);
    }
    if (cpu > 0) pool.cpu_milli = cpu;
    if (memory > 0) pool.memory_mib = memory / (1024 * 1024);
    if (!drivers.empty()) pool.driver_version = MostCommon(drivers);
    if (!toolkits.empty()) pool.toolkit_version = MostCommon(toolkits);
    if (!plugins.empty()) pool.device_plugin_version = MostCommon(plugins);
    if (drivers.size() > 1) {
      std::string mix;
      for (const auto& [d, c] : drivers)
        mix += fmt::format("{}{} x{}", mix.empty() ? "" : ", ", d, c);
      out.notes.push_back(fmt::format("pool {}: mixed drivers ({}); the scenario uses {}", name,
                                      mix, pool.driver_version));
    } else if (drivers.empty()) {
      out.notes.push_back(fmt::format("pool {}: no driver version label; the scenario's default {}",
                                      name, pool.driver_version));
    }
    // Labels and taints every node of the pool carries.
    pool.labels = members.front()->metadata.labels;
    std::erase_if(pool.labels, [](const auto& kv) { return DerivedLabel(kv.first); });
    for (const kube::Node* n : members)
      std::erase_if(pool.labels, [&](const auto& kv) { return Label(*n, kv.first) != kv.second; });
    for (const kube::Taint& t : members.front()->taints) {
      if (t.key.rfind("node.kubernetes.io/", 0) == 0) continue;  // Controllers' taints.
      bool everywhere = true;
      for (const kube::Node* n : members)
        everywhere = everywhere && std::any_of(n->taints.begin(), n->taints.end(), [&](auto& o) {
                       return o.key == t.key && o.value == t.value && o.effect == t.effect;
                     });
      if (everywhere) pool.taints.push_back({t.key, t.value, t.effect});
    }
    out.pools.push_back(std::move(pool));
  }
  std::sort(out.pools.begin(), out.pools.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace steward::snapshot
