// LiveTwin runs a twin at a fixed speed-up on its own thread, publishes a Snapshot after every
// step, and applies controls (submit, cordon, quota) between steps.
//
// Thread-safety: snapshot() and Control() may be called from any thread. The twin itself is
// touched only by the simulation thread (or, before Start(), by the caller of Step()), so it
// needs no locking; readers get an immutable shared_ptr<const Snapshot> swapped under a mutex
// that is held only for the pointer copy, so a slow HTTP client never blocks the simulation.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/status.h"
#include "server/chart_markers.h"
#include "server/pod_tracker.h"
#include "server/snapshot.h"
#include "telemetry/twin_exporter.h"
#include "twin/twin.h"

namespace steward::server {

struct LiveTwinOptions {
  // Simulated seconds per real second. 60 (the default) is one simulated hour per real minute.
  double speed = 60;
  // Real time between simulation steps; each step advances speed x this. Smaller steps give
  // smoother counters at a higher (still small) CPU cost.
  std::chrono::milliseconds step{100};
  // A time-series point is kept at most this often (simulated seconds) ...
  double series_interval_seconds = 60;
  // ... and at most this many are kept: when full, every other point is dropped, so the chart
  // always spans the whole run at decreasing resolution.
  size_t max_series_points = 2048;
  // Price of an allocated GPU-hour by GPU model name (empty = no cost model), and its currency.
  std::function<double(const std::string&)> price_per_gpu_hour;
  std::string currency = "USD";
  // The remediation loop attached to the twin (owned by the twin), for node states and
  // incidents in the snapshots; null = none.
  const health::TwinRemediation* remediation = nullptr;
  // The twin's dcgm-exporter series (GET /metrics/dcgm) are refreshed when at least this much
  // simulated time has passed (dcgm-exporter collects every 30 s by default); <= 0 = off.
  double dcgm_interval_seconds = 30;
  // Up to this many GPUs, the /metrics/dcgm page of a refresh is rendered once and shared by
  // every scrape (54 MB at 10,240 GPUs); above it each scrape streams its own rendering in
  // pieces, so no page of hundreds of MB is ever held (about 600 MB at 102,400 GPUs, where a
  // refresh every 0.5 real s at speed 60 outpaces a multi-second scrape anyway).
  size_t dcgm_shared_page_max_gpus = 16384;
  // The GPU stack checks over the twin's nodes (Snapshot::stack_findings) run when at least
  // this much simulated time has passed; <= 0 = off.
  double stack_health_interval_seconds = 60;
  // The rollouts running in the twin (Snapshot::rollouts, GET /api/rollouts): called on the
  // simulation thread at every publish; returns the statuses as a JSON array, the same pointer
  // while nothing changed (the caller caches). Unset = none (rollout/ is above this module).
  std::function<std::shared_ptr<const nlohmann::json>()> rollouts;
  // A human's answer to a paused rollout (POST /api/rollouts/NAME/answer), called on the
  // simulation thread: NotFound for no such rollout, FailedPrecondition when it is not paused.
  // Unset = no rollouts (404).
  std::function<Status(twin::Twin&, const std::string& rollout, bool resume,
                       const std::string& why)>
      answer_rollout;
};

class LiveTwin {
 public:
  LiveTwin(std::unique_ptr<twin::Twin> twin, LiveTwinOptions options);
  ~LiveTwin();
  LiveTwin(const LiveTwin&) = delete;
  LiveTwin& operator=(const LiveTwin&) = delete;

  // Starts the simulation thread: from now on the twin advances with the real clock.
  void Start();
  // Stops and joins the simulation thread. Idempotent.
  void Stop();

  // Advances the twin by `d` of simulated time, applies queued controls and publishes.
  // REQUIRES: the thread is not running (tests and tools drive the twin this way).
  void Step(SimDuration d);

  // Runs the twin `d` of simulated time ahead at full speed (no real-time pacing), so `serve`
  // starts from a cluster that has been running rather than an empty one. The time series
  // and chart markers cover the warm-up (at most `warmup_points` points, evenly spaced, and
  // at least series_interval_seconds apart); the dcgm records, stack findings and observers
  // are refreshed once, at the end. Stops at the horizon. Returns the simulated time run.
  // REQUIRES: the thread is not running.
  SimDuration Warmup(SimDuration d, int warmup_points = 512);

  // The latest published snapshot (never null).
  std::shared_ptr<const Snapshot> snapshot() const;

  // Runs `change` on the twin between two steps and publishes a fresh snapshot; returns its
  // status. Waits at most `timeout` for the simulation thread (then FailedPrecondition).
  // Without a running thread the change runs right away on the calling thread.
  Status Control(std::function<Status(twin::Twin&)> change,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  // Calls `observer` with the twin after every publish (each step and each control), on the
  // thread that publishes (the simulation thread once started): e.g. the Kubernetes API front
  // mirroring the twin. REQUIRES: before Start().
  void AddObserver(std::function<void(const twin::Twin&)> observer);

  const LiveTwinOptions& options() const { return options_; }
  // The scenario's tenant isolation audit (twin/tenancy.h), copied when the twin was handed
  // over: immutable, any thread. Null when the scenario has no tenancy section.
  const audit::AuditResult* tenancy() const { return tenancy_ ? &*tenancy_ : nullptr; }
  // How the snapshot's dcgm_records are rendered (immutable; any thread). Null when off.
  const telemetry::DcgmWriterOptions* dcgm_writer() const {
    return exporter_ ? &exporter_->writer_options() : nullptr;
  }

 private:
  struct Command {
    std::function<Status(twin::Twin&)> change;
    std::promise<Status> done;
  };
  void Loop();
  void ApplyCommands();
  // `full` = false (warm-up) skips the dcgm exporter, the stack checks and the observers.
  void Publish(bool full = true);

  std::unique_ptr<twin::Twin> twin_;
  const LiveTwinOptions options_;
  const std::optional<audit::AuditResult> tenancy_;

  // Simulation-thread state.
  std::shared_ptr<std::vector<SeriesPoint>> series_;
  std::shared_ptr<const Topology> topology_;
  PodTracker pods_;
  ChartMarkers markers_;
  double last_series_hours_ = -1;
  std::vector<std::vector<double>> team_model_gpu_hours_;
  std::vector<std::vector<int>> last_team_model_allocated_;
  SimTime last_publish_time_;
  int64_t version_ = 0;
  std::unique_ptr<telemetry::TwinExporter> exporter_;  // Null when dcgm series are off.
  std::vector<std::function<void(const twin::Twin&)>> observers_;
  std::shared_ptr<const std::vector<telemetry::GpuRecord>> dcgm_records_;
  std::shared_ptr<const RenderedText> dcgm_text_;  // The page of dcgm_records_; null = streamed.
  SimTime dcgm_time_ = SimTime::Never();
  std::shared_ptr<const std::vector<health::StackFinding>> stack_findings_;
  SimTime stack_time_ = SimTime::Never();
  uint64_t stack_fingerprint_ = 0;

  mutable std::mutex snapshot_mu_;
  std::shared_ptr<const Snapshot> snapshot_;  // Guarded by snapshot_mu_.

  std::mutex command_mu_;
  std::condition_variable command_cv_;
  std::deque<std::shared_ptr<Command>> commands_;  // Guarded by command_mu_.
  bool stop_ = false;                              // Guarded by command_mu_.
  std::atomic<bool> running_ = false;
  std::mutex direct_mu_;  // Serialises Step() and Control() while no thread runs.
  std::thread thread_;
};

}  // namespace steward::server
