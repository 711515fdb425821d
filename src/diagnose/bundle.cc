#include "diagnose/bundle.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "telemetry/dcgm_writer.h"
#include "telemetry/exposition.h"

namespace steward::diagnose {
namespace fs = std::filesystem;
using nlohmann::json;

Status WriteFile(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return Status::IoError(fmt::format("{}: cannot write", path.string()));
  return Status::Ok();
}

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// "<digits>.<ext>" -> the digits as Unix milliseconds.
std::optional<int64_t> TimeOfName(const fs::path& p, std::string_view ext) {
  if (p.extension() != ext) return std::nullopt;
  const std::string stem = p.stem().string();
  int64_t ms = 0;
  auto [end, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), ms);
  if (ec != std::errc() || end != stem.data() + stem.size() || stem.empty() || ms < 0)
    return std::nullopt;
  return ms;
}

// Snapshots in DIR/<kind>/<unix-ms>.json, or DIR/<kind>.json; both is ambiguous.
Status ListSnapshots(const fs::path& dir, const std::string& kind,
                     std::map<int64_t, fs::path>* snapshots, std::optional<fs::path>* single) {
  const fs::path sub = dir / kind;
  const fs::path file = dir / (kind + ".json");
  std::error_code ec;
  if (fs::is_directory(sub, ec)) {
    for (const auto& e : fs::directory_iterator(sub)) {
      if (!e.is_regular_file()) continue;
      const std::optional<int64_t> t = TimeOfName(e.path(), ".json");
      if (!t) {
        return Status::InvalidArgument(
            fmt::format("{}: snapshot names must be <unix-milliseconds>.json", e.path().string()));
      }
      (*snapshots)[*t] = e.path();
    }
  }
  if (fs::exists(file, ec)) {
    if (!snapshots->empty()) {
      return Status::InvalidArgument(fmt::format("{}: both {} and {}/ exist; keep one",
                                                 dir.string(), file.filename().string(), kind));
    }
    *single = file;
  }
  return Status::Ok();
}

// The snapshot in effect at `t`: the latest at or before it.
const fs::path* At(const std::map<int64_t, fs::path>& snapshots, int64_t t) {
  auto it = snapshots.upper_bound(t);
  if (it == snapshots.begin()) return nullptr;
  return &std::prev(it)->second;
}

}  // namespace

Result<BundleReader> BundleReader::Open(const fs::path& dir, std::optional<int64_t> step_ms) {
  BundleReader r;
  r.dir_ = dir;
  std::error_code ec;
  const fs::path scrapes = dir / "scrapes";
  if (!fs::is_directory(scrapes, ec))
    return Status::NotFound(fmt::format("{}: no scrapes/ directory (not a bundle)", dir.string()));
  for (const auto& e : fs::directory_iterator(scrapes)) {
    if (!e.is_regular_file()) continue;
    const std::optional<int64_t> t = TimeOfName(e.path(), ".prom");
    if (!t) {
      return Status::InvalidArgument(
          fmt::format("{}: scrape names must be <unix-milliseconds>.prom", e.path().string()));
    }
    r.scrapes_[*t] = e.path();
  }
  if (r.scrapes_.empty())
    return Status::InvalidArgument(fmt::format("{}: no scrapes", scrapes.string()));
  STEWARD_RETURN_IF_ERROR(ListSnapshots(dir, "pods", &r.pods_, &r.pods_file_));
  STEWARD_RETURN_IF_ERROR(ListSnapshots(dir, "nodes", &r.nodes_, &r.nodes_file_));

  if (step_ms) {
    r.step_ms_ = *step_ms;
  } else if (fs::exists(dir / "bundle.json", ec)) {
    STEWARD_ASSIGN_OR_RETURN(std::string text, ReadFile(dir / "bundle.json"));
    const std::string where = (dir / "bundle.json").string();
    const json manifest = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (manifest.is_discarded() || !manifest.is_object())
      return Status::InvalidArgument(where + ": not a JSON object");
    if (manifest.contains("format") && manifest["format"] != kBundleFormat) {
      return Status::InvalidArgument(
          fmt::format("{}: format: {} is not {}", where, manifest["format"].dump(), kBundleFormat));
    }
    if (manifest.contains("step_seconds")) {
      const json& s = manifest["step_seconds"];
      if (!s.is_number() || !(s.get<double>() > 0))
        return Status::InvalidArgument(where + ": step_seconds: must be a number > 0");
      r.step_ms_ = static_cast<int64_t>(std::llround(s.get<double>() * 1000));
    }
  }
  if (r.step_ms_ == 0) {
    if (r.scrapes_.size() < 2) {
      return Status::InvalidArgument(
          fmt::format("{}: one scrape and no step_seconds in bundle.json: give the step (--step)",
                      dir.string()));
    }
    std::vector<int64_t> gaps;
    for (auto it = std::next(r.scrapes_.begin()); it != r.scrapes_.end(); ++it)
      gaps.push_back(it->first - std::prev(it)->first);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    r.step_ms_ = gaps[gaps.size() / 2];
  }
  if (r.step_ms_ <= 0) return Status::InvalidArgument("step must be > 0");
  return r;
}

Status BundleReader::Run(FrameBuilder& builder) const {
  // The objects in effect, re-read only when the snapshot changes.
  const fs::path* pods_at = nullptr;
  const fs::path* nodes_at = nullptr;
  std::vector<PodObject> pods;
  std::vector<const PodObject*> pod_ptrs;
  std::vector<health::NodeInfo> nodes;
  auto load_pods = [&](const fs::path& p) -> Status {
    STEWARD_ASSIGN_OR_RETURN(pods, LoadPodList(p));
    pod_ptrs.clear();
    for (const PodObject& o : pods) pod_ptrs.push_back(&o);
    return Status::Ok();
  };
  if (pods_file_) STEWARD_RETURN_IF_ERROR(load_pods(*pods_file_));
  if (nodes_file_) {
    STEWARD_ASSIGN_OR_RETURN(nodes, health::LoadNodeList(*nodes_file_, {.allow_empty = true}));
  }

  for (const auto& [t, path] : scrapes_) {
    if (const fs::path* p = At(pods_, t); p != nullptr && p != pods_at) {
      STEWARD_RETURN_IF_ERROR(load_pods(*p));
      pods_at = p;
    }
    if (const fs::path* p = At(nodes_, t); p != nullptr && p != nodes_at) {
      STEWARD_ASSIGN_OR_RETURN(nodes, health::LoadNodeList(*p, {.allow_empty = true}));
      nodes_at = p;
    }
    STEWARD_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    const telemetry::Scrape scrape = telemetry::ParseExpositionOwned(std::move(text));
    if (!scrape.ok()) {
      const telemetry::ParseError& e = scrape.errors.front();
      return MakeInputError(
          path.string(), e.line, e.column, "metrics",
          fmt::format("{} ({} malformed line(s) in the file)", e.message, scrape.error_count));
    }
    for (const telemetry::Sample& s : scrape.samples) {
      if (s.has_timestamp && std::abs(s.timestamp_ms - t) * 2 > step_ms_) {
        return MakeInputError(
            path.string(), s.line, 0, "timestamp",
            fmt::format("{} ms is more than half a step from the scrape's time {} ms (its name)",
                        s.timestamp_ms, t));
      }
    }
    const telemetry::DcgmSnapshot dcgm = telemetry::BuildDcgmSnapshot(scrape);
    Snapshot snap;
    snap.time_ms = t;
    snap.gpus = dcgm.gpus;
    snap.pods = pod_ptrs;
    snap.nodes = nodes;
    STEWARD_RETURN_IF_ERROR(builder.Add(snap).WithContext(path.string()));
  }
  return builder.Finish();
}

Result<std::unique_ptr<BundleWriter>> BundleWriter::Create(const fs::path& dir, int64_t step_ms,
                                                           std::string source) {
  std::error_code ec;
  if (fs::exists(dir / "scrapes", ec)) {
    return Status::FailedPrecondition(fmt::format(
        "{}: already holds a bundle (scrapes/); choose an empty directory", dir.string()));
  }
  for (const char* sub : {"scrapes", "pods", "nodes"}) {
    fs::create_directories(dir / sub, ec);
    if (ec) return Status::IoError(fmt::format("{}: {}", (dir / sub).string(), ec.message()));
  }
  return std::unique_ptr<BundleWriter>(new BundleWriter(dir, step_ms, std::move(source)));
}

Status BundleWriter::Consume(const Snapshot& raw, const Frame&, const Catalog&) {
  if (frames_++ == 0) first_ms_ = raw.time_ms;
  last_ms_ = raw.time_ms;
  const std::string name = std::to_string(raw.time_ms);
  // dcgm-exporter's page, each sample stamped with the scrape time.
  telemetry::DcgmWriterOptions o;
  o.pod_labels = true;
  const std::string page = telemetry::RenderDcgmExposition(raw.gpus, o);
  std::string stamped;
  stamped.reserve(page.size() + page.size() / 8);
  const std::string stamp = " " + name;
  size_t start = 0;
  while (start < page.size()) {
    size_t end = page.find('\n', start);
    if (end == std::string::npos) end = page.size();
    stamped.append(page, start, end - start);
    if (end > start && page[start] != '#') stamped += stamp;
    stamped += '\n';
    start = end + 1;
  }
  STEWARD_RETURN_IF_ERROR(WriteFile(dir_ / "scrapes" / (name + ".prom"), stamped));
  std::vector<PodObject> pods;
  pods.reserve(raw.pods.size());
  for (const PodObject* p : raw.pods) pods.push_back(*p);
  STEWARD_RETURN_IF_ERROR(WriteFile(dir_ / "pods" / (name + ".json"), PodListJson(pods).dump()));
  if (!raw.nodes.empty()) {
    std::vector<health::NodeInfo> nodes(raw.nodes.begin(), raw.nodes.end());
    std::string text = NodeListJson(nodes).dump();
    if (text != last_nodes_) {
      STEWARD_RETURN_IF_ERROR(WriteFile(dir_ / "nodes" / (name + ".json"), text));
      last_nodes_ = std::move(text);
    }
  }
  return Status::Ok();
}

Status BundleWriter::Finish(const Catalog&) {
  const json manifest = {
      {"format", kBundleFormat}, {"step_seconds", static_cast<double>(step_ms_) / 1000},
      {"source", source_},       {"frames", frames_},
      {"first_ms", first_ms_},   {"last_ms", last_ms_}};
  return WriteFile(dir_ / "bundle.json", manifest.dump(2) + "\n");
}

}  // namespace steward::diagnose
