#include "twin/memory_estimate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "twin/run_table.h"

namespace steward::twin {
namespace {

// Lines of a file, counted in fixed-size reads (nothing of it is kept); 0 when unreadable (the
// loader reports that file itself).
double CountLines(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return 0;
  char buf[1 << 16];
  double lines = 0;
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) lines += std::count(buf, buf + n, '\n');
  std::fclose(f);
  return lines;
}

// "1,234,567" for messages.
std::string Count(double v) {
  if (!(v < 1e15)) return fmt::format("{:.3g}", v);
  std::string digits = fmt::format("{:.0f}", v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int64_t ReadInt64(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  return end && *end == '\0' && v > 0 ? v : 0;  // "max" (no limit) reads as 0.
}

}  // namespace

MemoryEstimate EstimateMemory(const Scenario& s, bool served) {
  MemoryEstimate e;
  for (const PoolSpec& p : s.pools) {
    e.nodes += p.nodes;
    if (served) e.served_gpus += static_cast<double>(p.nodes) * p.gpus_per_node;
  }
  if (!s.alibaba_nodes.empty()) e.nodes += std::max(0.0, CountLines(s.alibaba_nodes) - 1);
  const double horizon_hours = s.horizon_days * 24;
  auto consider = [&](std::string source, double workloads) {
    if (workloads > e.top_source_workloads) {
      e.top_source = std::move(source);
      e.top_source_workloads = workloads;
    }
  };
  // Workloads alive at once. A generator's running ones follow Little's law: its peak arrival
  // rate times its mean duration, doubled to allow as long again for waiting, plus an hour of
  // finished runs an open usage window still holds. Waiting beyond that is a backlog: when the
  // GPUs a team's arrivals want in steady state (rate x pods x GPUs x duration) exceed what it
  // may hold (its quota, or the cluster), the queue grows with every arrival and keeps the share
  // 1 - capacity / demand of them; the same for the cluster as a whole. `once` generators and
  // traces (read whole before the run) count every workload. So the estimate follows the
  // horizon only where the queue does: an overloaded scenario is still refused.
  double cluster_gpus = 0;
  for (const PoolSpec& p : s.pools) cluster_gpus += static_cast<double>(p.nodes) * p.gpus_per_node;
  std::map<std::string, std::pair<double, double>> team_load;  // Team: GPUs wanted, arrivals.
  double running = 0, arrivals_wanting = 0, gpus_wanted = 0;
  for (size_t i = 0; i < s.generators.size(); ++i) {
    const GeneratorSpec& g = s.generators[i];
    double n = 0;
    std::string why;
    if (g.arrival.process == ArrivalSpec::Process::kOnce) {
      n = g.arrival.start_hours < horizon_hours ? g.arrival.count : 0;
      why = fmt::format("{} at once", g.arrival.count);
      running += n;
    } else {
      // A diurnal swing averages out over whole days: the mean rate times the hours it runs.
      const double hours = std::max(0.0, horizon_hours - g.arrival.start_hours);
      n = g.arrival.rate_per_hour * hours;
      why = fmt::format("{:g} per hour over {:g} h", g.arrival.rate_per_hour, hours);
      const double duration = std::max(0.0, g.duration_hours.Mean());
      const double peak = g.arrival.rate_per_hour * (1 + std::abs(g.arrival.diurnal_amplitude));
      running += std::min(n, peak * (2 * duration + 1));
      const double wanted = g.arrival.rate_per_hour * std::max(1.0, g.pods.Mean()) *
                            std::max(1.0, g.gpus_per_pod.Mean()) * duration;
      team_load[g.team].first += wanted;
      team_load[g.team].second += n;
      gpus_wanted += wanted;
      arrivals_wanting += n;
    }
    e.workloads += n;
    consider(fmt::format("generators[{}] '{}' ({})", i, g.name, why), n);
  }
  auto backlog = [](double wanted, double capacity, double arrivals) {
    return wanted > capacity ? arrivals * (1 - capacity / wanted) : 0.0;
  };
  double team_backlog = 0;
  for (const auto& [team, load] : team_load) {
    double capacity = cluster_gpus;
    for (const TeamSpec& t : s.teams)
      if (t.name == team && t.quota_gpus > 0)
        capacity = std::min(capacity, static_cast<double>(t.quota_gpus));
    team_backlog += backlog(load.first, capacity, load.second);
  }
  const double generated = e.workloads;
  e.alive = std::min(
      generated, running +
                     std::max(team_backlog, backlog(gpus_wanted, cluster_gpus, arrivals_wanting)) +
                     kDefaultFinishedRunsKept);
  for (size_t i = 0; i < s.traces.size(); ++i) {
    const double rows = std::max(0.0, CountLines(s.traces[i].path) - 1);
    e.workloads += rows;
    e.alive += rows;
    consider(fmt::format("traces[{}] ({} rows of {})", i, Count(rows), s.traces[i].path.string()),
             rows);
  }
  e.samples = s.sample_minutes > 0 ? horizon_hours * 60 / s.sample_minutes : 0;
  return e;
}

int64_t MachineMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  int64_t bytes = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
  // In a container the cgroup's limit is what the kernel enforces (v2, then v1).
  for (const char* f :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const int64_t limit = ReadInt64(f);
    if (limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;
  }
  return bytes;
}

int64_t DefaultMemoryLimit() { return MachineMemory() / 2; }

std::string FormatBytes(double bytes) {
  constexpr double kGb = 1024.0 * 1024 * 1024, kMb = 1024.0 * 1024;
  if (bytes >= 1024 * kGb) return fmt::format("{:.1f} TB", bytes / (1024 * kGb));
  if (bytes >= kGb) return fmt::format("{:.1f} GB", bytes / kGb);
  return fmt::format("{:.0f} MB", bytes / kMb);
}

Status CheckMemory(const Scenario& s, const MemoryEstimate& e, int64_t limit) {
  if (limit <= 0 || e.total_bytes() <= static_cast<double>(limit)) return Status::Ok();
  // Name the largest term, and within the workloads the source that brings the most.
  std::string driver;
  const double nodes = e.node_bytes(), work = e.workload_bytes(), samples = e.sample_bytes();
  if (work >= nodes && work >= samples) {
    driver = fmt::format("{} for up to {} workloads at once of {} over {:g} days",
                         FormatBytes(work), Count(e.alive), Count(e.workloads), s.horizon_days);
    if (!e.top_source.empty()) driver += fmt::format(", most from {}", e.top_source);
  } else if (nodes >= samples) {
    driver = fmt::format("{} for {} nodes", FormatBytes(nodes), Count(e.nodes));
    if (e.served_gpus > 0) driver += fmt::format(" ({} GPUs served live)", Count(e.served_gpus));
  } else {
    driver = fmt::format("{} for {} time-series samples (sample_minutes {:g} over {:g} days)",
                         FormatBytes(samples), Count(e.samples), s.sample_minutes, s.horizon_days);
  }
  // A limit 10 % above the estimate, in whole GB (or TB).
  const double gb = std::ceil(e.total_bytes() / (1024.0 * 1024 * 1024) * 1.1);
  const std::string suggestion =
      gb >= 1024 ? fmt::format("{:.0f}T", std::ceil(gb / 1024)) : fmt::format("{:.0f}G", gb);
  const int64_t machine = MachineMemory();
  const std::string whose = limit == machine / 2
                                ? fmt::format(" (half of this machine's {})", FormatBytes(machine))
                                : std::string(" (--memory-limit)");
  return Status::InvalidArgument(fmt::format(
      "{}: the run would need about {} of memory, more than the limit of {}{}; {}. Shorten "
      "horizon_days (or --days), lower the arrival rates or node counts, or raise the limit "
      "with --memory-limit SIZE (e.g. --memory-limit {}, or none)",
      s.source.empty() ? "scenario" : s.source, FormatBytes(e.total_bytes()),
      FormatBytes(static_cast<double>(limit)), whose, driver, suggestion));
}

Result<int64_t> ParseMemoryLimit(std::string_view text) {
  if (text == "none") return int64_t{-1};
  auto bad = [&] {
    return Status::InvalidArgument(
        fmt::format("--memory-limit {}: expected a size such as 16G, 800M or 1.5T, or none", text));
  };
  const std::string t(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v) || v <= 0) return bad();
  std::string unit(end);
  for (const char* suffix : {"iB", "i", "B"})
    if (unit.size() > std::string_view(suffix).size() && unit.ends_with(suffix)) {
      unit.resize(unit.size() - std::string_view(suffix).size());
      break;
    }
  double scale = 1;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M")
    scale = 1024.0 * 1024;
  else if (unit == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return bad();
  const double bytes = v * scale;
  if (bytes < 1 || bytes > 9e18) return bad();
  return static_cast<int64_t>(bytes);
}

}  // namespace steward::twin
