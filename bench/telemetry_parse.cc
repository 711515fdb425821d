// Parser throughput on a synthetic 10,240-GPU dcgm-exporter scrape (1,280 nodes x 8 GPUs, every
// default field plus SM_ACTIVE, pod labels on). The scrape is rendered by the DCGM writer, so it
// has the exporter's exact label order and number formats. Prints samples/s and MB/s for
// parsing alone and for parsing + building per-GPU records. Then the scaling check of issue 16:
// an OpenMetrics exposition of 10,000 vs 100,000 families (TYPE, HELP and one sample each) and
// one sample line with 10,000 vs 100,000 labels; a linear parser takes about 10x for 10x.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "telemetry/dcgm_writer.h"
#include "telemetry/exposition.h"
#include "telemetry/gpu_record.h"

using namespace steward::telemetry;

namespace {

// Best of `runs` wall times of parsing `text`, in seconds; exits on a parse error.
double BestParse(const std::string& text, int runs) {
  double best = 1e9;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Scrape s = ParseExposition(text);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!s.ok()) {
      fmt::print(stderr, "unexpected parse error: {}\n", s.errors[0].ToString());
      std::exit(1);
    }
  }
  return best;
}

std::string OpenMetricsFamilies(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += fmt::format("# TYPE fam_{0} counter\n# HELP fam_{0} help\nfam_{0}_total {0}\n", i);
  }
  return text + "# EOF\n";
}

std::string OneLineLabels(int n) {
  std::string text = "m{";
  for (int i = 0; i < n; ++i) text += fmt::format("label_{}=\"v\",", i);
  return text + "} 1\n";
}

void Scaling(const char* what, const std::function<std::string(int)>& make) {
  std::string small = make(10000), large = make(100000);
  double ts = BestParse(small, 5), tl = BestParse(large, 5);
  fmt::print("{:<22} 10k {:7.1f} ms, 100k {:7.1f} ms: {:.1f}x (linear = 10x)\n", what, ts * 1e3,
             tl * 1e3, tl / ts);
}

}  // namespace

int main() {
  constexpr int kNodes = 1280, kGpusPerNode = 8;
  std::vector<GpuRecord> gpus;
  gpus.reserve(kNodes * kGpusPerNode);
  for (int n = 0; n < kNodes; ++n) {
    for (int g = 0; g < kGpusPerNode; ++g) {
      GpuRecord r;
      r.id.hostname = fmt::format("gpu-node-{:04d}", n);
      r.id.uuid = fmt::format("GPU-{:08x}-7953-256e-8f33-{:012x}", n, g);
      r.id.gpu = g;
      r.id.pci_bus_id = fmt::format("00000000:{:02x}:00.0", 0x18 + g * 0x10);
      r.id.model_name = "NVIDIA H100 80GB HBM3";
      r.id.driver_version = "550.54.15";
      r.id.pod = (n + g) % 3 ? fmt::format("train-{}-{}", n, g) : "";
      r.id.namespace_name = (n + g) % 3 ? "ml" : "";
      r.id.container = (n + g) % 3 ? "trainer" : "";
      for (const auto& f : DcgmFields()) {
        if (f.default_on || f.field == DcgmField::kSmActive) {
          r.values.Set(f.field, f.integer ? (n * 31 + g * 7) % 100 : ((n + g) % 100) / 100.0);
        }
      }
      gpus.push_back(std::move(r));
    }
  }
  DcgmWriterOptions wo;
  wo.pod_labels = true;
  std::string text = RenderDcgmExposition(gpus, wo);

  constexpr int kRuns = 5;
  double best_parse = 1e9, best_full = 1e9;
  size_t samples = 0, records = 0;
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Scrape s = ParseExposition(text);
    auto t1 = std::chrono::steady_clock::now();
    DcgmSnapshot snap = BuildDcgmSnapshot(s);
    auto t2 = std::chrono::steady_clock::now();
    if (!s.ok()) {
      fmt::print(stderr, "unexpected parse error: {}\n", s.errors[0].ToString());
      return 1;
    }
    samples = s.samples.size();
    records = snap.gpus.size();
    best_parse = std::min(best_parse, std::chrono::duration<double>(t1 - t0).count());
    best_full = std::min(best_full, std::chrono::duration<double>(t2 - t0).count());
  }
  double mb = text.size() / 1e6;
  fmt::print("synthetic dcgm-exporter scrape: {} GPUs, {} samples, {:.1f} MB\n", records, samples,
             mb);
  fmt::print("parse only:            {:8.1f} ms  {:6.2f} M samples/s  {:7.1f} MB/s (best of {})\n",
             best_parse * 1e3, samples / best_parse / 1e6, mb / best_parse, kRuns);
  fmt::print("parse + GPU records:   {:8.1f} ms  {:6.2f} M samples/s  {:7.1f} MB/s\n",
             best_full * 1e3, samples / best_full / 1e6, mb / best_full);
  Scaling("OpenMetrics families:", OpenMetricsFamilies);
  Scaling("labels on one line:", OneLineLabels);
  return 0;
}
