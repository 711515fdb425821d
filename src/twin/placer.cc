#include "twin/placer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "place/mig.h"
#include "place/policy_registry.h"

namespace steward::twin {
namespace {

// One pod of `ps` as the placement layer sees it (no pool, no topology).
place::PodRequest PodRequestOf(const ClusterState& state, const model::Workload& w,
                               const model::PodSet& ps) {
  place::PodRequest r;
  const place::MigProfile mig =
      ps.mig_profile.empty() ? place::kNoMig : place::ParseMigProfile(ps.mig_profile);
  r.num_gpu = ps.SharesGpu() ? 1 : ps.gpus_per_pod;
  r.gpu_milli = mig != place::kNoMig ? place::MigMilli(mig) : ps.gpu_milli;
  r.mig_profile = mig;
  r.cpu_milli = ps.cpu_milli;
  r.memory_mib = ps.memory_mib;
  if (!ps.extended_resources.empty()) r.extended = state.ExtendedRequest(ps);
  if (w.gpu_model >= 0) {
    const int m = state.place_model(w.gpu_model);
    r.allowed_models = m < 0 ? place::ClusterState::kNoModel : place::ModelMask{1} << m;
  }
  return r;
}

}  // namespace

Placer::~Placer() = default;

Result<std::unique_ptr<Placer>> Placer::Create(const Scenario& scenario, ClusterState* state,
                                               std::span<const place::PodRequest> population,
                                               uint64_t seed) {
  std::unique_ptr<Placer> p(new Placer(state, seed));
  std::vector<PlacementPoolSpec> rules = scenario.policies.pools;
  if (rules.empty()) {
    rules.emplace_back();
    rules.back().name = "default";
  }
  place::PolicyContext context{&state->placement(), population};
  for (PlacementPoolSpec& rule : rules) {
    Pool pool;
    pool.name = rule.name;
    const std::string& name = rule.placement.empty() ? scenario.policies.placement : rule.placement;
    STEWARD_ASSIGN_OR_RETURN(pool.policy, place::NewPolicy(name));
    Status prepared = pool.policy->Prepare(context);
    if (!prepared.ok())
      return Status::InvalidArgument(fmt::format("{}: placement pool '{}': policy '{}': {}",
                                                 scenario.source, rule.name, name,
                                                 prepared.message()));
    pool.placer = std::make_unique<place::Placer>(&state->placement(), pool.policy.get(), &p->rng_);
    pool.rule = std::move(rule);
    p->pools_.push_back(std::move(pool));
  }
  return p;
}

std::string Placer::Name() const {
  if (pools_.size() == 1) return std::string(pools_[0].policy->Name());
  std::string s = "pools(";
  for (size_t i = 0; i < pools_.size(); ++i)
    s += fmt::format("{}{}={}", i ? ", " : "", pools_[i].name, pools_[i].policy->Name());
  return s + ")";
}

void Placer::Observe(const model::Workload& w) {
  for (const model::PodSet& ps : w.pod_sets) {
    const place::PodRequest r = PodRequestOf(*state_, w, ps);
    for (Pool& pool : pools_)
      for (int i = 0; i < ps.count; ++i) pool.policy->Observe(r);
  }
}

bool Placer::Accepts(int pool, const model::Workload& w, const model::PodSet& ps) const {
  const PlacementPoolSpec& r = pools_[pool].rule;
  const bool shared = ps.SharesGpu();
  const int gpus = shared ? 1 : ps.gpus_per_pod;
  // A service's replicas are independent pods, not a gang.
  const int pods = w.kind == model::WorkloadKind::kInference ? 1 : ps.count;
  if (!r.kinds.empty() && std::find(r.kinds.begin(), r.kinds.end(), w.kind) == r.kinds.end())
    return false;
  if (gpus < r.min_gpus_per_pod || gpus > r.max_gpus_per_pod) return false;
  if (shared && !r.shared) return false;
  return pods >= r.min_pods;
}

std::vector<int> Placer::Route(const model::Workload& w, const model::PodSet& ps) const {
  std::vector<int> out;
  for (int i = 0; i < num_pools(); ++i)
    if (Accepts(i, w, ps)) out.push_back(i);
  return out;
}

place::PodRequest Placer::Request(const model::Workload& w, const model::PodSet& ps,
                                  int pool) const {
  place::PodRequest r = PodRequestOf(*state_, w, ps);
  r.topology = w.topology;
  r.pool = static_cast<int16_t>(pool);
  return r;
}

bool Placer::Place(const model::Workload& w, const model::PodSet& ps, int count,
                   std::vector<PodPlacement>* out) {
  out->clear();
  for (int pool = 0; pool < num_pools(); ++pool) {
    if (!Accepts(pool, w, ps)) continue;
    const place::PodRequest req = Request(w, ps, pool);
    place::Placer& placer = *pools_[pool].placer;
    if (count == 1) {
      const place::Decision d = placer.Place(req);
      if (!d.fits()) continue;
      out->push_back({d.node, d.gpus, pool});
      return true;
    }
    if (!placer.PlaceGang(req, count, &decisions_)) continue;
    for (const place::Decision& d : decisions_) out->push_back({d.node, d.gpus, pool});
    return true;
  }
  return false;
}

std::vector<place::PodRequest> ExpectedPods(const Scenario& scenario, const ClusterState& state,
                                            std::span<const model::Workload> traced) {
  // Expected pods per hour of each (generator, GPUs per pod) shape.
  struct Shape {
    model::Workload w;
    model::PodSet ps;
    double weight;
  };
  std::vector<Shape> shapes;
  const double hours = std::max(1.0, scenario.horizon_days * 24);
  for (const GeneratorSpec& g : scenario.generators) {
    const ArrivalSpec& a = g.arrival;
    const double rate =
        a.process == ArrivalSpec::Process::kPoisson ? a.rate_per_hour : a.count / hours;
    const double pods = g.kind == model::WorkloadKind::kInference
                            ? 0.5 * (g.min_replicas + g.max_replicas)
                            : std::max(1.0, g.pods.Mean());
    std::vector<double> values = {std::max(1.0, std::round(g.gpus_per_pod.Mean()))};
    std::vector<double> weights = {1.0};
    if (g.gpus_per_pod.kind == Distribution::Kind::kChoice) {
      values = g.gpus_per_pod.values;
      weights = g.gpus_per_pod.weights;
    }
    double total = 0;
    for (double x : weights) total += x;
    for (size_t i = 0; i < values.size() && total > 0; ++i) {
      Shape s;
      s.w.kind = g.kind;
      s.w.gpu_model = g.gpu_model.empty() ? -1 : state.cluster().FindGpuModel(g.gpu_model);
      s.ps.gpus_per_pod = static_cast<int>(values[i]);
      s.ps.gpu_milli = static_cast<int>(std::lround(g.gpu_milli.Mean()));
      s.ps.mig_profile = g.mig_profile;
      s.ps.cpu_milli = g.cpu_milli;
      s.ps.memory_mib = g.memory_mib;
      s.ps.extended_resources = g.extended_resources;
      s.weight = rate * pods * weights[i] / total;
      shapes.push_back(std::move(s));
    }
  }
  double total = 0;
  for (const Shape& s : shapes) total += s.weight;
  std::vector<place::PodRequest> out;
  auto add = [&](const model::Workload& w, const model::PodSet& ps, int n) {
    out.insert(out.end(), n, PodRequestOf(state, w, ps));
  };
  for (const Shape& s : shapes)
    add(s.w, s.ps, std::max(1, static_cast<int>(std::lround(1000 * s.weight / total))));
  for (const model::Workload& w : traced)
    for (const model::PodSet& ps : w.pod_sets) add(w, ps, ps.count);
  return out;
}

}  // namespace steward::twin
