// The cluster objects a tenancy audit reads, as plain structs with where each came from.
//
//   audit::ObjectSet set;
//   STEWARD_RETURN_IF_ERROR(audit::LoadPaths({"dump/"}, &set));   // audit/loader.h
//   for (const audit::Pod& p : set.pods) ...
//
// Only the fields the checks use are kept; everything else in the input is ignored. Kueue and
// Volcano objects are imported by govern's policy importer into `policy`, so the audit and the
// twin read them the same way. Plain data: no locking, cheap to copy per check.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "govern/policy.h"

namespace steward::audit {

using Labels = std::map<std::string, std::string>;

// An object's identity and origin; what findings list in `objects`.
struct ObjectRef {
  std::string kind;
  std::string namespace_name;  // Empty for cluster-scoped objects.
  std::string name;
  std::string file;
  int line = 0;  // 1-based; 0 = unknown.

  // "Kind/namespace/name" or "Kind/name" (cluster-scoped): stable, used in output.
  std::string Id() const;
};

struct Meta {
  ObjectRef ref;
  Labels labels;
  Labels annotations;
};

struct Namespace {
  Meta meta;
};

// A core/v1 ResourceQuota's spec.hard, keys as written ("requests.nvidia.com/gpu") and amounts
// in govern's canonical units (govern/quantity.h).
struct ResourceQuotaObject {
  Meta meta;
  std::map<std::string, govern::Amount> hard;
};

struct LimitRange {
  Meta meta;
};

struct PolicyRule {
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> verbs;
  std::vector<std::string> resource_names;
};

// Role (namespaced) or ClusterRole.
struct Role {
  Meta meta;
  bool cluster = false;
  std::vector<PolicyRule> rules;
};

struct Subject {
  std::string kind;  // User | Group | ServiceAccount.
  std::string name;
  std::string namespace_name;  // ServiceAccount only.
  // "ServiceAccount:ns:name", "User:name", "Group:name".
  std::string Key() const;
};

// RoleBinding (namespaced) or ClusterRoleBinding.
struct RoleBinding {
  Meta meta;
  bool cluster = false;
  std::string role_kind;  // Role | ClusterRole.
  std::string role_name;
  std::vector<Subject> subjects;
};

// A NetworkPolicy peer: absent selectors are nullopt (not "match all").
struct NetworkPeer {
  std::optional<govern::LabelSelector> pod_selector;
  std::optional<govern::LabelSelector> namespace_selector;
  std::string ip_block;  // CIDR, or empty.
};

struct NetworkRule {
  std::vector<NetworkPeer> peers;  // Empty: all sources/destinations.
};

struct NetworkPolicy {
  Meta meta;
  govern::LabelSelector pod_selector;  // {} selects every pod of the namespace.
  bool ingress_type = false;           // policyTypes contains Ingress (or defaulted).
  bool egress_type = false;
  std::vector<NetworkRule> ingress;
  std::vector<NetworkRule> egress;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
};

struct Node {
  Meta meta;
  std::vector<Taint> taints;
  govern::Amount gpu_capacity = 0;  // status.allocatable (else capacity) nvidia.com/gpu.
};

struct Container {
  std::string name;
  std::map<std::string, govern::Amount> requests;
  std::map<std::string, govern::Amount> limits;
  std::map<std::string, std::string> env;  // Literal values only.
  // Largest of request and limit (extended resources are set in limits only, often).
  govern::Amount Get(const std::string& resource) const;
  bool Has(const std::string& resource) const;
};

struct Pod {
  Meta meta;
  std::string node_name;
  std::string scheduler_name;
  std::map<std::string, std::string> node_selector;
  std::vector<govern::Toleration> tolerations;
  std::vector<Container> containers;
  std::string phase;
  govern::Amount Gpus() const;  // Sum of containers' nvidia.com/gpu.
};

struct PodDisruptionBudget {
  Meta meta;
};

// One configuration of NVIDIA's device plugin (a key of its ConfigMap) that shares GPUs.
struct DevicePluginConfig {
  Meta meta;             // The ConfigMap.
  std::string key;       // Data key: the name nodes select with nvidia.com/device-plugin.config.
  std::string strategy;  // "time-slicing" | "mps".
  int replicas = 1;      // Largest replicas of its resources.
  bool fail_requests_greater_than_one = false;
};

// A kind the input could not provide (an API server that does not serve it, or credentials
// that may not list it): its absence says nothing about the cluster (audit/coverage.h).
struct UnreadKind {
  std::string kind;    // "RoleBinding"
  std::string reason;  // "not served (404 NotFound on /apis/rbac.authorization.k8s.io/...)"
};

struct ObjectSet {
  std::vector<Namespace> namespaces;
  std::vector<ResourceQuotaObject> resource_quotas;
  std::vector<LimitRange> limit_ranges;
  std::vector<Role> roles;
  std::vector<RoleBinding> bindings;
  std::vector<NetworkPolicy> network_policies;
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<DevicePluginConfig> device_plugin_configs;
  govern::Policy policy;  // Kueue and Volcano objects.
  // Objects read but not used by any check: kind -> count.
  std::map<std::string, int> ignored_kinds;
  // Kinds the source could not read (only a cluster read fills this; files are what they are).
  std::vector<UnreadKind> not_read;

  const Role* FindRole(const std::string& kind, const std::string& namespace_name,
                       const std::string& name) const;
  const Node* FindNode(const std::string& name) const;
  size_t ObjectCount() const;
  // Objects of each kind read (Role and ClusterRole apart; ConfigMaps whether used or not).
  std::map<std::string, int> KindCounts() const;
};

}  // namespace steward::audit
