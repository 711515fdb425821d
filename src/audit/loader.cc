// yaml-cpp throws; every call that can throw stays in this file and becomes a Status naming the
// file, line, column, object and field.
#include "audit/loader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "govern/policy_io.h"
#include "model/yaml_checked.h"

namespace steward::audit {
namespace {

namespace fs = std::filesystem;

class ObjectReader {
 public:
  // `keep_location`: objects remember file_ and their line (false for API answers, which have
  // neither; file_ then only names the source in errors).
  ObjectReader(std::string_view file, ObjectSet* set, bool keep_location = true)
      : file_(file), set_(set), keep_location_(keep_location) {}

  // One top-level document: an object or a List of objects.
  Status Document(const YAML::Node& doc) {
    if (!doc.IsDefined() || doc.IsNull()) return Status::Ok();
    if (!doc.IsMap()) return Err(doc, "", "expected an object (a mapping with kind)");
    const std::string kind = Str(doc, "kind");
    ref_ = {};
    ref_.kind = kind;
    if (kind == "List" || (kind.ends_with("List") && doc["items"])) {
      const YAML::Node items = doc["items"];
      if (!items) return Status::Ok();
      if (!items.IsSequence()) return Err(items, "items", "expected a list");
      for (const auto& item : items) STEWARD_RETURN_IF_ERROR(Object(item, kind));
      return Status::Ok();
    }
    return Object(doc, "");
  }

 private:
  Status Object(const YAML::Node& o, const std::string& list_kind) {
    ref_ = {};
    if (!o.IsMap()) return Err(o, "items[]", "expected an object");
    ref_.kind = Str(o, "kind");
    // `kubectl get pods -o json` lists items without kind only in old versions; infer it.
    if (ref_.kind.empty() && list_kind.ends_with("List") && list_kind != "List")
      ref_.kind = list_kind.substr(0, list_kind.size() - 4);
    if (ref_.kind.empty()) return Err(o, "kind", "required");
    const std::string api = Str(o, "apiVersion");
    const std::string group = api.substr(0, api.find('/'));
    const YAML::Node meta = o["metadata"];
    if (meta && !meta.IsMap()) return Err(meta, "metadata", "expected a mapping");
    ref_.name = meta ? Str(meta, "name") : "";
    ref_.namespace_name = meta ? Str(meta, "namespace") : "";
    if (keep_location_) {
      ref_.file = std::string(file_);
      ref_.line = o.Mark().line + 1;
    }
    if (ref_.name.empty()) return Err(meta ? meta : o, "metadata.name", "required");
    // Manifests may leave the namespace out; the API server puts namespaced objects in default.
    static constexpr std::string_view kNamespaced[] = {
        "Pod",         "ResourceQuota", "LimitRange",          "Role",
        "RoleBinding", "NetworkPolicy", "PodDisruptionBudget", "ConfigMap"};
    if (ref_.namespace_name.empty() && std::find(std::begin(kNamespaced), std::end(kNamespaced),
                                                 ref_.kind) != std::end(kNamespaced))
      ref_.namespace_name = "default";

    if (group == "kueue.x-k8s.io" || group == "scheduling.volcano.sh") {
      if (ref_.kind == "Workload" || ref_.kind == "AdmissionCheck" || ref_.kind == "Topology" ||
          ref_.kind == "MultiKueueCluster" || ref_.kind == "MultiKueueConfig") {
        ++set_->ignored_kinds[ref_.kind];
        return Status::Ok();
      }
      return ImportPolicyObject(o);
    }
    Meta m;
    STEWARD_RETURN_IF_ERROR(ReadMeta(o, &m));
    const std::string& k = ref_.kind;
    if (k == "Namespace") {
      set_->namespaces.push_back({m});
      set_->policy.namespaces.push_back({ref_.name, m.labels});
      return Status::Ok();
    }
    if (k == "ResourceQuota") return Quota(o, std::move(m));
    if (k == "LimitRange") {
      set_->limit_ranges.push_back({m});
      return Status::Ok();
    }
    if (k == "Role" || k == "ClusterRole") return RoleDoc(o, std::move(m), k == "ClusterRole");
    if (k == "RoleBinding" || k == "ClusterRoleBinding")
      return Binding(o, std::move(m), k == "ClusterRoleBinding");
    if (k == "NetworkPolicy") return NetPolicy(o, std::move(m));
    if (k == "Node") return NodeDoc(o, std::move(m));
    if (k == "Pod") return PodDoc(o, std::move(m));
    if (k == "PodDisruptionBudget") {
      set_->pdbs.push_back({m});
      return Status::Ok();
    }
    if (k == "ConfigMap") return ConfigMapDoc(o, std::move(m));
    ++set_->ignored_kinds[k];
    return Status::Ok();
  }

  // Kueue/Volcano objects through govern's importer; from an API answer they keep no source.
  Status ImportPolicyObject(const YAML::Node& o) {
    govern::Policy& p = set_->policy;
    const size_t sizes[] = {p.flavors.size(),          p.cohorts.size(),
                            p.cluster_queues.size(),   p.local_queues.size(),
                            p.priority_classes.size(), p.pod_groups.size()};
    STEWARD_RETURN_IF_ERROR(govern::ImportDocument(o, file_, &p));
    if (keep_location_) return Status::Ok();
    auto forget = [](auto& objects, size_t from) {
      for (size_t i = from; i < objects.size(); ++i) objects[i].source = {};
    };
    forget(p.flavors, sizes[0]);
    forget(p.cohorts, sizes[1]);
    forget(p.cluster_queues, sizes[2]);
    forget(p.local_queues, sizes[3]);
    forget(p.priority_classes, sizes[4]);
    forget(p.pod_groups, sizes[5]);
    return Status::Ok();
  }

  Status Err(const YAML::Node& n, std::string_view field, std::string_view what) const {
    const auto mark = n.Mark();
    std::string who = ref_.kind;
    if (!ref_.name.empty())
      who +=
          " " + (ref_.namespace_name.empty() ? ref_.name : ref_.namespace_name + "/" + ref_.name);
    std::string f = who.empty()     ? std::string(field)
                    : field.empty() ? who
                                    : fmt::format("{}: {}", who, field);
    return MakeInputError(file_, mark.line + 1, mark.column + 1, f, what);
  }
  static std::string Str(const YAML::Node& map, const char* key) {
    const YAML::Node v = map[key];
    return v && v.IsScalar() ? v.Scalar() : "";
  }
  Status StringMap(const YAML::Node& n, std::string_view field, Labels* out) const {
    if (!n || n.IsNull()) return Status::Ok();
    if (!n.IsMap()) return Err(n, field, "expected a mapping of strings");
    for (const auto& kv : n) {
      if (!kv.second.IsScalar() && !kv.second.IsNull())
        return Err(kv.second, fmt::format("{}.{}", field, kv.first.Scalar()), "expected a string");
      (*out)[kv.first.Scalar()] = kv.second.IsScalar() ? kv.second.Scalar() : "";
    }
    return Status::Ok();
  }
  Status StringList(const YAML::Node& n, std::string_view field,
                    std::vector<std::string>* out) const {
    if (!n || n.IsNull()) return Status::Ok();
    if (!n.IsSequence()) return Err(n, field, "expected a list of strings");
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) return Err(n[i], fmt::format("{}[{}]", field, i), "expected a string");
      out->push_back(n[i].Scalar());
    }
    return Status::Ok();
  }
  Status ReadMeta(const YAML::Node& o, Meta* m) const {
    m->ref = ref_;
    const YAML::Node meta = o["metadata"];
    if (!meta) return Status::Ok();
    STEWARD_RETURN_IF_ERROR(StringMap(meta["labels"], "metadata.labels", &m->labels));
    return StringMap(meta["annotations"], "metadata.annotations", &m->annotations);
  }
  Status Quantities(const YAML::Node& n, std::string_view field, bool strip_scope,
                    std::map<std::string, govern::Amount>* out) const {
    if (!n || n.IsNull()) return Status::Ok();
    if (!n.IsMap()) return Err(n, field, "expected a mapping of resource quantities");
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      std::string resource = key;
      if (strip_scope) {
        for (std::string_view scope : {"requests.", "limits."})
          if (resource.starts_with(scope)) resource = resource.substr(scope.size());
      }
      const std::string f = fmt::format("{}.{}", field, key);
      if (!kv.second.IsScalar()) return Err(kv.second, f, "expected a quantity");
      auto q = govern::ParseQuantity(kv.second.Scalar(), resource);
      if (!q.ok()) return Err(kv.second, f, q.status().message());
      (*out)[key] = *q;
    }
    return Status::Ok();
  }
  Status Selector(const YAML::Node& n, std::string_view field, govern::LabelSelector* out) const {
    if (!n || n.IsNull()) return Status::Ok();
    if (!n.IsMap()) return Err(n, field, "expected a label selector");
    STEWARD_RETURN_IF_ERROR(
        StringMap(n["matchLabels"], fmt::format("{}.matchLabels", field), &out->match_labels));
    const YAML::Node exprs = n["matchExpressions"];
    if (!exprs || exprs.IsNull()) return Status::Ok();
    if (!exprs.IsSequence())
      return Err(exprs, fmt::format("{}.matchExpressions", field), "expected a list");
    for (size_t i = 0; i < exprs.size(); ++i) {
      const std::string f = fmt::format("{}.matchExpressions[{}]", field, i);
      govern::LabelRequirement r;
      r.key = Str(exprs[i], "key");
      r.op = Str(exprs[i], "operator");
      if (r.key.empty()) return Err(exprs[i], f + ".key", "required");
      if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist")
        return Err(exprs[i], f + ".operator", "must be In, NotIn, Exists or DoesNotExist");
      STEWARD_RETURN_IF_ERROR(StringList(exprs[i]["values"], f + ".values", &r.values));
      out->match_expressions.push_back(std::move(r));
    }
    return Status::Ok();
  }

  Status Quota(const YAML::Node& o, Meta m) {
    ResourceQuotaObject q{std::move(m), {}};
    const YAML::Node spec = o["spec"];
    if (spec && spec.IsMap())
      STEWARD_RETURN_IF_ERROR(Quantities(spec["hard"], "spec.hard", true, &q.hard));
    set_->resource_quotas.push_back(std::move(q));
    return Status::Ok();
  }

  Status RoleDoc(const YAML::Node& o, Meta m, bool cluster) {
    Role r{std::move(m), cluster, {}};
    const YAML::Node rules = o["rules"];
    if (rules && !rules.IsNull()) {
      if (!rules.IsSequence()) return Err(rules, "rules", "expected a list");
      for (size_t i = 0; i < rules.size(); ++i) {
        const std::string f = fmt::format("rules[{}]", i);
        PolicyRule pr;
        STEWARD_RETURN_IF_ERROR(
            StringList(rules[i]["apiGroups"], f + ".apiGroups", &pr.api_groups));
        STEWARD_RETURN_IF_ERROR(StringList(rules[i]["resources"], f + ".resources", &pr.resources));
        STEWARD_RETURN_IF_ERROR(StringList(rules[i]["verbs"], f + ".verbs", &pr.verbs));
        STEWARD_RETURN_IF_ERROR(
            StringList(rules[i]["resourceNames"], f + ".resourceNames", &pr.resource_names));
        if (pr.verbs.empty()) return Err(rules[i], f + ".verbs", "required");
        r.rules.push_back(std::move(pr));
      }
    }
    set_->roles.push_back(std::move(r));
    return Status::Ok();
  }

  Status Binding(const YAML::Node& o, Meta m, bool cluster) {
    RoleBinding b{std::move(m), cluster, "", "", {}};
    const YAML::Node ref = o["roleRef"];
    if (!ref || !ref.IsMap()) return Err(ref ? ref : o, "roleRef", "required, a mapping");
    b.role_kind = Str(ref, "kind");
    b.role_name = Str(ref, "name");
    if (b.role_kind != "Role" && b.role_kind != "ClusterRole")
      return Err(ref, "roleRef.kind", "must be Role or ClusterRole");
    if (cluster && b.role_kind != "ClusterRole")
      return Err(ref, "roleRef.kind", "a ClusterRoleBinding can only refer to a ClusterRole");
    if (b.role_name.empty()) return Err(ref, "roleRef.name", "required");
    const YAML::Node subjects = o["subjects"];
    if (subjects && !subjects.IsNull()) {
      if (!subjects.IsSequence()) return Err(subjects, "subjects", "expected a list");
      for (size_t i = 0; i < subjects.size(); ++i) {
        const std::string f = fmt::format("subjects[{}]", i);
        Subject s{Str(subjects[i], "kind"), Str(subjects[i], "name"),
                  Str(subjects[i], "namespace")};
        if (s.kind != "User" && s.kind != "Group" && s.kind != "ServiceAccount")
          return Err(subjects[i], f + ".kind", "must be User, Group or ServiceAccount");
        if (s.name.empty()) return Err(subjects[i], f + ".name", "required");
        if (s.kind == "ServiceAccount" && s.namespace_name.empty()) {
          if (cluster) return Err(subjects[i], f + ".namespace", "required for a ServiceAccount");
          s.namespace_name = b.meta.ref.namespace_name;
        }
        b.subjects.push_back(std::move(s));
      }
    }
    set_->bindings.push_back(std::move(b));
    return Status::Ok();
  }

  Status Rules(const YAML::Node& n, const std::string& field, const char* peers_key,
               std::vector<NetworkRule>* out) const {
    if (!n || n.IsNull()) return Status::Ok();
    if (!n.IsSequence()) return Err(n, field, "expected a list");
    for (size_t i = 0; i < n.size(); ++i) {
      NetworkRule rule;
      const YAML::Node peers = n[i][peers_key];
      const std::string pf = fmt::format("{}[{}].{}", field, i, peers_key);
      if (peers && !peers.IsNull()) {
        if (!peers.IsSequence()) return Err(peers, pf, "expected a list");
        for (size_t j = 0; j < peers.size(); ++j) {
          const std::string f = fmt::format("{}[{}]", pf, j);
          NetworkPeer peer;
          if (const YAML::Node ps = peers[j]["podSelector"]) {
            peer.pod_selector.emplace();
            STEWARD_RETURN_IF_ERROR(Selector(ps, f + ".podSelector", &*peer.pod_selector));
          }
          if (const YAML::Node ns = peers[j]["namespaceSelector"]) {
            peer.namespace_selector.emplace();
            STEWARD_RETURN_IF_ERROR(
                Selector(ns, f + ".namespaceSelector", &*peer.namespace_selector));
          }
          if (const YAML::Node ip = peers[j]["ipBlock"]) peer.ip_block = Str(ip, "cidr");
          rule.peers.push_back(std::move(peer));
        }
      }
      out->push_back(std::move(rule));
    }
    return Status::Ok();
  }

  Status NetPolicy(const YAML::Node& o, Meta m) {
    NetworkPolicy np;
    np.meta = std::move(m);
    const YAML::Node spec = o["spec"];
    if (!spec || !spec.IsMap()) return Err(spec ? spec : o, "spec", "required, a mapping");
    const YAML::Node ps = spec["podSelector"];
    if (!ps) return Err(spec, "spec.podSelector", "required ({} selects every pod)");
    STEWARD_RETURN_IF_ERROR(Selector(ps, "spec.podSelector", &np.pod_selector));
    std::vector<std::string> types;
    STEWARD_RETURN_IF_ERROR(StringList(spec["policyTypes"], "spec.policyTypes", &types));
    for (const auto& t : types)
      if (t != "Ingress" && t != "Egress")
        return Err(spec["policyTypes"], "spec.policyTypes", "entries must be Ingress or Egress");
    // Kubernetes' default: Ingress always, Egress when egress rules are present.
    np.ingress_type = types.empty() || std::ranges::count(types, "Ingress") > 0;
    np.egress_type =
        types.empty() ? static_cast<bool>(spec["egress"]) : std::ranges::count(types, "Egress") > 0;
    STEWARD_RETURN_IF_ERROR(Rules(spec["ingress"], "spec.ingress", "from", &np.ingress));
    STEWARD_RETURN_IF_ERROR(Rules(spec["egress"], "spec.egress", "to", &np.egress));
    set_->network_policies.push_back(std::move(np));
    return Status::Ok();
  }

  Status NodeDoc(const YAML::Node& o, Meta m) {
    Node n;
    n.meta = std::move(m);
    const YAML::Node spec = o["spec"];
    if (spec && spec["taints"] && !spec["taints"].IsNull()) {
      const YAML::Node taints = spec["taints"];
      if (!taints.IsSequence()) return Err(taints, "spec.taints", "expected a list");
      for (size_t i = 0; i < taints.size(); ++i) {
        Taint t{Str(taints[i], "key"), Str(taints[i], "value"), Str(taints[i], "effect")};
        if (t.key.empty()) return Err(taints[i], fmt::format("spec.taints[{}].key", i), "required");
        n.taints.push_back(std::move(t));
      }
    }
    if (const YAML::Node status = o["status"]) {
      for (const char* which : {"capacity", "allocatable"}) {
        std::map<std::string, govern::Amount> q;
        STEWARD_RETURN_IF_ERROR(
            Quantities(status[which], std::string("status.") + which, false, &q));
        if (q.count("nvidia.com/gpu")) n.gpu_capacity = q["nvidia.com/gpu"];
      }
    }
    set_->nodes.push_back(std::move(n));
    return Status::Ok();
  }

  Status PodDoc(const YAML::Node& o, Meta m) {
    Pod p;
    p.meta = std::move(m);
    const YAML::Node spec = o["spec"];
    if (!spec || !spec.IsMap()) return Err(spec ? spec : o, "spec", "required, a mapping");
    p.node_name = Str(spec, "nodeName");
    p.scheduler_name = Str(spec, "schedulerName");
    if (const YAML::Node st = o["status"]) p.phase = Str(st, "phase");
    STEWARD_RETURN_IF_ERROR(StringMap(spec["nodeSelector"], "spec.nodeSelector", &p.node_selector));
    if (const YAML::Node tols = spec["tolerations"]; tols && !tols.IsNull()) {
      if (!tols.IsSequence()) return Err(tols, "spec.tolerations", "expected a list");
      for (size_t i = 0; i < tols.size(); ++i) {
        govern::Toleration t;
        t.key = Str(tols[i], "key");
        t.value = Str(tols[i], "value");
        t.effect = Str(tols[i], "effect");
        const std::string op = Str(tols[i], "operator");
        t.op = op.empty() ? "Equal" : op;
        if (t.op != "Equal" && t.op != "Exists")
          return Err(tols[i], fmt::format("spec.tolerations[{}].operator", i),
                     "must be Equal or Exists");
        p.tolerations.push_back(std::move(t));
      }
    }
    const YAML::Node containers = spec["containers"];
    if (!containers || !containers.IsSequence())
      return Err(containers ? containers : spec, "spec.containers", "required, a list");
    for (size_t i = 0; i < containers.size(); ++i) {
      const YAML::Node c = containers[i];
      const std::string f = fmt::format("spec.containers[{}]", i);
      if (!c.IsMap()) return Err(c, f, "expected a container");
      Container ct;
      ct.name = Str(c, "name");
      if (const YAML::Node r = c["resources"]; r && !r.IsNull()) {
        if (!r.IsMap()) return Err(r, f + ".resources", "expected a mapping");
        STEWARD_RETURN_IF_ERROR(
            Quantities(r["requests"], f + ".resources.requests", false, &ct.requests));
        STEWARD_RETURN_IF_ERROR(
            Quantities(r["limits"], f + ".resources.limits", false, &ct.limits));
      }
      if (const YAML::Node env = c["env"]; env && !env.IsNull()) {
        if (!env.IsSequence()) return Err(env, f + ".env", "expected a list");
        for (const auto& e : env)
          if (e.IsMap() && e["value"]) ct.env[Str(e, "name")] = Str(e, "value");
      }
      p.containers.push_back(std::move(ct));
    }
    set_->pods.push_back(std::move(p));
    return Status::Ok();
  }

  // NVIDIA device plugin config (k8s-device-plugin README, "Shared Access to GPUs"): each data
  // value is a config file; those with sharing.timeSlicing or sharing.mps share GPUs.
  Status ConfigMapDoc(const YAML::Node& o, Meta m) {
    const YAML::Node data = o["data"];
    if (!data || !data.IsMap()) {
      ++set_->ignored_kinds["ConfigMap"];
      return Status::Ok();
    }
    bool used = false;
    for (const auto& kv : data) {
      if (!kv.second.IsScalar()) continue;
      const std::string& text = kv.second.Scalar();
      if (text.find("sharing") == std::string::npos) continue;
      YAML::Node cfg;
      try {
        cfg = YAML::Load(text);
      } catch (const YAML::Exception& e) {
        // Positions inside a block scalar: the value's first line + the inner line.
        YAML::Mark mark = kv.second.Mark();
        mark.line += e.mark.line + 1;
        return MakeInputError(file_, mark.line + 1, e.mark.column + 1,
                              fmt::format("ConfigMap {}/{}: data.{}", ref_.namespace_name,
                                          ref_.name, kv.first.Scalar()),
                              e.msg);
      }
      if (!cfg.IsMap() || !cfg["sharing"] || !cfg["sharing"].IsMap()) continue;
      const YAML::Node sharing = cfg["sharing"];
      for (const char* strategy : {"timeSlicing", "mps"}) {
        const YAML::Node s = sharing[strategy];
        if (!s || !s.IsMap()) continue;
        DevicePluginConfig d;
        d.meta = m;
        d.key = kv.first.Scalar();
        d.strategy = std::string_view(strategy) == "mps" ? "mps" : "time-slicing";
        const YAML::Node fail = s["failRequestsGreaterThanOne"];
        d.fail_requests_greater_than_one = fail && fail.IsScalar() && fail.Scalar() == "true";
        if (const YAML::Node res = s["resources"]; res && res.IsSequence())
          for (const auto& r : res)
            if (r["replicas"] && r["replicas"].IsScalar())
              d.replicas = std::max(d.replicas, std::atoi(r["replicas"].Scalar().c_str()));
        set_->device_plugin_configs.push_back(std::move(d));
        used = true;
      }
    }
    if (!used) ++set_->ignored_kinds["ConfigMap"];
    return Status::Ok();
  }

  std::string_view file_;
  ObjectSet* set_;
  bool keep_location_ = true;
  ObjectRef ref_;  // The object being read, for messages.
};

}  // namespace

Status ParseObjects(std::string_view text, std::string_view source, ObjectSet* set) {
  // Never YAML::LoadAll directly: it hangs on a stray ',' (model/yaml_checked.h).
  STEWARD_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, model::LoadYamlDocuments(text, source));
  ObjectReader reader(source, set);
  for (const auto& doc : docs) {
    try {
      STEWARD_RETURN_IF_ERROR(reader.Document(doc));
    } catch (const YAML::Exception& e) {
      return MakeInputError(source, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg);
    }
  }
  return Status::Ok();
}

namespace {

// A JSON value as a yaml-cpp node (no marks: positions read as unknown).
YAML::Node ToYaml(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node n(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items()) n[key] = ToYaml(value);
      return n;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node n(YAML::NodeType::Sequence);
      for (const auto& value : j) n.push_back(ToYaml(value));
      return n;
    }
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return YAML::Node(YAML::NodeType::Null);
    case nlohmann::json::value_t::string:
      return YAML::Node(j.get<std::string>());
    default:
      return YAML::Node(j.dump());  // Numbers and booleans as their JSON text.
  }
}

}  // namespace

Status ParseApiList(const nlohmann::json& document, std::string_view source, ObjectSet* set) {
  ObjectReader reader(source, set, /*keep_location=*/false);
  try {
    return reader.Document(ToYaml(document));
  } catch (const YAML::Exception& e) {
    return MakeInputError(source, 0, 0, "yaml", e.msg);
  }
}

Status FinishObjects(ObjectSet* set) { return govern::ValidatePolicy(&set->policy); }

Status LoadPaths(const std::vector<std::string>& paths, ObjectSet* set) {
  STEWARD_RETURN_IF_ERROR(ReadPaths(paths, set));
  return FinishObjects(set);
}

Status ReadPaths(const std::vector<std::string>& paths, ObjectSet* set) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".json" || ext == ".yaml" || ext == ".yml"))
          in_dir.push_back(e.path().string());
      }
      if (ec) return Status::IoError(fmt::format("{}: cannot list: {}", p, ec.message()));
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p);
    }
  }
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) return Status::IoError(fmt::format("{}: cannot open", f));
    std::stringstream ss;
    ss << in.rdbuf();
    STEWARD_RETURN_IF_ERROR(ParseObjects(ss.str(), f, set));
  }
  return Status::Ok();
}

}  // namespace steward::audit
