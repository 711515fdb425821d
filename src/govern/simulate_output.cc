// SimulationResult as JSON and as text (simulate.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "govern/simulate.h"

namespace steward::govern {
namespace {

using nlohmann::json;

json Canonical(Amount a, const std::string& resource) {
  if (IsMilliResource(resource)) {
    if (a % 1000 == 0) return a / 1000;
    return CanonicalValue(a, resource);
  }
  return a;
}

std::string CanonicalText(Amount a, const std::string& resource) {
  return IsMilliResource(resource) ? fmt::format("{:g}", CanonicalValue(a, resource))
                                   : fmt::format("{}", a);
}

}  // namespace

std::string SimulationToJson(const SimulationResult& r) {
  json out;
  out["cycles"] = r.cycles;
  out["fair_sharing"] = r.fair_sharing;
  json workloads = json::array();
  for (const auto& w : r.workloads) {
    json flavors = json::object(), counts = json::object();
    for (const auto& ps : w.flavors) {
      flavors[ps.pod_set] = ps.flavors;
      counts[ps.pod_set] = ps.count;
    }
    workloads.push_back({{"name", w.name},
                         {"namespace", w.namespace_name},
                         {"state", w.state},
                         {"cluster_queue", w.cluster_queue},
                         {"flavors", flavors},
                         {"counts", counts},
                         {"preempted_by", w.preempted_by.empty() ? json() : json(w.preempted_by)},
                         {"reason", w.reason},
                         {"message", w.message}});
  }
  out["workloads"] = workloads;
  json queues = json::array();
  for (const auto& q : r.cluster_queues) {
    json usage = json::object(), nominal = json::object(), borrowed = json::object();
    for (const auto& u : q.usage) {
      usage[u.flavor][u.resource] = Canonical(u.usage, u.resource);
      nominal[u.flavor][u.resource] = Canonical(u.nominal, u.resource);
      borrowed[u.flavor][u.resource] = Canonical(u.borrowed, u.resource);
    }
    queues.push_back({{"name", q.name},
                      {"usage", usage},
                      {"nominal", nominal},
                      {"borrowed", borrowed},
                      {"weighted_share", q.weighted_share}});
  }
  out["cluster_queues"] = queues;
  return out.dump(2) + "\n";
}

std::string SimulationToText(const SimulationResult& r) {
  std::string out =
      fmt::format("{} cycle(s){}\n\nWORKLOADS\n", r.cycles, r.fair_sharing ? ", fair sharing" : "");
  for (const auto& w : r.workloads) {
    out += fmt::format("  {}/{}  {}  {}", w.namespace_name, w.name, w.state,
                       w.cluster_queue.empty() ? "-" : w.cluster_queue);
    if (w.state == "admitted") {
      for (const auto& ps : w.flavors) {
        out += fmt::format("  [{} x{}:", ps.pod_set, ps.count);
        for (const auto& [res, fl] : ps.flavors) out += fmt::format(" {}={}", res, fl);
        out += "]";
      }
    }
    if (!w.preempted_by.empty()) out += fmt::format("  preempted by {}", w.preempted_by);
    if (!w.reason.empty()) out += fmt::format("  ({})", w.reason);
    out += "\n";
    if (!w.message.empty()) out += fmt::format("      {}\n", w.message);
  }
  out += "\nCLUSTER QUEUES (usage / nominal per flavor and resource)\n";
  for (const auto& q : r.cluster_queues) {
    out += fmt::format("  {}", q.name);
    if (r.fair_sharing) out += fmt::format("  weightedShare {}", q.weighted_share);
    out += "\n";
    for (const auto& u : q.usage)
      out += fmt::format("      {:<16} {:<22} {} / {}{}\n", u.flavor, u.resource,
                         CanonicalText(u.usage, u.resource), CanonicalText(u.nominal, u.resource),
                         u.borrowed > 0
                             ? fmt::format(" (borrowing {})", CanonicalText(u.borrowed, u.resource))
                             : "");
  }
  return out;
}

}  // namespace steward::govern
