#include "diagnose/artifacts.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "diagnose/after_scenario.h"
#include "govern/policy_io.h"

namespace steward::diagnose {
namespace {

namespace fs = std::filesystem;

// A DNS-1123 name for Kubernetes objects and file names: lower case, [a-z0-9-].
std::string DnsName(std::string_view s) {
  std::string out;
  for (char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_directory()) files.push_back(e.path().lexically_relative(dir).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

// The files a previous --out listed in its manifest (plus the manifest itself); nullopt when
// there is no readable manifest.
std::optional<std::set<std::string>> ManifestFiles(const fs::path& dir) {
  std::ifstream in(dir / kArtifactManifest);
  if (!in) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("artifacts") || !j["artifacts"].is_array())
    return std::nullopt;
  std::set<std::string> files = {kArtifactManifest};
  for (const auto& a : j["artifacts"])
    if (a.contains("path") && a["path"].is_string()) files.insert(a["path"].get<std::string>());
  return files;
}

Status WriteFile(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return Status::IoError(fmt::format("{}: {}", path.parent_path().string(), ec.message()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << text) || !out.flush())
    return Status::IoError(fmt::format("{}: cannot write", path.string()));
  return Status::Ok();
}

std::string Num(double v) {
  std::string s = fmt::format("{:.4f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

double CauseHours(const Diagnosis& d, const std::string& cause) {
  const auto it = d.waste_gpu_hours_by_cause.find(cause);
  return it == d.waste_gpu_hours_by_cause.end() ? 0 : it->second;
}

// GPUs per pod of a generator when constant, else its mean.
double GpusPerPod(const twin::GeneratorSpec& g) {
  return g.gpus_per_pod.kind == twin::Distribution::Kind::kConstant ? g.gpus_per_pod.value
                                                                    : g.gpus_per_pod.Mean();
}

// Devices a team's inference services hold at their replica floor: never lent, so a lender's
// services never wait for a reclaim to scale back to their minimum.
int64_t ServingFloor(const twin::Scenario& s, const std::string& team) {
  double floor = 0;
  for (const twin::GeneratorSpec& g : s.generators) {
    if (g.team != team || g.kind != model::WorkloadKind::kInference) continue;
    const int services =
        g.arrival.process == twin::ArrivalSpec::Process::kOnce ? g.arrival.count : 1;
    const double per_pod = g.mig_profile.empty() ? GpusPerPod(g) : 1;
    floor += services * g.min_replicas * per_pod;
  }
  return static_cast<int64_t>(std::ceil(floor));
}

int PriorityValue(const std::string& name) {
  if (name == "production") return 10000;
  if (name == "training") return 500;
  if (name == "dev") return 10;
  return 100;
}

// The strategic-merge patch of one right-sizing row.
std::string PatchYaml(const RightSizing& row, const std::string& container,
                      const std::string& owner_kind, const std::string& namespace_name) {
  const bool mig = row.mig_sevenths > 0 && row.gpus_per_pod == 1;
  std::string head = fmt::format("# {}\n", row.recommendation);
  head += fmt::format(
      "# A strategic-merge patch of the pod template's GPU resources. Apply it to the controller\n"
      "# of these pods (a Job's template is immutable: patch the CronJob or the manifest that\n"
      "# creates the Jobs):\n"
      "#   kubectl patch {} NAME -n {} --type strategic --patch-file THIS_FILE\n",
      owner_kind, namespace_name);
  if (container == "CONTAINER")
    head += "# Replace CONTAINER with the container's name (the source did not give it).\n";
  std::string resources;
  if (mig) {
    const std::string profile(MigProfile80Gb(row.mig_sevenths));
    head += fmt::format(
        "# MIG: the GPU Operator's mixed strategy advertises nvidia.com/mig-{} on nodes whose\n"
        "# GPUs are carved into that profile (nvidia.com/mig.config); null removes the whole-GPU\n"
        "# request. Check FB_USED fits the instance's memory.\n",
        profile);
    resources = fmt::format(
        "          limits:\n"
        "            nvidia.com/gpu: null\n"
        "            nvidia.com/mig-{0}: \"1\"\n"
        "          requests:\n"
        "            nvidia.com/gpu: null\n"
        "            nvidia.com/mig-{0}: \"1\"\n",
        profile);
  } else {
    resources = fmt::format(
        "          limits:\n"
        "            nvidia.com/gpu: \"{0}\"\n"
        "          requests:\n"
        "            nvidia.com/gpu: \"{0}\"\n",
        row.recommended_gpus_per_pod);
  }
  return head + fmt::format(
                    "spec:\n"
                    "  template:\n"
                    "    spec:\n"
                    "      containers:\n"
                    "      - name: {}\n"
                    "        resources:\n"
                    "{}",
                    container, resources);
}

// The generator a right-sizing class names (team/app.kubernetes.io/name or generator name).
const twin::GeneratorSpec* GeneratorOf(const twin::Scenario* s, const std::string& cls) {
  if (s == nullptr) return nullptr;
  for (const twin::GeneratorSpec& g : s->generators) {
    const auto l = g.labels.find(std::string(twin::kGeneratorLabel));
    const std::string name = l != g.labels.end() ? l->second : g.name;
    if (g.team + "/" + name == cls) return &g;
  }
  return nullptr;
}

std::string ReclaimYaml(const Diagnosis& d, const ReclaimChange& r) {
  std::string kinds, kinds_flag;
  for (const std::string& k : r.kinds) {
    kinds += (kinds.empty() ? "" : ", ") + k;
    kinds_flag += (kinds_flag.empty() ? "" : ",") + k;
  }
  return fmt::format(
      "# Idle reclaim for the zombie waste ({:.0f} GPU-hours): a workload of these kinds whose\n"
      "# GPUs stay below {:.0f}% SM-active gets a notice after {} min and is stopped after {} min\n"
      "# of the same idle streak (docs/reclaim.md). In a twin scenario this is the `reclaim:`\n"
      "# section (after.yaml has it). On a live cluster, the same policy:\n"
      "#   steward operate ... --reclaim-notify-after {} --reclaim-after {} \\\n"
      "#     --reclaim-idle-below {} --reclaim-kinds {} \\\n"
      "#     --reclaim-exempt-label steward.io/reclaim-exempt=true\n"
      "reclaim:\n"
      "  enabled: true\n"
      "  dry_run: false\n"
      "  notify_after_minutes: {}\n"
      "  reclaim_after_minutes: {}\n"
      "  idle_sm_active_below: {}\n"
      "  kinds: [{}]\n"
      "  exempt_labels: {{steward.io/reclaim-exempt: \"true\"}}\n",
      CauseHours(d, "zombie"), 100 * r.idle_sm_active_below, Num(r.notify_after_minutes),
      Num(r.reclaim_after_minutes), Num(r.notify_after_minutes), Num(r.reclaim_after_minutes),
      Num(r.idle_sm_active_below), kinds_flag, Num(r.notify_after_minutes),
      Num(r.reclaim_after_minutes), Num(r.idle_sm_active_below), kinds);
}

std::string PlacementYaml(const Diagnosis& d) {
  return fmt::format(
      "# Fragmentation ({:.0f} GPU-hours of free GPUs no pending pod could use): binpack small\n"
      "# pods onto partly used nodes so whole nodes stay free for 8-GPU and multi-node work.\n"
      "# A scenario's `policies:` settings (after.yaml has them). Placement pools (a whole-node\n"
      "# pool for training, a small-job pool) are the next step: docs/scenario.md, \"pools\";\n"
      "# on case 1 they were measured and left out (docs/cost.md).\n"
      "policies:\n"
      "  placement: binpack\n",
      CauseHours(d, "fragmentation"));
}

}  // namespace

std::string CohortKueueYaml(const twin::Scenario& s, int64_t mig_devices) {
  const std::string cohort = DnsName(s.name);
  const bool one_model = s.gpu_models.size() == 1;
  const std::string flavor = one_model ? DnsName(s.gpu_models[0].name) : "default-flavor";
  int64_t total = 0;
  for (const twin::TeamSpec& t : s.teams) total += t.quota_gpus;
  std::string y = fmt::format(
      "# The teams' queues as Kueue ClusterQueues in one cohort ({}), written by steward\n"
      "# diagnose for its queueing recommendation: quota a team leaves idle is lent to teams\n"
      "# with work waiting and taken back (reclaimWithinCohort: LowerPriority) when its owner\n"
      "# needs it. Nominal quotas are the scenario's team quotas (sum {}). Limits:\n"
      "#   borrowingLimit = the queue's own nominal quota (at most twice its share, so one\n"
      "#     team never takes the whole cohort and a reclaim preempts at most that much);\n"
      "#   lendingLimit   = nominal minus the devices its inference services hold at their\n"
      "#     replica floor (never lent), everything for teams without services.\n"
      "# Load: steward policy import THIS_FILE; kubectl apply --dry-run=client -f THIS_FILE.\n"
      "apiVersion: kueue.x-k8s.io/v1beta1\n"
      "kind: ResourceFlavor\n"
      "metadata:\n"
      "  name: {}\n",
      cohort, total, flavor);
  if (one_model) {
    y += fmt::format("spec:\n  nodeLabels:\n    nvidia.com/gpu.product: {}\n",
                     s.gpu_models[0].product_label);
  } else {
    y += "spec: {}\n";
  }
  y += fmt::format("---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata:\n  name: {}\n",
                   cohort);
  if (mig_devices > 0) {
    y += fmt::format(
        "# The cohort's own quota, lendable to every queue: MIG devices. Kueue counts a MIG pod\n"
        "# as one device though it takes a fraction of a GPU; this is the GPUs the MIG\n"
        "# recommendations free (GPU-hours freed by sharing / hours diagnosed), given back as\n"
        "# devices so the same GPUs stay admissible.\n"
        "spec:\n"
        "  resourceGroups:\n"
        "  - coveredResources: [\"nvidia.com/gpu\"]\n"
        "    flavors:\n"
        "    - name: {}\n"
        "      resources:\n"
        "      - name: nvidia.com/gpu\n"
        "        nominalQuota: {}\n",
        flavor, mig_devices);
  } else {
    y += "spec: {}\n";
  }
  for (const twin::TeamSpec& t : s.teams) {
    const int64_t nominal = t.quota_gpus;
    const int64_t lend = std::max<int64_t>(0, nominal - ServingFloor(s, t.name));
    y += fmt::format(
        "---\n"
        "apiVersion: kueue.x-k8s.io/v1beta1\n"
        "kind: ClusterQueue\n"
        "metadata:\n"
        "  name: {}\n"
        "spec:\n"
        "  cohort: {}\n"
        "  namespaceSelector: {{}}\n"
        "  queueingStrategy: BestEffortFIFO\n"
        "  preemption:\n"
        "    withinClusterQueue: LowerPriority\n"
        "    reclaimWithinCohort: LowerPriority\n"
        "  resourceGroups:\n"
        "  - coveredResources: [\"nvidia.com/gpu\"]\n"
        "    flavors:\n"
        "    - name: {}\n"
        "      resources:\n"
        "      - name: nvidia.com/gpu\n"
        "        nominalQuota: {}\n"
        "        borrowingLimit: {}\n"
        "        lendingLimit: {}\n",
        DnsName(t.name), cohort, flavor, nominal, nominal, lend);
    // One LocalQueue per queue name the team's workloads use.
    std::set<std::string> queues = {t.name};
    for (const twin::GeneratorSpec& g : s.generators)
      if (g.team == t.name && !g.queue.empty()) queues.insert(g.queue);
    for (const twin::TraceSpec& tr : s.traces)
      if (tr.team == t.name && !tr.queue.empty()) queues.insert(tr.queue);
    const std::string ns = t.namespace_name.empty() ? t.name : t.namespace_name;
    for (const std::string& q : queues)
      y += fmt::format(
          "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: {}\n"
          "  namespace: {}\nspec:\n  clusterQueue: {}\n",
          q, ns, DnsName(t.name));
  }
  std::set<std::string> classes;
  for (const twin::GeneratorSpec& g : s.generators) classes.insert(g.priority_class);
  for (const std::string& c : classes)
    if (!c.empty())
      y += fmt::format(
          "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata:\n"
          "  name: {}\nvalue: {}\ndescription: \"{} workloads\"\n",
          c, PriorityValue(c), c);
  return y;
}

Status CheckOutDir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::Ok();
  if (!fs::is_directory(dir, ec))
    return Status::InvalidArgument(
        fmt::format("--out {}: exists and is not a directory", dir.string()));
  const std::vector<std::string> files = FilesUnder(dir);
  if (files.empty()) return Status::Ok();
  const std::optional<std::set<std::string>> previous = ManifestFiles(dir);
  for (const std::string& f : files) {
    if (previous && previous->contains(f)) continue;
    return Status::InvalidArgument(fmt::format(
        "--out {}: not empty ({} is not an artifact of a previous --out); use a new or empty "
        "directory, or one whose {} lists every file",
        dir.string(), (dir / f).string(), kArtifactManifest));
  }
  return Status::Ok();
}

Result<ArtifactSet> WriteArtifacts(const Diagnosis& d, const ArtifactOptions& o) {
  STEWARD_RETURN_IF_ERROR(CheckOutDir(o.dir));
  std::error_code ec;
  if (fs::exists(o.dir / kArtifactManifest)) {  // Replace the previous --out's files.
    for (const std::string& f : FilesUnder(o.dir)) fs::remove(o.dir / f, ec);
    for (const auto& e : fs::directory_iterator(o.dir))
      if (e.is_directory() && fs::is_empty(e.path())) fs::remove(e.path(), ec);
  }
  fs::create_directories(o.dir, ec);
  if (ec) return Status::IoError(fmt::format("--out {}: {}", o.dir.string(), ec.message()));

  ArtifactSet set;
  set.dir = o.dir;
  std::vector<std::pair<Artifact, std::string>> files;  // Artifact, text.
  std::set<std::string> causes;
  for (const Diagnosis::Recommendation& r : d.recommendations) causes.insert(r.cause);
  ScenarioChanges changes;
  changes.scenario_dir = o.scenario_dir;
  changes.out_dir = o.dir;
  changes.horizon_days = o.horizon_days;
  changes.seed = o.seed;

  bool kueue = false;
  for (const Diagnosis::Recommendation& r : d.recommendations) {
    if (r.cause == "queueing") {
      if (o.scenario == nullptr) {
        set.not_written.push_back({r.cause,
                                   "kueue.yaml needs the teams and their quotas: only a twin "
                                   "source (--twin) has them"});
      } else if (o.governed_by_policy_files || !o.scenario->policies.governance.empty()) {
        set.not_written.push_back(
            {r.cause,
             "the scenario is governed by Kueue/Volcano files already: add cohorts and "
             "borrowingLimit to them (kueue.yaml would replace them)"});
      } else if (o.scenario->teams.empty()) {
        set.not_written.push_back({r.cause, "the scenario has no teams to give queues"});
      } else {
        kueue = true;
        changes.governance_file = "kueue.yaml";
      }
    } else if (r.cause == "zombie") {
      ReclaimChange rc;
      rc.notify_after_minutes = d.thresholds.zombie_minutes / 2;
      rc.reclaim_after_minutes = d.thresholds.zombie_minutes;
      rc.idle_sm_active_below = d.thresholds.idle_sm_active;
      changes.reclaim = rc;
      files.push_back({{"reclaim.yaml",
                        "idle-reclaim",
                        {"zombie"},
                        "",
                        fmt::format("idle reclaim: notice at {} min, stop at {} min below {}% "
                                    "SM-active (notebooks)",
                                    Num(rc.notify_after_minutes), Num(rc.reclaim_after_minutes),
                                    Num(100 * rc.idle_sm_active_below))},
                       ReclaimYaml(d, rc)});
    } else if (r.cause == "fragmentation") {
      changes.placement = "binpack";
      files.push_back(
          {{"placement.yaml", "placement", {"fragmentation"}, "", "policies.placement: binpack"},
           PlacementYaml(d)});
    } else if (r.cause == "over_request") {
      // Written below from the right-sizing rows (which cover it).
    } else {
      set.not_written.push_back(
          {r.cause, fmt::format("an application change (\"{}\"): no configuration implements it",
                                r.action)});
    }
  }

  // Right-sizing: one patch per row that changes a request or shares a GPU.
  for (const RightSizing& row : d.right_sizing) {
    const bool mig = row.mig_sevenths > 0 && row.gpus_per_pod == 1;
    if (!mig && row.recommended_gpus_per_pod >= row.gpus_per_pod) continue;
    changes.right_sizing.push_back(row);
    const size_t slash = row.workload_class.find('/');
    const std::string team = row.workload_class.substr(0, slash);
    const twin::GeneratorSpec* g = GeneratorOf(o.scenario, row.workload_class);
    // The twin names a service's container "replica" and a job's "main"
    // (telemetry::ContainerOf); other sources do not report it.
    const bool serving = g != nullptr && g->kind == model::WorkloadKind::kInference;
    const std::string container = g == nullptr ? "CONTAINER" : serving ? "replica" : "main";
    std::string ns = team;
    if (o.scenario != nullptr)
      if (const int t = o.scenario->FindTeam(team);
          t >= 0 && !o.scenario->teams[t].namespace_name.empty())
        ns = o.scenario->teams[t].namespace_name;
    const std::string path =
        fmt::format("rightsize/{}-{}gpu.patch.yaml", DnsName(row.workload_class), row.gpus_per_pod);
    const std::string summary =
        mig ? fmt::format("{}: nvidia.com/mig-{} instead of 1 GPU", row.workload_class,
                          MigProfile80Gb(row.mig_sevenths))
            : fmt::format("{}: {} GPUs per pod instead of {}", row.workload_class,
                          row.recommended_gpus_per_pod, row.gpus_per_pod);
    files.push_back({{path,
                      "right-sizing-patch",
                      {causes.contains("over_request") ? "over_request" : "right_sizing"},
                      row.workload_class,
                      summary},
                     PatchYaml(row, container, serving ? "deployment" : "job", ns)});
  }

  // The scenario with every change, and the Kueue policy it names.
  if (o.scenario != nullptr) {
    Result<AfterScenario> after = RewriteScenario(o.scenario_text, o.scenario->source, changes);
    if (!after.ok()) return after.status();
    set.scenario_changes = after->applied;
    for (const std::string& s : after->skipped) set.scenario_changes.push_back("not applied: " + s);
    if (kueue) {
      double freed = 0;
      for (const RightSizing& row : after->mig_rows_applied)
        freed += row.gpu_hours_freed_by_sharing;
      const double hours = d.source.frames * d.source.step_seconds / 3600;
      const int64_t mig_devices = hours > 0 ? std::llround(freed / hours) : 0;
      files.insert(
          files.begin(),
          {{"kueue.yaml",
            "kueue",
            {"queueing"},
            "",
            fmt::format(
                "{} ClusterQueues in cohort {} with borrowing and lending "
                "limits{}",
                o.scenario->teams.size(), DnsName(o.scenario->name),
                mig_devices > 0 ? fmt::format(", {} MIG devices in the cohort", mig_devices) : "")},
           CohortKueueYaml(*o.scenario, mig_devices)});
    }
    std::vector<std::string> implemented;
    for (const auto& [a, text] : files)
      for (const std::string& c : a.implements)
        if (std::find(implemented.begin(), implemented.end(), c) == implemented.end())
          implemented.push_back(c);
    std::string head = fmt::format(
        "# {}, after: written by `steward diagnose --out` from {}, with the changes below.\n"
        "# Run it and compare:\n"
        "#   steward twin compare {}--vs-scenario THIS_FILE\n",
        o.scenario->name, o.scenario->source,
        o.scenario->source == "<default>" ? std::string("") : o.scenario->source + " ");
    for (const std::string& line : set.scenario_changes) head += "#   - " + line + "\n";
    files.push_back({{"after.yaml", "scenario", implemented, "",
                      fmt::format("the diagnosed scenario with {} changes", after->applied.size())},
                     head + after->yaml});
  } else {
    set.not_written.push_back(
        {"all", "after.yaml (the twin scenario applying the artifacts) needs a twin source"});
  }

  for (auto& [a, text] : files) {
    const fs::path path = o.dir / a.path;
    STEWARD_RETURN_IF_ERROR(WriteFile(path, text));
    set.artifacts.push_back(a);
  }
  // Read every file back with what will consume it.
  for (const Artifact& a : set.artifacts) {
    const fs::path path = o.dir / a.path;
    if (a.kind == "kueue") {
      govern::Policy policy;
      std::ifstream in(path);
      std::stringstream ss;
      ss << in.rdbuf();
      Status s = govern::ImportYaml(ss.str(), path.string(), &policy);
      if (s.ok()) s = govern::ValidatePolicy(&policy);
      if (!s.ok())
        return Status::Internal(fmt::format("wrote an invalid {}: {}", path.string(), s.message()));
    } else if (a.kind == "scenario") {
      Result<twin::Scenario> s = twin::LoadScenario(path);
      if (!s.ok())
        return Status::Internal(
            fmt::format("wrote an invalid {}: {}", path.string(), s.status().message()));
    } else {
      try {
        YAML::LoadFile(path.string());
      } catch (const YAML::Exception& e) {
        return Status::Internal(
            fmt::format("wrote invalid YAML {}:{}: {}", path.string(), e.mark.line + 1, e.msg));
      }
    }
  }
  nlohmann::json manifest = {{"artifacts", nlohmann::json::array()},
                             {"not_written", NotWrittenJson(set)}};
  for (const Artifact& a : set.artifacts) {
    nlohmann::json j = {{"path", a.path}, {"kind", a.kind}, {"implements", a.implements}};
    manifest["artifacts"].push_back(j);
  }
  STEWARD_RETURN_IF_ERROR(WriteFile(o.dir / kArtifactManifest, manifest.dump(2) + "\n"));
  return set;
}

nlohmann::json ArtifactsJson(const ArtifactSet& set) {
  nlohmann::json out = nlohmann::json::array();
  for (const Artifact& a : set.artifacts) {
    nlohmann::json j = {{"path", (set.dir / a.path).string()},
                        {"kind", a.kind},
                        {"implements", a.implements},
                        {"summary", a.summary}};
    if (!a.workload_class.empty()) j["class"] = a.workload_class;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json NotWrittenJson(const ArtifactSet& set) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : set.not_written) out.push_back({{"cause", n.cause}, {"reason", n.reason}});
  return out;
}

std::string ArtifactsText(const ArtifactSet& set) {
  std::string out = fmt::format("\nArtifacts (in {})\n", set.dir.string());
  for (const Artifact& a : set.artifacts) {
    std::string implements;
    for (const std::string& c : a.implements) implements += (implements.empty() ? "" : ", ") + c;
    out += fmt::format("  {:<44} {:<19} [{}] {}\n", a.path, a.kind, implements, a.summary);
  }
  for (const auto& n : set.not_written)
    out += fmt::format("  not written ({}): {}\n", n.cause, n.reason);
  return out;
}

}  // namespace steward::diagnose
