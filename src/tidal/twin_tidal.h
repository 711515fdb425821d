// TwinTidal: the tidal controller (tidal/tidal_controller.h) attached to the twin. It plans
// through twin::TwinClusterControl, exactly as it would through the live cluster's control,
// and reads the services' request rates from the twin's traffic model (TwinOps::ServingLoads,
// what a request-rate metric shows). It keeps the report's lending figures.
//
//   STEWARD_ASSIGN_OR_RETURN(TwinTidal* t, AttachTidal(twin));   // null without tidal:
//
// Wakes every tidal.period_minutes from the start of the run. Deterministic: no randomness,
// the controller's containers are ordered. Thread-safety: the twin's thread only.
#pragma once

#include <memory>

#include "tidal/tidal_controller.h"
#include "twin/controller.h"
#include "twin/scenario.h"
#include "twin/twin.h"
#include "twin/twin_cluster_control.h"

namespace steward::tidal {

// The controller's options from a tidal section (restart -1 = `default_restart_seconds`);
// a live configuration (operate/tidal_config.h) reads the same section.
TidalOptions OptionsFrom(const twin::TidalSpec& tidal, double default_restart_seconds);
// ... from a scenario's (restart -1 = the scenario's startup_seconds).
TidalOptions OptionsFrom(const twin::Scenario& scenario);

class TwinTidal : public twin::TwinController {
 public:
  explicit TwinTidal(TidalOptions options) : options_(std::move(options)) {}

  std::string_view Name() const override { return "tidal"; }
  Status Attach(twin::TwinOps& ops) override;
  void OnWake(SimTime now) override;
  SimTime NextDeadline() const override { return next_; }
  void Contribute(twin::Report& report) const override;
  Status status() const override { return status_; }

  const TidalController& controller() const { return *controller_; }
  const twin::TwinClusterControl& control() const { return *control_; }

 private:
  TidalOptions options_;
  twin::TwinOps* ops_ = nullptr;
  std::unique_ptr<twin::TwinClusterControl> control_;
  std::unique_ptr<TidalController> controller_;
  SimTime next_ = SimTime::Never();
  SimTime last_step_ = SimTime::Never();
  Status status_;
};

// Adds the controller when the scenario's tidal section is on; nullptr otherwise.
Result<TwinTidal*> AttachTidal(twin::Twin& twin);

}  // namespace steward::tidal
