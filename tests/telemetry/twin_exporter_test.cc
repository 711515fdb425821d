#include "telemetry/twin_exporter.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "telemetry/exposition.h"
#include "telemetry/gpu_record.h"
#include "twin/pod_names.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::telemetry {
namespace {

// Two HGX nodes (16 H100), one team, and generators given by the test. Startup is 60 s.
std::string Yaml(const std::string& generators) {
  return "name: exporter-test\nseed: 3\nhorizon_days: 1\nsample_minutes: 60\n"
         "cluster:\n"
         "  gpu_models: [{name: H100, product_label: NVIDIA-H100-80GB-HBM3, memory_mib: 81559}]\n"
         "  pools:\n"
         "    - {name: h, nodes: 2, gpus_per_node: 8, gpu_model: H100, nodes_per_rack: 2,\n"
         "       nodes_per_leaf: 2, driver_version: \"550.90.07\"}\n"
         "teams:\n  - {name: ml, namespace: ml-ns, quota_gpus: 16}\n"
         "policies: {startup_seconds: 60}\n"
         "faults: {enabled: false}\n"
         "generators:\n" +
         generators;
}

// Fine-tuning job over-requesting 8 GPUs (uses a quarter), stalling 20% of the time.
constexpr char kTrain[] =
    "  - name: ft\n    team: ml\n    kind: training\n    arrival: {process: once, count: 1}\n"
    "    pods: 1\n    gpus_per_pod: 8\n    duration_hours: 10\n"
    "    usage: {used_gpu_fraction: FRACTION, busy: 0.8, sm_active: 0.5,\n"
    "            stall_period_minutes: 10, stall_fraction: 0.2}\n";
// A 2-GPU notebook: active for one hour, then a zombie polling at 2% for nine more.
constexpr char kNotebook[] =
    "  - name: nb\n    team: ml\n    kind: notebook\n    arrival: {process: once, count: 1}\n"
    "    gpus_per_pod: 2\n    duration_hours: 10\n"
    "    usage: {busy: 0.45, sm_active: 0.2, active_hours: 1, idle_busy: 0.02}\n";

std::string TrainWith(const std::string& fraction) {
  std::string t = kTrain;
  t.replace(t.find("FRACTION"), 8, fraction);
  return t;
}

std::unique_ptr<twin::Twin> MakeTwin(const std::string& generators) {
  Result<twin::Scenario> s = twin::ParseScenario(Yaml(generators), "test.yaml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  auto t = twin::Twin::Create(std::move(s).value());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

double V(const GpuRecord& r, DcgmField f) { return r.values.Get(f).value_or(-1); }

// Records grouped by pod label ("" = free).
std::map<std::string, std::vector<const GpuRecord*>> ByPod(const TwinExporter& e) {
  std::map<std::string, std::vector<const GpuRecord*>> m;
  for (const GpuRecord& r : e.records()) m[r.id.pod].push_back(&r);
  return m;
}

TEST(TwinExporterTest, IdentityLabelsComeFromTheCluster) {
  auto t = MakeTwin(TrainWith("1.0"));
  TwinExporter e(t->cluster());
  e.Update(*t);
  ASSERT_EQ(e.records().size(), 16u);
  const GpuRecord& r = e.records()[9];  // Node 1, GPU 1.
  EXPECT_EQ(r.id.hostname, t->cluster().node(1).name);
  EXPECT_EQ(r.id.uuid, t->cluster().gpu(9).uuid);
  EXPECT_EQ(r.id.gpu, 1);
  EXPECT_EQ(r.id.device, "nvidia1");
  EXPECT_EQ(r.id.model_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.id.driver_version, "550.90.07");
  EXPECT_EQ(r.id.pci_bus_id, "00000000:28:00.0");
}

TEST(TwinExporterTest, StartingPodsHoldGpusButDoNothing) {
  std::string two_pods = TrainWith("1.0");
  two_pods.replace(two_pods.find("pods: 1"), 7, "pods: 2");  // A gang: pod set "worker".
  auto t = MakeTwin(two_pods);
  t->RunUntil(kSimStart + Seconds(30));  // Placed at t=0, starts at t=60 s.
  TwinExporter e(t->cluster());
  e.Update(*t);
  auto pods = ByPod(e);
  // The pod label is the name the Kubernetes front serves: Job pods <job>-<set>-<ordinal>-<id>.
  const twin::WorkloadRun& run = *t->FindRun("ft-000000");
  const std::string pod0 = twin::PodName(run, 0), pod1 = twin::PodName(run, 1);
  EXPECT_EQ(pod0.rfind("ft-000000-worker-0-", 0), 0u) << pod0;
  EXPECT_EQ(pod1.rfind("ft-000000-worker-1-", 0), 0u) << pod1;
  ASSERT_EQ(pods[pod0].size(), 8u);
  ASSERT_EQ(pods[pod1].size(), 8u);
  for (const std::string& pod : {pod0, pod1}) {
    for (const GpuRecord* r : pods[pod]) {
      EXPECT_EQ(r->id.namespace_name, "ml-ns");
      EXPECT_EQ(r->id.container, "worker");
      EXPECT_EQ(V(*r, DcgmField::kGpuUtil), 0);
      EXPECT_EQ(V(*r, DcgmField::kFbUsed), 0);
      EXPECT_EQ(V(*r, DcgmField::kPowerUsage), 70);
    }
  }
  EXPECT_EQ(e.truth().allocated_gpus, 16);
  EXPECT_EQ(e.truth().driven_gpus, 0);
}

TEST(TwinExporterTest, OverRequestDrivesOnlyAQuarterAndZombiesHoldMemory) {
  auto t = MakeTwin(TrainWith("0.25") + kNotebook);
  // The fine-tune's loader stalls in 120 s slots (0.2 x 10 min). From 2 h on (the notebook went
  // idle at 1 h + 60 s), take the first slot where it stalls and the first where it computes.
  model::UsageProfile u;
  u.stall_period = Minutes(10);
  u.stall_fraction = 0.2;
  SimTime stalled = SimTime::Never(), computing = SimTime::Never();
  for (int j = 60; stalled.is_never() || computing.is_never(); ++j) {
    const SimTime at = kSimStart + Seconds(120 * j + 60);
    SimTime& slot = InDataLoaderStall(u, 0, at) ? stalled : computing;
    if (slot.is_never()) slot = at;
  }
  TwinExporter e(t->cluster());
  for (const SimTime at : {std::min(stalled, computing), std::max(stalled, computing)}) {
    t->RunUntil(at);
    ASSERT_EQ(t->FindRun("ft-000000")->pods[0].pod_id, 0);  // The pod id the draws used.
    e.Update(*t);
    auto pods = ByPod(e);
    const std::string ft = twin::PodName(*t->FindRun("ft-000000"), 0);
    const std::string nb = "nb-000000-0";  // A notebook's StatefulSet pod: <notebook>-<ordinal>.
    ASSERT_EQ(pods[ft].size(), 8u);
    ASSERT_EQ(pods[nb].size(), 2u);
    ASSERT_EQ(pods[""].size(), 6u);
    const bool stall = at == stalled;
    SCOPED_TRACE(stall ? "stalled" : "computing");

    // Reserved = round(81559 x 470 / 23034) = 1664 MiB; usable 79895.
    // Training: 0.25 x 8 = 2 driven GPUs (the lowest indices), FB round(0.85 x 79895) = 67911.
    // Computing: util 80%, SM 0.5, tensor 0.7 x 0.5, DRAM 0.4 x 0.5, activity 0.3 x 0.8 +
    //   0.7 x 0.5 + 0.05 = 0.64, power 70 + 630 x 0.64 = 473.2 W, temp round(58.8) = 59.
    // Stalled: util 0, SM 0, memory kept: activity 0.05, power 101.5 W, temp round(32.25) = 32.
    int driven = 0;
    for (const GpuRecord* r : pods[ft]) {
      if (r->id.gpu < 2) {
        ++driven;
        EXPECT_EQ(V(*r, DcgmField::kGpuUtil), stall ? 0 : 80);
        EXPECT_DOUBLE_EQ(V(*r, DcgmField::kSmActive), stall ? 0 : 0.5);
        EXPECT_DOUBLE_EQ(V(*r, DcgmField::kPipeTensorActive), stall ? 0 : 0.35);
        EXPECT_DOUBLE_EQ(V(*r, DcgmField::kDramActive), stall ? 0 : 0.2);
        EXPECT_DOUBLE_EQ(V(*r, DcgmField::kGrEngineActive), stall ? 0 : 0.8);
        EXPECT_EQ(V(*r, DcgmField::kFbUsed), 67911);
        EXPECT_EQ(V(*r, DcgmField::kFbFree), 81559 - 1664 - 67911);
        EXPECT_DOUBLE_EQ(V(*r, DcgmField::kPowerUsage), stall ? 101.5 : 473.2);
        EXPECT_EQ(V(*r, DcgmField::kGpuTemp), stall ? 32 : 59);
      } else {
        // Untouched: allocated (labelled) but idle and empty.
        EXPECT_EQ(V(*r, DcgmField::kGpuUtil), 0);
        EXPECT_EQ(V(*r, DcgmField::kSmActive), 0);
        EXPECT_EQ(V(*r, DcgmField::kFbUsed), 0);
        EXPECT_EQ(V(*r, DcgmField::kPowerUsage), 70);
        EXPECT_EQ(V(*r, DcgmField::kGpuTemp), 30);
      }
      EXPECT_EQ(V(*r, DcgmField::kXidErrors), 0);
      EXPECT_EQ(V(*r, DcgmField::kFbReserved), 1664);
    }
    EXPECT_EQ(driven, 2);
    // Zombie notebook: util 2%, SM 0, memory still held: FB round(0.5 x 79895) = 39948,
    // activity 0.3 x 0.02 + 0.05 = 0.056, power 70 + 630 x 0.056 = 105.28, temp round(32.52) = 33.
    for (const GpuRecord* r : pods[nb]) {
      EXPECT_EQ(r->id.container, "main");
      EXPECT_EQ(V(*r, DcgmField::kGpuUtil), 2);
      EXPECT_EQ(V(*r, DcgmField::kSmActive), 0);
      EXPECT_EQ(V(*r, DcgmField::kFbUsed), 39948);
      EXPECT_DOUBLE_EQ(V(*r, DcgmField::kPowerUsage), 105.28);
      EXPECT_EQ(V(*r, DcgmField::kGpuTemp), 33);
    }
    for (const GpuRecord* r : pods[""]) {
      EXPECT_TRUE(r->id.namespace_name.empty());
      EXPECT_EQ(V(*r, DcgmField::kFbUsed), 0);
      EXPECT_EQ(V(*r, DcgmField::kFbFree), 81559 - 1664);
    }

    const TwinTruth& truth = e.truth();
    EXPECT_EQ(truth.gpus, 16);
    EXPECT_EQ(truth.allocated_gpus, 10);
    EXPECT_EQ(truth.driven_gpus, 4);
    EXPECT_EQ(truth.idle_held_gpus, 2);
    EXPECT_DOUBLE_EQ(truth.all.gpu_util_sum, 2 * (stall ? 0 : 80) + 2 * 2);
    EXPECT_DOUBLE_EQ(truth.all.sm_active_sum, stall ? 0 : 1.0);
    EXPECT_DOUBLE_EQ(truth.by_namespace.at("ml-ns").fb_used_sum, 2 * 67911 + 2 * 39948);
    EXPECT_EQ(truth.by_namespace.at("ml-ns").gpus, 10);
    EXPECT_EQ(truth.by_namespace.at("").gpus, 6);
    // The meter integrates the stall as a rate: 8 GPUs x 0.25 x 0.5 x (1 - 0.2) / 16 = 0.05.
    EXPECT_NEAR(truth.meter_sm_rate, 0.05, 1e-12);
  }
}

TEST(TwinExporterTest, StallSlotsAreDeterministicAndPerPod) {
  model::UsageProfile u;
  u.stall_period = Minutes(10);
  u.stall_fraction = 0.2;  // 120 s slots.
  int differ = 0;
  for (int j = 0; j < 200; ++j) {
    const SimTime start = kSimStart + Seconds(120 * j);
    const bool s = InDataLoaderStall(u, 3, start);
    EXPECT_EQ(s, InDataLoaderStall(u, 3, start));  // Same input, same answer.
    // Constant within the slot.
    EXPECT_EQ(s, InDataLoaderStall(u, 3, start + Seconds(119) + Micros(999'999)));
    differ += s != InDataLoaderStall(u, 4, start);
  }
  EXPECT_GT(differ, 20);  // Pods stall independently (expected 2 x 0.2 x 0.8 x 200 = 64).
  u.stall_fraction = 1;
  EXPECT_TRUE(InDataLoaderStall(u, 7, kSimStart + Hours(3)));
  EXPECT_FALSE(InDataLoaderStall(model::UsageProfile{}, 0, kSimStart));  // No stalls configured.
}

TEST(TwinExporterTest, StallsStallTheirFractionOfTheTimeInShortBursts) {
  model::UsageProfile u;
  u.stall_period = Minutes(5);
  u.stall_fraction = 0.3;  // 90 s slots.
  for (int32_t pod : {0, 17, 4242}) {
    int stalled = 0, run = 0, longest = 0;
    const int slots = 10000;
    for (int j = 0; j < slots; ++j) {
      const bool now = InDataLoaderStall(u, pod, kSimStart + Seconds(90 * j + 45));
      stalled += now;
      run = now ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    // Independent draws: the share is binomial, sd sqrt(0.3 x 0.7 / 10000) = 0.0046; 4 sd.
    EXPECT_NEAR(stalled / 10000.0, 0.3, 4 * 0.0046) << pod;
    // A zombie streak at a 5-minute step needs 60 min = 40 slots in a row (p = 0.3^40).
    EXPECT_LT(longest, 40) << pod;
  }
}

TEST(TwinExporterTest, StalledScrapesAverageToTheMeter) {
  auto t = MakeTwin(TrainWith("0.25"));
  TwinExporter e(t->cluster());
  double sm = 0, meter = 0;
  int n = 0;
  // One sample every 60 s from 1 h to 9 h, two per 120 s slot: 240 slots.
  for (int s = 3600; s < 9 * 3600; s += 60, ++n) {
    t->RunUntil(kSimStart + Seconds(s));
    e.Update(*t);
    sm += e.truth().all.sm_active_sum / e.truth().gpus;
    meter += e.truth().meter_sm_rate;
  }
  // The meter's 0.05 is the exporter's 0.0625 while computing x 0.8 of the time. Sampled, the
  // computing share of 240 independent slots has sd sqrt(0.16 / 240) = 0.026; 4 sd of 0.0625.
  EXPECT_NEAR(meter / n, 0.05, 1e-12);
  EXPECT_NEAR(sm / n, 0.05, 4 * 0.026 * 0.0625);
}

TEST(TwinExporterTest, FractionalUseRoundsUp) {
  auto t = MakeTwin(TrainWith("0.3"));
  t->RunUntil(kSimStart + Hours(1));
  TwinExporter e(t->cluster());
  e.Update(*t);
  // ceil(0.3 x 8) = 3 driven GPUs, so the scrape shows 3 x 0.5 = 1.5 SM-GPUs while computing
  // where the twin's meter integrates 8 x 0.3 x 0.5 x (1 - 0.2) = 0.96.
  model::UsageProfile u;
  u.stall_period = Minutes(10);
  u.stall_fraction = 0.2;
  const bool stalled = InDataLoaderStall(u, 0, kSimStart + Hours(1));
  EXPECT_EQ(e.truth().driven_gpus, 3);
  EXPECT_DOUBLE_EQ(e.truth().all.sm_active_sum, stalled ? 0 : 1.5);
  EXPECT_NEAR(e.truth().meter_sm_rate * 16, 0.96, 1e-12);
}

TEST(TwinExporterTest, InjectedFaultsShowInXidAndErrorCounters) {
  auto t = MakeTwin(TrainWith("1.0"));
  t->RunUntil(kSimStart + Hours(1));
  ASSERT_TRUE(t->InjectXid(0, 5, 48).ok());  // Double-bit ECC on GPU 5 of the first node.
  ASSERT_TRUE(t->InjectXid(1, 2, 74).ok());  // NVLink on GPU 2 of the second.
  TwinExporter e(t->cluster());
  e.Update(*t);
  const GpuRecord& ecc = e.records()[5];
  EXPECT_EQ(V(ecc, DcgmField::kXidErrors), 48);
  EXPECT_EQ(ecc.xids, std::vector<int>{48});
  EXPECT_EQ(V(ecc, DcgmField::kEccDbeVolTotal), 1);
  EXPECT_EQ(V(ecc, DcgmField::kEccDbeAggTotal), 1);
  EXPECT_EQ(V(ecc, DcgmField::kEccSbeVolTotal), 0);
  // The fault stopped the job holding GPU 5 (the whole 8-GPU pod): the GPU is idle now.
  EXPECT_EQ(V(ecc, DcgmField::kGpuUtil), 0);
  const GpuRecord& link = e.records()[8 + 2];
  EXPECT_EQ(V(link, DcgmField::kXidErrors), 74);
  EXPECT_EQ(V(link, DcgmField::kNvlinkRecoveryErrorCountTotal), 1);
  EXPECT_EQ(V(link, DcgmField::kNvlinkCrcFlitErrorCountTotal), 100);
  EXPECT_EQ(V(e.records()[4], DcgmField::kXidErrors), 0);
  EXPECT_EQ(V(e.records()[4], DcgmField::kEccDbeAggTotal), 0);
  // Without error counters the series are absent, the XID stays.
  TwinExporterOptions o;
  o.error_counters = false;
  TwinExporter bare(t->cluster(), o);
  bare.Update(*t);
  EXPECT_EQ(V(bare.records()[5], DcgmField::kXidErrors), 48);
  EXPECT_EQ(bare.Render().find("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"), std::string::npos);
  EXPECT_NE(e.Render().find("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"), std::string::npos);
}

TEST(TwinExporterTest, ScrapeParsesBackToTheSameRecords) {
  auto t = MakeTwin(TrainWith("0.25") + kNotebook);
  t->RunUntil(kSimStart + Hours(2));
  TwinExporter e(t->cluster());
  e.Update(*t);
  const std::string page = e.Render();
  Scrape scrape = ParseExposition(page);
  ASSERT_TRUE(scrape.ok()) << scrape.errors.front().message;
  EXPECT_EQ(scrape.samples.size(), 16 * TwinExporter::Fields().size());
  DcgmSnapshot snap = BuildDcgmSnapshot(scrape);
  ASSERT_EQ(snap.gpus.size(), 16u);
  for (const GpuRecord& want : e.records()) {
    const GpuRecord* got = snap.Find(want.id.hostname, want.id.uuid);
    ASSERT_NE(got, nullptr) << want.id.uuid;
    EXPECT_EQ(got->id.pod, want.id.pod);
    EXPECT_EQ(got->id.namespace_name, want.id.namespace_name);
    EXPECT_EQ(got->id.container, want.id.container);
    for (DcgmField f : TwinExporter::Fields()) {
      // Quantized to the printed precision, so the scrape is exact.
      EXPECT_EQ(got->values.Get(f), want.values.Get(f)) << InfoOf(f).name;
    }
  }
  // Pod mapping off: no pod labels at all.
  TwinExporterOptions off;
  off.pod_labels = false;
  TwinExporter bare(t->cluster(), off);
  bare.Update(*t);
  EXPECT_EQ(bare.Render().find("namespace="), std::string::npos);
  EXPECT_NE(page.find("namespace=\"ml-ns\""), std::string::npos);
}

TEST(TwinExporterTest, UpdateFollowsTheTwinOverTime) {
  auto t = MakeTwin(std::string(kNotebook));
  TwinExporter e(t->cluster());
  t->RunUntil(kSimStart + Minutes(30));  // Active.
  e.Update(*t);
  EXPECT_EQ(e.truth().all.gpu_util_sum, 2 * 45);
  t->RunUntil(kSimStart + Hours(5));  // Zombie.
  e.Update(*t);
  EXPECT_EQ(e.truth().all.gpu_util_sum, 2 * 2);
  t->RunUntil(kSimStart + Hours(11));  // Done: everything free again.
  e.Update(*t);
  EXPECT_EQ(e.truth().allocated_gpus, 0);
  EXPECT_EQ(e.truth().all.fb_used_sum, 0);
  EXPECT_EQ(e.truth().by_namespace.count("ml-ns"), 0u);
}

TEST(TwinExporterTest, PowerModels) {
  EXPECT_EQ(PowerModelFor({"A100", "NVIDIA-A100-SXM4-80GB", 81920, true}).max_watts, 400);
  EXPECT_EQ(PowerModelFor({"L4", "NVIDIA-L4", 23034, false}).max_watts, 72);
  EXPECT_EQ(PowerModelFor({"L40S", "NVIDIA-L40S", 46068, false}).max_watts, 350);
  EXPECT_EQ(PowerModelFor({"H100", "", 81559, true}).idle_watts, 70);
}

}  // namespace
}  // namespace steward::telemetry
