// Twin placement speed (docs/placement.md, "Twin placement speed"): decisions/s of each
// placement policy the twin accepts, through the twin's own path (twin::Placer over the place
// layer), on the built-in 10,240-GPU cluster with 10^5 pods resident. Shared-GPU pods make 10^5
// fit: 70,000 x 100 milli-GPU, 16,000 x 50 milli-GPU and 14,000 MIG 1g.10gb (96% of the GPUs).
// Two phases per policy: fill (10^5 decisions onto an empty cluster) and churn (release a
// random resident pod, place one of the same shape; 10^5 times at ~10^5 resident). Best of 3
// runs (the machine is shared); ratios are churn decisions/s against first-fit in the same run.
//   build/twin_placement [churn_decisions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "place/policy_registry.h"
#include "place/rng.h"
#include "twin/build_cluster.h"
#include "twin/placer.h"

namespace {

using steward::twin::ClusterState;
using steward::twin::PodPlacement;

struct Resident {
  int shape;
  PodPlacement at;
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  namespace twin = steward::twin;
  namespace model = steward::model;
  const int churn = argc > 1 ? std::atoi(argv[1]) : 100000;
  // The resident mix: (GPU milli, MIG profile, pods).
  struct Shape {
    int milli;
    const char* mig;
    int pods;
  };
  const std::vector<Shape> shapes = {{100, "", 70000}, {50, "", 16000}, {1000, "1g.10gb", 14000}};
  std::vector<model::Workload> workloads;
  for (const Shape& s : shapes) {
    model::Workload w;
    w.kind = model::WorkloadKind::kBatch;
    w.pod_sets = {{"main", 1, 1}};
    w.pod_sets[0].gpu_milli = s.milli;
    w.pod_sets[0].mig_profile = s.mig;
    workloads.push_back(w);
  }
  std::vector<int> order;  // Fill order: the shapes interleaved by a fixed random draw.
  for (size_t s = 0; s < shapes.size(); ++s) order.insert(order.end(), shapes[s].pods, int(s));
  steward::place::Rng shuffle(7);
  shuffle.Shuffle(order);

  twin::Scenario base = twin::DefaultScenario();
  auto cluster = twin::BuildCluster(base);
  if (!cluster.ok()) return 1;
  std::printf(
      "cluster: %zu nodes, %d GPUs (built-in twin); %zu pods resident: 70,000 x 100m, 16,000 x "
      "50m, 14,000 MIG 1g.10gb; churn %d; best of 3\n",
      cluster->nodes().size(), cluster->total_gpus(), order.size(), churn);
  std::printf("%-11s %10s %14s %14s %14s\n", "policy", "fill (s)", "fill dec/s", "churn dec/s",
              "vs first-fit");
  double baseline = 0;
  std::vector<std::string> names = {"first-fit", "binpack"};
  for (const auto& p : steward::place::Policies())
    if (p.name != "first-fit" && p.name != "binpack") names.emplace_back(p.name);
  for (const std::string& name : names) {
    twin::Scenario s = base;
    s.policies.placement = name;
    double fill = 1e9, churn_s = 1e9;
    int failed = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      ClusterState state(*cluster);
      auto placer = twin::Placer::Create(s, &state, twin::ExpectedPods(s, state, {}), 1);
      if (!placer.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), placer.status().message().c_str());
        return 1;
      }
      std::vector<Resident> resident;
      resident.reserve(order.size());
      std::vector<PodPlacement> out;
      failed = 0;
      auto place = [&](int shape) {
        const model::Workload& w = workloads[shape];
        if (!(*placer)->Place(w, w.pod_sets[0], 1, &out)) return false;
        resident.push_back({shape, out[0]});
        return true;
      };
      auto fill_start = std::chrono::steady_clock::now();
      for (int shape : order) failed += !place(shape);
      fill = std::min(fill, Seconds(fill_start));

      steward::place::Rng rng(42);
      auto churn_start = std::chrono::steady_clock::now();
      for (int i = 0; i < churn; ++i) {
        const size_t k = rng.Uniform(resident.size());
        const Resident r = resident[k];
        resident[k] = resident.back();
        resident.pop_back();
        const uint64_t mask = uint64_t{1} << r.at.gpus.index[0];
        state.ReleasePod(r.at.node, mask, shapes[r.shape].milli,
                         steward::place::ParseMigProfile(shapes[r.shape].mig), r.at.gpus.mig_start);
        failed += !place(r.shape);
      }
      churn_s = std::min(churn_s, Seconds(churn_start));
    }
    const double rate = churn / churn_s;
    if (baseline == 0) baseline = rate;
    std::printf("%-11s %10.3f %14.0f %14.0f %13.2fx%s\n", name.c_str(), fill,
                static_cast<double>(order.size()) / fill, rate, rate / baseline,
                failed ? (" (" + std::to_string(failed) + " did not fit)").c_str() : "");
  }
  return 0;
}
