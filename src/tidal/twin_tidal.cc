#include "tidal/twin_tidal.h"

#include "twin/report.h"

namespace steward::tidal {

TidalOptions OptionsFrom(const twin::Scenario& s) {
  return OptionsFrom(s.tidal, s.policies.startup_seconds);
}

TidalOptions OptionsFrom(const twin::TidalSpec& t, double default_restart_seconds) {
  TidalOptions o;
  o.lend_from = t.lend_from;
  o.lend_to = t.lend_to;
  o.borrower_namespace = t.lend_to_namespace;
  o.reserve_gpus = static_cast<int>(t.reserve_gpus);
  o.forecast.days = t.forecast_days;
  o.forecast.bucket = SecondsF(t.forecast_bucket_minutes * 60);
  o.save = SecondsF(t.save_seconds);
  o.restart = SecondsF(t.restart_seconds >= 0 ? t.restart_seconds : default_restart_seconds);
  o.period = SecondsF(t.period_minutes * 60);
  o.grow_back = t.grow_back;
  o.lend_by = t.lend_by_lending_limit ? LendBy::kLendingLimit : LendBy::kNominal;
  return o;
}

Status TwinTidal::Attach(twin::TwinOps& ops) {
  ops_ = &ops;
  control_ = std::make_unique<twin::TwinClusterControl>(ops);
  controller_ = std::make_unique<TidalController>(*control_, options_);
  next_ = ops.Now() + options_.period;
  return Status::Ok();
}

void TwinTidal::OnWake(SimTime now) {
  std::vector<ServiceLoad> services;
  // The controller needs no workload ids: each load as the control interface's ServiceLoad.
  for (const twin::ServingLoad& l : ops_->ServingLoads()) services.push_back(l);
  Status s = controller_->Step(services);
  if (!s.ok() && status_.ok()) status_ = s;
  last_step_ = now;
  next_ = now + options_.period;
}

void TwinTidal::Contribute(twin::Report& report) const {
  twin::TidalReport& t = report.tidal;
  const TidalStats& st = controller_->stats();
  t.lending = true;
  t.lend_from = options_.lend_from;
  t.lend_to = options_.lend_to;
  // Lent quota up to the end of the report, beyond the last step.
  t.gpu_hours_lent = st.gpu_hours_lent;
  if (ops_ && !last_step_.is_never() && last_step_ < ops_->Now())
    t.gpu_hours_lent += st.lent_gpus * (ops_->Now() - last_step_).ToHours();
  t.max_lent_gpus = st.max_lent_gpus;
  t.lends = st.lends;
  t.reclaims = st.reclaims;
  t.gpus_reclaimed = st.gpus_reclaimed;
  t.reclaim_evictions = st.evictions;
  t.reclaim_shrinks = st.shrinks;
  t.gpus_shrunk = st.gpus_shrunk;
  t.regrows = st.regrows;
  t.gpus_regrown = st.gpus_regrown;
  t.elastic = st.shrinks > 0;
  if (ops_)
    for (const twin::GeneratorSpec& g : ops_->scenario().generators) t.elastic |= g.elastic;
  // Reclaimed GPUs not lent again count up to the end of the report.
  t.gpu_hours_reclaimed =
      ops_ ? controller_->GpuHoursReclaimed(ops_->Now()) : st.gpu_hours_reclaimed;
}

Result<TwinTidal*> AttachTidal(twin::Twin& twin) {
  const twin::Scenario& s = twin.scenario();
  if (!s.tidal.enabled) return static_cast<TwinTidal*>(nullptr);
  STEWARD_ASSIGN_OR_RETURN(twin::TwinController * c,
                           twin.AddController(std::make_unique<TwinTidal>(OptionsFrom(s))));
  return static_cast<TwinTidal*>(c);
}

}  // namespace steward::tidal
