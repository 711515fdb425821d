#include "health/stack_health_metrics.h"

#include <fmt/format.h>

#include <map>
#include <string_view>

#include "telemetry/exposition.h"

namespace steward::health {

using telemetry::EscapeLabelValue;

std::string StackFindingsExposition(const std::vector<StackFinding>& findings) {
  // Every check has a count, so a rule can tell "no findings" from "not checked".
  std::map<std::string, int> count;
  for (const StackCheck& c : StackChecks()) count[std::string(c.name)] = 0;
  for (const StackFinding& f : findings) ++count[f.check];
  std::string out =
      "# HELP steward_stack_findings GPU stack findings (health/stack_health.h) by check, 0 "
      "when clean\n# TYPE steward_stack_findings gauge\n";
  for (const auto& [check, n] : count)
    out += fmt::format("steward_stack_findings{{check=\"{}\"}} {}\n", EscapeLabelValue(check), n);
  out +=
      "# HELP steward_stack_finding 1 per GPU stack finding, naming its node, check and severity "
      "(critical, warning)\n# TYPE steward_stack_finding gauge\n";
  for (const StackFinding& f : findings)
    out += fmt::format("steward_stack_finding{{node=\"{}\",check=\"{}\",severity=\"{}\"}} 1\n",
                       EscapeLabelValue(f.node), EscapeLabelValue(f.check),
                       EscapeLabelValue(f.severity));
  return out;
}

}  // namespace steward::health
