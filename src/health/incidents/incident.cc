#include "health/incidents/incident.h"

namespace steward::health {

std::string_view IncidentScopeName(IncidentScope scope) {
  switch (scope) {
    case IncidentScope::kNode:
      return "node";
    case IncidentScope::kRack:
      return "rack";
    case IncidentScope::kLeaf:
      return "leaf";
  }
  return "unknown";
}

std::string Incident::SuspectedCause() const {
  switch (scope) {
    case IncidentScope::kNode:
      return "";
    case IncidentScope::kRack:
      // Everything a rack's nodes share: power distribution, the top-of-rack switch and, for
      // NVL72-style racks, the NVLink switch trays.
      return "rack power, top-of-rack or NVLink switch";
    case IncidentScope::kLeaf:
      return "leaf switch or its uplinks";
  }
  return "";
}

}  // namespace steward::health
