#include "place/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "place/fragmentation.h"
#include "place/placer.h"
#include "place/policy_registry.h"

namespace steward::place {

Result<PreparedTrace> PrepareTrace(const std::vector<NodeSpec>& nodes, std::vector<TracePod> pods,
                                   std::string workload) {
  PreparedTrace t;
  t.workload = std::move(workload);
  STEWARD_ASSIGN_OR_RETURN(t.cluster, ClusterState::Build(nodes));
  if (t.cluster.total_gpus() == 0) return Status::InvalidArgument("the cluster has no GPUs");
  // The simulator keeps a name-sorted copy of the pods (SetWorkloadPods): the population for
  // typical pods and clones, and the order that is shuffled.
  std::stable_sort(pods.begin(), pods.end(),
                   [](const TracePod& a, const TracePod& b) { return a.name < b.name; });
  for (const TracePod& p : pods) {
    t.pod_names.push_back(p.name);
    t.pods.push_back(ToRequest(p, t.cluster));
  }
  if (t.pods.empty()) return Status::InvalidArgument(fmt::format("{}: no pods", t.workload));
  return t;
}

Sequence MakeSequence(const PreparedTrace& trace, const ExperimentConfig& config, Rng& rng) {
  Sequence s;
  const int32_t n = static_cast<int32_t>(trace.pods.size());
  rng.Next();  // The simulator's log line draws rand.Int() once after seeding (§3 step 3).
  s.pods.resize(n);
  std::iota(s.pods.begin(), s.pods.end(), 0);
  if (config.shuffle) rng.Shuffle(s.pods);
  if (config.tune > 0) {
    int64_t total = 0;
    for (int32_t i : s.pods) total += trace.pods[i].TotalGpuMilli();
    const double target = config.tune * static_cast<double>(trace.cluster.total_gpu_milli());
    if (static_cast<double>(total) < target) {
      // tuneUpPods: clones drawn uniformly with replacement from the name-sorted originals,
      // appended; stops at the first draw whose *per-GPU* milli would overshoot (a quirk kept
      // on purpose: multi-GPU clones can push the total slightly past the target).
      while (true) {
        int32_t idx = static_cast<int32_t>(rng.Uniform(static_cast<uint64_t>(n)));
        const PodRequest& p = trace.pods[idx];
        if (static_cast<double>(total + p.gpu_milli) > target) break;
        total += p.TotalGpuMilli();
        s.pods.push_back(idx);
      }
    } else {
      // tuneDownPods: remove uniformly random pods until the total is <= target.
      while (static_cast<double>(total) > target && !s.pods.empty()) {
        size_t idx = rng.Uniform(s.pods.size());
        total -= trace.pods[s.pods[idx]].TotalGpuMilli();
        s.pods.erase(s.pods.begin() + static_cast<std::ptrdiff_t>(idx));
      }
    }
  }
  // syncClusterResourceList: nodes sorted by name get the prefix rand.Perm(n)[i]; ties go to
  // the smallest prefixed name, i.e. the smallest perm value. rand.Perm's inside-out shuffle.
  const int nodes = trace.cluster.size();
  std::vector<int32_t> by_name(nodes);
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](int32_t a, int32_t b) { return trace.cluster.name(a) < trace.cluster.name(b); });
  std::vector<int32_t> perm(nodes);
  for (int i = 0; i < nodes; ++i) {
    int j = static_cast<int>(rng.Uniform(static_cast<uint64_t>(i) + 1));
    perm[i] = perm[j];
    perm[j] = i;
  }
  s.ranks.resize(nodes);
  for (int i = 0; i < nodes; ++i) s.ranks[by_name[i]] = perm[i];
  return s;
}

namespace {

// Python's round(x, digits) on a double, to the precision that matters here.
double Round2(double x) { return std::nearbyint(x * 100.0) / 100.0; }

// Per-level accumulation of one metric; Curve() applies merge_alloc_discrete.py's rule: the
// mean over events at level k, else over levels k-1..k+1, else (ours) the previous level.
struct LevelStats {
  std::vector<double> sum = std::vector<double>(kCurvePoints + 2, 0.0);
  std::vector<int64_t> count = std::vector<int64_t>(kCurvePoints + 2, 0);
  void Add(int level, double v) {
    if (level < 0 || level > kCurvePoints) return;
    sum[level] += v;
    count[level] += 1;
  }
  std::vector<double> Curve(bool round2) const {
    std::vector<double> out(kCurvePoints, 0.0);
    for (int k = 0; k < kCurvePoints; ++k) {
      double s = 0;
      int64_t c = count[k];
      s = sum[k];
      if (c == 0) {
        for (int j = std::max(0, k - 1); j <= k + 1; ++j) {
          s += sum[j];
          c += count[j];
        }
      }
      if (c > 0)
        out[k] = round2 ? Round2(s / static_cast<double>(c)) : s / static_cast<double>(c);
      else
        out[k] = k > 0 ? out[k - 1] : 0.0;
    }
    return out;
  }
};

}  // namespace

Result<ExperimentResult> RunExperiment(const PreparedTrace& trace, std::string_view policy_name,
                                       const ExperimentConfig& config) {
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> policy, NewPolicy(policy_name));
  Rng rng(config.seed);
  Sequence seq = MakeSequence(trace, config, rng);
  ClusterState cluster = trace.cluster;
  cluster.SetRanks(seq.ranks);

  PolicyContext context{&cluster, trace.pods};
  STEWARD_RETURN_IF_ERROR(policy->Prepare(context).WithContext(std::string(policy->Name())));

  // The report's fragmentation always uses the workload's typical pods, whatever the policy.
  FragmentationModel frag(TypicalPodsOf(trace.pods));
  std::vector<double> node_frag(cluster.size());
  double frag_sum = 0;
  for (NodeId id = 0; id < cluster.size(); ++id) {
    node_frag[id] = frag.NodeFrag(cluster.node(id));
    frag_sum += node_frag[id];
  }

  ExperimentResult r;
  r.policy = std::string(policy->Name());
  r.workload = trace.workload;
  r.tune = config.tune;
  r.seed = config.seed;
  r.total_gpus = cluster.total_gpus();
  r.nodes = cluster.size();
  r.pods = static_cast<int64_t>(seq.pods.size());
  r.uses_future = policy->UsesFuture();

  const double capacity = static_cast<double>(cluster.total_gpu_milli());
  LevelStats alloc, fratio, famount, failed;
  int64_t arrived = 0;
  Placer placer(&cluster, policy.get(), &rng);
  auto start = std::chrono::steady_clock::now();
  for (int32_t idx : seq.pods) {
    const PodRequest& pod = trace.pods[idx];
    arrived += pod.TotalGpuMilli();
    const auto decide_start = std::chrono::steady_clock::now();
    policy->Observe(pod);
    Decision d = placer.Place(pod);
    r.decision_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - decide_start).count();
    if (d.fits()) {
      frag_sum -= node_frag[d.node];
      node_frag[d.node] = frag.NodeFrag(cluster.node(d.node));
      frag_sum += node_frag[d.node];
    } else {
      ++r.failed_pods;
      r.failed_gpu_milli += pod.TotalGpuMilli();
    }
    // One [Alloc]/[Report] event per pod (ClusterGpuFragReport).
    const int level =
        static_cast<int>(std::nearbyint(static_cast<double>(arrived) / capacity * 100.0));
    const double idle = static_cast<double>(cluster.free_gpu_milli());
    alloc.Add(level, Round2(static_cast<double>(cluster.used_gpu_milli()) / capacity * 100.0));
    fratio.Add(level, idle > 0 ? frag_sum / idle * 100.0 : 100.0);
    famount.Add(level, frag_sum / capacity * 100.0);
    failed.Add(level, static_cast<double>(r.failed_pods));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.alloc_ratio = alloc.Curve(true);
  r.frag_ratio = fratio.Curve(true);
  r.frag_amount = famount.Curve(true);
  r.failed_at = failed.Curve(false);
  r.final_alloc = static_cast<double>(cluster.used_gpu_milli()) / capacity * 100.0;
  r.rescored_leaves = placer.rescored_leaves();
  if (config.on_finish) config.on_finish(cluster);
  return r;
}

}  // namespace steward::place
