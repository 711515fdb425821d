#include "diagnose/right_sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace steward::diagnose {
namespace {

constexpr double kEps = 1e-9;

double Round(double x, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

// Smallest index whose cumulative weight reaches q of the total (weighted nearest rank).
template <typename Weights>
int QuantileIndex(const Weights& w, double q) {
  double total = 0;
  for (double x : w) total += x;
  if (total <= 0) return 0;
  double cum = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    cum += w[i];
    if (cum >= q * total - kEps * total) return static_cast<int>(i);
  }
  return static_cast<int>(w.size()) - 1;
}

// MIG instances come in 1, 2, 3, 4 and 7 compute slices of 7.
int MigSevenths(double sm_active) {
  const int k = std::max(1, static_cast<int>(std::ceil(7 * sm_active - kEps)));
  for (int valid : {1, 2, 3, 4, 7})
    if (valid >= k) return valid;
  return 7;
}

std::string Describe(const RightSizing& r, double quantile) {
  const int q = static_cast<int>(std::lround(100 * quantile));
  if (r.driven_gpus == 0)
    return fmt::format(
        "{} ({}-GPU pods) drives no GPU at p{} over {:.0f} pod-hours: an idle holder; reclaim "
        "it (idle reclaim) rather than resize it",
        r.workload_class, r.gpus_per_pod, q, r.pod_hours);
  if (r.recommended_gpus_per_pod < r.gpus_per_pod)
    return fmt::format(
        "{}: request {} GPUs per pod instead of {} (p{} of GPUs driven per pod is {}); frees "
        "{:.0f} GPU-hours",
        r.workload_class, r.recommended_gpus_per_pod, r.gpus_per_pod, q, r.driven_gpus,
        r.gpu_hours_freed);
  if (r.mig_sevenths > 0)
    return fmt::format(
        "{} (1-GPU pods): p{} SM-active {:.2f} fits a MIG {}g instance ({} on an 80 GB "
        "H100/A100; check FB_USED fits) or a time-sliced GPU; frees {:.0f} GPU-hours",
        r.workload_class, q, r.sm_active, r.mig_sevenths, MigProfile80Gb(r.mig_sevenths),
        r.gpu_hours_freed_by_sharing);
  return fmt::format("{}: keep {} GPUs per pod (p{} of GPUs driven per pod is {})",
                     r.workload_class, r.gpus_per_pod, q, r.driven_gpus);
}

}  // namespace

void RequestHistory::AddPodHours(int driven, double pod_hours) {
  if (pod_hours <= 0) return;
  if (pod_hours_by_driven.size() < static_cast<size_t>(gpus_per_pod) + 1)
    pod_hours_by_driven.resize(gpus_per_pod + 1, 0.0);
  pod_hours_by_driven[std::clamp(driven, 0, gpus_per_pod)] += pod_hours;
}

void RequestHistory::AddDrivenGpuHours(double sm_active, double gpu_hours) {
  if (gpu_hours <= 0) return;
  const int bin =
      std::clamp(static_cast<int>(std::floor(sm_active * kSmBins + kEps)), 0, kSmBins - 1);
  driven_gpu_hours_by_sm[bin] += gpu_hours;
}

std::string_view MigProfile80Gb(int sevenths) {
  switch (sevenths) {
    case 1:
      return "1g.10gb";
    case 2:
      return "2g.20gb";
    case 3:
      return "3g.40gb";
    case 4:
      return "4g.40gb";
    case 7:
      return "7g.80gb";
    default:
      return "";
  }
}

std::vector<RightSizing> RightSize(const std::vector<RequestHistory>& history,
                                   const RightSizingOptions& o) {
  struct Class {
    int workloads = 0;
    std::vector<double> pods;
    std::array<double, kSmBins> sm{};
  };
  std::map<std::pair<std::string, int>, Class> classes;
  for (const RequestHistory& h : history) {
    if (h.gpus_per_pod < 1) continue;
    Class& c = classes[{h.workload_class, h.gpus_per_pod}];
    ++c.workloads;
    c.pods.resize(h.gpus_per_pod + 1, 0.0);
    for (size_t k = 0; k < h.pod_hours_by_driven.size() && k < c.pods.size(); ++k)
      c.pods[k] += h.pod_hours_by_driven[k];
    for (int b = 0; b < kSmBins; ++b) c.sm[b] += h.driven_gpu_hours_by_sm[b];
  }
  std::vector<RightSizing> rows;
  for (const auto& [key, c] : classes) {
    RightSizing r;
    r.workload_class = key.first;
    r.gpus_per_pod = key.second;
    r.workloads = c.workloads;
    for (double h : c.pods) r.pod_hours += h;
    if (r.pod_hours < o.min_pod_hours) continue;
    r.driven_gpus = QuantileIndex(c.pods, o.quantile);
    r.recommended_gpus_per_pod = std::max(1, r.driven_gpus);
    r.gpu_hours_freed = (r.gpus_per_pod - r.recommended_gpus_per_pod) * r.pod_hours;
    double driven_hours = 0;
    for (double h : c.sm) driven_hours += h;
    if (driven_hours > 0) r.sm_active = double(QuantileIndex(c.sm, o.quantile) + 1) / kSmBins;
    if (r.recommended_gpus_per_pod == 1 && r.driven_gpus > 0 && driven_hours > 0 &&
        r.sm_active <= o.share_below) {
      const int k = MigSevenths(r.sm_active);
      if (k < 7) {
        r.mig_sevenths = k;
        r.gpu_hours_freed_by_sharing = (1 - k / 7.0) * r.pod_hours;
      }
    }
    r.recommendation = Describe(r, o.quantile);
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [](const RightSizing& a, const RightSizing& b) {
    const double fa = a.gpu_hours_freed + a.gpu_hours_freed_by_sharing;
    const double fb = b.gpu_hours_freed + b.gpu_hours_freed_by_sharing;
    if (fa != fb) return fa > fb;
    if (a.workload_class != b.workload_class) return a.workload_class < b.workload_class;
    return a.gpus_per_pod < b.gpus_per_pod;
  });
  return rows;
}

nlohmann::json RightSizingJson(const std::vector<RightSizing>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const RightSizing& r : rows)
    a.push_back({{"class", r.workload_class},
                 {"requested_gpus_per_pod", r.gpus_per_pod},
                 {"workloads", r.workloads},
                 {"pod_hours", Round(r.pod_hours, 2)},
                 {"driven_gpus_per_pod", r.driven_gpus},
                 {"recommended_gpus_per_pod", r.recommended_gpus_per_pod},
                 {"sm_active", Round(r.sm_active, 2)},
                 {"mig_profile", r.mig_sevenths > 0 ? MigProfile80Gb(r.mig_sevenths) : ""},
                 {"gpu_hours_freed", Round(r.gpu_hours_freed, 2)},
                 {"gpu_hours_freed_by_sharing", Round(r.gpu_hours_freed_by_sharing, 2)},
                 {"recommendation", r.recommendation}});
  return a;
}

std::string RightSizingText(const std::vector<RightSizing>& rows, double quantile) {
  std::string o = fmt::format("5. Right-sizing (per class and pod size; p{} over pod-hours)\n",
                              static_cast<int>(std::lround(100 * quantile)));
  int unchanged = 0;
  for (const RightSizing& r : rows) {
    if (r.gpu_hours_freed <= 0 && r.gpu_hours_freed_by_sharing <= 0 && r.driven_gpus > 0) {
      ++unchanged;
      continue;
    }
    o += "   " + r.recommendation + "\n";
  }
  o += fmt::format("   {} other class(es): requests match what they drive\n", unchanged);
  return o;
}

RightSizer::RightSizer(double idle_sm_active, RightSizingOptions options)
    : idle_sm_active_(idle_sm_active), options_(options) {}

Status RightSizer::Consume(const Snapshot&, const Frame& frame, const Catalog& catalog) {
  const size_t pods = catalog.pods().size();
  if (seen_.size() < pods) {
    seen_.resize(pods, 0);
    driven_.resize(pods, 0);
    history_of_.resize(pods, -1);
  }
  for (const GpuReading& r : frame.gpus) {
    if (r.pod < 0) continue;
    ++seen_[r.pod];
    if (ActivityOf(r) >= idle_sm_active_) ++driven_[r.pod];
  }
  // The builder lists every pod a GPU names, so this pass sets history_of_ for all of them.
  for (const PodState& p : frame.pods) {
    const int seen = seen_[p.pod], driven = driven_[p.pod];
    seen_[p.pod] = driven_[p.pod] = 0;
    history_of_[p.pod] = -1;
    if (p.phase != PodPhase::kRunning || seen == 0 || p.workload < 0) continue;
    const int requested = p.gpus > 0 ? p.gpus : seen;
    const int32_t h = History(p, requested, catalog);
    history_of_[p.pod] = h;
    histories_[h].AddPodHours(driven, frame.hours);
  }
  for (const GpuReading& r : frame.gpus) {
    if (r.pod < 0 || history_of_[r.pod] < 0) continue;
    const double a = ActivityOf(r);
    if (a >= idle_sm_active_) histories_[history_of_[r.pod]].AddDrivenGpuHours(a, frame.hours);
  }
  return Status::Ok();
}

int32_t RightSizer::History(const PodState& p, int requested, const Catalog& catalog) {
  if (index_.size() <= static_cast<size_t>(p.workload)) index_.resize(p.workload + 1);
  for (const auto& [gpus, at] : index_[p.workload])
    if (gpus == requested) return at;
  const int32_t h = static_cast<int32_t>(histories_.size());
  index_[p.workload].push_back({requested, h});
  RequestHistory n;
  n.workload = catalog.name(p.workload);
  n.workload_class = catalog.name(p.workload_class >= 0 ? p.workload_class : p.workload);
  n.gpus_per_pod = requested;
  histories_.push_back(std::move(n));
  return h;
}

}  // namespace steward::diagnose
