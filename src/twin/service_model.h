// ServiceModel: one inference service's traffic, autoscaler and latency objective, stepped at
// the autoscaler's sync period by the twin (twin_serving.cc). The replicas themselves are the
// twin's pods (placed, started and released like any other); this object only decides how
// many are wanted and accounts what the ready ones deliver.
//
//   ServiceModel m(spec, min_replicas, max_replicas, seed, now);
//   int desired = m.Step(now, ready_replicas);     // every sync_seconds
//   ServiceStats s = m.Stats();                    // for the report
//
// Accounting: the interval since the previous step is charged with the rate and the ready
// replicas seen at that step (the autoscaler's own view: piecewise constant between syncs).
// Its p99 (twin/latency_model.h) goes into a request-weighted log histogram; the interval
// counts toward SLO minutes when that p99 is above the objective. Accounting starts at the first
// step with a ready replica: a new service takes traffic once it is up.
//
// GPU sharing (twin/interference.h): a step may describe its ready replicas as groups with their
// interference (ReplicaSharing); the interval's p99 is then the mixture's
// (MixtureP99LatencyMs), and the replica-hours beside a neighbour and slowed by one are counted.
// A step without it (or with every replica alike and unslowed) uses P99LatencyMs as before.
//
// Cost: O(1) per step plus the autoscaler's window. Thread-safety: none; owned by the twin.
#pragma once

#include <cstdint>
#include <vector>

#include "model/time.h"
#include "twin/hpa.h"
#include "twin/latency_model.h"
#include "twin/serving_spec.h"
#include "twin/traffic.h"

namespace steward::twin {

struct ServiceStats {
  double slo_p99_ms = 0;
  double p99_latency_ms = 0;  // Request-weighted p99 of the per-interval p99s.
  double slo_minutes_violated = 0;
  double requests = 0;       // Served (offered) over the run.
  double replica_hours = 0;  // Ready replicas x hours.
  double peak_rps = 0;       // Highest rate seen at a sync.
  // GPU sharing, when a step described it (`sharing`): ready replica-hours on a GPU a
  // non-serving pod also held (MIG instances included), and those a neighbour slowed.
  bool sharing = false;
  double shared_replica_hours = 0;
  double slowed_replica_hours = 0;
};

// The ready replicas at one step as GPU sharing leaves them: groups of alike replicas (their
// counts sum to the ready replicas) and how many sit beside a non-serving pod.
struct ReplicaSharing {
  std::vector<ReplicaGroup> groups;
  int shared = 0;
};

class ServiceModel {
 public:
  ServiceModel(const ServingSpec& spec, int min_replicas, int max_replicas, uint64_t seed,
               SimTime now);
  // The replicas a fresh service starts at: what the metric asks for at `now`.
  int initial_replicas() const { return hpa_.desired(); }
  // One autoscaler sync at `now` with `ready` running replicas: accounts the interval since the
  // last step, then returns the new desired count.
  int Step(SimTime now, int ready);
  // The same, with the ready replicas' interference (their groups' counts sum to `ready`).
  int Step(SimTime now, int ready, ReplicaSharing sharing);
  // Closes the last interval at `now` (the end of the run) without a sync.
  void Close(SimTime now);
  double RateAt(SimTime t) const { return traffic_.RateAt(t); }
  // The rate seen at the last step (what a request-rate metric shows now).
  double current_rps() const { return last_rps_; }
  const ServingSpec& spec() const { return spec_; }
  ServiceStats Stats() const;

 private:
  void Account(SimTime now);

  ServingSpec spec_;
  Traffic traffic_;
  Hpa hpa_;
  SimTime last_;
  double last_rps_ = 0;
  int last_ready_ = 0;
  bool sharing_seen_ = false;    // A step described sharing.
  ReplicaSharing last_sharing_;  // As seen at the last step (empty groups: none).
  double shared_replica_hours_ = 0;
  double slowed_replica_hours_ = 0;
  bool serving_ = false;  // Had a ready replica: requests reach it.
  double violated_seconds_ = 0;
  double requests_ = 0;
  double replica_hours_ = 0;
  double peak_rps_ = 0;
  std::vector<double> histogram_;  // Requests by p99 bucket (log scale, kBucketsPerDecade).
};

}  // namespace steward::twin
