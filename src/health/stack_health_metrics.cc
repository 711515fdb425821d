#include "health/stack_health_metrics.h"

#include <fmt/format.h>

#include <map>
#include <string_view>

namespace steward::health {
namespace {

// Label values escape backslash, double quote and newline (exposition format 0.0.4).
std::string Escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string StackFindingsExposition(const std::vector<StackFinding>& findings) {
  // Every check has a count, so a rule can tell "no findings" from "not checked".
  std::map<std::string, int> count;
  for (const StackCheck& c : StackChecks()) count[std::string(c.name)] = 0;
  for (const StackFinding& f : findings) ++count[f.check];
  std::string out =
      "# HELP steward_stack_findings GPU stack findings (health/stack_health.h) by check, 0 "
      "when clean\n# TYPE steward_stack_findings gauge\n";
  for (const auto& [check, n] : count)
    out += fmt::format("steward_stack_findings{{check=\"{}\"}} {}\n", Escape(check), n);
  out +=
      "# HELP steward_stack_finding 1 per GPU stack finding, naming its node, check and severity "
      "(critical, warning)\n# TYPE steward_stack_finding gauge\n";
  for (const StackFinding& f : findings)
    out += fmt::format("steward_stack_finding{{node=\"{}\",check=\"{}\",severity=\"{}\"}} 1\n",
                       Escape(f.node), Escape(f.check), Escape(f.severity));
  return out;
}

}  // namespace steward::health
