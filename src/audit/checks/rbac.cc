// RBAC layer: what the subjects acting for a tenant are granted, through every binding that
// names them (a tenant's subject is a ServiceAccount of its namespaces, or a user or group
// bound in one of them).
#include <fmt/format.h>

#include <set>

#include "audit/checks/checks.h"

namespace steward::audit::checks {
namespace {

std::string Tenants(const AuditContext& c, const std::string& subject) {
  const auto& t = c.tenants.OfSubject(subject);
  return Join({t.begin(), t.end()}, ",");
}

std::string RevokeCommand(const RoleBinding& b) {
  return b.cluster ? fmt::format("kubectl delete clusterrolebinding {}", b.meta.ref.name)
                   : fmt::format("kubectl -n {} delete rolebinding {}", b.meta.ref.namespace_name,
                                 b.meta.ref.name);
}

std::string Scope(const Grant& g) {
  return g.scope.empty() ? "in every namespace" : "in namespace " + g.scope;
}

std::vector<ObjectRef> Refs(const Grant& g) {
  std::vector<ObjectRef> r = {g.binding->meta.ref};
  if (g.role) r.push_back(g.role->meta.ref);
  return r;
}

// One finding per (subject, binding, role) for the grants matching `pred`.
template <typename Pred, typename Msg, typename Fix>
void PerBinding(const AuditContext& c, const Check& check, std::vector<Finding>* out, Pred pred,
                Msg msg, Fix fix) {
  for (const auto& [subject, grants] : TenantGrants(c)) {
    std::set<std::pair<const RoleBinding*, const Role*>> seen;
    for (const Grant& g : grants) {
      if (!pred(subject, g) || !seen.insert({g.binding, g.role}).second) continue;
      out->push_back(check.Make(Tenants(c, subject), Refs(g), msg(subject, g), fix(subject, g)));
    }
  }
}

}  // namespace

void ClusterAdminBinding(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  PerBinding(
      c, check, out, [](const std::string&, const Grant& g) { return IsClusterAdmin(g); },
      [&](const std::string& s, const Grant& g) {
        return fmt::format("{} (tenant {}) is bound to cluster-admin by {} {}: full control {}", s,
                           Tenants(c, s), g.binding->meta.ref.kind, g.binding->meta.ref.name,
                           Scope(g));
      },
      [](const std::string&, const Grant& g) {
        return RevokeCommand(*g.binding) +
               "   # then grant ClusterRole admin with a RoleBinding in each tenant namespace";
      });
}

void CreatePodsElsewhere(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  PerBinding(
      c, check, out,
      [&](const std::string& s, const Grant& g) {
        if (IsClusterAdmin(g) || !Allows(g, "", "pods", "create")) return false;
        if (g.scope.empty()) return true;
        return !c.tenants.OfSubject(s).count(c.tenants.OfNamespace(g.scope));
      },
      [&](const std::string& s, const Grant& g) {
        return fmt::format("{} (tenant {}) can create pods {} through {} {} -> {} {}", s,
                           Tenants(c, s), Scope(g), g.binding->meta.ref.kind,
                           g.binding->meta.ref.name, g.binding->role_kind, g.binding->role_name);
      },
      [](const std::string&, const Grant& g) {
        return RevokeCommand(*g.binding) +
               "   # bind the role with RoleBindings in the tenant's own namespaces instead";
      });
}

void WildcardRule(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  PerBinding(
      c, check, out,
      [](const std::string&, const Grant& g) {
        if (!g.rule) return false;  // cluster-admin: reported by rbac.cluster-admin.
        auto star = [](const std::vector<std::string>& v) {
          for (const auto& x : v)
            if (x == "*") return true;
          return false;
        };
        return star(g.rule->verbs) || star(g.rule->resources) || star(g.rule->api_groups);
      },
      [&](const std::string& s, const Grant& g) {
        return fmt::format(
            "{} {} grants apiGroups [{}] resources [{}] verbs [{}] to {} (tenant "
            "{}) {}",
            g.role->meta.ref.kind, g.role->meta.ref.name, Join(g.rule->api_groups),
            Join(g.rule->resources), Join(g.rule->verbs), s, Tenants(c, s), Scope(g));
      },
      [](const std::string&, const Grant& g) {
        const auto& r = g.role->meta.ref;
        return fmt::format(
            "kubectl {}edit {} {}   # replace * with the resources and verbs the tenant needs, "
            "e.g. resources: [pods, jobs] verbs: [get, list, watch, create, delete]",
            r.namespace_name.empty() ? "" : "-n " + r.namespace_name + " ",
            r.kind == "Role" ? "role" : "clusterrole", r.name);
      });
}

void EscalationVerbs(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  auto explicit_verbs = [](const Grant& g) {
    std::vector<std::string> v;
    if (!g.rule) return v;
    for (const auto& verb : g.rule->verbs)
      if (verb == "escalate" || verb == "bind" || verb == "impersonate") v.push_back(verb);
    return v;
  };
  PerBinding(
      c, check, out, [&](const std::string&, const Grant& g) { return !explicit_verbs(g).empty(); },
      [&](const std::string& s, const Grant& g) {
        return fmt::format(
            "{} (tenant {}) is granted [{}] on [{}] {} by {} {}: it can raise its "
            "own rights",
            s, Tenants(c, s), Join(explicit_verbs(g)), Join(g.rule->resources), Scope(g),
            g.role->meta.ref.kind, g.role->meta.ref.name);
      },
      [](const std::string&, const Grant& g) {
        const auto& r = g.role->meta.ref;
        return fmt::format("kubectl {}edit {} {}   # remove escalate, bind and impersonate",
                           r.namespace_name.empty() ? "" : "-n " + r.namespace_name + " ",
                           r.kind == "Role" ? "role" : "clusterrole", r.name);
      });
}

void QuotaSelfService(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  struct Target {
    const char* group;
    const char* resource;
  };
  static constexpr Target kTargets[] = {{"kueue.x-k8s.io", "clusterqueues"},
                                        {"kueue.x-k8s.io", "resourceflavors"},
                                        {"kueue.x-k8s.io", "cohorts"},
                                        {"scheduling.volcano.sh", "queues"},
                                        {"", "resourcequotas"},
                                        {"", "nodes"}};
  auto what = [](const Grant& g) {
    std::vector<std::string> v;
    for (const Target& t : kTargets)
      for (const char* verb : {"update", "patch", "create", "delete"})
        if (Allows(g, t.group, t.resource, verb)) {
          v.push_back(t.resource);
          break;
        }
    return v;
  };
  PerBinding(
      c, check, out,
      [&](const std::string&, const Grant& g) { return !IsClusterAdmin(g) && !what(g).empty(); },
      [&](const std::string& s, const Grant& g) {
        return fmt::format(
            "{} (tenant {}) can change [{}] {} through {} {}: a tenant that can "
            "change its own quota or nodes",
            s, Tenants(c, s), Join(what(g)), Scope(g), g.role->meta.ref.kind,
            g.role->meta.ref.name);
      },
      [](const std::string&, const Grant& g) {
        const auto& r = g.role->meta.ref;
        return fmt::format(
            "kubectl {}edit {} {}   # keep only get/list/watch on quota objects and nodes",
            r.namespace_name.empty() ? "" : "-n " + r.namespace_name + " ",
            r.kind == "Role" ? "role" : "clusterrole", r.name);
      });
}

}  // namespace steward::audit::checks
