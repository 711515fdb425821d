#include "server/chart_markers.h"

#include <fmt/format.h>

namespace steward::server {
namespace {

constexpr size_t kMaxSubjects = 8;

void Add(ChartMarker& m, std::string subject, int count) {
  if (m.subjects.size() < kMaxSubjects) m.subjects.push_back(std::move(subject));
  m.count += count;
}

}  // namespace

ChartMarkers::ChartMarkers(size_t max_markers)
    : max_markers_(std::max<size_t>(1, max_markers)),
      list_(std::make_shared<const std::vector<ChartMarker>>()) {}

void ChartMarkers::Observe(const Snapshot& before, const Snapshot& after, double hours) {
  ChartMarker fault{hours, "fault", {}, 0}, cordon{hours, "cordon", {}, 0},
      uncordon{hours, "uncordon", {}, 0}, quota{hours, "quota", {}, 0};
  if (before.nodes.size() == after.nodes.size()) {
    for (size_t i = 0; i < after.nodes.size(); ++i) {
      const NodeView& a = before.nodes[i];
      const NodeView& b = after.nodes[i];
      if (b.faulty > a.faulty) Add(fault, b.name, b.faulty - a.faulty);
      if (b.cordoned && !a.cordoned) Add(cordon, b.name, 1);
      if (!b.cordoned && a.cordoned) Add(uncordon, b.name, 1);
    }
  }
  if (before.queues.size() == after.queues.size())
    for (size_t t = 0; t < after.queues.size(); ++t)
      if (before.queues[t].quota_gpus != after.queues[t].quota_gpus)
        Add(quota,
            fmt::format("{} {} -> {}", after.queues[t].team, before.queues[t].quota_gpus,
                        after.queues[t].quota_gpus),
            1);
  std::vector<ChartMarker> added;
  for (ChartMarker* m : {&fault, &cordon, &uncordon, &quota})
    if (m->count > 0) added.push_back(std::move(*m));
  if (added.empty()) return;
  auto next = std::make_shared<std::vector<ChartMarker>>();
  const size_t total = list_->size() + added.size();
  const size_t drop = total > max_markers_ ? total - max_markers_ : 0;
  next->reserve(total - drop);
  for (size_t i = drop; i < list_->size(); ++i) next->push_back((*list_)[i]);
  for (ChartMarker& m : added)
    if (next->size() < max_markers_) next->push_back(std::move(m));
  list_ = std::move(next);
}

}  // namespace steward::server
