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
// - A grow (back toward the submitted count) takes quota from the admitter (fifo-quota: only
//   what its queue's head cannot use now; the Kueue admitter refuses) and nodes from placement,
//   both at once or not at all (Unavailable: try later). The new workers start and everyone
//   regroups: a pause of the startup plus the restore time; lost (cause "regrow") are the kept
//   workers' wait for the start and everyone's regroup; the work left shrinks by old / new.
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
  const bool grow = workers > ps.count;

  // Where the work stands now, before the pods change.
  const SimTime work_start = run.started + run.segment_restore;
  const SimTime finish = run.started + run.remaining;
  const SimDuration restore_left = now_ < work_start ? work_start - now_ : SimDuration();
  const SimDuration work_left = finish - std::max(now_, work_start);
  const SimDuration scaled =
      SecondsF(work_left.ToSeconds() * static_cast<double>(ps.count) / workers);

  // The set's pods are [first, first + count): gangs place their pod sets in order.
  size_t first = 0;
  while (first < run.pods.size() && run.pods[first].pod_set != set) ++first;
  const size_t set_end = first + static_cast<size_t>(ps.count);
  STEWARD_CHECK(set_end <= run.pods.size());
  if (run.requested_counts.empty())
    for (const model::PodSet& p : w.pod_sets) run.requested_counts.push_back(p.count);
  SimDuration pause = w.restore_time;
  const int gpus_before = run.GpusHeld();
  SimDuration waiting;  // The kept workers wait this long for new ones to start.
  if (grow) {
    // More workers: quota from the admitter, nodes from placement, both now or not at all.
    const int add = workers - ps.count;
    const int gpus = add * ps.gpus_per_pod;
    if (!admitter_->Grow(*this, w, gpus))
      return Status::Unavailable(fmt::format(
          "workload {}: its queue does not take {} more GPUs now (quota, or its queue's head "
          "could use them)",
          w.name, gpus));
    const size_t before = run.pods.size();
    if (!PlacePods(run, add, ps)) {
      admitter_->Released(w, gpus, false);
      return Status::Unavailable(
          fmt::format("workload {}: no nodes for {} more workers now", w.name, add));
    }
    // The new workers join the set (after its last ordinal) and start within the pause.
    for (size_t i = before; i < run.pods.size(); ++i) run.pods[i].running = true;
    std::rotate(run.pods.begin() + static_cast<std::ptrdiff_t>(set_end),
                run.pods.begin() + static_cast<std::ptrdiff_t>(before), run.pods.end());
    ps.count = workers;
    Reaccount(run);
    waiting = StartupDelay(w);
    pause = waiting + w.restore_time;
  } else {
    // The surplus workers: the set's last ordinals, moved to the end and released.
    const size_t keep_end = first + static_cast<size_t>(workers);
    std::rotate(run.pods.begin() + static_cast<std::ptrdiff_t>(keep_end),
                run.pods.begin() + static_cast<std::ptrdiff_t>(set_end), run.pods.end());
    const size_t released_from = run.pods.size() - (set_end - keep_end);
    ps.count = workers;  // Before the release: pod names and the admitter see the new size.
    ReleasePods(run, released_from);
  }

  // A new segment: the regroup pause, then the work left at the new width.
  ++run.epoch;
  run.started = now_;
  run.segment_restore = restore_left + pause;
  run.remaining = run.segment_restore + scaled;
  const int gpus = run.GpusHeld();
  // Lost: the kept workers' wait for new ones, then everyone's regroup. A new worker's start is
  // its startup, as any pod's.
  const double lost = waiting.ToHours() * gpus_before + w.restore_time.ToHours() * gpus;
  AddLost(run, lost, grow ? LossCause::kRegrow : LossCause::kResize);
  Log(LifecycleKind::kResize, run, gpus, lost);
  events_queue_.Push(now_ + run.remaining, EventKind::kFinish, id, run.epoch);
  if (!run.idle && !w.usage.active_duration.is_infinite() &&
      w.usage.active_duration < run.remaining)
    events_queue_.Push(now_ + w.usage.active_duration, EventKind::kPhase, id, run.epoch);
  ScheduleRunEvents(run, gpus);
  return Status::Ok();
}

}  // namespace steward::twin
