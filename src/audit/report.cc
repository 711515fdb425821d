#include "audit/report.h"

#include <fmt/format.h>

#include <sstream>

namespace steward::audit {

using nlohmann::json;

json FindingJson(const Finding& f) {
  json objects = json::array(), locations = json::array();
  for (const ObjectRef& o : f.objects) {
    objects.push_back(o.Id());
    if (!o.file.empty())
      locations.push_back({{"object", o.Id()}, {"file", o.file}, {"line", o.line}});
  }
  return {
      {"id", f.id},         {"layer", LayerName(f.layer)}, {"severity", SeverityName(f.severity)},
      {"tenant", f.tenant}, {"objects", objects},          {"message", f.message},
      {"fix", f.fix},       {"locations", locations}};
}

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// not_read, checks_not_run, checks_incomplete (empty lists when every kind was read).
void AddCoverage(const AuditResult& r, json* out) {
  json not_read = json::array(), not_run = json::array(), incomplete = json::array();
  for (const UnreadKind& u : r.not_read)
    not_read.push_back({{"kind", u.kind}, {"reason", u.reason}});
  for (const CheckCoverage& g : r.coverage_gaps)
    (g.run ? incomplete : not_run).push_back({{"id", g.id}, {"missing", g.missing}});
  (*out)["not_read"] = not_read;
  (*out)["checks_not_run"] = not_run;
  (*out)["checks_incomplete"] = incomplete;
}

}  // namespace

json FindingsJson(const AuditResult& r) {
  json findings = json::array();
  int critical = 0, warning = 0;
  for (const Finding& f : r.findings) {
    findings.push_back(FindingJson(f));
    (f.severity == Severity::kCritical ? critical : warning)++;
  }
  json tenants = json::object();
  for (const auto& [t, ns] : r.tenants) tenants[t] = std::vector<std::string>(ns.begin(), ns.end());
  json out = {{"findings", findings},
              {"summary",
               {{"critical", critical},
                {"warning", warning},
                {"objects", r.objects},
                {"checks", AllChecks().size()},
                {"checks_run", r.checks_run},
                {"tenants", tenants}}}};
  AddCoverage(r, &out);
  return out;
}

std::string FindingsTable(const AuditResult& r) {
  std::ostringstream out;
  if (r.not_read.empty()) {
    out << fmt::format("{} objects, {} tenant(s), {} checks: {} finding(s)\n", r.objects,
                       r.tenants.size(), AllChecks().size(), r.findings.size());
  } else {
    int not_run = 0;
    for (const CheckCoverage& g : r.coverage_gaps) not_run += !g.run;
    out << fmt::format(
        "{} objects, {} tenant(s), {} of {} checks run: {} finding(s); {} kind(s) NOT READ, {} "
        "check(s) not run, {} incomplete\n",
        r.objects, r.tenants.size(), r.checks_run, AllChecks().size(), r.findings.size(),
        r.not_read.size(), not_run, r.coverage_gaps.size() - not_run);
    out << "\nNOT READ (no finding below can come from these kinds; absence is not evidence):\n";
    for (const UnreadKind& u : r.not_read) out << fmt::format("  {:<22} {}\n", u.kind, u.reason);
    for (const CheckCoverage& g : r.coverage_gaps)
      out << fmt::format("  {:<10} {:<34} {} {}\n", g.run ? "incomplete" : "not run", g.id,
                         g.run ? "without" : "needs", Join(g.missing));
  }
  if (r.findings.empty()) return out.str();
  out << fmt::format("\n{:<9} {:<8} {:<34} {:<14} {}\n", "SEVERITY", "LAYER", "CHECK", "TENANT",
                     "OBJECT");
  for (const Finding& f : r.findings) {
    out << fmt::format("{:<9} {:<8} {:<34} {:<14} {}\n", SeverityName(f.severity),
                       LayerName(f.layer), f.id, f.tenant.empty() ? "-" : f.tenant,
                       f.objects.empty() ? "-" : f.objects.front().Id());
    out << "    " << f.message << "\n";
    std::string fix = f.fix;
    for (size_t i = 0; (i = fix.find('\n', i)) != std::string::npos; i += 9)
      fix.replace(i, 1, "\n        ");
    out << "    fix: " << fix << "\n";
  }
  return out.str();
}

json FindingsSarif(const AuditResult& r) {
  json rules = json::array();
  for (const Check& c : AllChecks()) {
    rules.push_back(
        {{"id", c.id},
         {"name", c.id},
         {"shortDescription", {{"text", c.title}}},
         {"fullDescription", {{"text", fmt::format("{} (anchor: {})", c.title, c.anchor)}}},
         {"help", {{"text", fmt::format("Steward docs/tenancy.md, section {}", c.id)}}},
         {"defaultConfiguration",
          {{"level", c.severity == Severity::kCritical ? "error" : "warning"}}},
         {"properties",
          {{"layer", LayerName(c.layer)}, {"tags", {"tenancy", LayerName(c.layer)}}}}});
  }
  json results = json::array();
  for (const Finding& f : r.findings) {
    int rule_index = 0;
    for (size_t i = 0; i < AllChecks().size(); ++i)
      if (AllChecks()[i].id == f.id) rule_index = static_cast<int>(i);
    json locations = json::array(), logical = json::array();
    for (const ObjectRef& o : f.objects) {
      logical.push_back({{"fullyQualifiedName", o.Id()}, {"kind", "resource"}});
      if (o.file.empty()) continue;
      json region = json::object();
      if (o.line > 0) region["startLine"] = o.line;
      locations.push_back(
          {{"physicalLocation", {{"artifactLocation", {{"uri", o.file}}}, {"region", region}}}});
    }
    if (locations.empty())
      locations.push_back({{"logicalLocations", logical}});
    else
      locations[0]["logicalLocations"] = logical;
    results.push_back({{"ruleId", f.id},
                       {"ruleIndex", rule_index},
                       {"level", f.severity == Severity::kCritical ? "error" : "warning"},
                       {"message", {{"text", f.message}}},
                       {"locations", locations},
                       {"properties", {{"tenant", f.tenant}, {"fix", f.fix}}}});
  }
  // What could not be read, as notifications of the one invocation (CI shows them next to the
  // results) and as its properties (for programs).
  json notifications = json::array();
  for (const UnreadKind& u : r.not_read)
    notifications.push_back(
        {{"level", "warning"},
         {"message", {{"text", fmt::format("{} not read: {}", u.kind, u.reason)}}}});
  for (const CheckCoverage& g : r.coverage_gaps) {
    int rule_index = 0;
    for (size_t i = 0; i < AllChecks().size(); ++i)
      if (AllChecks()[i].id == g.id) rule_index = static_cast<int>(i);
    notifications.push_back(
        {{"level", g.run ? "note" : "warning"},
         {"message",
          {{"text", fmt::format("{} {}: {} not read", g.id, g.run ? "incomplete" : "not run",
                                Join(g.missing))}}},
         {"associatedRule", {{"id", g.id}, {"index", rule_index}}}});
  }
  json coverage = json::object();
  AddCoverage(r, &coverage);
  json invocation = {{"executionSuccessful", true},
                     {"toolExecutionNotifications", notifications},
                     {"properties",
                      {{"notRead", coverage["not_read"]},
                       {"checksNotRun", coverage["checks_not_run"]},
                       {"checksIncomplete", coverage["checks_incomplete"]}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           {{{"tool", {{"driver", {{"name", "steward-audit-tenancy"}, {"rules", rules}}}}},
             {"invocations", {invocation}},
             {"results", results}}}}};
}

Result<std::optional<Severity>> ParseFailOn(std::string_view text) {
  if (text == "critical") return std::optional<Severity>(Severity::kCritical);
  if (text == "warning") return std::optional<Severity>(Severity::kWarning);
  if (text == "never") return std::optional<Severity>();
  return Status::InvalidArgument(
      fmt::format("--fail-on: \"{}\" is not one of critical, warning, never", text));
}

bool ShouldFail(const AuditResult& r, std::optional<Severity> fail_on) {
  if (!fail_on) return false;
  for (const Finding& f : r.findings)
    if (f.severity >= *fail_on) return true;
  return false;
}

}  // namespace steward::audit
