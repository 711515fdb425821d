#include "diagnose/frame.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::diagnose {
namespace {

int32_t Intern(std::unordered_map<std::string, int32_t>& index, const std::string& key,
               size_t next) {
  auto [it, inserted] = index.try_emplace(key, static_cast<int32_t>(next));
  (void)inserted;
  return it->second;
}

}  // namespace

std::string ProductOf(std::string_view model_name) {
  std::string s(model_name);
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

int32_t Catalog::InternGpu(const telemetry::GpuIdentity& id) {
  const std::string key =
      telemetry::GpuKey(id.hostname, id.uuid, id.gpu >= 0 ? std::to_string(id.gpu) : "");
  const int32_t g = Intern(gpu_index_, key, gpus_.size());
  if (static_cast<size_t>(g) == gpus_.size()) {
    Gpu gpu;
    gpu.hostname = id.hostname;
    gpu.uuid = id.uuid;
    gpu.index = id.gpu;
    gpu.model_name = id.model_name;
    gpu.node = InternNode(id.hostname);
    if (!id.model_name.empty()) gpu.product = InternName(ProductOf(id.model_name));
    if (nodes_[gpu.node].product < 0) nodes_[gpu.node].product = gpu.product;
    gpus_.push_back(std::move(gpu));
  }
  return g;
}

int32_t Catalog::InternPod(std::string_view namespace_name, std::string_view name) {
  std::string key;
  key.reserve(namespace_name.size() + name.size() + 1);
  key.append(namespace_name).push_back('/');
  key.append(name);
  const int32_t p = Intern(pod_index_, key, pods_.size());
  if (static_cast<size_t>(p) == pods_.size())
    pods_.push_back(Pod{std::string(namespace_name), std::string(name)});
  return p;
}

int32_t Catalog::InternNode(std::string_view name) {
  const int32_t n = Intern(node_index_, std::string(name), nodes_.size());
  if (static_cast<size_t>(n) == nodes_.size()) nodes_.push_back(Node{std::string(name), -1});
  return n;
}

int32_t Catalog::InternName(std::string_view name) {
  const int32_t n = Intern(name_index_, std::string(name), names_.size());
  if (static_cast<size_t>(n) == names_.size()) names_.emplace_back(name);
  return n;
}

FrameBuilder::FrameBuilder(Attribution attribution, int64_t step_ms)
    : attribution_(std::move(attribution)), step_ms_(step_ms) {}

int32_t FrameBuilder::PodId(int slot, const telemetry::GpuIdentity& id) {
  if (id.pod.empty()) return -1;
  Slot& s = slots_[slot];
  if (s.pod < 0 || s.pod_name != id.pod || s.pod_namespace != id.namespace_name) {
    s.pod = catalog_.InternPod(id.namespace_name, id.pod);
    s.pod_name = id.pod;
    s.pod_namespace = id.namespace_name;
  }
  return s.pod;
}

Status FrameBuilder::Add(const Snapshot& snap) {
  if (frames_ > 0 && snap.time_ms <= last_ms_) {
    return Status::InvalidArgument(fmt::format(
        "snapshot at {} ms is not after the previous one ({} ms)", snap.time_ms, last_ms_));
  }
  if (frames_ == 0) first_ms_ = snap.time_ms;
  last_ms_ = snap.time_ms;
  const uint32_t stamp = static_cast<uint32_t>(++frames_);
  Frame& f = frame_;
  f.time_ms = snap.time_ms;
  f.hours = static_cast<double>(step_ms_) / 3.6e6;
  f.gpus.clear();
  f.pods.clear();
  f.nodes.clear();
  f.has_nodes = !snap.nodes.empty();

  // Pods first, so DCGM pod labels without an object can get a default below.
  for (const PodObject* pod : snap.pods) {
    const PodObject& p = *pod;
    // Sources that keep their pod objects across snapshots (the twin) hit this cache: a
    // pointer lookup and two compares instead of hashing the names.
    int32_t id = -1;
    if (auto it = pod_by_address_.find(pod); it != pod_by_address_.end()) {
      const Catalog::Pod& known = catalog_.pods()[it->second];
      if (known.name == p.name && known.namespace_name == p.namespace_name) id = it->second;
    }
    if (id < 0) {
      id = catalog_.InternPod(p.namespace_name, p.name);
      pod_by_address_[pod] = id;
    }
    if (static_cast<size_t>(id) >= pod_stamp_.size()) pod_stamp_.resize(id + 1, 0);
    if (pod_stamp_[id] == stamp) continue;
    pod_stamp_[id] = stamp;
    // Labels, owner and selector do not change in a pod's life: resolve them once.
    if (static_cast<size_t>(id) >= meta_.size()) meta_.resize(id + 1);
    PodMeta& m = meta_[id];
    if (!m.from_object) {
      m.team = catalog_.InternName(TeamOf(p, attribution_));
      m.workload = catalog_.InternName(WorkloadOf(p, attribution_));
      m.workload_class = catalog_.InternName(ClassOf(p, attribution_));
      m.product = p.gpu_product.empty() ? -1 : catalog_.InternName(p.gpu_product);
      m.owner_kind = catalog_.InternName(OwnerKindOf(p));
      m.from_object = true;
    }
    if (p.node != m.node_name) {  // Pods rarely move: re-intern only on a change.
      m.node = p.node.empty() ? -1 : catalog_.InternNode(p.node);
      m.node_name = p.node;
    }
    PodState s;
    s.pod = id;
    s.node = m.node;
    s.team = m.team;
    s.workload = m.workload;
    s.workload_class = m.workload_class;
    s.product = m.product;
    s.owner_kind = m.owner_kind;
    s.gpus = p.gpus;
    s.phase = p.phase;
    s.wait = p.wait;
    f.pods.push_back(s);
  }

  if (slots_.size() < snap.gpus.size()) slots_.resize(snap.gpus.size());
  for (size_t i = 0; i < snap.gpus.size(); ++i) {
    const telemetry::GpuRecord& r = snap.gpus[i];
    Slot& s = slots_[i];
    // A UUID names one GPU: when it matches, the host does too.
    const bool known = s.gpu >= 0 && (snap.same_gpus_as_before ||
                                      (s.index == r.id.gpu && s.uuid == r.id.uuid &&
                                       (!s.uuid.empty() || s.hostname == r.id.hostname)));
    if (!known) {
      s.gpu = catalog_.InternGpu(r.id);
      s.hostname = r.id.hostname;
      s.uuid = r.id.uuid;
      s.index = r.id.gpu;
    }
    const int32_t g = s.gpu;
    if (static_cast<size_t>(g) >= gpu_stamp_.size()) gpu_stamp_.resize(g + 1, 0);
    if (gpu_stamp_[g] == stamp) continue;  // A duplicate series of the same GPU.
    gpu_stamp_[g] = stamp;
    GpuReading reading;
    reading.gpu = g;
    reading.pod = PodId(static_cast<int>(i), r.id);
    using telemetry::DcgmField;
    const telemetry::FieldValues& v = r.values;
    reading.sm_active = v.Get(DcgmField::kSmActive).value_or(kAbsent);
    reading.gr_engine_active = v.Get(DcgmField::kGrEngineActive).value_or(kAbsent);
    reading.tensor_active = v.Get(DcgmField::kPipeTensorActive).value_or(kAbsent);
    reading.gpu_util = v.Get(DcgmField::kGpuUtil).value_or(kAbsent);
    reading.fb_used = v.Get(DcgmField::kFbUsed).value_or(kAbsent);
    if (reading.pod >= 0) {
      if (static_cast<size_t>(reading.pod) >= pod_stamp_.size())
        pod_stamp_.resize(reading.pod + 1, 0);
      if (pod_stamp_[reading.pod] != stamp) {
        // DCGM maps the GPU to a pod the objects do not list: charge it to its namespace.
        pod_stamp_[reading.pod] = stamp;
        if (static_cast<size_t>(reading.pod) >= meta_.size()) meta_.resize(reading.pod + 1);
        PodMeta& m = meta_[reading.pod];
        if (m.team < 0) {
          const Catalog::Pod& cp = catalog_.pods()[reading.pod];
          PodObject bare;
          bare.namespace_name = cp.namespace_name;
          bare.name = cp.name;
          m.team = catalog_.InternName(TeamOf(bare, attribution_));
          m.workload = catalog_.InternName(WorkloadOf(bare, attribution_));
          m.workload_class = m.workload;
        }
        PodState ps;
        ps.pod = reading.pod;
        ps.node = catalog_.gpus()[g].node;
        ps.team = m.team;
        ps.workload = m.workload;
        ps.workload_class = m.workload_class;
        ps.phase = PodPhase::kRunning;
        f.pods.push_back(ps);
      }
    }
    f.gpus.push_back(reading);
  }

  if (node_slots_.size() < snap.nodes.size()) node_slots_.resize(snap.nodes.size());
  for (size_t i = 0; i < snap.nodes.size(); ++i) {
    const health::NodeInfo& n = snap.nodes[i];
    NodeSlot& slot = node_slots_[i];  // Node lists keep their order: usually a hit.
    if (slot.node < 0 || slot.name != n.name) {
      slot.node = catalog_.InternNode(n.name);
      slot.name = n.name;
      slot.product.clear();
    }
    NodeState s;
    s.node = slot.node;
    s.allocatable = static_cast<int>(n.gpu_allocatable);
    s.schedulable = !n.unschedulable && n.ready;
    static const std::string kProductKey = kGpuProductLabel;  // No string built per lookup.
    auto label = n.labels.find(kProductKey);
    if (label != n.labels.end() && !label->second.empty() && label->second != slot.product) {
      slot.product = label->second;
      catalog_.set_node_product(s.node, catalog_.InternName(slot.product));
    }
    f.nodes.push_back(s);
  }

  for (FrameSink* sink : sinks_) STEWARD_RETURN_IF_ERROR(sink->Consume(snap, f, catalog_));
  return Status::Ok();
}

Status FrameBuilder::Finish() {
  for (FrameSink* sink : sinks_) STEWARD_RETURN_IF_ERROR(sink->Finish(catalog_));
  return Status::Ok();
}

}  // namespace steward::diagnose
