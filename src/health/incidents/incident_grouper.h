// IncidentGrouper: clusters node faults into node, rack and leaf incidents by topology and a
// sliding time window (IncidentOptions).
//
// For each fault, in this order:
//   1. an open leaf incident of the same family under the node's leaf, active within the window,
//      absorbs it;
//   2. else, if the leaf's recent same-family faults now span >= leaf_min_nodes nodes in
//      >= leaf_min_racks racks, a leaf incident is created and absorbs those faults' incidents;
//   3. else an open, active rack incident of the same family absorbs it;
//   4. else, if the rack's recent same-family faults span >= rack_min_nodes nodes, a rack
//      incident is created and absorbs them;
//   5. else it joins the node's own active incident of that family, or starts one.
// "Absorb" sets the narrower incident's parent; it keeps its members for the record.
//
// Pure and in-memory: the remediation controller persists what Add() reports as changed, and
// rebuilds a grouper after a restart with Restore(). Cost per fault: O(faults in the window
// for that rack and leaf), which is a handful. Not thread-safe.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "health/incidents/incident.h"
#include "health/incidents/incident_options.h"
#include "model/time.h"

namespace steward::health {

struct GroupedFault {
  std::string node;
  int rack = 0;
  int leaf = 0;
  std::string category;
  SimTime at;
  IncidentId incident = 0;  // The incident the fault first joined (filled by Add).
};

class IncidentGrouper {
 public:
  explicit IncidentGrouper(IncidentOptions options = {});

  struct Outcome {
    IncidentId incident = 0;          // Root incident the fault now belongs to.
    std::vector<IncidentId> changed;  // Incidents created or modified (to persist).
  };

  // Adds one fault. `fault.incident` is ignored. Faults should arrive in time order; a late
  // fault is still grouped, against the window ending at the newest fault seen.
  Outcome Add(GroupedFault fault);

  // Follows parent links to the incident that owns the ticket. 0 stays 0.
  IncidentId Root(IncidentId id) const;
  const Incident* Find(IncidentId id) const;
  void SetTicket(IncidentId id, TicketId ticket);
  // Closes `id` and every incident merged into it; returns the ids changed.
  std::vector<IncidentId> Close(IncidentId id);

  // Rebuilds state after a restart: every stored incident, and the stored faults of the last
  // window (with the incident each joined) so windows continue where they were.
  void Restore(std::vector<Incident> incidents, std::vector<GroupedFault> recent_faults);

  const std::map<IncidentId, Incident>& incidents() const { return incidents_; }
  const IncidentOptions& options() const { return options_; }

 private:
  using Key = std::tuple<int, int, std::string>;  // (scope, rack or leaf id, category).

  Incident& Create(IncidentScope scope, const GroupedFault& f, std::vector<IncidentId>* changed);
  void Join(Incident& inc, const GroupedFault& f);
  bool Active(IncidentId id, SimTime at) const;
  void Absorb(Incident& group, const std::deque<GroupedFault>& window,
              std::vector<IncidentId>* changed);
  void Prune(std::deque<GroupedFault>& q, SimTime now) const;

  IncidentOptions options_;
  std::map<IncidentId, Incident> incidents_;
  IncidentId next_id_ = 1;
  std::map<Key, std::deque<GroupedFault>> recent_;  // Faults of the last window.
  std::map<Key, IncidentId> group_;                 // Latest group incident per key.
  std::map<std::pair<std::string, std::string>, IncidentId> node_incident_;  // (node, family).
};

}  // namespace steward::health
