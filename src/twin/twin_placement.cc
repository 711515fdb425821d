// The twin's placement path beyond one call into the Placer: gangs, defragmenting preemption,
// per-pool samples. Kept apart from twin.cc's event handlers; everything here runs inside an
// admission cycle (TryPlace) or a sample, at now().
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "place/mig.h"
#include "twin/defrag.h"
#include "twin/twin.h"

namespace steward::twin {

double PodAllocation::Share() const {
  if (mig_profile != place::kNoMig) return place::MigGpuShare(mig_profile);
  return std::popcount(gpus) * (gpu_milli / static_cast<double>(place::kMilliPerGpu));
}

std::string Twin::PodSizeKey(const model::Workload& w) {
  const model::PodSet& ps = w.pod_sets[0];
  return ps.SharesGpu() ? "shared" : std::to_string(ps.gpus_per_pod);
}

double Twin::LostIfInterrupted(const WorkloadRun& run) const {
  // Interrupt()'s loss without interrupting: the work since the segment's last checkpoint (or
  // since its restore ended), plus the restore a restart pays again.
  const model::Workload& w = run.spec;
  if (run.state != RunState::kRunning || w.kind == model::WorkloadKind::kInference) return 0;
  return SavePointOf(run).lost_gpu_hours;
}

bool Twin::PlaceGang(WorkloadRun& run) {
  const size_t before = run.pods.size();
  for (const model::PodSet& ps : run.spec.pod_sets) {
    if (!PlacePods(run, ps.count, ps)) {
      ReleasePods(run, before, /*rollback=*/true);  // A gang is all-or-nothing.
      return false;
    }
  }
  return true;
}

PoolPoint Twin::SamplePool(int pool) const {
  PoolPoint p;
  p.stranded_free_gpus = state_->stranded_free_gpus(-1, pool);
  p.whole_free_nodes = state_->whole_free_nodes(-1, pool);
  p.largest_single_node_job = state_->largest_free_block(-1, pool);
  p.largest_gang_job = std::max(state_->largest_gang_gpus(pool), p.largest_single_node_job);
  return p;
}

Status Twin::CheckRoutes() const {
  for (size_t i = 0; i < scenario_.generators.size(); ++i) {
    const GeneratorSpec& g = scenario_.generators[i];
    std::vector<double> sizes = {g.gpus_per_pod.Mean()};
    if (g.gpus_per_pod.kind == Distribution::Kind::kChoice) sizes = g.gpus_per_pod.values;
    for (double size : sizes) {
      model::Workload w;
      w.kind = g.kind;
      model::PodSet ps;
      ps.gpus_per_pod = std::max(1, static_cast<int>(std::lround(size)));
      ps.count = std::max(1, static_cast<int>(std::lround(g.pods.Mean())));
      ps.gpu_milli = static_cast<int>(std::lround(g.gpu_milli.Mean()));
      ps.mig_profile = g.mig_profile;
      if (placer_->Route(w, ps).empty())
        return Status::InvalidArgument(fmt::format(
            "{}: generators[{}] ({}): no placement pool accepts its {} {} pods", scenario_.source,
            i, g.name, ps.SharesGpu() ? "shared-GPU" : fmt::format("{}-GPU", ps.gpus_per_pod),
            model::KindName(g.kind)));
    }
  }
  return Status::Ok();
}

bool Twin::IsDefragVictim(const WorkloadRun& victim, const WorkloadRun& job, int node_gpus) const {
  const model::Workload& v = victim.spec;
  if (victim.state != RunState::kRunning && victim.state != RunState::kStarting) return false;
  if (v.kind == model::WorkloadKind::kInference || v.id == job.spec.id) return false;
  // Never more important than the job it makes room for.
  if (static_cast<int>(v.tier) < static_cast<int>(job.spec.tier)) return false;
  const DefragSpec& d = scenario_.policies.defrag;
  const bool tier =
      std::find(d.victim_tiers.begin(), d.victim_tiers.end(), v.tier) != d.victim_tiers.end();
  const bool checkpointed = d.checkpointed_training && v.kind == model::WorkloadKind::kTraining &&
                            v.checkpoint_interval.micros() > 0;
  if (!tier && !checkpointed) return false;
  // Small pods only: evicting a whole-node pod would not defragment anything.
  for (const model::PodSet& ps : v.pod_sets)
    if (!ps.SharesGpu() && ps.gpus_per_pod >= node_gpus) return false;
  return true;
}

bool Twin::Defragment(const WorkloadRun& run) {
  const DefragSpec& spec = scenario_.policies.defrag;
  if (!spec.enabled) return false;
  const model::Workload& w = run.spec;
  // Only jobs whose every pod takes a whole (largest) node, blocked by fragmentation (enough
  // GPUs free in their pools, but scattered).
  const int node_gpus = state_->max_gpus_per_node();
  int pods = 0;
  for (const model::PodSet& ps : w.pod_sets) {
    if (ps.SharesGpu() || ps.gpus_per_pod != node_gpus) return false;
    pods += ps.count;
  }
  const std::vector<int> pools = placer_->Route(w, w.pod_sets[0]);
  int free = 0;
  for (int pool : pools) free += state_->free_gpus(w.gpu_model, pool);
  if (pools.empty() || free < w.TotalGpus()) return false;

  // The per-cycle and sliding per-hour bounds.
  if (defrag_cycle_time_ != now_) {
    defrag_cycle_time_ = now_;
    defrag_cycle_victims_ = 0;
  }
  while (!defrag_evictions_.empty() && now_ - defrag_evictions_.front() >= Hours(1))
    defrag_evictions_.pop_front();
  const int hourly = spec.max_victims_per_hour - static_cast<int>(defrag_evictions_.size());
  const int budget = std::min(spec.max_victims_per_cycle - defrag_cycle_victims_, hourly);
  if (hourly <= 0) {
    // Come back when the oldest eviction leaves the hour: nothing else may trigger a cycle.
    const SimTime wake = defrag_evictions_.front() + Hours(1);
    if (wake != defrag_wakeup_ && wake <= horizon_) {
      defrag_wakeup_ = wake;
      events_queue_.Push(wake, EventKind::kSchedule);
    }
  }
  if (budget <= 0) return false;
  const size_t log = state_->placement().log_end();
  if (w.id == defrag_failed_job_ && log == defrag_failed_log_ && budget == defrag_failed_budget_)
    return false;

  auto lost = [&](model::WorkloadId v) { return LostIfInterrupted(runs_[v]); };
  DefragPlan plan;
  for (int pool : pools) {
    const int needed = pods - state_->whole_free_nodes(w.gpu_model, pool);
    if (needed <= 0) continue;
    // Candidates: partly used nodes of the pool, of the job's size and model, whose every pod
    // belongs to an eligible victim. O(pool nodes), only when a whole-node job is blocked.
    std::vector<DefragCandidate> candidates;
    for (model::NodeId n : state_->pool_nodes(pool)) {
      const model::Node& node = cluster_.node(n);
      if (!state_->schedulable(n) || node.gpu_capacity != node_gpus ||
          (w.gpu_model >= 0 && node.model != w.gpu_model) || state_->residents(n).empty())
        continue;
      DefragCandidate c{n, {}};
      bool eligible = true;
      for (model::WorkloadId v : state_->residents(n)) {
        if (!IsDefragVictim(runs_[v], run, node_gpus)) {
          eligible = false;
          break;
        }
        if (std::find(c.victims.begin(), c.victims.end(), v) == c.victims.end())
          c.victims.push_back(v);
      }
      if (eligible) candidates.push_back(std::move(c));
    }
    plan = PlanDefrag(std::move(candidates), needed, budget, lost);
    if (plan.ok()) break;
  }
  if (!plan.ok()) {
    defrag_failed_job_ = w.id;
    defrag_failed_log_ = log;
    defrag_failed_budget_ = budget;
    return false;
  }
  // Evicting runs inside the admitter's cycle (TryPlace): victims are released (Released()) and
  // requeued (Enqueue()), which both admitters accept mid-cycle — Kueue's engine already
  // preempts this way, and FIFO queues only grow at the back.
  ++defrag_.attempts;
  defrag_.nodes_freed += static_cast<int>(plan.nodes.size());
  for (model::WorkloadId v : plan.victims) {
    ++defrag_.victims;
    ++defrag_cycle_victims_;
    defrag_evictions_.push_back(now_);
    const double lost_before = lost_gpu_hours_;
    Preempt(v, w.id);
    defrag_.lost_gpu_hours += lost_gpu_hours_ - lost_before;  // What Interrupt() counted.
  }
  return true;
}

}  // namespace steward::twin
