// Elastic training in the twin (kueue#12146; Kueue's ElasticJobsViaWorkloadSlices lets an
// admitted batch/v1 Job change spec.parallelism): TwinOps::Resize shrinks a running elastic
// job's resizable pod set instead of stopping it. Kept apart from twin.cc: an entry point for
// controllers, like twin_control.cc's.
//
// The model (docs/tidal.md, "Elastic training"):
// - The surplus workers are the highest ordinals of the elastic pod set (what a Job
//   controller removes when parallelism drops); they release their GPUs now, and the admitter
//   is told (fifo-quota frees the team's quota at once).
// - Linear scaling: throughput is proportional to the workers, so the work left stretches by
//   old / new workers. A restore still under way is not stretched.
// - The remaining workers regroup (rendezvous, reshard the state they keep in memory or saved
//   at the request) for the job's restore time: that pause x the GPUs it keeps is lost work
//   (cause "resize"), and the work done before the shrink survives a later interruption, as if
//   saved at the shrink.
// - The run goes on in a new segment (its epoch moves): finish, checkpoints and failures are
//   scheduled again, and an eviction of it still in its grace is void, as for a restarted gang.
#include <fmt/format.h>

#include <algorithm>

#include "twin/twin.h"

namespace steward::twin {

Status Twin::Resize(model::WorkloadId id, int workers) {
  WorkloadRun* found = runs_.Find(id);
  if (found == nullptr || found->state == RunState::kDone)
    return Status::NotFound(fmt::format("no running workload with id {}", id));
  WorkloadRun& run = *found;
  model::Workload& w = run.spec;
  const int set = w.ElasticPodSet();
  if (set < 0) return Status::InvalidArgument(fmt::format("workload {} is not elastic", w.name));
  model::PodSet& ps = w.pod_sets[set];
  const int submitted =
      static_cast<size_t>(set) < run.requested_counts.size() ? run.requested_counts[set] : ps.count;
  if (workers < ps.min_count || workers > submitted)
    return Status::InvalidArgument(fmt::format("workload {}: {} workers outside [{}, {}]", w.name,
                                               workers, ps.min_count, submitted));
  if (workers == ps.count) return Status::Ok();
  if (run.state != RunState::kRunning)
    return Status::FailedPrecondition(
        fmt::format("workload {} is not running (pending or starting)", w.name));
  if (workers > ps.count)
    return Status::FailedPrecondition(
        fmt::format("workload {}: growing a running job back is not modelled in the twin", w.name));

  // Where the work stands now, before the pods go.
  const SimTime work_start = run.started + run.segment_restore;
  const SimTime finish = run.started + run.remaining;
  const SimDuration restore_left = now_ < work_start ? work_start - now_ : SimDuration();
  const SimDuration work_left = finish - std::max(now_, work_start);
  const SimDuration stretched =
      SecondsF(work_left.ToSeconds() * static_cast<double>(ps.count) / workers);
  const SimDuration pause = w.restore_time;

  // The surplus workers: the set's last pods (pods of a gang are placed set by set, in order).
  size_t first = 0;
  while (first < run.pods.size() && run.pods[first].pod_set != set) ++first;
  const size_t keep_end = first + static_cast<size_t>(workers);
  const size_t set_end = first + static_cast<size_t>(ps.count);
  STEWARD_CHECK(set_end <= run.pods.size());
  std::rotate(run.pods.begin() + static_cast<std::ptrdiff_t>(keep_end),
              run.pods.begin() + static_cast<std::ptrdiff_t>(set_end), run.pods.end());
  if (run.requested_counts.empty())
    for (const model::PodSet& p : w.pod_sets) run.requested_counts.push_back(p.count);
  const size_t released_from = run.pods.size() - (set_end - keep_end);
  ps.count = workers;  // Before the release: pod names and the admitter see the new size.
  ReleasePods(run, released_from);

  // A new segment: the regroup pause, then the stretched work.
  ++run.epoch;
  run.started = now_;
  run.segment_restore = restore_left + pause;
  run.remaining = run.segment_restore + stretched;
  const int gpus = run.GpusHeld();
  AddLost(run, pause.ToHours() * gpus, LossCause::kResize);
  Log(LifecycleKind::kResize, run, gpus, pause.ToHours() * gpus);
  events_queue_.Push(now_ + run.remaining, EventKind::kFinish, id, run.epoch);
  if (!run.idle && !w.usage.active_duration.is_infinite() &&
      w.usage.active_duration < run.remaining)
    events_queue_.Push(now_ + w.usage.active_duration, EventKind::kPhase, id, run.epoch);
  ScheduleRunEvents(run, gpus);
  return Status::Ok();
}

}  // namespace steward::twin
