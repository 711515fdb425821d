#include "server/live_twin.h"

#include <algorithm>

#include "server/twin_stack_health.h"

namespace steward::server {

LiveTwin::LiveTwin(std::unique_ptr<twin::Twin> twin, LiveTwinOptions options)
    : twin_(std::move(twin)),
      options_(std::move(options)),
      tenancy_(twin_->tenancy()),
      series_(std::make_shared<std::vector<SeriesPoint>>()),
      topology_(BuildTopology(twin_->cluster())) {
  // Bind times of pods, for the node panel (the listener only records; the twin's results do
  // not depend on it).
  twin_->AddLifecycleListener([this](const twin::LifecycleRecord& r) { pods_.OnLifecycle(r); });
  const size_t teams = twin_->scenario().teams.size();
  const size_t models = twin_->cluster().gpu_models().size();
  team_model_gpu_hours_.assign(teams, std::vector<double>(models, 0));
  last_team_model_allocated_.assign(teams, std::vector<int>(models, 0));
  last_publish_time_ = twin_->now();
  if (options_.dcgm_interval_seconds > 0)
    exporter_ = std::make_unique<telemetry::TwinExporter>(twin_->cluster());
  Publish();
}

LiveTwin::~LiveTwin() { Stop(); }

void LiveTwin::Start() {
  if (running_) return;
  {
    std::lock_guard<std::mutex> lock(command_mu_);
    stop_ = false;
  }
  running_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void LiveTwin::Stop() {
  {
    std::lock_guard<std::mutex> lock(command_mu_);
    stop_ = true;
  }
  command_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  running_ = false;
  // Controls still queued will never run: answer them.
  std::deque<std::shared_ptr<Command>> left;
  {
    std::lock_guard<std::mutex> lock(command_mu_);
    left.swap(commands_);
  }
  for (auto& c : left) c->done.set_value(Status::FailedPrecondition("the twin has stopped"));
}

void LiveTwin::AddObserver(std::function<void(const twin::Twin&)> observer) {
  STEWARD_CHECK(!running_);
  observers_.push_back(std::move(observer));
}

void LiveTwin::Step(SimDuration d) {
  STEWARD_CHECK(!running_);
  std::lock_guard<std::mutex> lock(direct_mu_);
  ApplyCommands();
  twin_->RunUntil(twin_->now() + d);
  Publish();
}

SimDuration LiveTwin::Warmup(SimDuration d, int warmup_points) {
  STEWARD_CHECK(!running_);
  std::lock_guard<std::mutex> lock(direct_mu_);
  ApplyCommands();
  const SimTime start = twin_->now();
  const SimTime end = std::min(twin_->horizon(), start + d);
  if (end <= start) return SimDuration();
  // Chunks: one series point each, no finer than the live series.
  const SimDuration chunk =
      std::max(SecondsF(options_.series_interval_seconds),
               SecondsF((end - start).ToSeconds() / std::max(1, warmup_points)));
  while (twin_->now() < end) {
    twin_->RunUntil(std::min(end, twin_->now() + chunk));
    Publish(/*full=*/twin_->now() >= end);
  }
  return twin_->now() - start;
}

std::shared_ptr<const Snapshot> LiveTwin::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  return snapshot_;
}

Status LiveTwin::Control(std::function<Status(twin::Twin&)> change,
                         std::chrono::milliseconds timeout) {
  if (!running_) {
    std::lock_guard<std::mutex> lock(direct_mu_);
    Status s = change(*twin_);
    Publish();
    return s;
  }
  auto cmd = std::make_shared<Command>();
  cmd->change = std::move(change);
  std::future<Status> result = cmd->done.get_future();
  {
    std::lock_guard<std::mutex> lock(command_mu_);
    if (stop_) return Status::FailedPrecondition("the twin has stopped");
    commands_.push_back(cmd);
  }
  command_cv_.notify_all();
  if (result.wait_for(timeout) != std::future_status::ready) {
    // Still queued: withdraw it, so it never runs after our caller's state is gone. Already
    // taken by the simulation thread: it is running now, so wait for it to finish.
    std::lock_guard<std::mutex> lock(command_mu_);
    auto it = std::find(commands_.begin(), commands_.end(), cmd);
    if (it != commands_.end()) {
      commands_.erase(it);
      return Status::FailedPrecondition("the simulation did not take the change in time");
    }
  }
  return result.get();
}

void LiveTwin::ApplyCommands() {
  std::deque<std::shared_ptr<Command>> batch;
  {
    std::lock_guard<std::mutex> lock(command_mu_);
    batch.swap(commands_);
  }
  if (batch.empty()) return;
  std::vector<Status> results;
  for (auto& c : batch) results.push_back(c->change(*twin_));
  // Publish before answering, so a client that reads after its POST sees the change.
  Publish();
  for (size_t i = 0; i < batch.size(); ++i) batch[i]->done.set_value(std::move(results[i]));
}

void LiveTwin::Loop() {
  // The only reader of the real clock: the twin's time is base_sim + speed x real elapsed.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point base_wall = Clock::now();
  const SimTime base_sim = twin_->now();
  Clock::time_point next_tick = base_wall + options_.step;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(command_mu_);
      command_cv_.wait_until(lock, next_tick, [&] { return stop_ || !commands_.empty(); });
      if (stop_) break;
    }
    ApplyCommands();
    const Clock::time_point wall = Clock::now();
    if (wall < next_tick) continue;
    const double elapsed = std::chrono::duration<double>(wall - base_wall).count();
    const SimTime target = base_sim + SecondsF(elapsed * options_.speed);
    const SimTime before = twin_->now();
    if (target > before) twin_->RunUntil(target);
    next_tick += options_.step;
    // A step that took longer than a tick (a very high speed-up) does not queue up ticks.
    if (next_tick < Clock::now()) next_tick = Clock::now() + options_.step;
    // Past the horizon the twin stands still: the same state is not rebuilt every tick (at
    // 102,400 GPUs a snapshot is tens of ms of CPU). Controls publish their own changes.
    if (twin_->now() != before) Publish();
  }
}

void LiveTwin::Publish(bool full) {
  const SimTime now = twin_->now();
  // GPU-hours per (team, GPU model), integrated at publish granularity: only the split by
  // model for pricing comes from here; the GPU-hours themselves are the twin's exact ones.
  const double dt_hours = (now - last_publish_time_).ToHours();
  if (dt_hours > 0)
    for (size_t t = 0; t < team_model_gpu_hours_.size(); ++t)
      for (size_t m = 0; m < team_model_gpu_hours_[t].size(); ++m)
        team_model_gpu_hours_[t][m] += last_team_model_allocated_[t][m] * dt_hours;
  last_publish_time_ = now;

  SnapshotContext ctx;
  ctx.version = ++version_;
  ctx.speed = options_.speed;
  ctx.price_per_gpu_hour = options_.price_per_gpu_hour;
  ctx.currency = options_.currency;
  ctx.team_model_gpu_hours = &team_model_gpu_hours_;
  ctx.series = series_;
  ctx.remediation = options_.remediation;
  ctx.topology = topology_;
  pods_.Update(*twin_);
  ctx.pods = &pods_;
  auto snap = std::make_shared<Snapshot>(BuildSnapshot(*twin_, ctx));
  last_team_model_allocated_ = snap->team_model_allocated;
  // snapshot_ is only written on this thread, so reading it here needs no lock.
  if (snapshot_) markers_.Observe(*snapshot_, *snap, now.ToHours());
  snap->markers = markers_.list();
  if (options_.rollouts) snap->rollouts = options_.rollouts();
  // The exporter walks every GPU (a few ms at 10^4 GPUs), so it runs at dcgm-exporter's
  // cadence in simulated time, not at every publish; the page is rendered by the first scrape
  // after a refresh and shared by every other (RenderedText), or streamed per scrape on a large
  // cluster (dcgm_shared_page_max_gpus).
  if (full && exporter_ &&
      (dcgm_time_.is_never() || now - dcgm_time_ >= SecondsF(options_.dcgm_interval_seconds))) {
    exporter_->Update(*twin_);
    dcgm_records_ = std::make_shared<const std::vector<telemetry::GpuRecord>>(
        exporter_->records().begin(), exporter_->records().end());
    dcgm_time_ = now;
    dcgm_text_ = dcgm_records_->size() <= options_.dcgm_shared_page_max_gpus
                     ? std::make_shared<const RenderedText>()
                     : nullptr;
  }
  snap->dcgm_records = dcgm_records_;
  snap->dcgm_text = dcgm_text_;
  snap->overview_json = std::make_shared<const RenderedText>();
  for (auto& racks : snap->racks_json) racks = std::make_shared<const RenderedText>();
  snap->dcgm_sim_hours = dcgm_time_.is_never() ? 0 : dcgm_time_.ToHours();
  // Stack checks rebuild the node list (tens of ms at 10^4 GPUs): at a simulated cadence, and
  // only when something they read on the nodes changed.
  if (full && options_.stack_health_interval_seconds > 0 &&
      (stack_time_.is_never() ||
       now - stack_time_ >= SecondsF(options_.stack_health_interval_seconds))) {
    const uint64_t fingerprint = StackInputsFingerprint(*twin_);
    if (!stack_findings_ || fingerprint != stack_fingerprint_)
      stack_findings_ =
          std::make_shared<const std::vector<health::StackFinding>>(TwinStackFindings(*twin_));
    stack_fingerprint_ = fingerprint;
    stack_time_ = now;
  }
  snap->stack_findings = stack_findings_;

  const double hours = now.ToHours();
  if (last_series_hours_ < 0 ||
      hours - last_series_hours_ >= options_.series_interval_seconds / 3600) {
    // Copy on write: published snapshots keep the series they were built with.
    auto next = std::make_shared<std::vector<SeriesPoint>>(*series_);
    next->push_back(PointOf(snap->overview, hours));
    if (next->size() > options_.max_series_points) {
      std::vector<SeriesPoint> kept;
      for (size_t i = 0; i < next->size(); i += 2) kept.push_back((*next)[i]);
      if (kept.back().hours != next->back().hours) kept.push_back(next->back());
      *next = std::move(kept);
    }
    series_ = next;
    last_series_hours_ = hours;
    snap->series = series_;
  }
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    snapshot_ = std::move(snap);
  }
  if (full)
    for (const auto& observer : observers_) observer(*twin_);
}

}  // namespace steward::server
