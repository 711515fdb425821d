#include "server/pod_tracker.h"

#include "twin/pod_names.h"

namespace steward::server {

void PodTracker::OnLifecycle(const twin::LifecycleRecord& r) {
  if (r.kind != twin::LifecycleKind::kPlace || r.spec == nullptr) return;
  placed_[r.spec->id] = r.at;
}

void PodTracker::Update(const twin::Twin& twin) {
  ++generation_;
  const twin::RunTable& runs = twin.runs();
  for (const twin::WorkloadRun& run : runs) {
    if (run.pods.empty()) continue;
    for (size_t i = 0; i < run.pods.size(); ++i) {
      auto [it, fresh] = pods_.try_emplace(Key(run.spec.id, run.pods[i].pod_id));
      it->second.generation = generation_;
      if (!fresh) continue;
      it->second.name = twin::PodName(run, static_cast<int>(i));
      auto placed = placed_.find(run.spec.id);
      it->second.since = placed == placed_.end() ? twin.now() : placed->second;
    }
  }
  placed_.clear();
  std::erase_if(pods_, [&](const auto& kv) { return kv.second.generation != generation_; });
}

const PodTracker::Pod* PodTracker::Find(model::WorkloadId w, int32_t pod_id) const {
  auto it = pods_.find(Key(w, pod_id));
  return it == pods_.end() ? nullptr : &it->second;
}

}  // namespace steward::server
