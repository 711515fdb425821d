// Admission: which pending workloads may start now. An Admitter orders pending work and
// enforces quota; it asks the host (the twin) to place a workload and learns how many GPUs
// that took. It never touches cluster state itself. Chosen by name from NewAdmitter(); the
// governance engine (src/govern/) brings Kueue/Volcano semantics.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "model/workload.h"
#include "twin/pending_reason.h"

namespace steward::twin {

// What the twin offers an admitter.
class AdmissionHost {
 public:
  virtual ~AdmissionHost() = default;
  virtual const model::Workload& workload(model::WorkloadId id) const = 0;
  // GPUs the next placement attempt of `id` needs (a gang: all of them; a service: one replica).
  virtual int GpusWanted(model::WorkloadId id) const = 0;
  // Tries to place `id` (a gang all-or-nothing; a service as many wanted replicas as fit
  // within `gpu_budget`). Returns the GPUs placed (0 = none fit) and sets *done when nothing
  // more is wanted.
  virtual int TryPlace(model::WorkloadId id, int gpu_budget, bool* done) = 0;
  virtual void SetPendingReason(model::WorkloadId id, PendingReason reason) = 0;
};

class Admitter {
 public:
  virtual ~Admitter() = default;
  Admitter() = default;
  Admitter(const Admitter&) = delete;
  Admitter& operator=(const Admitter&) = delete;

  virtual std::string_view Name() const = 0;
  // `id` became pending (arrival, requeue after a failure, a service scaling up).
  virtual void Enqueue(model::WorkloadId id, int team) = 0;
  // One admission cycle: admit in policy order while work fits.
  virtual void Cycle(AdmissionHost& host) = 0;
  // `gpus` GPUs of `team` were released (pods finished, failed or scaled down).
  virtual void Released(int team, int gpus) = 0;
  virtual int used_gpus(int team) const = 0;
};

// "fifo-quota": one StrictFIFO queue per team with a nominal GPU quota and no borrowing.
// `quota_gpus[t]` is team t's quota.
Result<std::unique_ptr<Admitter>> NewAdmitter(std::string_view name, std::vector<int> quota_gpus);

}  // namespace steward::twin
