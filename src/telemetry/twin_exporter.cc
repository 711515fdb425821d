#include "telemetry/twin_exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "model/workload.h"
#include "twin/pod_names.h"
#include "twin/rng.h"

namespace steward::telemetry {

namespace {

using model::WorkloadKind;

// How a kind of workload loads a driven GPU, beyond what its UsageProfile says. These are
// modelling assumptions, not measurements (docs/telemetry.md gives the reasoning):
//  tensor: PIPE_TENSOR_ACTIVE / SM_ACTIVE. Training GEMMs keep the tensor pipe busiest;
//          notebooks mix in non-tensor work.
//  dram:   DRAM_ACTIVE / SM_ACTIVE. Decode-heavy inference is memory-bound.
//  fb:     FB_USED / usable memory. vLLM pre-allocates 90% by default (gpu_memory_utilization);
//          training fills most of HBM with activations; notebooks and batch hold less.
struct KindLoad {
  double tensor;
  double dram;
  double fb;
};
KindLoad LoadOf(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kInference:
      return {0.5, 0.6, 0.90};
    case WorkloadKind::kTraining:
      return {0.7, 0.4, 0.85};
    case WorkloadKind::kNotebook:
      return {0.3, 0.2, 0.50};
    case WorkloadKind::kBatch:
      return {0.5, 0.3, 0.60};
  }
  return {0.5, 0.3, 0.60};
}

// FB_RESERVED share of memory: the L4 sample (l4-gpu-operator-scrape.prom) reserves 470 MiB of
// 23,034 (free 22,563 + used 0 + reserved 470, +1 rounding).
constexpr double kReservedShare = 470.0 / 23034.0;
// Power model: activity weights and the P0 bump of a GPU that holds a CUDA context.
constexpr double kPowerUtilWeight = 0.3;
constexpr double kPowerSmWeight = 0.7;
constexpr double kPowerContext = 0.05;
constexpr double kIdleTempC = 30;
constexpr double kTempRangeC = 45;

// What the exporter prints: %f has 6 decimals.
double Micro(double v) { return std::round(v * 1e6) / 1e6; }

// "NVIDIA-H100-80GB-HBM3" (GFD's product label) -> "NVIDIA H100 80GB HBM3" (NVML's name).
std::string ModelNameOf(const model::GpuModel& m) {
  if (m.product_label.empty()) return m.name;
  std::string s = m.product_label;
  std::replace(s.begin(), s.end(), '-', ' ');
  return s;
}

bool Contains(const std::string& s, std::string_view what) {
  return s.find(what) != std::string::npos;
}

}  // namespace

std::string_view ContainerOf(const model::Workload& w, int pod_index) {
  if (w.pod_sets.empty()) return "main";
  if (w.kind == WorkloadKind::kInference) return w.pod_sets[0].name;
  // Pod pod_index belongs to the pod set whose cumulative count first exceeds it.
  int remaining = pod_index;
  for (const model::PodSet& ps : w.pod_sets) {
    if (remaining < ps.count) return ps.name;
    remaining -= ps.count;
  }
  return w.pod_sets.back().name;
}

bool InDataLoaderStall(const model::UsageProfile& u, int32_t pod_id, SimTime t) {
  if (u.stall_period.micros() <= 0 || !(u.stall_fraction > 0)) return false;
  if (u.stall_fraction >= 1) return true;
  const double slot_us = u.stall_fraction * static_cast<double>(u.stall_period.micros());
  const auto slot = static_cast<uint64_t>(std::floor(static_cast<double>(t.micros()) / slot_us));
  // One independent draw per (pod, slot): no pattern a scrape interval could lock onto.
  twin::Rng draw(static_cast<uint64_t>(pod_id) * 0x9e3779b97f4a7c15ULL ^ slot);
  return draw.Uniform() < u.stall_fraction;
}

GpuPowerModel PowerModelFor(const model::GpuModel& m) {
  const std::string s = m.name + " " + m.product_label;
  // Board power limits from NVIDIA's datasheets (SXM parts); idle is a typical P8 draw.
  if (Contains(s, "B200")) return {140, 1000};
  if (Contains(s, "H100") || Contains(s, "H200") || Contains(s, "H800")) return {70, 700};
  if (Contains(s, "A100") || Contains(s, "A800")) return {50, 400};
  if (Contains(s, "L40S")) return {35, 350};
  if (Contains(s, "L4")) return {16, 72};
  return {70, 700};
}

std::vector<DcgmField> TwinExporter::Fields(bool error_counters) {
  std::vector<DcgmField> fields = {
      DcgmField::kGpuTemp,          DcgmField::kPowerUsage,     DcgmField::kGpuUtil,
      DcgmField::kXidErrors,        DcgmField::kFbFree,         DcgmField::kFbUsed,
      DcgmField::kFbReserved,       DcgmField::kGrEngineActive, DcgmField::kSmActive,
      DcgmField::kPipeTensorActive, DcgmField::kDramActive,
  };
  static constexpr DcgmField kErrorCounters[] = {
      DcgmField::kEccSbeVolTotal,
      DcgmField::kEccDbeVolTotal,
      DcgmField::kEccSbeAggTotal,
      DcgmField::kEccDbeAggTotal,
      DcgmField::kNvlinkCrcFlitErrorCountTotal,
      DcgmField::kNvlinkCrcDataErrorCountTotal,
      DcgmField::kNvlinkReplayErrorCountTotal,
      DcgmField::kNvlinkRecoveryErrorCountTotal,
  };
  if (error_counters)
    for (DcgmField f : kErrorCounters) fields.push_back(f);
  return fields;
}

TwinExporter::TwinExporter(const model::Cluster& cluster, TwinExporterOptions options)
    : cluster_(cluster), options_(std::move(options)) {
  writer_.fields = Fields(options_.error_counters);
  writer_.pod_labels = options_.pod_labels;
  for (const model::GpuModel& m : cluster_.gpu_models()) power_.push_back(PowerModelFor(m));
  records_.resize(cluster_.gpus().size());
  slots_.resize(cluster_.gpus().size());
  std::vector<std::string> model_names;
  for (const model::GpuModel& m : cluster_.gpu_models()) model_names.push_back(ModelNameOf(m));
  for (size_t g = 0; g < records_.size(); ++g) {
    const model::Gpu& gpu = cluster_.gpu(static_cast<model::GpuId>(g));
    const model::Node& node = cluster_.node(gpu.node);
    GpuIdentity& id = records_[g].id;
    id.hostname = node.name;
    id.uuid = gpu.uuid;
    id.gpu = gpu.index;
    id.device = fmt::format("nvidia{}", gpu.index);
    id.model_name = model_names[gpu.model];
    // Synthetic but well-formed PCI addresses (domain:bus:device.function), one bus per GPU.
    id.pci_bus_id = fmt::format("00000000:{:02X}:00.0", 0x18 + 0x10 * gpu.index);
    id.driver_version = node.driver_version;
  }
}

void TwinExporter::Update(const twin::Twin& twin) {
  // Pass 1: mark every allocated GPU with its pod and how the pod uses it.
  std::fill(slots_.begin(), slots_.end(), Slot{});
  const twin::RunTable& runs = twin.runs();
  for (const twin::WorkloadRun& run : runs) {
    const int32_t r = run.spec.id;
    const double f = std::clamp(run.spec.usage.used_gpu_fraction, 0.0, 1.0);
    for (size_t p = 0; p < run.pods.size(); ++p) {
      const twin::PodAllocation& pod = run.pods[p];
      if (pod.node == model::kNoNode || pod.gpus == 0) continue;
      const int n = std::popcount(pod.gpus);
      // The 1e-9 keeps 0.25 x 8 = 2 (not 3) despite binary rounding.
      const int k = std::min(n, static_cast<int>(std::ceil(f * n - 1e-9)));
      const model::GpuId first = cluster_.node(pod.node).first_gpu;
      int seen = 0;
      for (uint64_t mask = pod.gpus; mask != 0; mask &= mask - 1, ++seen) {
        Slot& s = slots_[first + std::countr_zero(mask)];
        s.run = static_cast<int32_t>(r);
        s.pod = static_cast<int32_t>(p);
        if (!pod.running) {
          s.use = Use::kStarting;
        } else if (seen >= k) {
          s.use = Use::kUntouched;
        } else {
          s.use = run.idle ? Use::kIdle : Use::kActive;
        }
      }
    }
  }

  // Pass 2: one record per GPU.
  truth_ = TwinTruth{};
  truth_.sim_hours = twin.now().ToHours();
  truth_.gpus = static_cast<int>(records_.size());
  const double total = std::max(1, truth_.gpus);
  truth_.meter_sm_rate = twin.meter().sm_rate() / total;
  truth_.meter_busy_rate = twin.meter().busy_rate() / total;
  TwinTruth::Group* free_group = &truth_.by_namespace[""];
  int32_t last_run = -1, last_pod = -1;
  std::string pod_name, container;
  bool stalled = false;  // The current pod's loader stalls now (one draw per pod).
  TwinTruth::Group* group = free_group;
  for (size_t g = 0; g < records_.size(); ++g) {
    const Slot& s = slots_[g];
    GpuRecord& rec = records_[g];
    const model::Gpu& gpu = cluster_.gpu(static_cast<model::GpuId>(g));
    const GpuPowerModel& pw = power_[gpu.model];
    const double memory = cluster_.gpu_models()[gpu.model].memory_mib;
    const double reserved = std::round(memory * kReservedShare);
    double util = 0, sm = 0, tensor = 0, dram = 0, fb = 0;
    if (s.run < 0) {
      rec.id.pod.clear();
      rec.id.namespace_name.clear();
      rec.id.container.clear();
      group = free_group;
      last_run = -1;
    } else {
      const twin::WorkloadRun& run = runs[s.run];
      if (s.run != last_run || s.pod != last_pod) {
        container = ContainerOf(run.spec, s.pod);
        pod_name = twin::PodName(run, s.pod);
        group = &truth_.by_namespace[run.spec.namespace_name];
        last_run = s.run;
        last_pod = s.pod;
        stalled = InDataLoaderStall(run.spec.usage, run.pods[s.pod].pod_id, twin.now());
      }
      rec.id.pod = pod_name;
      rec.id.namespace_name = run.spec.namespace_name;
      rec.id.container = container;
      ++truth_.allocated_gpus;
      const model::UsageProfile& u = run.spec.usage;
      const KindLoad load = LoadOf(run.spec.kind);
      if (s.use == Use::kActive || s.use == Use::kIdle) {
        ++truth_.driven_gpus;
        fb = std::round(load.fb * (memory - reserved));
        if (s.use == Use::kActive) {
          if (!stalled) {
            util = u.busy;
            sm = u.sm_active;
          }
        } else {
          ++truth_.idle_held_gpus;
          util = u.idle_busy;
        }
      }
      util = std::clamp(util, 0.0, 1.0);
      sm = std::clamp(sm, 0.0, 1.0);
      tensor = load.tensor * sm;
      dram = load.dram * sm;
    }
    const double util_percent = std::round(util * 100);
    const double held = fb > 0 ? kPowerContext : 0.0;
    const double activity = std::min(1.0, kPowerUtilWeight * util + kPowerSmWeight * sm + held);
    const double power = Micro(pw.idle_watts + (pw.max_watts - pw.idle_watts) * activity);
    const double temp = std::round(kIdleTempC + kTempRangeC * activity);
    const twin::GpuFaultState& fault = twin.gpu_faults()[g];
    const int xid = fault.last_xid;

    FieldValues& v = rec.values;
    v.Set(DcgmField::kGpuUtil, util_percent);
    v.Set(DcgmField::kSmActive, Micro(sm));
    v.Set(DcgmField::kPipeTensorActive, Micro(tensor));
    v.Set(DcgmField::kDramActive, Micro(dram));
    v.Set(DcgmField::kGrEngineActive, Micro(util_percent / 100));
    v.Set(DcgmField::kFbUsed, fb);
    v.Set(DcgmField::kFbReserved, reserved);
    v.Set(DcgmField::kFbFree, memory - reserved - fb);
    v.Set(DcgmField::kPowerUsage, power);
    v.Set(DcgmField::kGpuTemp, temp);
    v.Set(DcgmField::kXidErrors, xid);
    if (options_.error_counters) {
      v.Set(DcgmField::kEccSbeVolTotal, static_cast<double>(fault.ecc_sbe_volatile));
      v.Set(DcgmField::kEccDbeVolTotal, static_cast<double>(fault.ecc_dbe_volatile));
      v.Set(DcgmField::kEccSbeAggTotal, static_cast<double>(fault.ecc_sbe_aggregate));
      v.Set(DcgmField::kEccDbeAggTotal, static_cast<double>(fault.ecc_dbe_aggregate));
      v.Set(DcgmField::kNvlinkCrcFlitErrorCountTotal, static_cast<double>(fault.nvlink_crc_flit));
      v.Set(DcgmField::kNvlinkCrcDataErrorCountTotal, static_cast<double>(fault.nvlink_crc_data));
      v.Set(DcgmField::kNvlinkReplayErrorCountTotal, static_cast<double>(fault.nvlink_replay));
      v.Set(DcgmField::kNvlinkRecoveryErrorCountTotal, static_cast<double>(fault.nvlink_recovery));
    }
    rec.xids.clear();
    if (xid != 0) rec.xids.push_back(xid);

    for (TwinTruth::Group* grp : {&truth_.all, group}) {
      ++grp->gpus;
      grp->gpu_util_sum += util_percent;
      grp->sm_active_sum += Micro(sm);
      grp->fb_used_sum += fb;
      grp->power_sum += power;
    }
  }
  if (free_group->gpus == 0) truth_.by_namespace.erase("");
}

void TwinExporter::AppendTo(std::string& out) const {
  AppendDcgmExposition(out, records_, writer_);
}

std::string TwinExporter::Render() const {
  std::string out;
  out.reserve(records_.size() * Fields().size() * 240);
  AppendTo(out);
  return out;
}

}  // namespace steward::telemetry
