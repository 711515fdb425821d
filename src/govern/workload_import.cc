// YAML -> WorkloadObject. yaml-cpp throws; every throwing call stays in this file and becomes a
// Status naming file, line and field.
#include "govern/workload_import.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "govern/policy_io.h"
#include "govern/quantity.h"

namespace steward::govern {
namespace {

constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

class WorkloadParser {
 public:
  WorkloadParser(std::string_view file, SimulationInput* input) : file_(file), input_(input) {}

  Status Document(const YAML::Node& doc) {
    if (!doc.IsDefined() || doc.IsNull()) return Status::Ok();
    if (doc.IsMap() && Scalar(doc, "kind") == "List") {
      const YAML::Node items = doc["items"];
      if (items && !items.IsSequence()) return Err(items, "items", "not a list");
      if (items)
        for (const auto& item : items) STEWARD_RETURN_IF_ERROR(Document(item));
      return Status::Ok();
    }
    if (doc.IsMap() && Scalar(doc, "kind") == "Workload" &&
        Scalar(doc, "apiVersion").starts_with("kueue.x-k8s.io/"))
      return Workload(doc);
    return ImportDocument(doc, file_, &input_->policy);
  }

 private:
  static std::string Scalar(const YAML::Node& map, const char* key) {
    const YAML::Node v = map[key];
    return v && v.IsScalar() ? v.Scalar() : "";
  }
  Status Err(const YAML::Node& n, std::string_view field, std::string_view what) const {
    auto m = n.Mark();
    return MakeInputError(
        file_, m.line + 1, m.column + 1,
        name_.empty() ? std::string(field) : fmt::format("Workload {}: {}", name_, field), what);
  }
  Result<int64_t> Int(const YAML::Node& n, std::string_view field) const {
    if (!n.IsScalar()) return Err(n, field, "not an integer");
    const std::string& s = n.Scalar();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      return Err(n, field, fmt::format("not an integer: \"{}\"", s));
    return v;
  }

  Status Workload(const YAML::Node& doc) {
    WorkloadObject w;
    const YAML::Node meta = doc["metadata"];
    name_ = meta && meta.IsMap() ? Scalar(meta, "name") : "";
    if (name_.empty()) return Err(meta ? meta : doc, "metadata.name", "required");
    w.source = {std::string(file_), doc.Mark().line + 1};
    WorkloadRequest& req = w.request;
    req.name = name_;
    req.namespace_name = Scalar(meta, "namespace");
    if (req.namespace_name.empty()) req.namespace_name = "default";
    if (const YAML::Node ts = meta["creationTimestamp"]) {
      auto t = ParseKubeTimestamp(ts.IsScalar() ? ts.Scalar() : "");
      if (!t.ok()) return Err(ts, "metadata.creationTimestamp", t.status().message());
      req.queue_timestamp = SimTime::FromMicros(*t * 1'000'000);
    }
    if (const YAML::Node labels = meta["labels"]; labels && labels.IsMap())
      req.local_queue = Scalar(labels, kQueueNameLabel);
    const YAML::Node spec = doc["spec"];
    if (!spec || !spec.IsMap()) return Err(doc, "spec", "required");
    if (std::string q = Scalar(spec, "queueName"); !q.empty()) req.local_queue = q;
    if (const YAML::Node p = spec["priority"]) {
      STEWARD_ASSIGN_OR_RETURN(int64_t v, Int(p, "spec.priority"));
      req.priority = static_cast<int32_t>(v);
    }
    req.priority_class = Scalar(spec, "priorityClassName");
    if (const YAML::Node ref = spec["priorityClassRef"]; ref && ref.IsMap())
      req.priority_class = Scalar(ref, "name");
    if (Scalar(spec, "active") == "false") req.active = false;
    const YAML::Node pod_sets = spec["podSets"];
    if (!pod_sets || !pod_sets.IsSequence() || pod_sets.size() == 0)
      return Err(pod_sets ? pod_sets : spec, "spec.podSets", "at least one pod set is required");
    for (size_t i = 0; i < pod_sets.size(); ++i)
      STEWARD_RETURN_IF_ERROR(PodSet(pod_sets[i], fmt::format("spec.podSets[{}]", i), &w));
    if (const YAML::Node status = doc["status"]; status && status.IsMap())
      STEWARD_RETURN_IF_ERROR(Status_(status, &w));
    input_->workloads.push_back(std::move(w));
    name_.clear();
    return Status::Ok();
  }

  Status PodSet(const YAML::Node& n, const std::string& path, WorkloadObject* w) {
    if (!n.IsMap()) return Err(n, path, "not a mapping");
    PodSetRequest ps;
    ps.name = Scalar(n, "name");
    if (ps.name.empty()) ps.name = "main";
    ps.count = 1;
    if (const YAML::Node c = n["count"]) {
      STEWARD_ASSIGN_OR_RETURN(int64_t v, Int(c, path + ".count"));
      if (v < 0) return Err(c, path + ".count", "negative");
      ps.count = static_cast<int32_t>(v);
    }
    int32_t min_count = -1;
    if (const YAML::Node c = n["minCount"]) {
      STEWARD_ASSIGN_OR_RETURN(int64_t v, Int(c, path + ".minCount"));
      if (v < 0 || v > ps.count) return Err(c, path + ".minCount", "must be in [0, count]");
      min_count = static_cast<int32_t>(v);
    }
    const YAML::Node pod =
        n["template"] && n["template"].IsMap() ? n["template"]["spec"] : YAML::Node();
    if (pod && pod.IsMap()) {
      // Kueue's pod request: the sum over containers, at least the largest init container.
      std::map<std::string, Amount> sum, init_max;
      for (const char* which : {"containers", "initContainers"}) {
        const YAML::Node cs = pod[which];
        if (!cs) continue;
        if (!cs.IsSequence()) return Err(cs, path + ".template.spec." + which, "not a list");
        for (size_t c = 0; c < cs.size(); ++c) {
          const YAML::Node res = cs[c]["resources"];
          if (!res || !res.IsMap()) continue;
          const YAML::Node reqs = res["requests"] ? res["requests"] : res["limits"];
          if (!reqs || !reqs.IsMap()) continue;
          if (res["requests"] && res["limits"] && res["limits"].IsMap() && w->invalid.empty())
            STEWARD_RETURN_IF_ERROR(CheckRequestsWithinLimits(
                res, fmt::format("{}.template.spec.{}[{}]", path, which, c), w));
          for (const auto& kv : reqs) {
            std::string r = kv.first.as<std::string>();
            std::string field =
                fmt::format("{}.template.spec.{}[{}].resources.requests.{}", path, which, c, r);
            auto q = ParseQuantity(kv.second.IsScalar() ? kv.second.Scalar() : "", r);
            if (!q.ok()) return Err(kv.second, field, q.status().message());
            if (std::string_view(which) == "containers")
              sum[r] = SatAdd(sum[r], *q);
            else
              init_max[r] = std::max(init_max[r], *q);
          }
        }
      }
      for (const auto& [r, a] : init_max) sum[r] = std::max(sum[r], a);
      for (const auto& [r, a] : sum) ps.requests.push_back({r, a});
      if (const YAML::Node sel = pod["nodeSelector"]; sel && sel.IsMap())
        for (const auto& kv : sel)
          ps.node_selector[kv.first.as<std::string>()] = kv.second.as<std::string>();
      const YAML::Node affinity = pod["affinity"];
      const YAML::Node node_affinity =
          affinity && affinity.IsMap() ? affinity["nodeAffinity"] : YAML::Node();
      const YAML::Node required =
          node_affinity && node_affinity.IsMap()
              ? node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]
              : YAML::Node();
      if (required && required.IsMap())
        STEWARD_RETURN_IF_ERROR(
            NodeAffinity(required["nodeSelectorTerms"],
                         path + ".template.spec.affinity.nodeAffinity."
                                "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
                         &ps));
      if (const YAML::Node tols = pod["tolerations"]; tols && tols.IsSequence())
        for (const auto& t : tols) {
          Toleration tol;
          tol.key = Scalar(t, "key");
          if (std::string op = Scalar(t, "operator"); !op.empty()) tol.op = op;
          tol.value = Scalar(t, "value");
          tol.effect = Scalar(t, "effect");
          ps.tolerations.push_back(std::move(tol));
        }
    }
    w->request.pod_sets.push_back(std::move(ps));
    w->min_counts.push_back(min_count);
    return Status::Ok();
  }

  // nodeSelectorTerms[].matchExpressions[] {key, operator, values}.
  Status NodeAffinity(const YAML::Node& terms, const std::string& path, PodSetRequest* ps) {
    if (!terms) return Status::Ok();
    if (!terms.IsSequence()) return Err(terms, path, "not a list");
    for (size_t t = 0; t < terms.size(); ++t) {
      std::vector<LabelRequirement> term;
      const YAML::Node exprs = terms[t].IsMap() ? terms[t]["matchExpressions"] : YAML::Node();
      if (exprs && !exprs.IsSequence())
        return Err(exprs, fmt::format("{}[{}].matchExpressions", path, t), "not a list");
      for (size_t e = 0; exprs && e < exprs.size(); ++e) {
        const std::string at = fmt::format("{}[{}].matchExpressions[{}]", path, t, e);
        LabelRequirement r;
        r.key = Scalar(exprs[e], "key");
        r.op = Scalar(exprs[e], "operator");
        if (r.key.empty()) return Err(exprs[e], at + ".key", "required");
        if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist" &&
            r.op != "Gt" && r.op != "Lt")
          return Err(exprs[e], at + ".operator",
                     fmt::format("\"{}\" is not In, NotIn, Exists, DoesNotExist, Gt or Lt", r.op));
        if (const YAML::Node vs = exprs[e]["values"]; vs && vs.IsSequence())
          for (const auto& v : vs) r.values.push_back(v.IsScalar() ? v.Scalar() : "");
        term.push_back(std::move(r));
      }
      ps->node_affinity.push_back(std::move(term));
    }
    return Status::Ok();
  }

  // Kueue's workload validation: a container's request above its limit leaves the workload
  // pending for good ("requests must not exceed limits"), as the scheduler does.
  Status CheckRequestsWithinLimits(const YAML::Node& res, const std::string& path,
                                   WorkloadObject* w) {
    std::string over;
    for (const auto& kv : res["limits"]) {
      const std::string r = kv.first.as<std::string>();
      const YAML::Node req = res["requests"][r];
      if (!req || !req.IsScalar()) continue;
      auto limit = ParseQuantity(kv.second.IsScalar() ? kv.second.Scalar() : "", r);
      if (!limit.ok())
        return Err(kv.second, path + ".resources.limits." + r, limit.status().message());
      auto request = ParseQuantity(req.Scalar(), r);
      if (!request.ok())
        return Err(req, path + ".resources.requests." + r, request.status().message());
      if (*request > *limit) over += (over.empty() ? "" : ", ") + r;
    }
    if (!over.empty())
      w->invalid = fmt::format(
          "resources validation failed: {}: requests must not exceed limits ({})", path, over);
    return Status::Ok();
  }

  Status Status_(const YAML::Node& status, WorkloadObject* w) {
    if (const YAML::Node conds = status["conditions"]; conds && conds.IsSequence())
      for (const auto& c : conds) {
        std::string type = Scalar(c, "type"), value = Scalar(c, "status");
        if (type == "Finished" && value == "True") w->finished = true;
        if (type == "QuotaReserved" && value == "True") {
          if (const YAML::Node t = c["lastTransitionTime"]) {
            auto at = ParseKubeTimestamp(t.IsScalar() ? t.Scalar() : "");
            if (!at.ok())
              return Err(t, "status.conditions[QuotaReserved].lastTransitionTime",
                         at.status().message());
            w->quota_reserved_at = SimTime::FromMicros(*at * 1'000'000);
          }
        }
      }
    const YAML::Node adm = status["admission"];
    if (!adm || !adm.IsMap()) return Status::Ok();
    WorkloadAdmission a;
    a.cluster_queue = Scalar(adm, "clusterQueue");
    if (a.cluster_queue.empty()) return Err(adm, "status.admission.clusterQueue", "required");
    const YAML::Node psas = adm["podSetAssignments"];
    if (!psas || !psas.IsSequence())
      return Err(adm, "status.admission.podSetAssignments", "required");
    for (size_t i = 0; i < psas.size(); ++i) {
      const YAML::Node p = psas[i];
      std::string path = fmt::format("status.admission.podSetAssignments[{}]", i);
      WorkloadAdmission::PodSet ps;
      ps.name = Scalar(p, "name");
      if (ps.name.empty()) ps.name = "main";
      auto spec = std::find_if(w->request.pod_sets.begin(), w->request.pod_sets.end(),
                               [&](const PodSetRequest& s) { return s.name == ps.name; });
      if (spec == w->request.pod_sets.end())
        return Err(p, path + ".name", fmt::format("no pod set named {} in spec.podSets", ps.name));
      if (const YAML::Node c = p["count"]) {
        STEWARD_ASSIGN_OR_RETURN(int64_t v, Int(c, path + ".count"));
        ps.count = static_cast<int32_t>(v);
      }
      if (const YAML::Node fl = p["flavors"]; fl && fl.IsMap())
        for (const auto& kv : fl)
          ps.flavors[kv.first.as<std::string>()] = kv.second.as<std::string>();
      a.pod_sets.push_back(std::move(ps));
    }
    w->admission = std::move(a);
    return Status::Ok();
  }

  std::string_view file_;
  SimulationInput* input_;
  std::string name_;
};

}  // namespace

Result<int64_t> ParseKubeTimestamp(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  auto num = [&](size_t pos, size_t len, int64_t* out) {
    if (pos + len > s.size()) return false;
    auto [p, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, *out);
    return ec == std::errc() && p == s.data() + pos + len;
  };
  int64_t y, mo, d, h, mi, se;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':' || !num(0, 4, &y) || !num(5, 2, &mo) || !num(8, 2, &d) ||
      !num(11, 2, &h) || !num(14, 2, &mi) || !num(17, 2, &se) || mo < 1 || mo > 12 || d < 1 ||
      d > 31 || h > 23 || mi > 59 || se > 60)
    return Status::InvalidArgument(
        fmt::format("invalid timestamp \"{}\" (want RFC 3339, e.g. 2024-01-02T03:04:05Z)", s));
  size_t pos = 19;
  if (s[pos] == '.')
    for (++pos; pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]));) ++pos;
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == s.size()) {
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int64_t oh, om;
    if (!num(pos + 1, 2, &oh) || !num(pos + 4, 2, &om))
      return Status::InvalidArgument(fmt::format("invalid timestamp offset in \"{}\"", s));
    offset = (s[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return Status::InvalidArgument(fmt::format("invalid timestamp \"{}\" (zone missing)", s));
  }
  return DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
         mi * 60 + se - offset;
}

Status ImportSimulationYaml(std::string_view text, std::string_view file, SimulationInput* input) {
  WorkloadParser parser(file, input);
  try {
    for (const auto& doc : YAML::LoadAll(std::string(text)))
      STEWARD_RETURN_IF_ERROR(parser.Document(doc));
  } catch (const YAML::Exception& e) {
    return MakeInputError(file, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
  return Status::Ok();
}

Result<SimulationInput> ReadSimulationFiles(const std::vector<std::string>& files) {
  SimulationInput input;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", f));
    std::stringstream ss;
    ss << in.rdbuf();
    STEWARD_RETURN_IF_ERROR(ImportSimulationYaml(ss.str(), f, &input));
  }
  return input;
}

Status FinishSimulationInput(SimulationInput* input) {
  STEWARD_RETURN_IF_ERROR(ValidatePolicy(&input->policy));
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& w : input->workloads)
    if (!seen.emplace(w.request.namespace_name, w.request.name).second)
      return MakeInputError(w.source.file, w.source.line, 1, "metadata.name",
                            fmt::format("Workload {}/{} is declared twice",
                                        w.request.namespace_name, w.request.name));
  return Status::Ok();
}

Result<SimulationInput> LoadSimulationFiles(const std::vector<std::string>& files) {
  STEWARD_ASSIGN_OR_RETURN(SimulationInput input, ReadSimulationFiles(files));
  STEWARD_RETURN_IF_ERROR(FinishSimulationInput(&input));
  return input;
}

namespace {

// Replaces base's objects named like one of `over` and appends `over`; `key` names an object.
template <typename T, typename Key>
void Overlay(std::vector<T>* base, std::vector<T> over, std::string_view kind, Key key,
             std::vector<std::string>* replaced) {
  std::set<std::string> names;
  for (const T& o : over) names.insert(key(o));
  std::set<std::string> removed;
  std::erase_if(*base, [&](const T& b) {
    const std::string k = key(b);
    if (!names.count(k)) return false;
    removed.insert(k);
    return true;
  });
  for (T& o : over) {
    if (removed.count(key(o))) replaced->push_back(fmt::format("{} {}", kind, key(o)));
    base->push_back(std::move(o));
  }
}

}  // namespace

std::vector<std::string> OverlaySimulationInput(SimulationInput* base, SimulationInput overlay) {
  std::vector<std::string> replaced;
  Policy& b = base->policy;
  Policy& o = overlay.policy;
  auto name = [](const auto& x) { return x.name; };
  auto ns_name = [](const auto& x) { return x.namespace_name + "/" + x.name; };
  Overlay(&b.flavors, std::move(o.flavors), "ResourceFlavor", name, &replaced);
  Overlay(&b.cohorts, std::move(o.cohorts), "Cohort", name, &replaced);
  Overlay(&b.cluster_queues, std::move(o.cluster_queues), "ClusterQueue", name, &replaced);
  Overlay(&b.local_queues, std::move(o.local_queues), "LocalQueue", ns_name, &replaced);
  Overlay(&b.priority_classes, std::move(o.priority_classes), "WorkloadPriorityClass", name,
          &replaced);
  Overlay(&b.pod_groups, std::move(o.pod_groups), "PodGroup", ns_name, &replaced);
  Overlay(&b.namespaces, std::move(o.namespaces), "Namespace", name, &replaced);
  Overlay(
      &base->workloads, std::move(overlay.workloads), "Workload",
      [](const WorkloadObject& w) { return w.request.namespace_name + "/" + w.request.name; },
      &replaced);
  if (o.configuration) {
    if (b.configuration) replaced.push_back("Kueue Configuration");
    b.configuration = std::move(o.configuration);
  }
  for (std::string& d : o.passthrough_documents) b.passthrough_documents.push_back(std::move(d));
  for (std::string& w : o.warnings) b.warnings.push_back(std::move(w));
  return replaced;
}

}  // namespace steward::govern
