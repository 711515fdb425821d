// Incident: one problem as an operator sees it. Faults on nodes are grouped into incidents so
// that "12 nodes in rack 7 lost NVLink within 10 minutes" is one rack incident (suspect the
// rack's power or switch) with one ticket, not 12 node tickets.
//
// An incident is node-, rack- or leaf-scoped. A narrower incident that turns out to be part of
// a wider one is merged: it keeps its id and history but points at the wider one through
// `parent`; the root of the chain is the incident that owns the ticket.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/time.h"

namespace steward::health {

using IncidentId = int64_t;  // 0 = none. Ids are dense and increase with creation.
using TicketId = int64_t;    // 0 = none.

enum class IncidentScope : uint8_t { kNode = 0, kRack = 1, kLeaf = 2 };
std::string_view IncidentScopeName(IncidentScope scope);  // "node", "rack", "leaf".

struct Incident {
  IncidentId id = 0;
  IncidentScope scope = IncidentScope::kNode;
  // What the incident is about: the node name, or "rack-<id>" / "leaf-<id>".
  std::string subject;
  int rack = -1;  // Rack id for node and rack incidents; -1 for leaf incidents.
  int leaf = -1;
  // Fault family the members share, e.g. "nvlink" or "xid79"; grouping never mixes families,
  // because 3 unrelated faults in a rack point at 3 nodes, not at the rack.
  std::string category;
  SimTime first_fault;
  SimTime last_fault;
  std::vector<std::string> nodes;  // Distinct member nodes, in order of their first fault.
  IncidentId parent = 0;           // Set when merged into a wider incident.
  TicketId ticket = 0;             // Ticket opened for it (set by the remediation controller).
  bool closed = false;             // Its ticket was resolved.

  // The shared component a group incident points at (empty for node incidents).
  std::string SuspectedCause() const;
};

}  // namespace steward::health
