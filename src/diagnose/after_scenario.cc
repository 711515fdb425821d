#include "diagnose/after_scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "twin/scenario.h"

namespace steward::diagnose {
namespace {

namespace fs = std::filesystem;

// A relative path of the original, as seen from the output directory. $STEWARD_DATA/... and
// absolute paths stay as written.
std::string Rebase(const std::string& path, const ScenarioChanges& c) {
  if (path.empty() || path.starts_with("$STEWARD_DATA/") || fs::path(path).is_absolute())
    return path;
  const fs::path from = fs::absolute(c.scenario_dir / path).lexically_normal();
  const fs::path out = fs::absolute(c.out_dir).lexically_normal();
  const fs::path rel = from.lexically_relative(out);
  return rel.empty() ? from.string() : rel.string();
}

void RebaseScalar(YAML::Node n, const ScenarioChanges& c) {
  if (n && n.IsScalar()) n = Rebase(n.as<std::string>(), c);
}

void RebaseList(YAML::Node n, const ScenarioChanges& c) {
  if (!n || !n.IsSequence()) return;
  for (size_t i = 0; i < n.size(); ++i) RebaseScalar(n[i], c);
}

// A number rounded to 4 decimals, as its shortest text, so the emitted YAML reads like a
// hand-written one (yaml-cpp would print 0.77 as 0.77000000000000002).
YAML::Node Round4(double v) { return YAML::Node(fmt::format("{}", std::round(v * 1e4) / 1e4)); }

// Scales a usage value (a number or a distribution's numeric fields) for a MIG instance.
void ScaleForMig(YAML::Node n, int sevenths) {
  if (!n) return;
  if (n.IsScalar()) {
    n = Round4(MigScaled(n.as<double>(), sevenths));
    return;
  }
  if (!n.IsMap()) return;
  for (const char* key : {"value", "mean", "median", "min", "max"})
    if (n[key]) n[key] = Round4(MigScaled(n[key].as<double>(), sevenths));
  if (YAML::Node v = n["values"]; v && v.IsSequence())
    for (size_t i = 0; i < v.size(); ++i) v[i] = Round4(MigScaled(v[i].as<double>(), sevenths));
}

std::string ClassOf(const YAML::Node& gen) {
  std::string name = gen["name"] ? gen["name"].as<std::string>() : "";
  if (const YAML::Node l = gen["labels"]; l && l.IsMap() && l[std::string(twin::kGeneratorLabel)])
    name = l[std::string(twin::kGeneratorLabel)].as<std::string>();
  const std::string team = gen["team"] ? gen["team"].as<std::string>() : "";
  return team + "/" + name;
}

// Whether the generator's gpus_per_pod is exactly `gpus` (a constant; absent = 1).
bool ConstantGpus(const YAML::Node& gen, int gpus) {
  const YAML::Node n = gen["gpus_per_pod"];
  if (!n) return gpus == 1;
  if (n.IsScalar()) return n.as<double>() == gpus;
  if (n.IsMap() && n["dist"] && n["dist"].as<std::string>() == "constant" && n["value"])
    return n["value"].as<double>() == gpus;
  return false;
}

// The index of `gpus` among a `choice` distribution's values, or -1.
int ChoiceIndex(const YAML::Node& gen, int gpus) {
  const YAML::Node n = gen["gpus_per_pod"];
  if (!n || !n.IsMap() || !n["dist"] || n["dist"].as<std::string>() != "choice") return -1;
  const YAML::Node v = n["values"];
  if (!v || !v.IsSequence()) return -1;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].as<double>() == gpus) return static_cast<int>(i);
  return -1;
}

bool MigCapableCluster(const YAML::Node& root) {
  const YAML::Node models = root["cluster"]["gpu_models"];
  if (!models || !models.IsSequence()) return false;
  for (size_t i = 0; i < models.size(); ++i)
    if (models[i]["mig_capable"] && models[i]["mig_capable"].as<bool>()) return true;
  return false;
}

// Applies one right-sizing row to every generator of its class and size.
void ApplyRow(YAML::Node gens, const RightSizing& row, bool mig_capable, AfterScenario* out) {
  const bool mig = row.mig_sevenths > 0 && row.gpus_per_pod == 1;
  const std::string profile(MigProfile80Gb(row.mig_sevenths));
  int matched = 0;
  for (size_t i = 0; i < gens.size(); ++i) {
    YAML::Node g = gens[i];
    if (ClassOf(g) != row.workload_class) continue;
    const std::string name = g["name"] ? g["name"].as<std::string>() : "";
    if (mig) {
      if (!ConstantGpus(g, 1)) continue;
      if (!mig_capable) {
        out->skipped.push_back(
            fmt::format("{}: MIG {} not applied in the twin: no gpu_models entry is mig_capable",
                        row.workload_class, profile));
        return;
      }
      if (g["mig_profile"] || g["gpu_milli"]) continue;  // Already shares its GPU.
      g["mig_profile"] = profile;
      YAML::Node usage = g["usage"];
      const YAML::Node sm = usage["sm_active"];
      const YAML::Node busy = usage["busy"];
      ScaleForMig(usage["sm_active"], row.mig_sevenths);
      // Busy is at least SM-active on the instance (a kernel runs whenever an SM is active).
      if (busy && busy.IsScalar() && sm && sm.IsScalar()) {
        usage["busy"] = Round4(std::max(busy.as<double>(), usage["sm_active"].as<double>()));
      } else {
        ScaleForMig(usage["busy"], row.mig_sevenths);
      }
      if (usage["idle_busy"]) ScaleForMig(usage["idle_busy"], row.mig_sevenths);
      out->applied.push_back(fmt::format(
          "generators[{}] {}: a MIG {} instance instead of a whole GPU; usage read on the "
          "instance (x 7/{})",
          i, name, profile, row.mig_sevenths));
      ++matched;
    } else if (row.recommended_gpus_per_pod < row.gpus_per_pod) {
      if (ConstantGpus(g, row.gpus_per_pod)) {
        g["gpus_per_pod"] = row.recommended_gpus_per_pod;
        // The same work on fewer GPUs: none of them was driven beyond the recommendation.
        if (YAML::Node f = g["usage"]["used_gpu_fraction"]; f && f.IsScalar()) {
          const double used = f.as<double>() * row.gpus_per_pod;
          g["usage"]["used_gpu_fraction"] =
              Round4(std::min(1.0, used / row.recommended_gpus_per_pod));
        }
      } else if (const int at = ChoiceIndex(g, row.gpus_per_pod); at >= 0) {
        g["gpus_per_pod"]["values"][at] = row.recommended_gpus_per_pod;
      } else {
        continue;
      }
      out->applied.push_back(fmt::format("generators[{}] {}: gpus_per_pod {} -> {}", i, name,
                                         row.gpus_per_pod, row.recommended_gpus_per_pod));
      ++matched;
    }
  }
  if (matched == 0) {
    out->skipped.push_back(
        fmt::format("{} ({} GPUs per pod): no generator of that team and job template requests it",
                    row.workload_class, row.gpus_per_pod));
  } else if (mig) {
    out->mig_rows_applied.push_back(row);
  }
}

}  // namespace

double MigScaled(double whole_gpu_value, int sevenths) {
  if (sevenths <= 0) return whole_gpu_value;
  return std::min(1.0, whole_gpu_value * 7.0 / sevenths);
}

Result<AfterScenario> RewriteScenario(std::string_view text, std::string_view source,
                                      const ScenarioChanges& c) {
  AfterScenario out;
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (!root.IsMap())
      return Status::InvalidArgument(fmt::format("{}: a scenario is a YAML map", source));
    const std::string name = root["name"] ? root["name"].as<std::string>() : "scenario";
    root["name"] = name + "-after";
    if (c.seed) root["seed"] = *c.seed;
    if (c.horizon_days) root["horizon_days"] = *c.horizon_days;
    RebaseScalar(root["cluster"]["alibaba_nodes"], c);
    if (YAML::Node traces = root["traces"]; traces && traces.IsSequence())
      for (size_t i = 0; i < traces.size(); ++i) RebaseScalar(traces[i]["path"], c);
    if (YAML::Node t = root["tenancy"]; t && t.IsMap()) RebaseList(t["files"], c);

    YAML::Node policies = root["policies"];
    if (!policies || !policies.IsMap())
      policies = root["policies"] = YAML::Node(YAML::NodeType::Map);
    RebaseList(policies["governance"], c);
    if (c.governance_file) {
      policies.remove("admission");  // Governance files select the kueue admitter.
      YAML::Node files(YAML::NodeType::Sequence);
      files.push_back(*c.governance_file);
      files.SetStyle(YAML::EmitterStyle::Flow);
      policies["governance"] = files;
      out.applied.push_back(
          fmt::format("policies.governance: [{}] (Kueue cohort)", *c.governance_file));
    }
    if (!c.placement.empty()) {
      policies["placement"] = c.placement;
      out.applied.push_back(fmt::format("policies.placement: {}", c.placement));
    }
    if (c.reclaim) {
      YAML::Node r(YAML::NodeType::Map);
      r["enabled"] = true;
      r["dry_run"] = false;
      r["notify_after_minutes"] = c.reclaim->notify_after_minutes;
      r["reclaim_after_minutes"] = c.reclaim->reclaim_after_minutes;
      r["idle_sm_active_below"] = c.reclaim->idle_sm_active_below;
      YAML::Node kinds(YAML::NodeType::Sequence);
      for (const std::string& k : c.reclaim->kinds) kinds.push_back(k);
      kinds.SetStyle(YAML::EmitterStyle::Flow);
      r["kinds"] = kinds;
      root["reclaim"] = r;
      out.applied.push_back("reclaim: enabled, enforcing");
    }
    if (!c.right_sizing.empty()) {
      YAML::Node gens = root["generators"];
      if (!gens || !gens.IsSequence()) {
        for (const RightSizing& row : c.right_sizing)
          out.skipped.push_back(
              fmt::format("{}: the scenario has no generators", row.workload_class));
      } else {
        const bool mig_capable = MigCapableCluster(root);
        for (const RightSizing& row : c.right_sizing) ApplyRow(gens, row, mig_capable, &out);
      }
    }
    YAML::Emitter emitter;
    emitter.SetIndent(2);
    emitter << root;
    if (!emitter.good())
      return Status::Internal(
          fmt::format("{}: cannot emit YAML: {}", source, emitter.GetLastError()));
    out.yaml = std::string(emitter.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}:{}:{}: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  return out;
}

}  // namespace steward::diagnose
