// `steward diagnose --twin` at 10,240 GPUs: what a week of the built-in default scenario at a
// 5-minute step costs, stage by stage (the twin alone; plus the exporter's snapshot every step;
// plus the frame builder; plus the classifier), and the bundle round trip on the 32-GPU example.
// Prints the process CPU seconds of each stage measured in this run (CPU time, not wall time:
// the 2-core dev machine is shared, and CPU time is what the work costs).
// Usage: diagnose [DAYS] [STEP_MINUTES]   (default 7 and 5)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "cost/cost_model.h"
#include "diagnose/bundle.h"
#include "diagnose/classifier.h"
#include "diagnose/twin_source.h"
#include "telemetry/twin_exporter.h"
#include "twin/scenario.h"
#include "twin/twin.h"

using namespace steward;

namespace {

using Clock = std::clock_t;
Clock Now() { return std::clock(); }
double CpuSeconds(Clock since) {
  return static_cast<double>(std::clock() - since) / CLOCKS_PER_SEC;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const double days = argc > 1 ? std::atof(argv[1]) : 7;
  const int step_minutes = argc > 2 ? std::atoi(argv[2]) : 5;
  const int64_t step_ms = step_minutes * 60'000LL;
  twin::TwinOptions to;
  to.days = days;

  // 1. The twin alone.
  auto start = Now();
  auto alone = twin::Twin::Create(twin::DefaultScenario(), to);
  if (!alone.ok()) return Fail(alone.status());
  (*alone)->Run();
  const double twin_s = CpuSeconds(start);

  // 2. The twin stopping every step for an exporter snapshot.
  start = Now();
  auto t = twin::Twin::Create(twin::DefaultScenario(), to);
  if (!t.ok()) return Fail(t.status());
  telemetry::TwinExporter exporter((*t)->cluster());
  int64_t frames = 0;
  for (SimTime now = kSimStart; now < (*t)->horizon(); now = now + Minutes(step_minutes)) {
    (*t)->RunUntil(now);
    exporter.Update(**t);
    ++frames;
  }
  const double export_s = CpuSeconds(start);
  const double gpus = static_cast<double>(exporter.records().size());

  // 3. The twin source into a frame builder with no sink, then 4. with the classifier.
  diagnose::TwinSourceOptions so;
  so.step_ms = step_ms;
  // A fresh twin of the default scenario for `days` (as `diagnose --twin default`, without the
  // remediation controller the CLI attaches: this measures the diagnosis, not remediation).
  auto fresh = [&]() { return std::move(twin::Twin::Create(twin::DefaultScenario(), to)).value(); };
  start = Now();
  {
    diagnose::FrameBuilder builder(diagnose::Attribution{}, step_ms);
    if (Status s = diagnose::RunTwinSource(*fresh(), so, builder); !s.ok()) return Fail(s);
  }
  const double frames_s = CpuSeconds(start);
  start = Now();
  diagnose::FrameBuilder builder(diagnose::Attribution{}, step_ms);
  diagnose::Classifier classifier(diagnose::Thresholds{}, cost::CostModel::Default());
  builder.AddSink(&classifier);
  if (Status s = diagnose::RunTwinSource(*fresh(), so, builder); !s.ok()) return Fail(s);
  const diagnose::Diagnosis d = classifier.Result({});
  const double diagnose_s = CpuSeconds(start);

  const double samples = gpus * static_cast<double>(frames);
  std::printf(
      "default scenario, %.0f days at a %d-minute step: %lld frames x %.0f GPUs = %.1f M "
      "GPU samples\n",
      days, step_minutes, static_cast<long long>(frames), gpus, samples / 1e6);
  std::printf("  twin alone                         %7.2f s\n", twin_s);
  std::printf("  + exporter snapshot every step     %7.2f s\n", export_s);
  std::printf("  + pods, nodes and frame builder    %7.2f s\n", frames_s);
  std::printf("  + classifier (= diagnose --twin)   %7.2f s   classifier %.1f M samples/s\n",
              diagnose_s, samples / std::max(1e-9, diagnose_s - frames_s) / 1e6);
  std::printf("  allocation %.4f, SM-active %.4f, %zu causes\n", d.allocation_rate,
              d.sm_active_utilization, d.waste_gpu_hours_by_cause.size());

  // 5. The bundle round trip on the 32-GPU example (one day).
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("steward-bench-bundle-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  Result<twin::Scenario> small = twin::LoadScenario(
      std::string(std::getenv("STEWARD_SOURCE_DIR") ? std::getenv("STEWARD_SOURCE_DIR") : ".") +
      "/examples/diagnose/small.yaml");
  if (!small.ok()) return Fail(small.status());
  start = Now();
  {
    diagnose::FrameBuilder b(diagnose::Attribution{}, 300'000);
    auto w = diagnose::BundleWriter::Create(dir, 300'000, "bench");
    if (!w.ok()) return Fail(w.status());
    b.AddSink(w->get());
    auto t1 = twin::Twin::Create(std::move(small).value());
    if (!t1.ok()) return Fail(t1.status());
    if (Status s = diagnose::RunTwinSource(**t1, diagnose::TwinSourceOptions{}, b); !s.ok())
      return Fail(s);
  }
  const double write_s = CpuSeconds(start);
  start = Now();
  Result<diagnose::BundleReader> reader = diagnose::BundleReader::Open(dir);
  if (!reader.ok()) return Fail(reader.status());
  diagnose::FrameBuilder b(diagnose::Attribution{}, reader->step_ms());
  diagnose::Classifier c(diagnose::Thresholds{}, cost::CostModel::Default());
  b.AddSink(&c);
  if (Status s = reader->Run(b); !s.ok()) return Fail(s);
  const double read_s = CpuSeconds(start);
  uintmax_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) bytes += e.file_size();
  std::filesystem::remove_all(dir);
  std::printf(
      "bundle of examples/diagnose/small.yaml (%zu scrapes x 32 GPUs, %.1f MB): write "
      "%.2f s, read + diagnose %.2f s (%.0f scrapes/s)\n",
      reader->scrapes(), bytes / 1e6, write_s, read_s, reader->scrapes() / read_s);
  return 0;
}
