// A ClusterControl in memory for the rollout engine's tests: nodes and GPU pods the test sets,
// a clock the test moves, and a record of every action.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "control/cluster_control.h"

namespace steward::rollout::testing {

class FakeControl final : public control::ClusterControl {
 public:
  SimTime now = SimTime::FromMicros(0);
  std::map<std::string, control::NodeInfo> nodes;
  std::map<std::string, std::vector<control::PodInfo>> pods;  // By node.
  bool evictions_refused = false;  // Every Evict is Unavailable (a PodDisruptionBudget).
  struct Eviction {
    std::string pod;
    SimDuration grace;
  };
  std::vector<Eviction> evictions;
  std::vector<std::string> actions;  // "cordon n", "uncordon n", "label n k=v".

  void AddNode(const std::string& name, int gpus = 8,
               std::map<std::string, std::string> labels = {}) {
    control::NodeInfo n;
    n.name = name;
    n.gpu_capacity = n.gpu_allocatable = gpus;
    n.labels = std::move(labels);
    n.conditions.push_back({"Ready", true, "KubeletReady"});
    nodes[name] = n;
  }
  void AddPod(const std::string& node, const std::string& name, bool checkpoints) {
    control::PodInfo p;
    p.ref = {"training", name};
    p.node = node;
    p.can_checkpoint = checkpoints;
    p.running = true;
    p.gpus = 8;
    pods[node].push_back(p);
  }
  std::string LabelOf(const std::string& node, const std::string& key) const {
    auto n = nodes.find(node);
    if (n == nodes.end()) return "";
    auto it = n->second.labels.find(key);
    return it == n->second.labels.end() ? "" : it->second;
  }

  SimTime Now() const override { return now; }
  std::optional<control::NodeInfo> Node(std::string_view name) const override {
    auto it = nodes.find(std::string(name));
    if (it == nodes.end()) return std::nullopt;
    return it->second;
  }
  std::vector<control::NodeInfo> Nodes() const override {
    std::vector<control::NodeInfo> out;
    for (const auto& [k, v] : nodes) out.push_back(v);
    return out;
  }
  std::vector<control::PodInfo> PodsOnNode(std::string_view node) const override {
    auto it = pods.find(std::string(node));
    return it == pods.end() ? std::vector<control::PodInfo>{} : it->second;
  }
  Status Cordon(std::string_view node, bool cordoned, std::string_view) override {
    nodes.at(std::string(node)).unschedulable = cordoned;
    actions.push_back(fmt::format("{} {}", cordoned ? "cordon" : "uncordon", node));
    return Status::Ok();
  }
  Status LabelNode(std::string_view node, std::string_view key, std::optional<std::string> value,
                   std::string_view) override {
    auto& labels = nodes.at(std::string(node)).labels;
    if (value)
      labels[std::string(key)] = *value;
    else
      labels.erase(std::string(key));
    actions.push_back(fmt::format("label {} {}={}", node, key, value.value_or("")));
    return Status::Ok();
  }
  Status TaintNode(std::string_view, const model::Taint&, bool, std::string_view) override {
    return Status::Ok();
  }
  Status Annotate(const control::ObjectRef&, std::string_view, std::optional<std::string>,
                  std::string_view) override {
    return Status::Ok();
  }
  Status Evict(const control::PodRef& pod, SimDuration grace, std::string_view) override {
    if (evictions_refused) return Status::Unavailable("disruption budget");
    evictions.push_back({pod.name, grace});
    return Status::Ok();
  }
  Status EmitEvent(const control::ObjectRef&, std::string_view, std::string_view,
                   std::string_view) override {
    return Status::Ok();
  }
};

}  // namespace steward::rollout::testing
