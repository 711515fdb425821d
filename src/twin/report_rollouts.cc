#include "twin/report_rollouts.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/text.h"

namespace steward::twin {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string E(const std::string& s) { return model::HtmlEscape(s); }

std::string Value(const json& v) {
  return v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : std::string("-");
}

}  // namespace

std::string RolloutsText(const std::vector<RolloutSection>& rollouts) {
  if (rollouts.empty()) return "";
  std::string out = "\nRollouts\n";
  for (const RolloutSection& r : rollouts) out += r.text;
  return out;
}

std::string RolloutsHtml(const std::vector<RolloutSection>& rollouts) {
  if (rollouts.empty()) return "";
  std::string h = "<h2>Rollouts</h2>\n";
  for (const RolloutSection& r : rollouts) {
    const json& s = r.status;
    h += fmt::format("<h3 class=\"rollout\" data-state=\"{}\">{}: {} {} &rarr; {} &middot; {}</h3>",
                     E(Str(s, "state")), E(Str(s, "plan")), E(Str(s, "component")),
                     E(Str(s, "previous_version")), E(Str(s, "version")), E(Str(s, "state")));
    h += fmt::format("<p>{}. Nodes upgraded {}, rolled back {}; max unavailable seen {} of {}.</p>",
                     E(Str(s, "reason")), s.value("nodes_upgraded", 0),
                     s.value("nodes_rolled_back", 0), s.value("max_unavailable_seen", 0),
                     s.value("max_unavailable", 0));
    h += "<table><tr><th>batch</th><th>state</th><th>nodes</th><th>gate</th><th>metric</th>"
         "<th>value</th><th>success</th><th>failure</th><th>verdict</th><th>measured</th></tr>";
    for (const json& b : s.value("batches", json::array())) {
      const json& gates = b.value("gates", json::array());
      std::string nodes;
      for (const json& n : b.value("nodes", json::array()))
        nodes += (nodes.empty() ? "" : ", ") + n.get<std::string>();
      const size_t rows = std::max<size_t>(1, gates.size());
      h += fmt::format(
          "<tr><td rowspan=\"{0}\">{1}</td><td rowspan=\"{0}\">{2}</td>"
          "<td rowspan=\"{0}\">{3}</td>",
          rows, E(Str(b, "name")), E(Str(b, "state")), E(nodes));
      if (gates.empty()) h += "<td colspan=\"7\">-</td></tr>";
      for (size_t i = 0; i < gates.size(); ++i) {
        const json& g = gates[i];
        h += fmt::format(
            "{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            i == 0 ? "" : "<tr>", E(Str(g, "name")), E(Str(g, "metric")), Value(g["value"]),
            E(Str(g, "success_condition")), E(Str(g, "failure_condition")), E(Str(g, "verdict")),
            g["tally"].value("measurements", 0));
      }
    }
    h += "</table>\n<table><tr><th>#</th><th>hour</th><th>kind</th><th>object</th>"
         "<th>from</th><th>to</th><th>reason</th></tr>";
    for (const json& d : s.value("log", json::array())) {
      if (Str(d, "kind") == "node") continue;  // Per-node steps: in the JSON log.
      h += fmt::format(
          "<tr><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "</tr>",
          d.value("seq", 0), d.value("at_us", int64_t{0}) / 3.6e9, E(Str(d, "kind")),
          E(Str(d, "object")), E(Str(d, "from")), E(Str(d, "to")), E(Str(d, "reason")));
    }
    h += "</table>\n";
  }
  return h;
}

}  // namespace steward::twin
