#include "server/node_detail.h"

#include <bit>

#include "server/workload_query.h"
#include "telemetry/dcgm_fields.h"

namespace steward::server {
namespace {

using nlohmann::json;
using telemetry::DcgmField;

json Reading(const telemetry::FieldValues& v, DcgmField f) {
  const std::optional<double> x = v.Get(f);
  return x ? json(*x) : json(nullptr);
}

std::string_view StateName(char letter) {
  switch (letter) {
    case 'u':
      return "in_use";
    case 'f':
      return "faulty";
    case 'c':
      return "cordoned";
    default:
      return "idle";
  }
}

}  // namespace

json NodeGpusJson(const Snapshot& s, const NodeView& node) {
  json gpus = json::array();
  const auto* records = s.dcgm_records.get();
  for (int i = 0; i < node.capacity; ++i) {
    json g{{"index", i}, {"state", StateName(node.gpus[i])}};
    const size_t r = static_cast<size_t>(node.first_gpu) + i;
    if (records && r < records->size()) {
      const telemetry::GpuRecord& rec = (*records)[r];
      const telemetry::FieldValues& v = rec.values;
      const std::optional<double> used = v.Get(DcgmField::kFbUsed);
      const std::optional<double> free = v.Get(DcgmField::kFbFree);
      const std::optional<double> reserved = v.Get(DcgmField::kFbReserved);
      g["uuid"] = rec.id.uuid;
      g["temperature_c"] = Reading(v, DcgmField::kGpuTemp);
      g["power_w"] = Reading(v, DcgmField::kPowerUsage);
      g["memory_used_mib"] = Reading(v, DcgmField::kFbUsed);
      g["memory_total_mib"] =
          used && free ? json(*used + *free + reserved.value_or(0)) : json(nullptr);
      g["gpu_util_percent"] = Reading(v, DcgmField::kGpuUtil);
      g["sm_active"] = Reading(v, DcgmField::kSmActive);
      g["xid"] = Reading(v, DcgmField::kXidErrors);
      g["ecc_sbe_volatile"] = Reading(v, DcgmField::kEccSbeVolTotal);
      g["ecc_dbe_volatile"] = Reading(v, DcgmField::kEccDbeVolTotal);
      g["ecc_sbe_aggregate"] = Reading(v, DcgmField::kEccSbeAggTotal);
      g["ecc_dbe_aggregate"] = Reading(v, DcgmField::kEccDbeAggTotal);
    } else {
      for (const char* k :
           {"uuid", "temperature_c", "power_w", "memory_used_mib", "memory_total_mib",
            "gpu_util_percent", "sm_active", "xid", "ecc_sbe_volatile", "ecc_dbe_volatile",
            "ecc_sbe_aggregate", "ecc_dbe_aggregate"})
        g[k] = nullptr;
    }
    g["pods"] = json::array();  // Several when the GPU is shared (MIG, fractions).
    gpus.push_back(std::move(g));
  }
  // Holders: the pods of the node's workloads that sit on this node.
  for (model::WorkloadId id : node.workloads) {
    const WorkloadView* w = FindWorkload(s, id);
    if (!w) continue;
    for (const PodView& p : w->pods_placed) {
      if (p.node != node.id) continue;
      for (uint64_t mask = p.gpus; mask != 0; mask &= mask - 1) {
        const int i = std::countr_zero(mask);
        if (i >= node.capacity) continue;
        gpus[i]["pods"].push_back({{"name", p.name},
                                   {"workload", w->name},
                                   {"team", w->team},
                                   {"kind", w->kind},
                                   {"running", p.running},
                                   {"since_hours", p.since_hours}});
      }
    }
  }
  return gpus;
}

}  // namespace steward::server
