#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "telemetry/dcgm_writer.h"
#include "telemetry/gpu_record.h"

namespace steward::telemetry {
namespace {

std::string DataDir() {
  if (const char* d = std::getenv("STEWARD_DATA")) return d;
  return std::string(STEWARD_SOURCE_DIR) + "/../shared/data";
}

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DcgmTest, L4ScrapeBecomesOneGpuRecord) {
  Scrape s =
      ParseExpositionOwned(ReadFile(DataDir() + "/dcgm-exporter/l4-gpu-operator-scrape.prom"));
  DcgmSnapshot snap = BuildDcgmSnapshot(s);
  ASSERT_EQ(snap.gpus.size(), 1u);
  const GpuRecord* g = snap.Find("i-030791dc5a37cd257", "GPU-c2f76b33-7953-256e-8f33-1343419b1a1c");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->id.gpu, 0);
  EXPECT_EQ(g->id.model_name, "NVIDIA L4");
  EXPECT_EQ(g->id.driver_version, "580.105.08");
  EXPECT_EQ(g->id.pci_bus_id, "00000000:31:00.0");
  EXPECT_EQ(g->values.Get(DcgmField::kGpuTemp), 31.0);
  EXPECT_EQ(g->values.Get(DcgmField::kPowerUsage), 16.365);
  // The exporter skipped XID_ERRORS (blank): no data, not zero.
  EXPECT_FALSE(g->values.Has(DcgmField::kXidErrors));
  EXPECT_TRUE(snap.xids.empty());
}

TEST(DcgmTest, MigInstancesHangOffTheParentGpu) {
  Scrape s = ParseExpositionOwned(ReadFile(DataDir() + "/dcgm-exporter/a100-mig-excerpt.prom"));
  DcgmSnapshot snap = BuildDcgmSnapshot(s);
  ASSERT_EQ(snap.gpus.size(), 1u);
  const GpuRecord& g = snap.gpus[0];
  EXPECT_EQ(g.id.hostname, "ub20-a100-k8s");
  ASSERT_EQ(g.mig.size(), 1u);
  EXPECT_EQ(g.mig[0].gpu_instance_id, 13);
  EXPECT_EQ(g.mig[0].profile, "1g.5gb");
  EXPECT_EQ(g.mig[0].values.Get(DcgmField::kDramActive), 0.800339);
  EXPECT_EQ(g.values.Get(DcgmField::kDramActive), 0.690789);
}

TEST(DcgmTest, KeysFallBackToIndexAndReadXids) {
  std::string text =
      "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\", UUID=\"GPU-a\",Hostname=\"n1\",err_code=\"79\"} 79\n"
      "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-b\",hostname=\"n1\"} 0\n"
      "DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",Hostname=\"n1\"} 9223372036854775794\n"
      "DCGM_EXP_XID_ERRORS_COUNT{gpu=\"1\",UUID=\"GPU-b\",Hostname=\"n1\",xid=\"31\"} 2\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\",Hostname=\"n1\"} 40\n"
      "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0{nvlink=\"0\",nvswitch=\"1\"} 5\n";
  Scrape s = ParseExposition(text);
  ASSERT_TRUE(s.ok());
  DcgmSnapshot snap = BuildDcgmSnapshot(s);
  EXPECT_EQ(snap.gpus.size(), 3u);
  EXPECT_EQ(snap.xids, (std::vector<int>{31, 79}));
  EXPECT_EQ(snap.blank_samples, 1u);
  EXPECT_EQ(snap.other_samples, 1u);
  const GpuRecord* by_index = snap.FindByIndex("n1", 2);
  ASSERT_NE(by_index, nullptr);
  EXPECT_EQ(by_index->values.Get(DcgmField::kGpuUtil), 40.0);
  EXPECT_FALSE(by_index->values.Has(DcgmField::kXidErrors));  // The sentinel is "no data".
  EXPECT_EQ(snap.Find("n1", "GPU-b")->xids, (std::vector<int>{31}));
}

TEST(DcgmTest, WriterRoundTripsThroughTheParser) {
  std::vector<GpuRecord> gpus(2);
  for (int i = 0; i < 2; ++i) {
    gpus[i].id.hostname = "node-a";
    gpus[i].id.uuid = "GPU-" + std::to_string(i);
    gpus[i].id.gpu = i;
    gpus[i].id.model_name = "NVIDIA H100 80GB HBM3";
    gpus[i].id.pci_bus_id = "00000000:1" + std::to_string(i) + ":00.0";
    gpus[i].id.driver_version = "550.54.15";
    gpus[i].id.pod = i == 0 ? "train-0" : "";
    gpus[i].id.namespace_name = i == 0 ? "ml" : "";
    gpus[i].values.Set(DcgmField::kGpuUtil, 97 - i);
    gpus[i].values.Set(DcgmField::kPowerUsage, 650.25);
    gpus[i].values.Set(DcgmField::kPipeTensorActive, 0.5);
  }
  gpus[1].values.Set(DcgmField::kXidErrors, 79);
  DcgmWriterOptions o;
  o.pod_labels = true;
  o.xid_message = [](int) { return std::string("GPU has fallen off the bus"); };
  std::string text = RenderDcgmExposition(gpus, o);
  EXPECT_NE(
      text.find("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:10:00.0\","
                "device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-a\","
                "DCGM_FI_DRIVER_VERSION=\"550.54.15\",container=\"\",namespace=\"ml\","
                "pod=\"train-0\",pod_uid=\"\"} 650.250000\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("err_code=\"79\",err_msg=\"GPU has fallen off the bus\""), std::string::npos);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_FB_USED"), std::string::npos);  // Absent everywhere: omitted.

  Scrape s = ParseExposition(text);
  ASSERT_TRUE(s.ok()) << s.errors[0].ToString();
  EXPECT_EQ(s.samples.size(), 7u);  // 2 GPUs x 3 fields + one XID line.
  DcgmSnapshot snap = BuildDcgmSnapshot(s);
  ASSERT_EQ(snap.gpus.size(), 2u);
  EXPECT_EQ(snap.gpus[1].values.Get(DcgmField::kGpuUtil), 96.0);
  EXPECT_EQ(snap.gpus[0].id.pod, "train-0");
  EXPECT_EQ(snap.xids, (std::vector<int>{79}));
}

}  // namespace
}  // namespace steward::telemetry
