// Options of the remediation loop. Every field: what it is, unit, default and why.
#pragma once

#include "model/time.h"

namespace steward::health {

struct RemediationOptions {
  // ---- Disruption budget ----
  // At most ceil(pool_nodes * max_out_fraction) nodes of a pool may be out of service
  // (cordoned, draining, in repair, validating or quarantined) at once; further faulty nodes
  // stay suspect, queued FIFO, until one comes back. Unit: fraction of the pool, in (0, 1].
  // Default 0.10: a fault storm (bad driver, rack power) must never take a pool down, and 10%
  // is what an inference service sized N+10% survives. Rounded up like the GPU Operator's
  // maxUnavailable, so every non-empty pool can repair at least one node.
  double max_out_fraction = 0.10;

  // ---- Flap guard ----
  // A node that fails this many times within flap_window is quarantined: taken out and kept
  // out until a human releases it. A failure is a fault on a healthy node, or a failed
  // validation diagnostic. Default 2 ("fails twice"): the repair did not hold.
  int flap_max_failures = 2;
  // Unit: SimDuration. Default 7 days: at the Llama 3 rate (~0.0038 faults per 8-GPU node per
  // day) two independent faults on one node within a week happen with probability ~3.5e-4,
  // so a repeat is almost surely the same defect, and automation re-admitting it would keep
  // killing jobs on it.
  SimDuration flap_window = Days(7);

  // ---- Checkpoint-aware drain ----
  // Grace given to workloads that can checkpoint, to save before they are stopped. Unit:
  // SimDuration. Default 5 min: a large-model checkpoint to parallel storage takes tens of
  // seconds to a few minutes; losing it costs up to a full checkpoint interval of work.
  SimDuration checkpoint_grace = Minutes(5);
  // Grace for everything else. Default 30 s, Kubernetes' terminationGracePeriodSeconds.
  SimDuration eviction_grace = Seconds(30);
  // Delay between evicting one tier and the next: dev at drain start, training at +1 step,
  // production at +2 steps (checkpointing jobs of any tier are asked to save at the start).
  // Default 1 min: gives the scheduler time to bring production replicas up elsewhere before
  // the ones here go. Zero evicts all tiers at once (still in tier order).
  SimDuration tier_step = Minutes(1);
  // From drain start: workloads still on the node after this are evicted with zero grace and
  // the node moves on (a stuck drain must never leave the loop open). Default 15 min; must be
  // >= 2 * tier_step + max(checkpoint_grace, eviction_grace) (checked at Open).
  SimDuration drain_timeout = Minutes(15);

  // ---- Tickets and validation ----
  // A node-scoped ticket is opened no earlier than this after the incident's first fault, so
  // that if the fault turns out to be one of many in the rack, the rack incident's single
  // ticket is used instead. Unit: SimDuration. Default 10 min, the grouping window (EKS's
  // agent likewise waits 10 min before auto-repair). Rack and leaf tickets open at once.
  SimDuration ticket_hold = Minutes(10);
  // A validation diagnostic that has not reported after this counts as failed. Default
  // 30 min: DCGM diag level 3 takes 10-20 min on an 8-GPU node.
  SimDuration diagnostic_timeout = Minutes(30);

  // ---- Escalation of application-level XIDs (restart-workload: 13, 31, 43, ...) ----
  // That many on one node within the window make it suspect (NVIDIA's WORKFLOW_XID_13/31:
  // repeats on the same GPU point at hardware, a single one at the application).
  // Defaults 3 within 1 h. 0 disables escalation.
  int restart_escalation_count = 3;
  SimDuration restart_escalation_window = Hours(1);
};

}  // namespace steward::health
